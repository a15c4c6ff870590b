/// @file aw_export.h
/// ActivityWatch exports for tests (issue 15 item 6): where the real export
/// and the repository's own fixture are, and their window events as values.
///
/// The real export (aw-window-export-linux.json, 3,512 events) lives outside
/// the repository, in ../shared/data beside it; it is read by path and never
/// copied. A clone of the repository alone does not have it: tests over it
/// call ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT() first, which skips them with the
/// path it looked at. Every such test has a twin over tests/data/
/// aw-export-small.json, a hand-invented morning with the same traits
/// (tests/data/README.md), so the same assertions run from a clean clone.
///
/// Where the real export is looked for: $ANTIDRIFT_SHARED_DIR/data when that
/// variable is set (set it to a missing folder to see the skips), else the
/// folder compiled in as ANTIDRIFT_SHARED_DATA (<source>/../shared/data).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#ifndef ANTIDRIFT_SHARED_DATA
#error "ANTIDRIFT_SHARED_DATA must name ../shared/data (the folder of the real export)"
#endif
#ifndef ANTIDRIFT_TEST_DATA
#error "ANTIDRIFT_TEST_DATA must name tests/data (the folder of the fixtures)"
#endif

namespace antidrift::test {

/// The folder of the real data: $ANTIDRIFT_SHARED_DIR/data if set, else
/// ANTIDRIFT_SHARED_DATA. Thread-safe (reads the environment only).
inline std::string sharedDataDir() {
  const char* shared = std::getenv("ANTIDRIFT_SHARED_DIR");
  if (shared != nullptr && *shared != '\0') return std::string(shared) + "/data";
  return ANTIDRIFT_SHARED_DATA;
}

/// The path of the real ActivityWatch export (it may not exist).
inline std::string realExportPath() {
  return sharedDataDir() + "/aw-window-export-linux.json";
}

/// True when the real export can be opened.
inline bool realExportPresent() {
  return std::ifstream(realExportPath()).good();
}

/// What a skipped test says when the real export is absent.
inline std::string realExportMissing() {
  return "the real ActivityWatch export " + realExportPath() +
         " is not there (it lives in ../shared/data beside the repository, or "
         "$ANTIDRIFT_SHARED_DIR/data); its twin test runs the same checks on "
         "tests/data/aw-export-small.json";
}

/// The path of a fixture under tests/data/.
inline std::string fixturePath(const std::string& name) {
  return std::string(ANTIDRIFT_TEST_DATA) + "/" + name;
}

/// The repository's own small export (tests/data/README.md).
inline std::string smallExportPath() {
  return fixturePath("aw-export-small.json");
}

/// One event of a window bucket.
struct WindowEvent {
  std::int64_t atMs = 0;        ///< UTC ms
  std::int64_t durationMs = 0;  ///< how long it lasted, ms (0 for a flicker)
  std::string app;              ///< as exported (not normalised)
  std::string title;            ///< as exported (not sanitised)
};

/// An ISO 8601 timestamp with offset ("2020-06-28T21:14:25.734000+00:00") as
/// UTC ms. Throws Poco::SyntaxException when it is not one.
inline std::int64_t isoToUtcMs(const std::string& text) {
  int tzd = 0;
  Poco::DateTime at =
      Poco::DateTimeParser::parse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, text, tzd);
  at.makeUTC(tzd);
  return at.timestamp().epochMicroseconds() / 1000;
}

/// The events of every "currentwindow" bucket of the export at `path`, oldest
/// first (an export lists them newest first). Throws std::runtime_error when
/// the file cannot be opened, Poco exceptions when it is not an export.
inline std::vector<WindowEvent> loadWindowEvents(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  Poco::JSON::Parser parser;
  const auto root = parser.parse(in).extract<Poco::JSON::Object::Ptr>();
  const auto buckets = root->getObject("buckets");
  std::vector<WindowEvent> events;
  for (const auto& entry : *buckets) {
    const auto bucket = entry.second.extract<Poco::JSON::Object::Ptr>();
    if (bucket->optValue<std::string>("type", "") != "currentwindow") continue;
    const auto list = bucket->getArray("events");
    for (std::size_t i = list->size(); i-- > 0;) {
      const auto raw = list->getObject(static_cast<unsigned>(i));
      const auto data = raw->getObject("data");
      WindowEvent event;
      event.atMs = isoToUtcMs(raw->getValue<std::string>("timestamp"));
      event.durationMs = static_cast<std::int64_t>(raw->getValue<double>("duration") * 1000.0);
      event.app = data->optValue<std::string>("app", "");
      event.title = data->optValue<std::string>("title", "");
      events.push_back(std::move(event));
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const WindowEvent& a, const WindowEvent& b) { return a.atMs < b.atMs; });
  return events;
}

}  // namespace antidrift::test

/// Skips the current test, saying where it looked, when the real export is
/// absent. Use it first in a test body over the real export.
#define ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT()                  \
  do {                                                        \
    if (!::antidrift::test::realExportPresent())              \
      GTEST_SKIP() << ::antidrift::test::realExportMissing(); \
  } while (false)
