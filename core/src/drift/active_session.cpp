#include "antidrift/drift/active_session.h"

#include "antidrift/evidence/web_join.h"
#include "antidrift/text/utf8.h"

namespace antidrift::drift {

Observation admitWindow(const Rules& rules, const Observation& raw) {
  Observation obs;
  obs.atMs = raw.atMs;
  obs.app = normalizeApp(raw.app);
  obs.title = sanitizeTitle(raw.title);
  // A private window's title is never stored, shown, logged or sent, nor the
  // site of its page (issue 16 item 4: an incognito tab marks it private).
  obs.privateWindow = raw.privateWindow || isPrivateWindow(obs.app, obs.title);
  // The title rules run here, once per window, so the Controller runs them
  // before its lock (issue 19 item 7, review L5); a private window's on its
  // raw title, before it is dropped (issue 19 item 3).
  if (auto blocked = rules.blockedTitleReason(obs)) obs.blockedTitle = *blocked;
  obs.titleRulesChecked = true;
  if (obs.privateWindow) {
    // The local tiers may still read what it shows, in memory only
    // (docs/DESIGN.md §4 "Private windows").
    if (rules.privateWindows() != Settings::PrivateWindows::Ignore) {
      obs.localTitle = std::move(obs.title);
      obs.localDomain = text::sanitizeUtf8(raw.domain, text::LineBreaks::Remove, kMaxDomainBytes);
    }
    obs.title = std::string(kPrivateWindowTitle);
  } else {
    obs.domain = text::sanitizeUtf8(raw.domain, text::LineBreaks::Remove, kMaxDomainBytes);
  }
  obs.source = raw.source;
  return obs;
}

ActiveSession::ActiveSession(const Settings& settings)
    : stats(settings.idleAfterSecs * 1000), engine(settings) {}

std::int64_t ActiveSession::step(Decision& decision, std::int64_t atMs, const std::string& app,
                                 bool away, AdvisorPort& port) {
  recordDecision(decision, engine.view(), stats);
  if (decision.judge) port.askJudge(std::move(*decision.judge));
  if (decision.nudge) port.askNudge(std::move(*decision.nudge));
  return track(atMs, app, away);
}

std::optional<std::int64_t> ActiveSession::answerNudge(const std::optional<std::string>& message,
                                                       std::int64_t atMs, const std::string& app,
                                                       bool away) {
  if (!engine.applyNudge(message)) return std::nullopt;
  return track(atMs, app, away);  // the heads-up starts or ends a span
}

std::int64_t ActiveSession::track(std::int64_t atMs, const std::string& app, bool away) {
  const SpanStatus status = spanStatusOf(engine.view(), away);
  timeline.record(atMs, app, status, !engine.view().nudge.empty());
  std::string where;  // issue 17 item 5: the site of the drift, else its app
  if (status == SpanStatus::Drifting) {
    where = engine.subjectSite();
    if (where.empty()) where = engine.view().app;
  }
  focus.record(atMs, status, where, engine.continuesStay());
  // The open drift is credited as far as the timeline: the stats' drift
  // time beside the timeline's drifting spans.
  const std::int64_t creditedMs = engine.creditOpenDrift(atMs);
  stats.addDriftMs(creditedMs);
  return creditedMs;
}

std::int64_t ActiveSession::creditUntil(std::int64_t atMs) {
  stats.settle(atMs);
  timeline.extendTo(atMs);
  focus.extendTo(atMs);
  const std::int64_t driftMs = engine.close(atMs);
  stats.addDriftMs(driftMs);
  return driftMs;
}

void ActiveSession::clear(const Settings& settings, bool away, std::int64_t nowMs) {
  stats = StatsAccumulator(settings.idleAfterSecs * 1000);
  timeline.clear();
  focus.clear();
  if (away) stats.setAway(true, nowMs);
  engine.reset();
}

}  // namespace antidrift::drift
