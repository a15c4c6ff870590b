/// @file active_session.h
/// drift::ActiveSession — the steps of an active session, written once for
/// the Controller and the replay (issue 15 item 2): a window admitted as
/// evidence, observed into the stats, judged by the drift engine, a
/// decision recorded into the stats and the timeline, a verdict applied, and
/// the session's time credited at its end (docs/DESIGN.md §3, §4, §14).
/// The Controller (core/src/session/controller.cpp) runs them under its lock
/// and launches the AI calls a decision asks for on its executor; the replay
/// (core/src/replay/replay.cpp) answers them synchronously at the same
/// instant. Both therefore count, judge and colour a window the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "antidrift/ai/judge.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/drift/engine.h"
#include "antidrift/drift/rules.h"
#include "antidrift/evidence/focus_tally.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/settings.h"

namespace antidrift::drift {

/// A raw window made evidence (docs/DESIGN.md §3; issue 16 item 4; issue 19
/// item 3): the app normalised (normalizeApp), the title sanitised
/// (sanitizeTitle), and — for a private window (`raw.privateWindow`, or
/// isPrivateWindow of the app and title) — the title replaced by
/// kPrivateWindowTitle and the site dropped (both kept in localTitle and
/// localDomain, in memory, for the local tiers, unless drift.private_windows
/// = ignore: docs/DESIGN.md §4 "Private windows"); otherwise the site is kept,
/// cut to kMaxDomainBytes. The drift.blocked_titles patterns of `rules` run
/// here, on the sanitised title (a private window's before it is dropped):
/// their reason in blockedTitle, titleRulesChecked set, so the engine runs
/// none again (issue 19 items 3 and 7, review L5). `raw.atMs` and `raw.source` are copied as they
/// are (the caller decides both). Pure; thread-safe for distinct `rules`.
Observation admitWindow(const Rules& rules, const Observation& raw);

/// What a drift decision asks of an AI (docs/DESIGN.md §4 "One door"): the
/// judge and nudge calls a Decision carries, handed by ActiveSession::step to
/// the session's owner. The Controller launches them on its executor and
/// brings the answers back later (ActiveSession::applyVerdict then ::step,
/// ActiveSession::answerNudge); the replay answers them at once, re-entering
/// step from inside the call. Called with the owner's lock held; an
/// implementation must not throw.
class AdvisorPort {
 public:
  virtual ~AdvisorPort() = default;
  /// A DriftJudge call for `request` (its key and epoch token inside).
  virtual void askJudge(JudgeRequest request) = 0;
  /// A Nudger call for `request` (its epoch token inside).
  virtual void askNudge(NudgeRequest request) = 0;
};

/// One session's stats, timeline and drift engine, and the steps that keep
/// them in step: the only door through which the Controller and the replay
/// apply what the drift engine decides (docs/DESIGN.md §4 "One door"). A plain value: copying it
/// copies the engine's state (its verdict memory is lent, not copied: Engine::setMemory). Not
/// synchronised; the owner's lock (the Controller's mutex) guards it. Times are UTC-shaped ms of
/// the session's clock (`atMs`) and monotonic ms
/// (`nowMono`), as Engine takes them.
struct ActiveSession {
  /// Empty: stats crediting at most evidence.idle_after_s per gap, an empty
  /// timeline, an engine on `settings` with no verdict memory.
  explicit ActiveSession(const Settings& settings);

  StatsAccumulator stats;  ///< time per app, switches, drift, away (docs/DESIGN.md §3)
  Timeline timeline;       ///< when and where the session was on task (issue 7)
  FocusTally focus;        ///< where the drift went, the longest stretch (issue 17 item 5)
  Engine engine;           ///< what each observation means for drift (docs/DESIGN.md §4, §5)

  /// An observation counted in the stats (a switch when the app changed).
  void observe(const Observation& obs) { stats.observe(obs); }
  /// The person left (`away` true) or came back at `atMs`.
  void setAway(bool away, std::int64_t atMs) { stats.setAway(away, atMs); }
  /// Engine::evaluate on the window in front (`current`, may be null):
  /// `cannotJudge` non-empty (e.g. "evidence is stale") suspends judging.
  [[nodiscard]] Decision evaluate(const Observation* current, const std::string& cannotJudge,
                                  bool away, const Commitment& commitment, std::int64_t atMs,
                                  std::int64_t nowMono, Engine::Advisors advisors) {
    return engine.evaluate(current, cannotJudge, away, commitment, atMs, nowMono, advisors);
  }
  /// Engine::applyVerdict: the DriftJudge's answer for `key` (nullopt:
  /// failed, `failure` says why) at `atMs`.
  [[nodiscard]] Decision applyVerdict(const std::string& key,
                                      const std::optional<ai::Verdict>& verdict,
                                      const std::string& failure, std::int64_t atMs) {
    return engine.applyVerdict(key, verdict, failure, atMs);
  }
  /// A decision applied, the one sequence of every caller: its drift time,
  /// episode and reason recorded into the stats (recordDecision with the
  /// engine's view); the judge and nudge calls it asks for handed to `port`
  /// (which may answer at once by re-entering step); the timeline and the
  /// focus tally moved to the window in front (`app`, "" none; `away` wins:
  /// spanStatusOf) and the engine's status from `atMs` on, drifting at the
  /// site of the window judged off task (Engine::subjectSite), else its app;
  /// a drift that continues the stay of before a restart is no new visit;
  /// and the open drift credited into the stats up to `atMs`
  /// (Engine::creditOpenDrift), so the State's drift time runs with the
  /// timeline. Returns that credited time (ms), which belongs to the drift
  /// episode open now (the replay adds it to its episode).
  std::int64_t step(Decision& decision, std::int64_t atMs, const std::string& app, bool away,
                    AdvisorPort& port);
  /// The Nudger's answer (nullopt: it failed, the advisory stays as it was;
  /// never fabricated) applied through Engine::applyNudge; when that changed
  /// the heads-up, the timeline and tally follow from `atMs` as in step.
  /// Returns nullopt when nothing changed, else the open drift credited (ms,
  /// as step returns it).
  std::optional<std::int64_t> answerNudge(const std::optional<std::string>& message,
                                          std::int64_t atMs, const std::string& app, bool away);
  /// The session's time ends at `atMs`: the stats, the timeline and the focus tally are
  /// credited up to it and the open drifting time is closed into the stats.
  /// Returns that drifting time (ms).
  std::int64_t creditUntil(std::int64_t atMs);
  /// A new session: the stats empty (away from `nowMs` when `away`), the
  /// timeline empty, the engine reset (its verdict memory stays lent).
  void clear(const Settings& settings, bool away, std::int64_t nowMs);

 private:
  /// The timeline and tally follow `app` and the engine's status from `atMs`
  /// on, and the open drift is credited; returns the credited ms.
  std::int64_t track(std::int64_t atMs, const std::string& app, bool away);
};

}  // namespace antidrift::drift
