/// @file episode_tracker.h
/// When a drift deserves a desktop notification and what it says
/// (docs/DESIGN.md §4, last paragraph): every new drift episode of a session
/// is reported; one soon after the last is worded as part of a run ("Facebook
/// — 2nd drift in 1 min") so the notifier can update the shown notification in
/// place instead of stacking a new one. Pure decision, no I/O, so
/// DesktopNotifier's rule is tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "antidrift/session/state.h"

namespace antidrift::notify {

/// Follows the States of the Controller and says which one starts a new
/// drift episode. Not thread-safe: one owner feeds it in order.
class EpisodeTracker {
 public:
  /// `repeatMs`: a drift that lasts is reminded this long after the last
  /// drift notification (notify.repeat_s; 0 = never). `runGapMs`: a new
  /// episode less than this after the last drift notification belongs to the
  /// same run and is worded as such (it is still reported: a drift the
  /// person does not hear of outside the tab is a drift missed).
  explicit EpisodeTracker(std::int64_t repeatMs = 0, std::int64_t runGapMs = 0)
      : repeatMs_(repeatMs), runGapMs_(runGapMs) {}

  /// The body of the notification of a new drift episode when `state` is
  /// active, its drift status is "drifting" and `state.stats.driftEpisodes`
  /// is above the last episode reported for this session; nullopt
  /// otherwise. The first of a run is the reason (`state.drift.reason`,
  /// verbatim); a later one in the same run starts with a line naming the
  /// distraction and its place in the run ("Facebook — 2nd drift in 1 min";
  /// the name is the site, capitalised, else the app), then the reason. Both
  /// end with a line of this session's drift time so far when there is some
  /// ("Drifted 2 min this session."). A new session (another commitment id)
  /// starts counting again. `nowMs`: any monotonic milliseconds, the same
  /// clock as reminder()'s.
  std::optional<std::string> newDriftReason(const State& state, std::int64_t nowMs = 0);

  /// "Facebook — 2nd drift in 1 min": `name` (capitalised), the ordinal of
  /// `count` and the run's span `spanMs` in whole minutes, at least 1. Pure.
  static std::string runLine(const std::string& name, std::int64_t count, std::int64_t spanMs);
  /// "Drifted 45 s this session." / "Drifted 3 min this session." for
  /// `driftMs` > 0; "" for none. Pure.
  static std::string driftTimeLine(std::int64_t driftMs);

  /// The reason to remind when the last State fed was drifting and
  /// `repeatMs` has passed since the last drift notification (which this
  /// call then counts as now); nullopt otherwise.
  std::optional<std::string> reminder(std::int64_t nowMs);

  /// When reminder() will next answer (the same clock); nullopt when no
  /// reminder is coming (not drifting, or repeat off).
  std::optional<std::int64_t> nextReminderMs() const;

  /// The heads-up text (`state.drift.nudge`) when `state` is active and it
  /// differs from the last heads-up reported in this session; nullopt
  /// otherwise (notify.heads_up, issue 17 item 2).
  std::optional<std::string> newHeadsUp(const State& state);

  /// The next action of a session whose timebox just ran out (issue 7 item
  /// 5): `state` is review with outcome expired and the previous State fed
  /// here was the same session while active. Once per session; a session
  /// that expired while the daemon was down (restored straight into review)
  /// is not announced. Feed every State through both methods, in order.
  std::optional<std::string> timeUpAction(const State& state);

 private:
  std::string timeUpSessionId_;  ///< the session last seen by timeUpAction
  RuntimeState timeUpLastRuntime_ = RuntimeState::Locked;  ///< its runtime then
  std::string commitmentId_;                               ///< the session last seen ("" = none)
  std::int64_t lastReportedEpisodes_ = 0;                  ///< driftEpisodes last reported in it
  std::int64_t repeatMs_ = 0;
  std::int64_t runGapMs_ = 0;
  std::int64_t runCount_ = 0;        ///< episodes reported in the current run
  std::int64_t runStartMs_ = 0;      ///< when its first was reported
  bool drifting_ = false;            ///< the last State fed was an active drift
  std::string reason_;               ///< its reason
  bool notifiedAny_ = false;         ///< a drift notification was reported
  std::int64_t lastNotifiedMs_ = 0;  ///< when (nowMs of newDriftReason or reminder)
  std::string headsUpSessionId_;     ///< the session last seen by newHeadsUp
  std::string lastHeadsUp_;          ///< the heads-up last reported in it
};

}  // namespace antidrift::notify
