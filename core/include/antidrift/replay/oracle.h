/// @file oracle.h
/// The label oracle of DriftBench (issue 16 item 1, `antidriftd replay --labels FILE --oracle`):
/// a DriftJudge and a Nudger that answer from a labelled day instead of a model, so a replay
/// measures the engine's own losses (debounces, caches, which windows are judged at all) apart
/// from any model's mistakes. The replay (replay.h ReplayOptions::oracle) calls these with the
/// windows as recorded — the labels are keyed by the raw app and title, while the prompts a
/// backend sees carry normalised, sanitised and redacted text. Pure functions of the labels.
#pragma once

#include <string>
#include <vector>

#include "antidrift/ai/judge.h"
#include "antidrift/replay/label_score.h"

namespace antidrift::replay {

/// A window as recorded (app and title exactly as in the export, the labels' key), with the
/// title the engine would show the Nudger for it (sanitised and redacted), used in the advisory.
struct OracleWindow {
  std::string app;         ///< as recorded
  std::string title;       ///< as recorded
  std::string shownTitle;  ///< as the Nudger is shown it; "" = `title`
};

/// The reason of an oracle verdict for a window labelled off: the banner shows it verbatim.
inline constexpr const char* kOracleOffReason = "labelled off task";
/// How many of the newest distinct titles the oracle Nudger looks at.
inline constexpr std::size_t kOracleNudgeWindow = 3;

/// The oracle's DriftJudge answer for the window (app, title) as recorded, always page-scoped
/// (the labels are per window, and a site may be on for one title and off for another, GUIDE.md):
/// labelled on → on task, reason "labelled on task"; labelled off → off task, reason
/// kOracleOffReason; labelled neutral or absent from the labels → on task, reason "labelled
/// neutral". Neutral means "cannot be judged or does not count" (docs/API.md "Scoring against labels"):
/// such a window must raise no banner — nobody could tell the person they drifted from a lock
/// screen or a "New Tab" — and the scorer counts its time neither way, so on task is the only
/// answer that costs nothing where it cannot be scored; a failed call would instead show "the AI
/// judge could not say" and count as a judge failure. Never fails. Pure.
ai::Verdict oracleVerdict(const Labels& labels, const std::string& app, const std::string& title);

/// The oracle's Nudger answer for `recent`, the distinct titles of the nudge input, oldest first:
/// off track when the newest is labelled off and more than half of the newest
/// min(kOracleNudgeWindow, size) are (with three: at least two of them, the newest among them;
/// with two: both). Off track → a one-line advisory naming those off titles (their shownTitle),
/// at most ai::kMaxNudgeMessageChars characters (cut with "…"); on track → "" (no advisory).
/// A title absent from the labels counts as neutral. Never fails. Pure.
std::string oracleNudge(const Labels& labels, const std::vector<OracleWindow>& recent);

}  // namespace antidrift::replay
