// What is printed for a State: people's lines, `watch`'s summary and the
// status bars' formats (cli/state_text.h, issue 10 item 2, issue 20 item 2),
// the code `antidrift` and antidrift-watch share.
#include "cli/state_text.h"

#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace antidrift::cli {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<nlohmann::json> parse(const std::string& text) {
  return std::make_shared<nlohmann::json>(nlohmann::json::parse(text));
}

/// An active State 10 of 25 minutes in, drifting in steam.
std::shared_ptr<nlohmann::json> activeState(const std::string& nextAction = "Write the intro") {
  return parse(R"({"runtime":"active","commitment":{"next_action":")" + nextAction +
               R"(","success_condition":"Draft sent","timebox_secs":1500,"remaining_secs":900},
      "drift":{"status":"drifting","reason":"steam is blocked during focus","nudge":""},
      "evidence":{"health":"ok","current":{"app":"steam","title":"Store"}}})");
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
  EXPECT_EQ(bar->at("text").get<std::string>(), "15:00 Write the intro");
  EXPECT_EQ(bar->at("class").get<std::string>(), "drifting");
  EXPECT_EQ(bar->at("alt").get<std::string>(), "drifting");
  EXPECT_EQ(bar->at("percentage").get<int>(), 40);
  EXPECT_THAT(bar->at("tooltip").get<std::string>(), HasSubstr("remaining: 15:00 of 25:00"));
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
  EXPECT_EQ(bar->at("percentage").get<int>(), 10);  // 180 of 1800 s gone
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
  (*state)["evidence"]["current"]["title"] = "<b>bold</b> & 'q' \"d\"";
  const auto bar = parse(barOutput(*state, BarFormat::Waybar));
  EXPECT_EQ(bar->at("text").get<std::string>(), "15:00 Tom &amp; Jerry &lt;3");
  EXPECT_THAT(bar->at("tooltip").get<std::string>(),
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
  EXPECT_EQ(bar->at("text").get<std::string>(), "15:00 Überarbeite die Einleitung des K…");
}

TEST(StatusText, OfflineIsShownNotAnError) {
  const auto bar = parse(offlineBarOutput(BarFormat::Waybar));
  EXPECT_EQ(bar->at("class").get<std::string>(), "offline");
  EXPECT_EQ(offlineBarOutput(BarFormat::I3blocks), "AntiDrift off\noffline\n#aaaaaa\n");
}

TEST(StatusText, TheWatchKeyIgnoresTheTimeLeft) {
  auto later = activeState();
  (*later)["commitment"]["remaining_secs"] = 899;
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

// ---- The AI lines (issue 18 items 2–4) ---------------------------------------------------

TEST(DescribeAi, SaysWhichAiHowItWasChosenWhereTitlesGoAndWhatItCost) {
  const auto state = parse(R"({"runtime":"planning","ai":{"available":true,"backend":"openai",
      "auto":true,"found":"Ollama at 127.0.0.1:11434, model qwen3:4b","prompts":"local",
      "destination":"local 127.0.0.1:11434","detail":"",
      "cost":{"calls":3,"input_tokens":2310,"output_tokens":95,"estimated":false,"wall_ms":4120}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: openai (Ollama at 127.0.0.1:11434, model qwen3:4b) — auto\n"
            "window titles: stay on this machine (local 127.0.0.1:11434)\n"
            "AI cost: 3 calls, 2310 tokens in, 95 out, 00:04 waiting\n");
  EXPECT_THAT(describeState(*state), HasSubstr("AI: openai (Ollama"));
}

TEST(DescribeAi, ARemoteCliAndAnEstimate) {
  const auto state = parse(R"({"runtime":"active","ai":{"available":true,"backend":"claude",
      "auto":false,"found":"","prompts":"remote","destination":"remote","detail":"",
      "cost":{"calls":1,"input_tokens":400,"output_tokens":12,"estimated":true,"wall_ms":900}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: claude\nwindow titles: leave this machine\n"
            "AI cost: 1 call, 400 tokens in, 12 out (estimated), 00:00 waiting\n");
}

TEST(DescribeAi, AiOffSaysWhyAndThatTitlesGoNowhere) {
  const auto state = parse(R"({"runtime":"locked","ai":{"available":false,"backend":"none",
      "auto":true,"detail":"AI is off: ai.backend = auto found nothing.",
      "cost":{"calls":0,"input_tokens":0,"output_tokens":0,"estimated":false,"wall_ms":0}}})");
  EXPECT_EQ(describeAi(*state),
            "AI: off — AI is off: ai.backend = auto found nothing.\n"
            "window titles: go nowhere (AI off)\n");
  EXPECT_EQ(describeAi(*parse(R"({"runtime":"locked"})")), "");
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
  EXPECT_EQ(waybar->at("class").get<std::string>(), "neutral");
  EXPECT_EQ(waybar->at("alt").get<std::string>(), "neutral");
  EXPECT_THAT(waybar->at("tooltip").get<std::string>(),
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

// A field of another type reads as empty or 0, never throws (the daemon's
// answer is trusted only so far).
TEST(StatusText, FieldsOfAnotherTypeReadAsEmpty) {
  const auto state = parse(R"({"runtime":"active","commitment":{"next_action":7,
      "timebox_secs":"1500","remaining_secs":90.6},"drift":[],"ai":{"available":"yes"}})");
  EXPECT_EQ(barClass(*state), "unknown");
  EXPECT_EQ(barLine(*state, BarFormat::Polybar), "%{F#aaaaaa}01:30 %{F-}\n");
  EXPECT_THAT(describeState(*state), HasSubstr("AI: off — \n"));
  EXPECT_EQ(describeState(nlohmann::json::array()), "runtime: unknown\n");
}

TEST(StatusText, WaybarJsonIsUtf8AndSurvivesInvalidBytes) {
  auto state = activeState("caf\xc3\xa9");
  EXPECT_THAT(barOutput(*state, BarFormat::Waybar), HasSubstr("\"15:00 caf\xc3\xa9\""));
  (*state)["commitment"]["next_action"] = "bad \xff byte";
  const auto bar = parse(barOutput(*state, BarFormat::Waybar));
  EXPECT_EQ(bar->at("text").get<std::string>(), "15:00 bad \xef\xbf\xbd byte");
}

}  // namespace
}  // namespace antidrift::cli
