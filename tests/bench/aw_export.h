/// @file aw_export.h
/// The window events of the real ActivityWatch export (../shared/data,
/// ANTIDRIFT_SHARED_DATA) for the benchmarks: app, raw title and UTC ms,
/// oldest first. Loaded once per process; throws std::runtime_error when the
/// export is missing. The first call must finish before other threads call it
/// (a function-local static: thread-safe in C++11).
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Poco/DateTimeParser.h>
#include <Poco/JSON/Parser.h>

#ifndef ANTIDRIFT_SHARED_DATA
#error "ANTIDRIFT_SHARED_DATA must name the folder of aw-window-export-linux.json"
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
    std::ifstream file(ANTIDRIFT_SHARED_DATA "/aw-window-export-linux.json");
    if (!file) throw std::runtime_error("missing " ANTIDRIFT_SHARED_DATA);
    Poco::JSON::Parser parser;
    const auto root = parser.parse(file).extract<Poco::JSON::Object::Ptr>();
    const auto buckets = root->getObject("buckets");
    const auto list = buckets->getObject(*buckets->getNames().begin())->getArray("events");
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
