// What `antidrift` prints for a State: people's lines and the status bars'
// formats (cli/status_text.h, issue 10 item 2).
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

/// An active State 10 of 25 minutes in, drifting in steam.
Poco::JSON::Object::Ptr activeState(const std::string& nextAction = "Write the intro") {
  return parse(R"({"runtime":"active","commitment":{"next_action":")" + nextAction +
               R"(","success_condition":"Draft sent","timebox_secs":1500,"remaining_secs":900},
      "drift":{"status":"drifting","reason":"steam is blocked during focus","nudge":""},
      "evidence":{"health":"ok","current":{"app":"steam","title":"Store"}}})");
}

TEST(StatusText, ControlCharactersAreNeverPrinted) {
  // Issue 19 item 7 (review L7): an OSC 52 clipboard write, a cursor move, a
  // C1 CSI and DEL from an impostor's answer reach the terminal as nothing.
  const std::string hostile = std::string("a\x1b]52;c;ZXZpbA==\x07") + "b\x1b[2Jc\xc2\x9b" +
                              "31md\x7f\x01" + "e\r\n\tf — 日本";
  EXPECT_EQ(terminalSafe(hostile), "a]52;c;ZXZpbA==b[2Jc31mde\n\tf — 日本");
  EXPECT_EQ(terminalSafe("caf\xc3\xa9 \xc2\xa0ok"), "caf\xc3\xa9 \xc2\xa0ok");  // é, NBSP kept
}

TEST(StatusText, DurationsAreMinutesAndSecondsOrHours) {
  EXPECT_EQ(formatDuration(0), "00:00");
  EXPECT_EQ(formatDuration(-5), "00:00");
  EXPECT_EQ(formatDuration(754), "12:34");
  EXPECT_EQ(formatDuration(3600 + 65), "1:01:05");
}

TEST(StatusText, TheBarClassIsTheDriftStatusWhileActiveElseTheRuntime) {
  EXPECT_EQ(barClass(*activeState()), "drifting");
  EXPECT_EQ(barClass(*parse(R"({"runtime":"locked"})")), "locked");
  EXPECT_EQ(barClass(*parse(R"({"runtime":"active"})")), "unknown");
  EXPECT_EQ(barClass(*parse("{}")), "unknown");
}

TEST(StatusText, DescribeStateListsWhatApplies) {
  EXPECT_EQ(describeState(*activeState()),
            "runtime: active\nnext action: Write the intro\ndone when: Draft sent\n"
            "remaining: 15:00 of 25:00\ndrift: drifting (steam is blocked during focus)\n"
            "window: steam — Store (evidence ok)\n");
  EXPECT_EQ(describeState(*parse(R"({"runtime":"locked","last_carry_forward":"Start smaller"})")),
            "runtime: locked\nlast lesson: Start smaller\n");
}

TEST(StatusText, WaybarGetsOneJsonLineWithTextTooltipClassAndPercentage) {
  const std::string line = barOutput(*activeState(), BarFormat::Waybar);
  ASSERT_EQ(line.back(), '\n');
  const auto bar = parse(line);
  EXPECT_EQ(bar->getValue<std::string>("text"), "15:00 Write the intro");
  EXPECT_EQ(bar->getValue<std::string>("class"), "drifting");
  EXPECT_EQ(bar->getValue<std::string>("alt"), "drifting");
  EXPECT_EQ(bar->getValue<int>("percentage"), 40);
  EXPECT_THAT(bar->getValue<std::string>("tooltip"), HasSubstr("remaining: 15:00 of 25:00"));
}

// Issue 17 item 4: after `POST /extend` the time left can pass the timebox;
// the total is timebox + extensions, so "27:00 of 25:00" and a percentage
// stuck at 0 cannot appear.
TEST(StatusText, AnExtensionCountsInTheTotalAndThePercentage) {
  const auto state = parse(R"({"runtime":"active","commitment":{"next_action":"Write",
      "success_condition":"Sent","timebox_secs":1500,"extended_secs":300,"remaining_secs":1620},
      "drift":{"status":"ontask"}})");
  EXPECT_THAT(describeState(*state), HasSubstr("remaining: 27:00 of 30:00\n"));
  const auto bar = parse(barOutput(*state, BarFormat::Waybar));
  EXPECT_EQ(bar->getValue<int>("percentage"), 10);  // 180 of 1800 s gone
}

TEST(StatusText, I3blocksGetsFullTextShortTextAndColour) {
  EXPECT_EQ(barOutput(*activeState(), BarFormat::I3blocks),
            "15:00 Write the intro\ndrifting\n#ff5555\n");
  EXPECT_EQ(barOutput(*parse(R"({"runtime":"locked"})"), BarFormat::I3blocks),
            "no focus session\nlocked\n#aaaaaa\n");
}

TEST(StatusText, PolybarColoursTheTextAndNoPercentInItCanFormATag) {
  EXPECT_EQ(barOutput(*activeState("Cut 50% of it"), BarFormat::Polybar),
            "%{F#ff5555}15:00 Cut 50%\xe2\x80\x8b of it%{F-}\n");
  // A tag in the text, "%%" (a tag opener where %% is not an escape), and a
  // '%' at the end that would join the closing %{F-}.
  const std::string line =
      barOutput(*activeState("a %{F#fff}b %%{A1:x:} 100%"), BarFormat::Polybar);
  const std::string text = line.substr(11, line.size() - 11 - 6);
  EXPECT_EQ(text.find("%{"), std::string::npos) << text;
  EXPECT_EQ(text.find("%%"), std::string::npos) << text;
  EXPECT_EQ(line.substr(line.size() - 6), "%{F-}\n");
  EXPECT_EQ(polybarEscape("100%"), "100%\xe2\x80\x8b");
}

TEST(StatusText, WaybarTextAndTooltipArePangoEscaped) {
  auto state = activeState("Tom & Jerry <3");
  state->getObject("evidence")->getObject("current")->set("title", "<b>bold</b> & 'q' \"d\"");
  const auto bar = parse(barOutput(*state, BarFormat::Waybar));
  EXPECT_EQ(bar->getValue<std::string>("text"), "15:00 Tom &amp; Jerry &lt;3");
  EXPECT_THAT(bar->getValue<std::string>("tooltip"),
              HasSubstr("steam — &lt;b&gt;bold&lt;/b&gt; &amp; &apos;q&apos; &quot;d&quot;"));
  EXPECT_EQ(barLine(*state, BarFormat::Waybar), barOutput(*state, BarFormat::Waybar));
}

TEST(StatusText, TheI3blocksStreamLineIsOneLineOfEscapedPangoWithTheColour) {
  EXPECT_EQ(barLine(*activeState("A & <b>"), BarFormat::I3blocks),
            "<span foreground=\"#ff5555\">15:00 A &amp; &lt;b&gt;</span>\n");
  EXPECT_EQ(offlineBarLine(BarFormat::I3blocks),
            "<span foreground=\"#aaaaaa\">AntiDrift off</span>\n");
  EXPECT_EQ(barLine(*activeState(), BarFormat::Polybar),
            barOutput(*activeState(), BarFormat::Polybar));
}

TEST(StatusText, ANewlineInTheTextCannotSplitTheBarsLine) {
  EXPECT_EQ(barLine(*parse(R"({"runtime":"active","commitment":{"next_action":"one\ntwo",
      "timebox_secs":60,"remaining_secs":30},"drift":{"status":"ontask"}})"),
                    BarFormat::Polybar),
            "%{F#50fa7b}00:30 one two%{F-}\n");
}

TEST(StatusText, LongNextActionsAreCutOnACharacterBoundary) {
  const std::string longAction = "Überarbeite die Einleitung des Kapitels über Zeit";
  const auto bar = parse(barOutput(*activeState(longAction), BarFormat::Waybar));
  EXPECT_EQ(bar->getValue<std::string>("text"), "15:00 Überarbeite die Einleitung des K…");
}

TEST(StatusText, OfflineIsShownNotAnError) {
  const auto bar = parse(offlineBarOutput(BarFormat::Waybar));
  EXPECT_EQ(bar->getValue<std::string>("class"), "offline");
  EXPECT_EQ(offlineBarOutput(BarFormat::I3blocks), "AntiDrift off\noffline\n#aaaaaa\n");
}

TEST(StatusText, TheWatchKeyIgnoresTheTimeLeft) {
  auto later = activeState();
  later->getObject("commitment")->set("remaining_secs", 899);
  EXPECT_EQ(summaryKey(*activeState()), summaryKey(*later));
  EXPECT_NE(summaryLine(*activeState()), summaryLine(*later));
  EXPECT_EQ(summaryLine(*activeState()),
            "active drifting: Write the intro — steam is blocked during focus (15:00 left)");
}

TEST(StatusText, BarFormatsAreParsedByName) {
  EXPECT_EQ(parseBarFormat("waybar"), BarFormat::Waybar);
  EXPECT_EQ(parseBarFormat("i3blocks"), BarFormat::I3blocks);
  EXPECT_EQ(parseBarFormat("polybar"), BarFormat::Polybar);
  EXPECT_EQ(parseBarFormat("dzen"), std::nullopt);
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

// ---- The AI lines (issue 18 items 2–4) ---------------------------------------------------

TEST(DescribeAi, SaysWhichAiHowItWasChosenWhereTitlesGoAndWhatItCost) {
  const auto state = parse(R"({"runtime":"planning","ai":{"available":true,"backend":"openai",
      "auto":true,"found":"Ollama at 127.0.0.1:11434, model qwen3:4b","prompts":"local",
      "destination":"local 127.0.0.1:11434","detail":"",
      "cost":{"calls":3,"input_tokens":2310,"output_tokens":95,"estimated":false,"wall_ms":4120}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: openai (Ollama at 127.0.0.1:11434, model qwen3:4b) — auto\n"
            "titles go: stay on this machine (local 127.0.0.1:11434)\n"
            "AI cost: 3 calls, 2310 tokens in, 95 out, 00:04 waiting\n");
  EXPECT_THAT(describeState(*state), HasSubstr("AI: openai (Ollama"));
}

TEST(DescribeAi, ARemoteCliAndAnEstimate) {
  const auto state = parse(R"({"runtime":"active","ai":{"available":true,"backend":"claude",
      "auto":false,"found":"","prompts":"remote","destination":"remote","detail":"",
      "cost":{"calls":1,"input_tokens":400,"output_tokens":12,"estimated":true,"wall_ms":900}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: claude\ntitles go: off this machine\n"
            "AI cost: 1 call, 400 tokens in, 12 out (estimated), 00:00 waiting\n");
}

TEST(DescribeAi, AiOffSaysWhyAndThatTitlesGoNowhere) {
  const auto state = parse(R"({"runtime":"locked","ai":{"available":false,"backend":"none",
      "auto":true,"detail":"AI is off: ai.backend = auto found nothing.",
      "cost":{"calls":0,"input_tokens":0,"output_tokens":0,"estimated":false,"wall_ms":0}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: off — AI is off: ai.backend = auto found nothing.\n"
            "titles go: nowhere (AI off)\n");
  EXPECT_EQ(describeAi(*parse(R"({"runtime":"locked"})")), "");
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

// Issue 17 item 4, re-walk: AntiDrift's own page in front is neutral time,
// and the CLI and the bars say so in the page's words ("Neutral · this is
// AntiDrift, not counted either way"), not "unknown".
TEST(StatusText, AntiDriftsOwnPageIsNeutralAsOnThePage) {
  const auto own = parse(R"({"runtime":"active","commitment":{"next_action":"Write",)"
                         R"("timebox_secs":1500,"remaining_secs":900},)"
                         R"("drift":{"status":"unknown","reason":"this is AntiDrift"},)"
                         R"("evidence":{"health":"ok","current":{"app":"chromium",)"
                         R"("title":"AntiDrift abc"}}})");
  EXPECT_EQ(barClass(*own), "neutral");
  EXPECT_THAT(describeState(*own),
              HasSubstr("\ndrift: neutral (this is AntiDrift, not counted either way)\n"));
  EXPECT_THAT(describeState(*own), ::testing::Not(HasSubstr("unknown")));
  EXPECT_EQ(summaryLine(*own), "active neutral: Write (15:00 left)");
  const auto waybar = parse(barOutput(*own, BarFormat::Waybar));
  EXPECT_EQ(waybar->getValue<std::string>("class"), "neutral");
  EXPECT_EQ(waybar->getValue<std::string>("alt"), "neutral");
  EXPECT_THAT(waybar->getValue<std::string>("tooltip"),
              HasSubstr("drift: neutral (this is AntiDrift, not counted either way)"));
  EXPECT_EQ(barOutput(*own, BarFormat::I3blocks), "15:00 Write\nneutral\n#aaaaaa\n");
  EXPECT_EQ(barLine(*own, BarFormat::Polybar), "%{F#aaaaaa}15:00 Write%{F-}\n");
  // Another unknown (a window that says nothing) stays unknown.
  const auto other = parse(R"({"runtime":"active","drift":{"status":"unknown",)"
                           R"("reason":"window unknown"}})");
  EXPECT_EQ(barClass(*other), "unknown");
  EXPECT_THAT(describeState(*other), HasSubstr("drift: unknown (window unknown)\n"));
  // The reason alone outside active is no drift status.
  EXPECT_EQ(barClass(*parse(R"({"runtime":"review","drift":{"status":"unknown",)"
                            R"("reason":"this is AntiDrift"}})")),
            "review");
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
