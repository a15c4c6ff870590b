// `antidriftd label` (issue 16 item 1): the distinct windows of a hand-made day, most time first,
// and the template they make — which `--labels` refuses until it is filled.
#include "antidrift/replay/label_list.h"

#include <sstream>

#include <gtest/gtest.h>

namespace antidrift::replay {
namespace {

WindowEvent at(std::int64_t startS, std::int64_t durationS, const std::string& app,
               const std::string& title) {
  return WindowEvent{startS * 1000, durationS * 1000, app, title};
}

// By hand (seconds): code "a.c" 0+100 → 100, then 300–350 → 50: 150 in all;
// firefox "Cats" 100+300 recorded, cut at the next event (200) → 100, then 350+20 → 20: 120;
// xscreensaver (a lock screen) 200+100 → 100 (prefilled neutral); "unknown" with no title
// 370+200 (the last event: its own duration) → 200 (prefilled neutral); ties none.
Activity handMadeDay() {
  Activity activity;
  activity.windows = {at(0, 100, "Code", "a.c"),        at(100, 300, "Firefox", "Cats"),
                      at(200, 100, "xscreensaver", ""), at(300, 50, "Code", "a.c"),
                      at(350, 20, "Firefox", "Cats"),   at(370, 200, "unknown", "")};
  return activity;
}

TEST(LabelList, ListsDistinctWindowsMostTimeFirstWithTimeCutAtTheNextEvent) {
  const std::vector<WindowToLabel> windows = windowsToLabel(handMadeDay(), Settings{});
  ASSERT_EQ(windows.size(), 4u);
  EXPECT_EQ(windows[0].app, "unknown");
  EXPECT_EQ(windows[0].ms, 200'000);
  EXPECT_EQ(windows[0].prefilled, Label::Neutral);
  EXPECT_EQ(windows[1].app, "Code");
  EXPECT_EQ(windows[1].title, "a.c");
  EXPECT_EQ(windows[1].ms, 150'000);
  EXPECT_FALSE(windows[1].prefilled);
  EXPECT_EQ(windows[2].app, "Firefox");
  EXPECT_EQ(windows[2].ms, 120'000);
  EXPECT_FALSE(windows[2].prefilled);
  EXPECT_EQ(windows[3].app, "xscreensaver");
  EXPECT_EQ(windows[3].ms, 100'000);
  EXPECT_EQ(windows[3].prefilled, Label::Neutral);
  EXPECT_EQ(windows[3].why, "lock screen");
}

TEST(LabelList, TheTemplateIsRefusedUntilFilledAndReadOnceFilled) {
  CommitmentRange commitment;
  commitment.nextAction = "Write \"the\" parser";
  commitment.allowedApps = {"Code"};
  const std::string text = labelsTemplate(windowsToLabel(handMadeDay(), Settings{}), commitment);
  EXPECT_NE(text.find("# antidriftd label: 4 windows"), std::string::npos) << text;
  EXPECT_NE(text.find("next action: \"Write \\\"the\\\" parser\""), std::string::npos) << text;
  EXPECT_NE(text.find(R"({"app": "Code", "title": "a.c", "label": "", "seconds": 150})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("app": "xscreensaver", "title": "", "label": "neutral", "seconds": 100)"),
            std::string::npos)
      << text;

  // Unfilled: refused, naming the line (7 '#' lines, then "unknown", then Code on line 9).
  std::istringstream unfilled(text);
  try {
    parseLabels(unfilled, "labels.jsonl");
    FAIL() << "an unfilled template was read";
  } catch (const ReplayError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("labels.jsonl line 9"), std::string::npos) << what;
    EXPECT_NE(what.find("\"a.c\""), std::string::npos) << what;
    EXPECT_NE(what.find("is empty"), std::string::npos) << what;
  }

  // Filled: every window read with its label.
  std::string filled = text;
  for (const char* label : {"on", "off"}) {
    const std::size_t empty = filled.find("\"label\": \"\"");
    ASSERT_NE(empty, std::string::npos);
    filled.replace(empty, 11, std::string("\"label\": \"") + label + "\"");
  }
  std::istringstream in(filled);
  const Labels labels = parseLabels(in, "labels.jsonl");
  EXPECT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels.find("Code", "a.c"), Label::On);
  EXPECT_EQ(labels.find("Firefox", "Cats"), Label::Off);
  EXPECT_EQ(labels.find("unknown", ""), Label::Neutral);
}

}  // namespace
}  // namespace antidrift::replay
