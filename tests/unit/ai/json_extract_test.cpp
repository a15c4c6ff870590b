// Tests for extractJsonCandidates / normalizeCliOutput / lastValid
// (core/include/antidrift/ai/json_extract.h; docs/DESIGN.md §8, seed 003).
#include "antidrift/ai/json_extract.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift::ai {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct Shape {
  const char* name;
  std::string output;
  std::vector<std::string> expected;
};

std::string nested(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "{\"a\":";
  text += "1";
  for (int i = 0; i < levels; ++i) text += "}";
  return text;
}

const std::string kClaudeResultText =
    "Here's a sharpened plan:\n\n```json\n{\n  \"next_action\": \"Draft the executive summary\",\n"
    "  \"success_condition\": \"Three paragraphs: revenue, risks, outlook\",\n"
    "  \"timebox_minutes\": 25\n}\n```\n\nLet me know if you want changes.";
const std::string kClaudeResultJson =
    "{\n  \"next_action\": \"Draft the executive summary\",\n"
    "  \"success_condition\": \"Three paragraphs: revenue, risks, outlook\",\n"
    "  \"timebox_minutes\": 25\n}";
const std::string kClaudeEnvelope =
    R"({"type":"result","subtype":"success","is_error":false,"result":"```json\n{\"next_action\": \"x\", \"success_condition\": \"y\", \"timebox_minutes\": 5}\n```","session_id":"0b1c","total_cost_usd":0.01})";
const std::string kCodexLastMessage =
    R"({"next_action":"Outline the slides","success_condition":"10 slide titles in the deck","timebox_minutes":30})";

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> table = {
      {"bare object", R"({"a":1})", {R"({"a":1})"}},
      {"prose before and after",
       R"(Sure! Here you go: {"a": 1} Hope that helps.)",
       {R"({"a": 1})"}},
      {"json fence", "```json\n{\"a\": 1}\n```", {"{\"a\": 1}"}},
      {"fence without language", "Result:\n```\n{\"a\": 1}\n```\n", {"{\"a\": 1}"}},
      {"prompt echo then answer",
       R"(Return {"next_action": "example"} like that. Answer: {"next_action": "real"})",
       {R"({"next_action": "example"})", R"({"next_action": "real"})"}},
      {"braces inside strings", R"({"a": "x { y } z {"})", {R"({"a": "x { y } z {"})"}},
      {"escaped quotes",
       R"({"a": "he said \"{hi}\" ok"} tail)",
       {R"({"a": "he said \"{hi}\" ok"})"}},
      {"escaped backslash before closing quote",
       R"({"a": "c:\\", "b": "}"})",
       {R"({"a": "c:\\", "b": "}"})"}},
      {"nested objects are one candidate",
       R"(x {"a": {"b": {"c": 1}}, "d": [1, {"e": 2}]} y)",
       {R"({"a": {"b": {"c": 1}}, "d": [1, {"e": 2}]})"}},
      {"truncated output", R"(Here: {"next_action": "Write the)", {}},
      {"truncated outer hides its complete inner object",
       R"({"a": {"next_action": "x", "success_condition": "y", "timebox_minutes": 5})",
       {}},
      {"complete object then a truncated one", R"({"a":1} and then {"b": )", {R"({"a":1})"}},
      {"truncated inside a string holding braces", R"({"a": "x {\"b\": 1})", {}},
      {"empty string", "", {}},
      {"whitespace only", "  \n\t \r\n ", {}},
      {"non-UTF-8 bytes around",
       "\xff\xfe garbage {\"a\": \"ok\"} \xc3\x28 more \x80",
       {"{\"a\": \"ok\"}"}},
      {"invalid UTF-8 inside a string is not JSON", "{\"a\": \"\xff\"} {\"b\": 1}", {"{\"b\": 1}"}},
      {"ANSI colours around", "\x1b[1;32m{\"a\": 1}\x1b[0m\n", {"{\"a\": 1}"}},
      {"ANSI colours inside (jq -C)",
       "\x1b[1;39m{\n  \x1b[0m\x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0;39m1\x1b[0m\x1b[1;39m\n}"
       "\x1b[0m",
       {"{\n  \"a\":1\n}"}},
      {"ANSI inside a string value", "{\"a\": \"\x1b[31mred\x1b[0m\"}", {"{\"a\": \"red\"}"}},
      {"cursor moves and an OSC title",
       "\x1b]0;claude\x07\x1b[2K\x1b[1G{\"a\": 1}\x1b[?25h\x1b"
       "7",
       {"{\"a\": 1}"}},
      {"CRLF line ends", "{\r\n  \"a\": 1\r\n}\r\n", {"{\n  \"a\": 1\n}"}},
      {"lone CR progress lines", "Thinking...\rThinking...\r{\"a\":1}", {"{\"a\":1}"}},
      {"UTF-8 BOM", "\xEF\xBB\xBF{\"a\": 1}", {"{\"a\": 1}"}},
      {"unclosed brace in prose before the object",
       R"(I'll use { as a placeholder. {"a": 1})",
       {R"({"a": 1})"}},
      {"brace pair in prose is not JSON", R"(Use {name} here: {"a": 1})", {R"({"a": 1})"}},
      {"key-like prose is not JSON", R"(Keys look like {"key"} then: {"a": 1})", {R"({"a": 1})"}},
      {"top-level array ignored", "[1, 2, 3]", {}},
      {"objects inside an array are found", R"([{"a":1},{"b":2}])", {R"({"a":1})", R"({"b":2})"}},
      {"claude envelope result text", kClaudeResultText, {kClaudeResultJson}},
      {"raw claude envelope is not unwrapped", kClaudeEnvelope, {kClaudeEnvelope}},
      {"codex last message", kCodexLastMessage + "\n", {kCodexLastMessage}},
      {"codex JSONL events",
       "{\"type\":\"thread.started\"}\n{\"type\":\"turn.started\"}\n",
       {"{\"type\":\"thread.started\"}", "{\"type\":\"turn.started\"}"}},
      {"deep nesting kept whole", nested(40), {nested(40)}},
      {"unicode in strings",
       "{\"a\": \"Zusammenfassung — ✓ 日本語 😀\", \"b\": \"\\u00e9\\ud83d\\ude00\"}",
       {"{\"a\": \"Zusammenfassung — ✓ 日本語 😀\", \"b\": \"\\u00e9\\ud83d\\ude00\"}"}},
      {"empty object", "{}", {"{}"}},
      {"trailing comma is not JSON", R"({"a":1,} {"b":2})", {R"({"b":2})"}},
      {"number Poco rejects", R"({"a": 1e999} {"b": 2})", {R"({"b": 2})"}},
      {"single-quoted pseudo JSON", "{'a': 1}", {}},
      {"raw newline in a string is not JSON", "{\"a\": \"x\ny\"} {\"b\": 3}", {"{\"b\": 3}"}},
      {"literals and numbers",
       R"({"t": true, "f": false, "n": null, "x": -1.5e3})",
       {R"({"t": true, "f": false, "n": null, "x": -1.5e3})"}},
  };
  return table;
}

TEST(ExtractJsonCandidates, HandlesEveryShapeOfCliOutput) {
  ASSERT_GE(shapes().size(), 25u);
  for (const Shape& shape : shapes()) {
    EXPECT_EQ(extractJsonCandidates(shape.output), shape.expected) << "shape: " << shape.name;
  }
}

TEST(ExtractJsonCandidates, NestingDeeperThan64LevelsIsNotTakenWhole) {
  const std::vector<std::string> candidates = extractJsonCandidates(nested(100));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_NE(candidates[0], nested(100));
  EXPECT_EQ(std::count(candidates[0].begin(), candidates[0].end(), '{'), 64);
}

TEST(ExtractJsonCandidates, LongOutputIsScannedOverItsTail) {
  std::string output(kMaxScanBytes, 'x');
  output.insert(0, R"({"early": 1})");
  output += R"({"late": 2})";
  EXPECT_THAT(extractJsonCandidates(output), ElementsAre(R"({"late": 2})"));
}

TEST(ExtractJsonCandidates, ManyUnclosedBracesStayFast) {
  // Every '{' fails at once; must not hide the object at the end.
  std::string output;
  for (int i = 0; i < 50000; ++i) output += "{ x ";
  output += R"({"a": 1})";
  EXPECT_THAT(extractJsonCandidates(output), ElementsAre(R"({"a": 1})"));
}

TEST(NormalizeCliOutput, StripsBomEscapesAndCarriageReturns) {
  EXPECT_EQ(normalizeCliOutput("\xEF\xBB\xBF\x1b[31ma\x1b[0m\r\nb\rc\x1b]8;;http://x\x1b\\d"),
            "a\nb\nc"
            "d");
  EXPECT_EQ(normalizeCliOutput("tail\x1b"), "tail");
  EXPECT_EQ(normalizeCliOutput("\x1b(Bq"), "q");
  EXPECT_EQ(normalizeCliOutput("keep \xff bytes"), "keep \xff bytes");
}

// A toy validator: an object with a string "answer".
Expected<std::string> requireAnswer(const std::string& candidate) {
  const std::string key = "\"answer\": \"";
  const std::size_t at = candidate.find(key);
  if (at == std::string::npos)
    return AiError{AiErrorKind::InvalidVerdict, "no answer in " + candidate};
  const std::size_t start = at + key.size();
  return candidate.substr(start, candidate.find('"', start) - start);
}

TEST(LastValid, TakesTheLastCandidateThatValidates) {
  const auto result = lastValid<std::string>(
      R"(Echo: {"answer": "example"} ... {"answer": "real"} {"note": "trailing"})", requireAnswer);
  ASSERT_TRUE(result.hasValue()) << result.error().message;
  EXPECT_EQ(result.value(), "real");
}

TEST(LastValid, ReportsTheLastCandidatesErrorWhenNoneValidates) {
  const auto result = lastValid<std::string>(R"({"first": 1} {"second": 2})", requireAnswer);
  ASSERT_FALSE(result.hasValue());
  EXPECT_EQ(result.error().kind, AiErrorKind::InvalidVerdict);
  EXPECT_EQ(result.error().message, R"(no answer in {"second": 2})");
}

TEST(LastValid, BlankOutputIsEmptyResponse) {
  for (const std::string& output : {std::string(), std::string(" \n\t"), std::string("\x1b[0m\r\n"),
                                    std::string("\xEF\xBB\xBF")}) {
    const auto result = lastValid<std::string>(output, requireAnswer);
    ASSERT_FALSE(result.hasValue());
    EXPECT_EQ(result.error().kind, AiErrorKind::EmptyResponse);
  }
}

TEST(LastValid, OutputWithoutObjectsIsNoJson) {
  for (const std::string& output : {std::string("I cannot help with that."), std::string("[1,2]"),
                                    std::string(R"({"truncated": )")}) {
    const auto result = lastValid<std::string>(output, requireAnswer);
    ASSERT_FALSE(result.hasValue());
    EXPECT_EQ(result.error().kind, AiErrorKind::NoJson) << output;
  }
}

TEST(Expected, AccessingTheWrongSideThrowsLogicError) {
  const Expected<int> value = 3;
  const Expected<int> error = AiError{AiErrorKind::NoJson, "none"};
  EXPECT_THROW((void)value.error(), std::logic_error);
  EXPECT_THROW((void)error.value(), std::logic_error);
  EXPECT_EQ(value.value(), 3);
  EXPECT_EQ(toString(error.error().kind), "no_json");
}

}  // namespace
}  // namespace antidrift::ai
