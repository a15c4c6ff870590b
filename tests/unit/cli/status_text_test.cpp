// What `antidrift` prints for sessions, the week and verdicts, and what it
// lets reach a terminal (cli/status_text.h). The State's text: state_text_test.cpp.
#include "cli/status_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Parser.h>

namespace antidrift::cli {
namespace {

using ::testing::HasSubstr;

Poco::JSON::Object::Ptr parse(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

TEST(StatusText, ControlCharactersAreNeverPrinted) {
  // Issue 19 item 7 (review L7): an OSC 52 clipboard write, a cursor move, a
  // C1 CSI and DEL from an impostor's answer reach the terminal as nothing.
  const std::string hostile = std::string("a\x1b]52;c;ZXZpbA==\x07") + "b\x1b[2Jc\xc2\x9b" +
                              "31md\x7f\x01" + "e\r\n\tf — 日本";
  EXPECT_EQ(terminalSafe(hostile), "a]52;c;ZXZpbA==b[2Jc31mde\n\tf — 日本");
  EXPECT_EQ(terminalSafe("caf\xc3\xa9 \xc2\xa0ok"), "caf\xc3\xa9 \xc2\xa0ok");  // é, NBSP kept
}

// ---- verdicts (issue 16 item 3) ---------------------------------------------------------------

TEST(VerdictLineTest, NamesTheVerdictItsSourceWhatItIsAboutAndTheKey) {
  EXPECT_EQ(verdictLine(*parse(R"({"key":"firefox\nsite:youtube.com","kind":"site",)"
                               R"("app":"firefox","label":"youtube.com","on_task":false,)"
                               R"("source":"judge","reason":"Videos.","last_used":1})")),
            "off  judge  site firefox: youtube.com — Videos.  [key firefox\\nsite:youtube.com]");
  EXPECT_EQ(verdictLine(*parse(R"({"key":"steam","kind":"app","app":"steam","label":"steam",)"
                               R"("on_task":true,"source":"you","reason":"","last_used":1})")),
            "on   you  app steam  [key steam]");
}

TEST(VerdictLineTest, KeysEscapeToOneLineAndBack) {
  const std::string key = "firefox\nC:\\temp \\n - page";
  const std::string escaped = escapeVerdictKey(key);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  EXPECT_EQ(unescapeVerdictKey(escaped), key);
  EXPECT_EQ(unescapeVerdictKey("firefox\\nsite:youtube.com"), "firefox\nsite:youtube.com");
  EXPECT_EQ(unescapeVerdictKey("a\\tb"), "a\\tb");  // another backslash stays
}

}  // namespace
// Issue 17 item 5: `antidrift history` says where the drift went, the longest
// stretch and the week's trend; an old session's missing figures are unknown.
TEST(HistoryText, WhereTheDriftWentAndTheWeek) {
  EXPECT_EQ(
      historyDetailLine(*parse(
          R"({"drift_by_site":[{"where":"youtube.com","drift_secs":300,"visits":6},)"
          R"({"where":"slack","drift_secs":40,"visits":1}],"longest_on_task":{"secs":720}})")),
      "    drift went to: youtube.com 5 min over 6 visits, slack 40 s over 1 visit · "
      "longest on-task stretch: 12 min");
  EXPECT_EQ(historyDetailLine(*parse(R"({"drift_by_site":null,"longest_on_task":null})")),
            "    drift went to: unknown · longest on-task stretch: unknown");
  EXPECT_EQ(historyDetailLine(*parse(R"({"drift_by_site":[],"longest_on_task":{"secs":90}})")),
            "    no drift · longest on-task stretch: 2 min");
  EXPECT_EQ(weekLine(*parse(R"({"week":{"this_week":{"focused_secs":5400,"drift_share":0.12,)"
                            R"("sessions":4,"kept":3},"last_week":{"focused_secs":0,)"
                            R"("drift_share":null,"sessions":0,"kept":0}}})")),
            "this week: 90 min focused, drift 12%, 3 of 4 kept · last week: 0 min focused, "
            "drift —, 0 of 0 kept");
  EXPECT_EQ(weekLine(*parse("{}")), "");
}

// Issue 17 item 4, re-walk: `history` shows the review's answer and note, the
// note on its own line, escaped as every printed text.
TEST(HistoryText, TheReviewsAnswerAndNote) {
  const auto answered = parse(R"({"started_at":0,"outcome":"completed","planned_secs":1500,)"
                              R"("drift_episodes":1,"success":"partly","next_action":"Write",)"
                              R"("note":"half\ndone\t\u001b]52;c;eA==\u0007 \u009b2J"})");
  EXPECT_THAT(historyLine(*answered), ::testing::EndsWith("  1 drift  met: partly  Write"));
  const std::string note = historyNoteLine(*answered);
  EXPECT_EQ(note.find('\n'), std::string::npos);
  EXPECT_EQ(terminalSafe(note), "    note: half done  ]52;c;eA==  2J");
  const auto unanswered = parse(R"({"started_at":0,"outcome":"expired","planned_secs":60,)"
                                R"("drift_episodes":0,"success":"","note":"","next_action":"X"})");
  EXPECT_THAT(historyLine(*unanswered), ::testing::EndsWith("  0 drifts  met: not answered  X"));
  const auto several = parse(R"({"started_at":0,"outcome":"completed","planned_secs":60,)"
                             R"("drift_episodes":4,"next_action":"X"})");
  EXPECT_THAT(historyLine(*several), HasSubstr("  4 drifts  met: not answered  X"));
  EXPECT_EQ(historyNoteLine(*unanswered), "");
  EXPECT_EQ(historyNoteLine(*parse("{}")), "");
}

// Issue 17 item 3 of the number walk: the history line says planned and
// actual time as the page does ("Planned 6 min · actual 2 min"), not the
// timebox alone.
TEST(HistoryText, PlannedAndActualAsThePageSaysThem) {
  const auto summary = parse(R"({"started_at":0,"outcome":"completed","planned_secs":360,)"
                             R"("actual_secs":125,"drift_episodes":4,"next_action":"Write"})");
  EXPECT_THAT(historyLine(*summary),
              HasSubstr("  completed  planned 6 min · actual 2 min  4 drifts  "));
}

// Issue 17 item 1 of the number walk: the same drift reads the same in the
// history's detail line as on the page and in the export ("45 s", not "1 min").
TEST(HistoryText, DriftUnderAMinuteInSeconds) {
  const auto summary = parse(R"({"drift_by_site":[{"where":"youtube","drift_secs":45,"visits":4}],)"
                             R"("longest_on_task":{"secs":59}})");
  EXPECT_EQ(historyDetailLine(*summary),
            "    drift went to: youtube 45 s over 4 visits · longest on-task stretch: 59 s");
}

}  // namespace antidrift::cli
