/// @file label_list.h
/// `antidriftd label FILE --next …` (issue 16 item 1): the distinct windows of a recorded day,
/// listed for a person to label on, off or neutral for one commitment — the file that
/// `antidriftd replay --labels` then reads (label_score.h). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "antidrift/replay/label_score.h"
#include "antidrift/replay/replay.h"
#include "antidrift/settings.h"

namespace antidrift::replay {

/// One distinct window (app, title) of a recorded day.
struct WindowToLabel {
  std::string app;                 ///< as recorded (the labels' key)
  std::string title;               ///< as recorded (the labels' key)
  std::int64_t ms = 0;             ///< time in front, ms: durations cut at the next event's start
  std::optional<Label> prefilled;  ///< Neutral for a window nobody can judge; else nullopt
  std::string why;                 ///< the prefilled label's reason; "" when not prefilled
};

/// The distinct windows of `activity`, most time first (ties by app, then title). A window that
/// nobody can judge is prefilled neutral (docs/API.md "Scoring against labels"): a lock screen
/// (`settings.lockScreenApps`), an unreadable window (app "unknown", no title) and AntiDrift's own
/// page, as drift::Rules::classify tells them. Throws std::invalid_argument for a drift pattern
/// of `settings` that does not compile (drift::Rules). Pure.
std::vector<WindowToLabel> windowsToLabel(const Activity& activity, const Settings& settings);

/// The labels template for `windows` and `commitment` (its next action, success condition and
/// allowed apps): '#' lines naming the commitment and what to fill in, then one JSON object a
/// line, {"app", "title", "label", "seconds"} (+ "why" when prefilled), "label" "" to fill with
/// "on", "off" or "neutral" ("neutral" when prefilled), "seconds" the time in front rounded to
/// whole seconds. parseLabels skips the '#' lines and refuses an empty label. Pure.
std::string labelsTemplate(const std::vector<WindowToLabel>& windows,
                           const CommitmentRange& commitment);

}  // namespace antidrift::replay
