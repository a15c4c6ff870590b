// Fuzz target: the replay's input readers (issue 16 item 5; activity_reader.h, label_score.h):
// readActivity (the export-or-JSONL decision, then the streamed export reader or the JSONL
// reader), parseActivityWatch, parseObservationsJsonl, parseLabels and parseCommitments on the
// same bytes. Properties: bad input is only ever a ReplayError; what is read is sorted by time
// (windows oldest first with durations ≥ 0, away spans by start and never ending before they
// start, web events by start), nothing of an incognito tab's url is kept, and every app and
// title read is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "antidrift/replay/activity_reader.h"
#include "antidrift/replay/label_score.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

namespace {

void checkActivity(const replay::Activity& activity) {
  for (std::size_t i = 0; i < activity.windows.size(); ++i) {
    const replay::WindowEvent& event = activity.windows[i];
    fuzz::check(i == 0 || activity.windows[i - 1].atMs <= event.atMs,
                "Activity: windows sorted by time (activity_reader.h)");
    fuzz::check(event.durationMs >= 0, "WindowEvent: durationMs >= 0 (activity_reader.h)");
    fuzz::check(fuzz::isValidUtf8(event.app) && fuzz::isValidUtf8(event.title),
                "WindowEvent: app and title are valid UTF-8 (activity_reader.h)");
  }
  for (std::size_t i = 1; i < activity.web.size(); ++i) {
    fuzz::check(activity.web[i - 1].atMs <= activity.web[i].atMs,
                "Activity: web events sorted by time (activity_reader.h)");
  }
  for (const replay::WebEvent& tab : activity.web) {
    fuzz::check(tab.durationMs >= 0 && (!tab.incognito || tab.url.empty()),
                "WebEvent: duration >= 0, no url kept for an incognito tab (activity_reader.h)");
  }
  for (std::size_t i = 0; i < activity.away.size(); ++i) {
    fuzz::check(i == 0 || activity.away[i - 1].startMs <= activity.away[i].startMs,
                "Activity: away spans sorted by start (activity_reader.h)");
    fuzz::check(activity.away[i].endMs >= activity.away[i].startMs,
                "AwaySpan: endMs >= startMs (activity_reader.h)");
  }
}

/// Runs `read` on a fresh stream of `bytes`; a ReplayError is the expected refusal.
template <typename Read>
void attempt(const std::string& bytes, Read read) {
  std::istringstream in(bytes);
  try {
    read(in);
  } catch (const replay::ReplayError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(fuzz::asText(data, size));
  attempt(bytes, [](std::istream& in) { checkActivity(replay::readActivity(in, "fuzz")); });
  attempt(bytes, [](std::istream& in) { checkActivity(replay::parseActivityWatch(in, "fuzz")); });
  attempt(bytes,
          [](std::istream& in) { checkActivity(replay::parseObservationsJsonl(in, "fuzz")); });
  attempt(bytes, [](std::istream& in) {
    const replay::Labels labels = replay::parseLabels(in, "fuzz");
    fuzz::check(labels.size() > 0, "parseLabels: at least one label or a ReplayError");
  });
  attempt(bytes, [](std::istream& in) {
    const auto ranges = replay::parseCommitments(in, "fuzz");
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      fuzz::check(ranges[i].toMs > ranges[i].fromMs, "CommitmentRange: TO after FROM");
      fuzz::check(i == 0 || ranges[i - 1].toMs <= ranges[i].fromMs,
                  "parseCommitments: sorted, not overlapping");
    }
  });
  return 0;
}
