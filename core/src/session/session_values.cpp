#include "session/session_values.h"

#include <algorithm>
#include <iterator>

#include <Poco/String.h>
#include "antidrift/text/utf8.h"

namespace antidrift::session {

// ---- SessionClock (issue 9 item 2) ----------------------------------------------------------

SessionClock SessionClock::startNow(const Clock& clock, std::int64_t timeboxMs) {
  SessionClock session;
  session.deadlineBoot = clock.bootMs() + timeboxMs;
  session.monoStart = clock.monotonicMs();
  session.suspendBase = clock.bootMs() - clock.monotonicMs();
  return session;
}

SessionClock SessionClock::resume(const Clock& clock, std::int64_t startedAtMs,
                                  std::int64_t suspendedMs, std::int64_t remainingMs) {
  SessionClock session;
  // Monotonic time does not survive a restart: the session's clock picks up
  // from the wall clock (the time down is not credited: stats resume).
  session.monoStart =
      clock.monotonicMs() - std::max<std::int64_t>(0, clock.nowUtcMs() - startedAtMs);
  session.suspendBase = clock.bootMs() - clock.monotonicMs() - suspendedMs;
  if (remainingMs > 0) session.deadlineBoot = clock.bootMs() + remainingMs;
  return session;
}

std::int64_t SessionClock::now(const Clock& clock, std::int64_t startedAtMs) const {
  return startedAtMs + std::max<std::int64_t>(0, clock.monotonicMs() - monoStart);
}

std::int64_t SessionClock::suspendedMs(const Clock& clock) const {
  return std::max<std::int64_t>(0, clock.bootMs() - clock.monotonicMs() - suspendBase);
}

std::int64_t SessionClock::remainingMs(const Clock& clock) const {
  return std::max<std::int64_t>(0, deadlineBoot - clock.bootMs());
}

std::int64_t SessionClock::deadlineMono(const Clock& clock) const {
  return deadlineBoot - (clock.bootMs() - clock.monotonicMs());
}

// ---- Session --------------------------------------------------------------------------------

void Session::clear(const Settings& settings, bool away, std::int64_t nowMs) {
  commitment.reset();
  outcome = Outcome::None;
  endedAtMs = 0;
  ActiveSession::clear(settings, away, nowMs);
}

// ---- Review (seed 004) ----------------------------------------------------------------------

void Review::applyReviewer(bool inReview) {
  const std::optional<ai::Reflection>& value = reviewer.value();
  const bool ready = reviewer.status() == AsyncStatus::Ready && value && !value->empty();
  if (ready && !value->carryForward.empty()) lastCarryForward = value->carryForward;
  if (!inReview) return;  // ended meanwhile: only the carry-forward stays
  if (ready) {
    reflection = ReflectionRecord{ReflectionStatus::Ready, value->recap, value->carryForward};
  } else if (!reflection.recap.empty()) {
    reflection.status = ReflectionStatus::Ready;  // the re-run failed: the earlier recap stands
  } else {
    reflection = ReflectionRecord{ReflectionStatus::Absent, "", ""};
    if (!fallback.empty()) lastCarryForward = fallback;  // issue 17 item 5
  }
}

void Review::keepCarryForward() {
  if (!reflection.carryForward.empty()) lastCarryForward = reflection.carryForward;
}

void Review::clearSession() {
  reflection = ReflectionRecord{};
  answer = ReviewAnswer{};
  fallback.clear();
}

// ---- Planning (seed 003) --------------------------------------------------------------------

void Planning::reset() {
  coach.reset();
  tasks.reset();
  profile.reset();
}

void Planning::show(State& state) const {
  state.lastAllowedApps = lastAllowedApps;
  state.coach.status = coach.status();
  state.coach.proposal = coach.value();
  state.coach.error = coach.error();
  const auto loadStatus = [](AsyncStatus status, bool ready) {
    if (status == AsyncStatus::Ready) return ready ? GroundingStatus::Ready : GroundingStatus::None;
    if (status == AsyncStatus::Error) return GroundingStatus::None;
    return status == AsyncStatus::Pending ? GroundingStatus::Pending : GroundingStatus::Idle;
  };
  const auto& taskList = tasks.value();
  state.tasks.status =
      loadStatus(tasks.status(), taskList && taskList->status == planning::LoadStatus::Ready);
  if (taskList) state.tasks.items = taskList->tasks;
  const auto& loaded = profile.value();
  state.profile.status =
      loadStatus(profile.status(), loaded && loaded->status == planning::LoadStatus::Ready);
  if (loaded) state.profile.bytes = loaded->bytes;
}

// ---- Evidence (docs/DESIGN.md §3)
// -------------------------------------------------------------------

bool Evidence::currentFromRunningSource() const {
  return current && std::find(runningSources.begin(), runningSources.end(), current->source) !=
                        runningSources.end();
}

Health Evidence::health(std::int64_t nowMono, bool active, std::int64_t freshMs) const {
  // The window in front came from a source that has stopped: it is no evidence any more.
  if (current && std::find(stoppedSources.begin(), stoppedSources.end(), current->source) !=
                     stoppedSources.end()) {
    return Health::Unavailable;
  }
  // Outside a session the sources send no heartbeats (issue 8 item 2: nothing
  // wakes while nothing happens); a running source's silence means no change.
  if (!active && currentFromRunningSource()) return Health::Ok;
  if (lastObservationMono >= 0 && nowMono - lastObservationMono < freshMs) return Health::Ok;
  if (!runningSources.empty() || lastObservationMono >= 0) return Health::Stale;
  return Health::Unavailable;
}

bool Evidence::setSourceRunning(const std::string& source, bool running) {
  auto it = std::find(runningSources.begin(), runningSources.end(), source);
  if (running == (it != runningSources.end())) return false;
  const auto stopped = std::find(stoppedSources.begin(), stoppedSources.end(), source);
  if (running) {
    runningSources.push_back(source);
    if (stopped != stoppedSources.end()) stoppedSources.erase(stopped);
  } else {
    runningSources.erase(it);
    if (stopped == stoppedSources.end()) stoppedSources.push_back(source);
  }
  return true;
}

bool Evidence::offersApps(const std::string& source) const {
  return runningSources.empty() ||
         std::find(runningSources.begin(), runningSources.end(), source) != runningSources.end();
}

void Evidence::seeApp(const std::string& app, std::int64_t nowMono, std::int64_t recentMs,
                      std::size_t maxApps) {
  recentApps[app] = nowMono;
  // Only the last recentMs are ever offered: drop older entries so a
  // watcher that invents classes cannot grow the map (issue 19 item 7).
  if (recentApps.size() <= maxApps) return;
  const std::int64_t since = nowMono - recentMs;
  for (auto it = recentApps.begin(); it != recentApps.end();) {
    it = it->second < since ? recentApps.erase(it) : std::next(it);
  }
  while (recentApps.size() > maxApps) {  // many within the window: the oldest go
    recentApps.erase(
        std::min_element(recentApps.begin(), recentApps.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; }));
  }
}

std::vector<std::string> Evidence::appChoices(std::int64_t nowMono, std::int64_t recentMs,
                                              const std::vector<std::string>& historyApps,
                                              std::size_t maxChoices) const {
  std::vector<std::pair<std::int64_t, std::string>> seen;
  const std::int64_t since = nowMono - recentMs;
  for (const auto& [app, atMono] : recentApps) {
    if (atMono >= since) seen.emplace_back(atMono, app);
  }
  std::sort(seen.begin(), seen.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> choices;
  const auto offer = [&choices, maxChoices](const std::string& app) {
    if (choices.size() < maxChoices && app != "unknown" &&
        std::find(choices.begin(), choices.end(), app) == choices.end()) {
      choices.push_back(app);
    }
  };
  for (const auto& entry : seen) offer(entry.second);
  for (const auto& app : historyApps) offer(app);
  return choices;
}

// ---- Helpers --------------------------------------------------------------------------------

Snapshot snapshotOf(const Values& values, std::int64_t savedAtMs) {
  Snapshot snapshot;
  snapshot.runtime = values.runtime;
  snapshot.commitment = values.session.commitment;
  snapshot.outcome = values.session.outcome;
  snapshot.endedAtMs = values.session.endedAtMs;
  snapshot.stats = values.session.stats.stats();
  snapshot.timeline = values.session.timeline.spans();
  snapshot.timelineSplit = values.session.timeline.split();
  snapshot.focus = values.session.focus.state();
  // The verdict about the window in front, so a restart mid-stay continues it (issue 17 item 4).
  if (values.runtime == RuntimeState::Active) snapshot.driftStay = values.session.engine.stay();
  snapshot.reflection = values.review.reflection;
  snapshot.review = values.review.answer;
  snapshot.lastCarryForward = values.review.lastCarryForward;
  snapshot.lastAllowedApps = values.planning.lastAllowedApps;
  snapshot.savedAtMs = savedAtMs;
  return snapshot;
}

void restoreFrom(const Snapshot& snapshot, Values& values) {
  values.runtime = snapshot.runtime;
  values.session.commitment = snapshot.commitment;
  values.session.outcome = snapshot.outcome;
  values.session.endedAtMs = snapshot.endedAtMs;
  values.session.stats.resume(snapshot.stats);
  values.session.timeline.restore(snapshot.timeline, snapshot.timelineSplit);
  values.session.focus.restore(snapshot.focus);
  values.review.reflection = snapshot.reflection;
  values.review.answer = snapshot.review;
  values.review.lastCarryForward = snapshot.lastCarryForward;
  values.planning.lastAllowedApps = snapshot.lastAllowedApps;
  values.session.engine.reset();
  if (snapshot.driftStay && snapshot.runtime == RuntimeState::Active) {
    values.session.engine.resumeStay(*snapshot.driftStay);  // issue 17 item 4
  }
}

SessionSummary summaryOf(const Session& session, const Review& review) {
  const SessionStats& stats = session.stats.stats();
  const Commitment& commitment = *session.commitment;
  SessionSummary summary;
  summary.id = commitment.id;
  summary.startedAtMs = commitment.startedAtMs;
  summary.endedAtMs = session.endedAtMs;
  summary.nextAction = commitment.nextAction;
  summary.successCondition = commitment.successCondition;
  summary.timeboxSecs = commitment.timeboxSecs;
  summary.outcome = session.outcome;
  summary.switches = stats.switches;
  summary.topBuckets = stats.topBucketsSecs(5);
  summary.driftEpisodes = stats.driftEpisodes;
  summary.shape = SummaryShape::Detailed;
  summary.plannedSecs = commitment.timeboxSecs + commitment.extendedSecs;
  summary.extendedSecs = commitment.extendedSecs;
  summary.driftSecs = stats.driftMs / 1000;
  summary.awaySecs = stats.awayMs / 1000;
  summary.onTaskSecs = session.timeline.onTaskMs() / 1000;
  summary.corrections = stats.corrections;
  summary.aiCost = stats.aiCost;  // issue 18 item 4
  summary.driftReasons = stats.driftReasons;
  summary.success = review.answer.success;
  summary.note = review.answer.note;
  if (!review.reflection.recap.empty()) {  // ready, or an earlier recap while a re-run is pending
    summary.recap = review.reflection.recap;
    summary.carryForward = review.reflection.carryForward;
  }
  summary.timeline = session.timeline.spans();
  if (session.focus.state().complete) {  // issue 17 item 5; else unknown, not 0
    summary.driftBySite = session.focus.topSites(kMaxSummarySites);
    summary.longestStretch = session.focus.longest();
  }
  return capSummary(std::move(summary));
}

ai::SessionFacts factsOf(const SessionSummary& summary) {
  ai::SessionFacts facts;
  facts.nextAction = summary.nextAction;
  facts.successCondition = summary.successCondition;
  facts.outcome = toString(summary.outcome);
  facts.plannedSecs =
      summary.shape == SummaryShape::Detailed ? summary.plannedSecs : summary.timeboxSecs;
  facts.actualSecs = std::max<std::int64_t>(0, (summary.endedAtMs - summary.startedAtMs) / 1000);
  facts.onTaskSecs = summary.onTaskSecs;
  facts.driftSecs = summary.driftSecs;
  facts.switches = summary.switches;
  facts.driftEpisodes = summary.driftEpisodes;
  facts.corrections = summary.corrections;
  facts.topBuckets = summary.topBuckets;
  facts.driftReasons = summary.driftReasons;
  facts.success = summary.success;
  facts.note = summary.note;
  if (summary.driftBySite) {  // issue 17 item 5
    for (const SiteDrift& site : *summary.driftBySite) {
      facts.driftBySite.push_back(ai::DriftPlace{site.where, site.driftMs / 1000, site.visits});
    }
  }
  if (summary.longestStretch) facts.longestOnTaskSecs = summary.longestStretch->onTaskMs / 1000;
  return facts;
}

std::vector<std::string> normalizeApps(const std::vector<std::string>& apps) {
  std::vector<std::string> out;
  for (const auto& raw : apps) {
    // A blank entry would become "unknown" and make class-less windows on task.
    if (Poco::trim(sanitizeTitle(raw)).empty()) continue;
    const std::string app = normalizeApp(raw);
    if (std::find(out.begin(), out.end(), app) == out.end()) out.push_back(app);
  }
  return out;
}

std::size_t utf8Chars(const std::string& text) {
  return text::countCodePoints(text);
}

}  // namespace antidrift::session
