// The replay's input (activity_reader.h): ActivityWatch exports, JSONL observations and the
// commitments file, read into what runReplay replays (issue 15 item 2).
#include "antidrift/replay/activity_reader.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/String.h>

namespace antidrift::replay {
namespace {

constexpr std::int64_t kOpenStart = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max();

using Poco::JSON::Object;

/// ISO 8601 with an optional fraction and offset → UTC ms; nullopt when it is not one.
std::optional<std::int64_t> parseIso(const std::string& text) {
  // Poco's parser is lenient ("yesterday" parses): the date part must be there.
  const auto digit = [&](std::size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() < 19 || !digit(0) || !digit(1) || !digit(2) || !digit(3) || text[4] != '-' ||
      !digit(5) || !digit(6) || text[7] != '-' || !digit(8) || !digit(9) ||
      (text[10] != 'T' && text[10] != ' ')) {
    return std::nullopt;
  }
  Poco::DateTime at;
  int tzd = 0;
  if (!Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, text, at, tzd) &&
      !Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FORMAT, text, at, tzd)) {
    return std::nullopt;
  }
  at.makeUTC(tzd);
  return at.timestamp().epochMicroseconds() / 1000;
}

/// `value` as a string field, or a ReplayError naming `where` and `field`.
std::string stringField(const Object& object, const std::string& field, const std::string& where,
                        bool required) {
  if (!object.has(field) || object.isNull(field)) {
    if (required) throw ReplayError(where + ": \"" + field + "\" is missing");
    return {};
  }
  const Poco::Dynamic::Var value = object.get(field);
  if (!value.isString()) throw ReplayError(where + ": \"" + field + "\" must be a string");
  return value.extract<std::string>();
}

/// A number field (seconds, ms) as double, or a ReplayError.
std::optional<double> numberField(const Object& object, const std::string& field,
                                  const std::string& where) {
  if (!object.has(field) || object.isNull(field)) return std::nullopt;
  const Poco::Dynamic::Var value = object.get(field);
  if (!value.isNumeric()) throw ReplayError(where + ": \"" + field + "\" must be a number");
  const double number = value.convert<double>();
  if (!(number >= 0) || number > 1e15) {
    throw ReplayError(where + ": \"" + field + "\" must be a number ≥ 0");
  }
  return number;
}

/// "at": UTC ms or ISO 8601.
std::int64_t timeField(const Object& object, const std::string& field, const std::string& where) {
  if (!object.has(field) || object.isNull(field)) {
    throw ReplayError(where + ": \"" + field + "\" is missing");
  }
  const Poco::Dynamic::Var value = object.get(field);
  if (value.isString()) {
    if (auto ms = parseIso(value.extract<std::string>())) return *ms;
    throw ReplayError(where + ": \"" + field + "\" is not an ISO 8601 time: \"" +
                      value.extract<std::string>() + "\"");
  }
  if (auto ms = numberField(object, field, where)) return static_cast<std::int64_t>(*ms);
  throw ReplayError(where + ": \"" + field + "\" must be UTC ms or an ISO 8601 time");
}

void sortActivity(Activity& activity) {
  std::stable_sort(activity.windows.begin(), activity.windows.end(),
                   [](const WindowEvent& a, const WindowEvent& b) { return a.atMs < b.atMs; });
  std::sort(activity.away.begin(), activity.away.end(),
            [](const AwaySpan& a, const AwaySpan& b) { return a.startMs < b.startMs; });
}

Object::Ptr parseRoot(const std::string& text, const std::string& name) {
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var root = parser.parse(text);
    if (root.type() != typeid(Object::Ptr)) return nullptr;
    return root.extract<Object::Ptr>();
  } catch (const Poco::Exception& e) {
    throw ReplayError(name + " is not valid JSON: " + e.displayText());
  }
}

Activity parseExportObject(const Object& root, const std::string& name) {
  const Object::Ptr buckets = root.getObject("buckets");
  if (buckets.isNull()) throw ReplayError(name + ": \"buckets\" must be an object");
  Activity activity;
  for (const auto& [id, value] : *buckets) {
    const std::string where = name + " bucket \"" + id + "\"";
    if (value.type() != typeid(Object::Ptr)) throw ReplayError(where + " must be an object");
    const Object::Ptr bucket = value.extract<Object::Ptr>();
    const std::string type = stringField(*bucket, "type", where, false);
    const Poco::JSON::Array::Ptr events = bucket->getArray("events");
    if (events.isNull()) throw ReplayError(where + ": \"events\" must be an array");
    const bool window = type == "currentwindow";
    const bool afk = type == "afkstatus";
    const bool web = type.rfind("web.", 0) == 0;
    for (std::size_t i = 0; i < events->size(); ++i) {
      if (web) {
        ++activity.webEvents;
        continue;
      }
      if (!window && !afk) continue;  // another watcher's bucket: nothing AntiDrift reads
      const std::string at = where + " event " + std::to_string(i);
      const Object::Ptr event = events->getObject(static_cast<unsigned>(i));
      if (event.isNull()) throw ReplayError(at + " must be an object");
      const std::int64_t startMs = timeField(*event, "timestamp", at);
      const auto duration = numberField(*event, "duration", at);
      const std::int64_t durationMs =
          duration ? static_cast<std::int64_t>(*duration * 1000.0 + 0.5) : 0;
      const Object::Ptr data = event->getObject("data");
      if (data.isNull()) throw ReplayError(at + ": \"data\" must be an object");
      if (window) {
        activity.windows.push_back(WindowEvent{startMs, durationMs,
                                               stringField(*data, "app", at, false),
                                               stringField(*data, "title", at, false)});
      } else if (stringField(*data, "status", at, true) == "afk") {
        activity.away.push_back(AwaySpan{startMs, startMs + durationMs});
      }
    }
  }
  if (activity.windows.empty()) {
    throw ReplayError(name + " has no window events (no \"currentwindow\" bucket with events)");
  }
  sortActivity(activity);
  return activity;
}

Activity parseJsonlText(const std::string& text, const std::string& name) {
  Activity activity;
  std::istringstream lines(text);
  std::string line;
  bool isAway = false;
  std::int64_t awaySince = 0;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string trimmed = Poco::trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const std::string where = name + " line " + std::to_string(number);
    Object::Ptr object;
    try {
      Poco::JSON::Parser parser;
      const Poco::Dynamic::Var value = parser.parse(trimmed);
      if (value.type() == typeid(Object::Ptr)) object = value.extract<Object::Ptr>();
    } catch (const Poco::Exception& e) {
      throw ReplayError(where + " is not valid JSON: " + e.displayText());
    }
    if (object.isNull()) throw ReplayError(where + " must be a JSON object");
    const std::int64_t at = timeField(*object, "at", where);
    if (object->has("away")) {
      const Poco::Dynamic::Var away = object->get("away");
      if (!away.isBoolean()) throw ReplayError(where + ": \"away\" must be true or false");
      if (away.extract<bool>()) {
        if (!isAway) awaySince = at;
        isAway = true;
      } else if (isAway) {
        activity.away.push_back(AwaySpan{awaySince, std::max(at, awaySince)});
        isAway = false;
      }
      continue;
    }
    const auto duration = numberField(*object, "duration_s", where);
    activity.windows.push_back(WindowEvent{
        at, duration ? static_cast<std::int64_t>(*duration * 1000.0) : std::int64_t{-1},
        stringField(*object, "app", where, true), stringField(*object, "title", where, false)});
  }
  if (isAway) activity.away.push_back(AwaySpan{awaySince, kOpenEnd});
  if (activity.windows.empty()) throw ReplayError(name + " has no window observations");
  sortActivity(activity);
  // No duration: until the next observation (runReplay caps it at the idle limit).
  for (std::size_t i = 0; i < activity.windows.size(); ++i) {
    WindowEvent& event = activity.windows[i];
    if (event.durationMs >= 0) continue;
    event.durationMs =
        i + 1 < activity.windows.size() ? activity.windows[i + 1].atMs - event.atMs : 0;
  }
  return activity;
}

std::string readAll(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

Activity parseActivityWatch(std::istream& in, const std::string& name) {
  const Object::Ptr root = parseRoot(readAll(in), name);
  if (root.isNull()) throw ReplayError(name + " is not a JSON object");
  if (!root->has("buckets")) throw ReplayError(name + " has no \"buckets\"");
  return parseExportObject(*root, name);
}

Activity parseObservationsJsonl(std::istream& in, const std::string& name) {
  return parseJsonlText(readAll(in), name);
}

Activity loadActivity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReplayError("cannot read " + path + " (missing or not readable)");
  const std::string text = readAll(in);
  if (in.bad()) throw ReplayError("cannot read " + path);
  if (Poco::trim(text).empty()) throw ReplayError(path + " is empty");
  // One JSON object with "buckets" is an export; anything else is JSONL.
  const std::size_t firstLineEnd = text.find('\n');
  const bool oneLine =
      firstLineEnd == std::string::npos || Poco::trim(text.substr(firstLineEnd)).empty();
  if (text.find("\"buckets\"") != std::string::npos && (oneLine || text.find("{\"at\"") != 0)) {
    Object::Ptr root;
    try {
      root = parseRoot(text, path);
    } catch (const ReplayError&) {
      if (oneLine) throw;
    }
    if (!root.isNull() && root->has("buckets")) return parseExportObject(*root, path);
  }
  return parseJsonlText(text, path);
}

std::vector<CommitmentRange> parseCommitments(std::istream& in, const std::string& name) {
  std::vector<CommitmentRange> ranges;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string trimmed = Poco::trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const std::string where = name + " line " + std::to_string(number);
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const std::size_t bar = trimmed.find('|', start);
      fields.push_back(Poco::trim(trimmed.substr(start, bar - start)));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    if (fields.size() != 5) {
      throw ReplayError(where +
                        ": expected 5 fields separated by '|' (FROM | TO | next action | "
                        "success condition | apps), got " +
                        std::to_string(fields.size()));
    }
    CommitmentRange range;
    const auto time = [&](const std::string& text, std::int64_t open, const char* what) {
      if (text == "*") return open;
      if (auto ms = parseIso(text)) return *ms;
      throw ReplayError(where + ": " + what + " is not an ISO 8601 time or *: \"" + text + "\"");
    };
    range.fromMs = time(fields[0], kOpenStart, "FROM");
    range.toMs = time(fields[1], kOpenEnd, "TO");
    if (range.toMs <= range.fromMs) throw ReplayError(where + ": TO must be after FROM");
    range.nextAction = fields[2];
    range.successCondition = fields[3];
    if (range.nextAction.empty()) throw ReplayError(where + ": the next action is empty");
    std::istringstream apps(fields[4]);
    for (std::string app; std::getline(apps, app, ',');) {
      app = Poco::trim(app);
      if (!app.empty()) range.allowedApps.push_back(app);
    }
    ranges.push_back(std::move(range));
  }
  if (ranges.empty()) throw ReplayError(name + " holds no commitment");
  std::sort(ranges.begin(), ranges.end(),
            [](const CommitmentRange& a, const CommitmentRange& b) { return a.fromMs < b.fromMs; });
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].fromMs < ranges[i - 1].toMs) {
      throw ReplayError(name + ": two commitment ranges overlap");
    }
  }
  return ranges;
}

}  // namespace antidrift::replay
