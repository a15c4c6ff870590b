/// @file timeline.h
/// The session timeline (issue 7 item 3): a compact, bounded list of spans —
/// when, which app, and the drift status — that the Review and History views
/// draw as a strip over the session's time. I/O-free; the Controller owns one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace antidrift {

/// What a stretch of the session was (the strip's colours).
enum class SpanStatus {
  OnTask,    ///< drift status ontask
  Drifting,  ///< drift status drifting (the banner was up)
  Unknown,   ///< judging, unknown, evidence not ok
  Away,      ///< the person was away (evidence.idle_after_s)
};

/// "ontask" | "drifting" | "unknown" | "away". Pure.
std::string_view toString(SpanStatus status);
/// The inverse of toString; nullopt for any other text. Pure.
std::optional<SpanStatus> parseSpanStatus(std::string_view text);

/// One stretch of the session: [startMs, endMs) in UTC ms, one app, one status, and whether
/// the soft "Heads up" advisory was shown.
struct TimelineSpan {
  std::int64_t startMs = 0;  ///< UTC ms
  std::int64_t endMs = 0;    ///< UTC ms, ≥ startMs
  std::string app;           ///< window class (normalised); "" when none was seen
  SpanStatus status = SpanStatus::Unknown;
  /// The Nudger's advisory (DriftView::nudge) was shown over the span (issue 16 item 1:
  /// "heads_up" in the State's and the replay's timeline).
  bool headsUp = false;

  bool operator==(const TimelineSpan& other) const {
    return startMs == other.startMs && endMs == other.endMs && app == other.app &&
           status == other.status && headsUp == other.headsUp;
  }
};

/// On-task and drifting time of one app (the review's split bars).
struct AppSplit {
  std::int64_t onTaskMs = 0;    ///< ms
  std::int64_t driftingMs = 0;  ///< ms
};

/// Spans oldest first, each ending where the next starts, merged as they
/// grow: a record with the same app, status and heads-up as the last span
/// extends it. Bounded: when a new span would make more than maxSpans, the
/// adjacent pair of closed spans with the shortest combined length becomes one
/// span (the longer one's app, status and heads-up), so the whole session stays covered and the
/// open (last) span stays exact. The per-app split is accumulated exactly as
/// time passes and is not affected by merging. Not thread-safe: the
/// Controller owns one under its mutex. Times are UTC ms; a time earlier than
/// the last recorded one counts as the last one (no negative spans).
class Timeline {
 public:
  /// Spans kept at most (issue 7: ≤ 200).
  static constexpr std::size_t kMaxSpans = 200;

  /// `maxSpans` ≥ 2; smaller values are raised to 2.
  explicit Timeline(std::size_t maxSpans = kMaxSpans);

  /// From `atMs` on, the person is in `app` with `status`, and the heads-up
  /// shown when `headsUp`: extends the last span to `atMs` (crediting its app's
  /// split), then starts a new span unless the last one has the same app,
  /// status and heads-up (issue 16 item 1).
  void record(std::int64_t atMs, const std::string& app, SpanStatus status, bool headsUp);
  /// Extends the last span to `atMs` (the session ends); no new span.
  void extendTo(std::int64_t atMs);
  /// Starts from stored spans and split (restore after a restart). Nothing
  /// is credited for the time the daemon was down: the next record() starts
  /// from its own time when it is later than the last span's end.
  void restore(std::vector<TimelineSpan> spans, std::map<std::string, AppSplit> split);
  /// Empty again.
  void clear();

  /// The spans, oldest first.
  const std::vector<TimelineSpan>& spans() const { return spans_; }
  /// app → on-task and drifting ms; away and unknown time are not in it.
  const std::map<std::string, AppSplit>& split() const { return split_; }
  /// Total on-task ms over all apps.
  std::int64_t onTaskMs() const;

 private:
  void credit(std::int64_t untilMs);
  void bound();

  std::size_t maxSpans_;
  std::vector<TimelineSpan> spans_;
  std::map<std::string, AppSplit> split_;
  bool resumed_ = false;  ///< restored: the next record opens a fresh span at its own time
};

}  // namespace antidrift
