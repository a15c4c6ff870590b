/// @file aw_export.h
/// The window events of the real ActivityWatch export (../shared/data,
/// ANTIDRIFT_SHARED_DATA, or $ANTIDRIFT_SHARED_DIR/data when set) for the
/// benchmarks: app, raw title and UTC ms, oldest first. When the real export
/// is not there (a clone of the repository alone), the repository's own small
/// export (tests/data/aw-export-small.json) is walked instead and a line on
/// stderr says so: the smoke runs of the test command still run, but such
/// figures are not the ones of docs/PERFORMANCE.md. Loaded once per process;
/// throws std::runtime_error when neither file can be read. The first call
/// must finish before other threads call it (a function-local static:
/// thread-safe in C++11).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Poco/DateTimeParser.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#ifndef ANTIDRIFT_SHARED_DATA
#error "ANTIDRIFT_SHARED_DATA must name the folder of aw-window-export-linux.json"
#endif
#ifndef ANTIDRIFT_TEST_DATA
#error "ANTIDRIFT_TEST_DATA must name tests/data (the fixture used without the real export)"
#endif

namespace antidrift::bench {

/// One window event of the export, as aw-watcher-window recorded it.
struct RawEvent {
  std::int64_t atMs;  ///< UTC ms
  std::string app;    ///< the window class as recorded (not normalised)
  std::string title;  ///< the raw title (not sanitised)
};

/// The export's window events, oldest first (the file lists them newest first).
inline const std::vector<RawEvent>& awWindowEvents() {
  static const std::vector<RawEvent> loaded = [] {
    const char* shared = std::getenv("ANTIDRIFT_SHARED_DIR");
    const std::string real =
        (shared != nullptr && *shared != '\0' ? std::string(shared) + "/data"
                                              : std::string(ANTIDRIFT_SHARED_DATA)) +
        "/aw-window-export-linux.json";
    std::ifstream file(real);
    if (!file) {
      const std::string small = ANTIDRIFT_TEST_DATA "/aw-export-small.json";
      std::cerr << "bench: the real export " << real << " is not there; walking " << small
                << " instead (figures not comparable with docs/PERFORMANCE.md)\n";
      file.open(small);
      if (!file) throw std::runtime_error("missing " + real + " and " + small);
    }
    Poco::JSON::Parser parser;
    const auto root = parser.parse(file).extract<Poco::JSON::Object::Ptr>();
    const auto buckets = root->getObject("buckets");
    Poco::JSON::Array::Ptr list;
    for (const auto& bucket : *buckets) {
      const auto object = bucket.second.extract<Poco::JSON::Object::Ptr>();
      if (object->optValue<std::string>("type", "") == "currentwindow")
        list = object->getArray("events");
    }
    if (!list) throw std::runtime_error("no currentwindow bucket in the export");
    std::vector<RawEvent> out;
    for (std::size_t i = list->size(); i-- > 0;) {
      const auto event = list->getObject(static_cast<unsigned>(i));
      int tz = 0;
      const auto when = Poco::DateTimeParser::parse(event->getValue<std::string>("timestamp"), tz);
      const auto data = event->getObject("data");
      out.push_back({when.timestamp().epochMicroseconds() / 1000 - tz * 1000LL,
                     data->getValue<std::string>("app"), data->getValue<std::string>("title")});
    }
    return out;
  }();
  return loaded;
}

}  // namespace antidrift::bench
