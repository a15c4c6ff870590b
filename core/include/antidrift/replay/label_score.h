/// @file label_score.h
/// DriftBench (issue 16 item 1): what a replay did, scored against a
/// labelled day — every distinct window (app, title) labelled on, off or
/// neutral for one commitment (the format in docs/API.md "Scoring against labels"). The
/// scorer is pure: it reads the replay's trace (replay.h ReplayReport::trace)
/// and the labels, nothing else.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace antidrift::replay {

struct ReplayReport;

/// A window's label (docs/API.md "Scoring against labels").
enum class Label { On, Off, Neutral };

/// "on" | "off" | "neutral" (the labels file's names). Pure; thread-safe.
constexpr std::string_view toString(Label label) {
  switch (label) {
    case Label::On:
      return "on";
    case Label::Off:
      return "off";
    case Label::Neutral:
      return "neutral";
  }
  return "neutral";
}

/// The labels of a day: (app, title) exactly as recorded → label.
class Labels {
 public:
  /// Adds or replaces the label of (app, title).
  void set(const std::string& app, const std::string& title, Label label);
  /// The label of (app, title), or nullopt when the file has none (the scorer
  /// counts such a window as neutral, and counts it).
  std::optional<Label> find(const std::string& app, const std::string& title) const;
  /// Distinct windows labelled.
  std::size_t size() const { return labels_.size(); }

 private:
  std::unordered_map<std::string, Label> labels_;  ///< app + '\n' + title → label
};

/// Reads a labels JSONL: one object a line, {"app", "title", "label": "on" | "off" | "neutral"}
/// (other fields such as "why" ignored; blank lines and lines starting with '#' skipped). A window
/// listed twice takes its last label. Throws ReplayError "<name> line N: …" for a line that is not
/// such an object — an empty label (as `antidriftd label` writes it, label_list.h) is refused
/// naming the window, so a file not filled in is never scored — and for a file with no label. Pure
/// apart from reading `in`.
Labels parseLabels(std::istream& in, const std::string& name);

/// Opens `path` and parses it (parseLabels). Throws ReplayError for a missing or unreadable file.
Labels loadLabels(const std::string& path);

/// One window event as scored (`--json` "labels.events").
struct ScoredEvent {
  std::int64_t atMs = 0;   ///< UTC ms it came to the front
  std::int64_t endMs = 0;  ///< UTC ms it left (or the replay ended), ≥ atMs
  std::string app;         ///< as recorded
  std::string title;       ///< as recorded
  Label label = Label::Neutral;
  bool labelled = false;          ///< false: absent from the labels (scored neutral)
  std::int64_t activeMs = 0;      ///< ms present with evidence fresh
  std::int64_t bannerMs = 0;      ///< of which with the banner up
  std::int64_t headsUpMs = 0;     ///< of which with a heads-up shown (the banner down)
  std::int64_t bannerStarts = 0;  ///< drift episodes that started in it
};

/// A stretch of the day where something cost the most (the text report's lists).
struct CostlyWindow {
  std::string app;          ///< as recorded
  std::string title;        ///< as recorded
  std::int64_t costMs = 0;  ///< missed (off, not told) or false (on, banner up) ms
  std::int64_t events = 0;  ///< window events of it that cost something
};

/// The figures of issue 16 item 1 (docs/API.md "Replay", "labels"). Times are active time only.
struct LabelScore {
  std::size_t labels = 0;              ///< distinct windows in the labels file
  std::int64_t unlabelledWindows = 0;  ///< distinct windows of the replay absent from it
  std::int64_t unlabelledEvents = 0;   ///< their window events
  std::int64_t unlabelledMs = 0;       ///< their active ms (scored neutral)
  std::int64_t onMs = 0;               ///< active ms in windows labelled on
  std::int64_t offMs = 0;              ///< active ms in windows labelled off
  std::int64_t neutralMs = 0;          ///< active ms in neutral (or unlabelled) windows
  std::int64_t offBannerMs = 0;        ///< off ms with the banner up
  /// Off ms in an allowed app with a heads-up shown and the banner down.
  std::int64_t offHeadsUpMs = 0;
  std::int64_t onBannerMs = 0;       ///< on ms with the banner up
  std::int64_t falseBanners = 0;     ///< drift episodes that started in an on window
  double recallTime = 0;             ///< (offBannerMs + offHeadsUpMs) / offMs; 0 when no off
  double recallBanner = 0;           ///< offBannerMs / offMs
  double recallHeadsUp = 0;          ///< offHeadsUpMs / offMs
  double falseTime = 0;              ///< onBannerMs / onMs; 0 when no on time
  double falseBannersPerOnHour = 0;  ///< falseBanners / (onMs in hours); 0 when no on time
  /// Visits: runs of consecutive window events labelled off (neutral ones do not break a run,
  /// an on one does) whose off active time is ≥ kVisitMinMs.
  std::int64_t visits = 0;
  std::int64_t visitsCaught = 0;  ///< of which the person was told during (banner or heads-up)
  /// Time from a caught visit's start to the first moment the person was told, ms, p50 and p90
  /// (nearest rank); nullopt when no visit was caught.
  std::optional<std::int64_t> timeToTellP50Ms;
  std::optional<std::int64_t> timeToTellP90Ms;  ///< as timeToTellP50Ms
  std::int64_t windowChanges = 0;               ///< the replay's window changes
  std::int64_t judgeCalls = 0;                  ///< DriftJudge calls
  std::int64_t nudgeCalls = 0;                  ///< Nudger calls
  double judgeCallsPer100Changes = 0;           ///< judgeCalls × 100 / windowChanges
  double nudgeCallsPer100Changes = 0;           ///< nudgeCalls × 100 / windowChanges
  std::vector<ScoredEvent> events;              ///< every window event, oldest first
  std::vector<CostlyWindow> costliestMissed;    ///< ≤ kCostliest, costliest first
  std::vector<CostlyWindow> costliestFalse;     ///< ≤ kCostliest, costliest first
};

/// A visit lasts at least this long, ms (docs/API.md "Scoring against labels": 30 s).
constexpr std::int64_t kVisitMinMs = 30'000;
/// Windows listed in each costliest list.
constexpr std::size_t kCostliest = 10;

/// Scores `report` (which must have been run with ReplayOptions::keepTrace) against `labels`
/// (issue 16 item 1). The person was told at a moment when the banner was up, or a heads-up was
/// shown while in an allowed app. Pure.
LabelScore scoreLabels(const ReplayReport& report, const Labels& labels);

/// The score as the JSON object `antidriftd replay --labels --json` puts under "labels"
/// (docs/API.md "Replay"); `withEvents` adds the per-event records. Pure.
std::string labelScoreJson(const LabelScore& score, bool withEvents);

/// The score as text: the figures, then the windows that cost the most missed and false
/// seconds. Pure.
std::string labelScoreText(const LabelScore& score);

}  // namespace antidrift::replay
