// The replay's streaming input reader (issue 16 item 5; activity_reader.h): tiny exports and
// JSONL files of our own — window, afk and web buckets, events out of order, zero durations,
// non-ASCII titles — read as a person's export would be, and malformed input (truncated, wrong
// types, missing fields, deep nesting, bad UTF-8) that must give a ReplayError naming the file,
// bucket, event index or line and the field, never a crash. A generated export larger than the
// reader's chunk is checked against Poco's DOM reading of the same text.
#include "antidrift/replay/activity_reader.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/TemporaryFile.h>

#include "antidrift/replay/label_score.h"

namespace antidrift::replay {
namespace {

using ::testing::HasSubstr;

Activity exportOf(const std::string& text) {
  std::istringstream in(text);
  return parseActivityWatch(in, "export.json");
}

Activity jsonlOf(const std::string& text) {
  std::istringstream in(text);
  return parseObservationsJsonl(in, "day.jsonl");
}

Activity sniffed(const std::string& text) {
  std::istringstream in(text);
  return readActivity(in, "input");
}

/// The message of the ReplayError `read` throws ("" and a test failure when none).
template <typename Read>
std::string errorOf(Read read) {
  try {
    read();
  } catch (const ReplayError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ReplayError";
  return {};
}

std::string exportErrorOf(const std::string& text) {
  return errorOf([&] { exportOf(text); });
}

/// One window bucket "w" holding `events` (a JSON array's inside).
std::string windowExport(const std::string& events) {
  return R"({"buckets": {"w": {"type": "currentwindow", "events": [)" + events + "]}}}";
}

/// A good event of window bucket "w", at 09:00:SS UTC on 2026-05-19, with `extra` fields.
std::string windowEvent(int second, const std::string& extra = "") {
  char at[64];
  std::snprintf(at, sizeof at, "2026-05-19T09:00:%02d+00:00", second);
  return std::string(R"({"timestamp": ")") + at + R"(", "duration": 1.0, "data": {"app": "code",)" +
         R"( "title": "x")" + extra + "}}";
}

constexpr std::int64_t k0900 = 1'779'181'200'000;  // 2026-05-19T09:00:00Z, UTC ms

TEST(ActivityWatchExport, ReadsWindowAfkAndWebBucketsInTimeOrder) {
  const Activity activity = exportOf(R"({
  "buckets": {
    "aw-watcher-window_host": {"id": "aw-watcher-window_host", "created": "2026-05-19T08:00:00Z",
      "name": null, "type": "currentwindow", "client": "aw-watcher-window", "hostname": "host",
      "data": {"nested": [1, {"deep": [true, null]}]},
      "events": [
        {"timestamp": "2026-05-19T09:05:00.500+00:00", "duration": 0.0,
         "data": {"app": "Firefox", "title": "Caf\u00e9 — 日本語 🎉 (2) Facebook", "url": null}},
        {"timestamp": "2026-05-19T11:00:00+02:00", "duration": 300.25, "id": 7,
         "data": {"app": "Code", "title": "● index.js — site", "extra": {"a": [1, 2]}}},
        {"timestamp": 1779181500000, "duration": 0, "data": {"app": "Code"}}
      ]},
    "aw-watcher-afk_host": {"type": "afkstatus", "events": [
      {"timestamp": "2026-05-19T09:10:00Z", "duration": 60, "data": {"status": "not-afk"}},
      {"timestamp": "2026-05-19T09:07:00Z", "duration": 120.5, "data": {"status": "afk"}}]},
    "aw-watcher-web-firefox": {"type": "web.tab.current", "events": [
      {"timestamp": "2026-05-19T09:06:00Z", "duration": 3,
       "data": {"url": "https://x.test/a?b", "title": "X", "audible": false}},
      {"timestamp": "2026-05-19T09:05:00Z", "duration": 1.5,
       "data": {"url": "https://private.test/", "title": "P", "incognito": true}},
      {"anything": "without a url: counted, skipped"}]},
    "aw-watcher-web-other": {"type": "web.other", "events": [42, "only counted"]},
    "aw-watcher-input_host": {"type": "os.hid.input", "events": [{"not": "read"}, "at all"]}
  }
})");
  ASSERT_EQ(activity.windows.size(), 3u);
  EXPECT_EQ(activity.windows[0].atMs, k0900);  // 11:00 at +02:00
  EXPECT_EQ(activity.windows[0].durationMs, 300'250);
  EXPECT_EQ(activity.windows[0].app, "Code");
  EXPECT_EQ(activity.windows[0].title, "● index.js — site");
  EXPECT_EQ(activity.windows[1].atMs, k0900 + 300'000);  // UTC ms as a number
  EXPECT_EQ(activity.windows[1].durationMs, 0);
  EXPECT_EQ(activity.windows[1].title, "") << "a missing title is empty";
  EXPECT_EQ(activity.windows[2].atMs, k0900 + 300'500);
  EXPECT_EQ(activity.windows[2].durationMs, 0) << "a zero-duration flicker is kept";
  EXPECT_EQ(activity.windows[2].title, "Café — 日本語 🎉 (2) Facebook");
  ASSERT_EQ(activity.away.size(), 1u);
  EXPECT_EQ(activity.away[0].startMs, k0900 + 420'000);
  EXPECT_EQ(activity.away[0].endMs, k0900 + 420'000 + 120'500);
  EXPECT_EQ(activity.webEvents, 5u);
  ASSERT_EQ(activity.web.size(), 2u);
  EXPECT_EQ(activity.web[0].atMs, k0900 + 300'000);
  EXPECT_EQ(activity.web[0].durationMs, 1500);
  EXPECT_TRUE(activity.web[0].incognito);
  EXPECT_EQ(activity.web[0].url, "https://private.test/")
      << "nothing of a private tab but its title, time and domain";
  EXPECT_EQ(activity.web[0].title, "P");
  EXPECT_EQ(activity.web[1].url, "https://x.test/a?b");
  EXPECT_FALSE(activity.web[1].incognito);
}

TEST(ActivityWatchExport, ATypeAfterTheEventsStillDecidesWhatTheyAre) {
  const Activity activity = exportOf(R"({"buckets": {
    "a": {"events": [{"timestamp": "2026-05-19T09:01:00Z", "duration": 60,
                      "data": {"status": "afk"}}], "type": "afkstatus"},
    "w": {"events": [)" + windowEvent(2) +
                                     "," + windowEvent(1) +
                                     R"(], "type": "currentwindow"},
    "x": {"events": [{"no": "timestamp"}], "type": "web.tab.current"}}})");
  ASSERT_EQ(activity.windows.size(), 2u);
  EXPECT_EQ(activity.windows[0].atMs, k0900 + 1000);
  EXPECT_EQ(activity.windows[1].atMs, k0900 + 2000);
  ASSERT_EQ(activity.away.size(), 1u);
  EXPECT_EQ(activity.away[0].startMs, k0900 + 60'000);
  EXPECT_EQ(activity.webEvents, 1u);
  // A bad event read before its "type" is still named by its index.
  EXPECT_THAT(exportErrorOf(R"({"buckets": {"w": {"events": [)" + windowEvent(1) +
                            R"(, {"duration": 1}], "type": "currentwindow"}}})"),
              HasSubstr("export.json bucket \"w\" event 1: \"timestamp\" is missing"));
}

TEST(ActivityWatchExport, EventsAtTheSameTimeKeepBucketIdOrderAndALaterDuplicateBucketWins) {
  const auto bucket = [](const std::string& title) {
    return R"({"type": "currentwindow", "events": [{"timestamp": "2026-05-19T09:00:00Z",)"
           R"( "duration": 1, "data": {"app": "a", "title": ")" +
           title + "\"}}]}";
  };
  const Activity activity =
      exportOf(R"({"buckets": {"b": )" + bucket("from b") + R"(, "a": )" + bucket("from a") +
               R"(, "c": )" + bucket("first c") + R"(, "c": )" + bucket("second c") + "}}");
  ASSERT_EQ(activity.windows.size(), 3u);
  EXPECT_EQ(activity.windows[0].title, "from a");
  EXPECT_EQ(activity.windows[1].title, "from b");
  EXPECT_EQ(activity.windows[2].title, "second c");
}

// Every shape of timestamp gives what Poco's ISO 8601 parser gives (the reader before issue 16
// item 5), including the shapes read without Poco.
TEST(ActivityWatchExport, TimestampsGiveWhatPocosIsoParserGives) {
  const std::vector<std::string> stamps = {
      "2020-06-28T21:14:25.734000+00:00",  // the real export's shape
      "2020-06-28T21:14:25+00:00",
      "2026-05-19T09:00:00Z",
      "2026-05-19 09:00:00Z",
      "2026-05-19T09:00:00.7Z",
      "2026-05-19T09:00:00.123456789-05:30",
      "2024-02-29T23:59:59.999999+14:00",
      "1970-01-01T00:00:00Z",
      "1969-12-31T23:59:59.9995Z",
      "2026-05-19T09:00:00+0200",      // no colon: Poco's parser reads it
      "2026-05-19T09:00:00",           // no offset: UTC
      "2026-05-19T09:00:00.5 +01:00",  // odd, Poco's parser reads it
  };
  for (const std::string& stamp : stamps) {
    Poco::DateTime expected;
    int tzd = 0;
    ASSERT_TRUE(Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, stamp,
                                               expected, tzd))
        << stamp;
    expected.makeUTC(tzd);
    const Activity activity = exportOf(
        windowExport(R"({"timestamp": ")" + stamp + R"(", "data": {"app": "a", "title": "t"}})"));
    EXPECT_EQ(activity.windows[0].atMs, expected.timestamp().epochMicroseconds() / 1000) << stamp;
  }
  EXPECT_EQ(exportOf(windowExport(R"({"timestamp": "2020-06-28T21:14:25.734000+00:00",)"
                                  R"( "data": {}})"))
                .windows[0]
                .atMs,
            1'593'378'865'734);
  for (const char* bad : {"2023-02-29T09:00:00Z", "2026-13-01T09:00:00Z", "yesterday", "2026-05-19",
                          "2026-05-19T25:00:00Z"}) {
    EXPECT_THAT(
        exportErrorOf(windowExport(R"({"timestamp": ")" + std::string(bad) + R"(", "data": {}})")),
        HasSubstr(std::string("event 0: \"timestamp\" is not an ISO 8601 time: \"") + bad + "\""));
  }
}

TEST(ActivityWatchExport, WrongTypesAndMissingFieldsNameTheBucketEventAndField) {
  const std::string at = "export.json bucket \"w\" event ";
  EXPECT_EQ(exportErrorOf(windowExport(windowEvent(1) + R"(, {"duration": 1, "data": {}})")),
            at + "1: \"timestamp\" is missing");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": true, "data": {}})")),
            at + "0: \"timestamp\" must be UTC ms or an ISO 8601 time");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "duration": "20", "data": {}})")),
            at + "0: \"duration\" must be a number");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "duration": true, "data": {}})")),
            at + "0: \"duration\" must be a number");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "duration": -1, "data": {}})")),
            at + "0: \"duration\" must be a number ≥ 0");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "data": "code"})")),
            at + "0: \"data\" must be an object");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1})")),
            at + "0: \"data\" must be an object");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"title": 5}})")),
            at + "0: \"title\" must be a string");
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"app": ["a"]}})")),
            at + "0: \"app\" must be a string");
  EXPECT_EQ(exportErrorOf(windowExport(windowEvent(1) + ", [1, 2]")), at + "1 must be an object");
  EXPECT_EQ(exportErrorOf(R"({"buckets": {"a": {"type": "afkstatus", "events": [)"
                          R"({"timestamp": 1, "data": {}}]}}})"),
            "export.json bucket \"a\" event 0: \"status\" is missing");
  EXPECT_EQ(exportErrorOf(R"({"buckets": {"w": {"type": 3, "events": []}}})"),
            "export.json bucket \"w\": \"type\" must be a string");
  EXPECT_EQ(exportErrorOf(R"({"buckets": {"w": {"type": "currentwindow", "events": {}}}})"),
            "export.json bucket \"w\": \"events\" must be an array");
  EXPECT_EQ(exportErrorOf(R"({"buckets": {"w": {"type": "currentwindow"}}})"),
            "export.json bucket \"w\": \"events\" must be an array");
  EXPECT_EQ(exportErrorOf(R"({"buckets": {"w": []}})"),
            "export.json bucket \"w\" must be an object");
  EXPECT_EQ(exportErrorOf(R"({"buckets": []})"), "export.json: \"buckets\" must be an object");
  EXPECT_EQ(exportErrorOf(R"({"buckets": null})"), "export.json: \"buckets\" must be an object");
  EXPECT_EQ(exportErrorOf(R"({"bucket": {}})"), "export.json has no \"buckets\"");
  EXPECT_EQ(exportErrorOf("[1, 2]"), "export.json is not a JSON object");
  EXPECT_THAT(exportErrorOf(R"({"buckets": {"a": {"type": "afkstatus", "events": []}}})"),
              HasSubstr("export.json has no window events"));
}

TEST(ActivityWatchExport, MalformedJsonIsAReplayErrorWithItsLineAndColumn) {
  const std::string good = windowExport(windowEvent(1));
  const std::string truncated =
      "{\"buckets\": {\n\"w\": {\"type\": \"currentwindow\",\n\"events\": [" +
      windowEvent(1).substr(0, 30);
  EXPECT_THAT(exportErrorOf(truncated), HasSubstr("export.json is not valid JSON: "));
  EXPECT_THAT(exportErrorOf(truncated), HasSubstr("(line 3, column "));
  EXPECT_THAT(exportErrorOf(""), HasSubstr("export.json is not valid JSON"));
  EXPECT_THAT(exportErrorOf(good + " {}"), HasSubstr("export.json is not valid JSON"));
  EXPECT_THAT(exportErrorOf(good.substr(0, good.size() - 1) + ",}"),
              HasSubstr("export.json is not valid JSON"));
  EXPECT_THAT(exportErrorOf(std::string(good) + '\0' + "junk"),
              HasSubstr("export.json is not valid JSON: a NUL byte"));
}

TEST(ActivityWatchExport, DeepNestingIsAReplayErrorNotACrash) {
  const std::string deep(100'000, '[');
  EXPECT_THAT(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"x": )" + deep)),
              HasSubstr("export.json is not valid JSON: nested deeper than 128 levels"));
  EXPECT_THAT(exportErrorOf(R"({"other": )" + deep), HasSubstr("nested deeper than 128 levels"));
  EXPECT_THAT(exportErrorOf(deep), HasSubstr("export.json is not a JSON object"));
  // Nesting below the limit is skipped.
  const std::string nested = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(
      exportOf(windowExport(R"({"timestamp": 1, "data": {"x": )" + nested + "}}")).windows.size(),
      1u);
}

TEST(ActivityWatchExport, AKeptStringThatIsNotUtf8IsAnError) {
  EXPECT_EQ(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"title": "bad )"
                                       "\xff\xfe"
                                       R"("}})")),
            "export.json bucket \"w\" event 0: \"title\" is not valid UTF-8");
  // Overlong and surrogate forms too.
  EXPECT_THAT(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"app": ")"
                                         "\xc0\xaf"
                                         R"("}})")),
              HasSubstr("\"app\" is not valid UTF-8"));
  EXPECT_THAT(exportErrorOf(windowExport(R"({"timestamp": 1, "data": {"app": ")"
                                         "\xed\xa0\x80"
                                         R"("}})")),
              HasSubstr("\"app\" is not valid UTF-8"));
}

// The stream is read in 64 KiB chunks: an export of a few MB, with titles of every length and
// non-ASCII text crossing chunk boundaries, reads as Poco's DOM reads it.
TEST(ActivityWatchExport, ALargeExportReadsAsPocosDomReadsIt) {
  std::mt19937 random(16);
  const std::vector<std::string> words = {
      "site", "Café", "日本語", "🎉", "a\\\"quoted\\\"", "tab\\t", "\\u00e9t\\u00e9", "● index.js"};
  std::ostringstream text;
  text << R"({"buckets": {"w": {"type": "currentwindow", "events": [)";
  const int count = 20'000;
  for (int i = 0; i < count; ++i) {
    std::string title;
    for (std::uint32_t w = random() % 12; w > 0; --w) title += words[random() % words.size()] + " ";
    const std::int64_t atMs = k0900 + static_cast<std::int64_t>(random() % 86'400'000);
    text << (i ? ",\n" : "") << R"({"timestamp": )" << atMs << R"(, "duration": )"
         << (random() % 100'000) / 1000.0 << R"(, "data": {"app": "app)" << random() % 7
         << R"(", "title": ")" << title << "\"}}";
  }
  text << "]}}}";
  const Activity activity = exportOf(text.str());

  Poco::JSON::Parser parser;
  const auto events = parser.parse(text.str())
                          .extract<Poco::JSON::Object::Ptr>()
                          ->getObject("buckets")
                          ->getObject("w")
                          ->getArray("events");
  std::vector<WindowEvent> expected;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const auto event = events->getObject(static_cast<unsigned>(i));
    const auto data = event->getObject("data");
    expected.push_back(
        WindowEvent{event->getValue<std::int64_t>("timestamp"),
                    static_cast<std::int64_t>(event->getValue<double>("duration") * 1000.0 + 0.5),
                    data->getValue<std::string>("app"), data->getValue<std::string>("title")});
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const WindowEvent& a, const WindowEvent& b) { return a.atMs < b.atMs; });
  ASSERT_EQ(activity.windows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(activity.windows[i].atMs, expected[i].atMs) << i;
    EXPECT_EQ(activity.windows[i].durationMs, expected[i].durationMs) << i;
    EXPECT_EQ(activity.windows[i].app, expected[i].app) << i;
    ASSERT_EQ(activity.windows[i].title, expected[i].title) << i;
  }
}

TEST(ObservationsJsonl, ReadsWindowsAndAwayWithNestedFieldsSkipped) {
  const Activity activity = jsonlOf(
      "# a day\n"
      "\n"
      R"({"at": "2026-05-19T09:00:10Z", "app": "firefox", "title": "日本語 🎉", "duration_s": 0})"
      "\n"
      R"(  {"at": 1779181200000, "app": "code", "title": "x", "meta": {"a": [1, {"b": null}]}}  )"
      "\r\n"
      R"({"at": "2026-05-19T09:01:00Z", "away": true})"
      "\n"
      R"({"at": "2026-05-19T09:02:00Z", "away": false})"
      "\n");
  ASSERT_EQ(activity.windows.size(), 2u);
  EXPECT_EQ(activity.windows[0].atMs, k0900);
  EXPECT_EQ(activity.windows[0].durationMs, 10'000) << "no duration: until the next line";
  EXPECT_EQ(activity.windows[1].title, "日本語 🎉");
  EXPECT_EQ(activity.windows[1].durationMs, 0);
  ASSERT_EQ(activity.away.size(), 1u);
  EXPECT_EQ(activity.away[0].startMs, k0900 + 60'000);
  EXPECT_EQ(activity.away[0].endMs, k0900 + 120'000);
}

TEST(ObservationsJsonl, BadLinesNameTheLineAndField) {
  const auto error = [](const std::string& text) { return errorOf([&] { jsonlOf(text); }); };
  const std::string ok = R"({"at": 1, "app": "code"})";
  EXPECT_THAT(error(ok + "\n\n" + R"({"at": 2, "app": )"),
              HasSubstr("day.jsonl line 3 is not valid JSON: "));
  EXPECT_EQ(error(ok + "\n[1]\n"), "day.jsonl line 2 must be a JSON object");
  EXPECT_EQ(error(R"({"app": "code"})"), "day.jsonl line 1: \"at\" is missing");
  EXPECT_EQ(error(R"({"at": 1})"), "day.jsonl line 1: \"app\" is missing");
  EXPECT_EQ(error(R"({"at": 1, "app": 2})"), "day.jsonl line 1: \"app\" must be a string");
  EXPECT_EQ(error(R"({"at": 1, "away": null})"),
            "day.jsonl line 1: \"away\" must be true or false");
  EXPECT_EQ(error(R"({"at": 1, "app": "a", "duration_s": "5"})"),
            "day.jsonl line 1: \"duration_s\" must be a number");
  EXPECT_EQ(error("{\"at\": 1, \"app\": \"a\", \"title\": \"\xff\"}"),
            "day.jsonl line 1: \"title\" is not valid UTF-8");
  EXPECT_THAT(error(R"({"at": 1, "app": "a", "x": )" + std::string(50'000, '[')),
              HasSubstr("day.jsonl line 1 is not valid JSON: nested deeper than 128 levels"));
  EXPECT_THAT(error(ok + std::string("\0", 1) + "x"),
              HasSubstr("day.jsonl line 1 is not valid JSON"));
  EXPECT_EQ(error("# only a comment\n"), "day.jsonl has no window observations");
}

TEST(ReadActivity, AnExportIsOneObjectWithBucketsAndAnythingElseIsJsonl) {
  EXPECT_EQ(sniffed("\n  " + windowExport(windowEvent(1)) + "\n\n").windows.size(), 1u);
  // JSONL: comment first; one line; a first object without "buckets"; an object with
  // "buckets" followed by more lines.
  EXPECT_EQ(sniffed("# day\n{\"at\": 1, \"app\": \"a\"}\n").windows.size(), 1u);
  EXPECT_EQ(sniffed(R"({"at": 1, "app": "a"})").windows.size(), 1u);
  EXPECT_EQ(sniffed("{\"at\": 1, \"app\": \"a\"}\n{\"at\": 2, \"app\": \"b\"}").windows.size(), 2u);
  EXPECT_THAT(errorOf([] {
                sniffed(R"({"buckets": {}, "at": 1, "app": "a"})"
                        "\n{\"at\": 2}\n");
              }),
              HasSubstr("input line 2: \"app\" is missing"));
  // An export's own errors are an export's.
  EXPECT_THAT(errorOf([] { sniffed(R"({"buckets": []})"); }),
              HasSubstr("input: \"buckets\" must be an object"));
  EXPECT_THAT(errorOf([] { sniffed("{\"buckets\": {\"w\": {\n"); }),
              HasSubstr("input is not valid JSON: "));
  EXPECT_EQ(errorOf([] { sniffed(" \n\t\n"); }), "input is empty");
}

TEST(ReadActivity, LoadActivityReadsAFileAndNamesAMissingOne) {
  Poco::TemporaryFile file;
  {
    std::ofstream out(file.path());
    out << windowExport(windowEvent(3) + "," + windowEvent(2));
  }
  const Activity activity = loadActivity(file.path());
  ASSERT_EQ(activity.windows.size(), 2u);
  EXPECT_EQ(activity.windows[0].atMs, k0900 + 2000);
  EXPECT_THAT(errorOf([] { loadActivity("/nonexistent/export.json"); }),
              HasSubstr("cannot read /nonexistent/export.json"));
}

TEST(LabelsJsonl, SharesTheLineReader) {
  std::istringstream in(
      "{\"app\": \"a\", \"title\": \"日本語\", \"label\": \"on\", \"why\": {\"n\": [1]}}\n"
      "\n"
      "{\"app\": \"a\", \"title\": \"\xff\", \"label\": \"on\"}\n");
  EXPECT_EQ(errorOf([&] { parseLabels(in, "labels.jsonl"); }),
            "labels.jsonl line 3: \"title\" is not valid UTF-8");
  std::istringstream deep("{\"app\": " + std::string(1000, '[') + "\n");
  EXPECT_THAT(errorOf([&] { parseLabels(deep, "labels.jsonl"); }),
              HasSubstr("labels.jsonl line 1 is not valid JSON: nested deeper"));
}

}  // namespace
}  // namespace antidrift::replay
