// The replay's input (activity_reader.h): ActivityWatch exports, JSONL observations and the
// commitments file, read into what runReplay replays (issue 15 item 2). Exports are streamed
// through RapidJSON's SAX Reader in fixed chunks and JSONL line by line (json_input.h), so a
// year of history costs its events, not a DOM of the file (issue 16 item 5).
#include "antidrift/replay/activity_reader.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include <Poco/String.h>
#include <rapidjson/reader.h>

#include "antidrift/evidence/web_join.h"
#include "replay/json_input.h"

namespace antidrift::replay {
namespace {

using json::Field;
using json::Fields;

constexpr std::int64_t kOpenStart = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max();

/// Sorted by time, oldest first; ties keep their order. An export lists events newest first:
/// when no two share a time, reversing is that sort without its buffer.
void sortActivity(Activity& activity) {
  auto& windows = activity.windows;
  const auto byTime = [](const WindowEvent& a, const WindowEvent& b) { return a.atMs < b.atMs; };
  if (!std::is_sorted(windows.begin(), windows.end(), byTime)) {
    const bool strictlyNewestFirst =
        std::adjacent_find(windows.begin(), windows.end(),
                           [](const WindowEvent& a, const WindowEvent& b) {
                             return a.atMs <= b.atMs;
                           }) == windows.end();
    if (strictlyNewestFirst) {
      std::reverse(windows.begin(), windows.end());
    } else {
      std::stable_sort(windows.begin(), windows.end(), byTime);
    }
  }
  std::sort(activity.away.begin(), activity.away.end(),
            [](const AwaySpan& a, const AwaySpan& b) { return a.startMs < b.startMs; });
  std::stable_sort(activity.web.begin(), activity.web.end(),
                   [](const WebEvent& a, const WebEvent& b) { return a.atMs < b.atMs; });
}

// ---- ActivityWatch exports -------------------------------------------------------------------

/// What one bucket gave.
struct BucketOut {
  std::vector<WindowEvent> windows;
  std::vector<AwaySpan> away;
  std::vector<WebEvent> web;
  std::size_t webEvents = 0;
};

/// The fields of an event and of its "data" that the replay reads.
enum EventField : std::size_t { kTimestamp, kDuration, kData };
enum DataField : std::size_t { kApp, kTitle, kStatus, kUrl, kIncognito };

/// An event read before its bucket's "type" (kept until the bucket ends).
struct PendingEvent {
  bool object = true;
  Fields event;
  Fields data;
};

/// SAX handler of an export: {"buckets": {id: {"type", "events": [{"timestamp", "duration",
/// "data": {...}}]}}}. Every other key is skipped, its value only counted for depth. Nesting
/// levels (open containers): 1 the root, 2 "buckets", 3 a bucket, 4 its "events", 5 an event,
/// 6 its "data". A bad shape stops the parse with `failure` and `error` set.
class ExportHandler {
 public:
  enum class Failure { None, NotObject, Input };

  explicit ExportHandler(const std::string& name) : name_(name) {}

  bool Null() {
    return scalar(Field::Kind::Null, [](Field&) {});
  }
  bool Bool(bool value) {
    return scalar(Field::Kind::Bool, [&](Field& f) { f.boolean = value; });
  }
  bool Int(int value) { return number(value); }
  bool Uint(unsigned value) { return number(value); }
  bool Int64(std::int64_t value) { return number(static_cast<double>(value)); }
  bool Uint64(std::uint64_t value) { return number(static_cast<double>(value)); }
  bool Double(double value) { return number(value); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return true; }  // flag not used
  bool String(const char* text, rapidjson::SizeType length, bool) {
    if (skipping()) return true;
    if (depth_ == 3 && bucketKey_ == BucketKey::Type) {
      if (!json::validUtf8(text, length)) {
        return fail(bucketWhere() + ": \"type\" is not valid UTF-8");
      }
      typeText_.assign(text, length);
      kind_ = kindOf(typeText_);
      return true;
    }
    const Field* slot = depth_ == 5 ? eventSlot_ : depth_ == 6 ? dataSlot_ : nullptr;
    if (slot && !json::validUtf8(text, length)) {
      const std::string& field = depth_ == 5 ? event_.nameOf(slot) : data_.nameOf(slot);
      return fail(eventWhere(eventIndex_) + ": \"" + field + "\" is not valid UTF-8");
    }
    return scalar(Field::Kind::String, [&](Field& f) { f.text.assign(text, length); });
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (skipping()) return true;
    const std::string_view key(text, length);
    switch (depth_) {
      case 1:
        rootKeyIsBuckets_ = key == "buckets";
        break;
      case 2:
        bucketId_.assign(text, length);
        break;
      case 3:
        bucketKey_ = key == "type"     ? BucketKey::Type
                     : key == "events" ? BucketKey::Events
                                       : BucketKey::Other;
        break;
      case 5:
        eventSlot_ = event_.slot(text, length);
        break;
      case 6:
        dataSlot_ = data_.slot(text, length);
        break;
      default:
        break;
    }
    return true;
  }
  bool StartObject() { return open(true); }
  bool StartArray() { return open(false); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  /// The activity of every bucket, buckets in id order (the order of a Poco::JSON::Object, which
  /// read exports before; a bucket id given twice keeps its last bucket), sorted by time. Throws
  /// ReplayError when it holds no window event.
  Activity activity() {
    Activity activity;
    for (auto& [id, bucket] : buckets_) {
      if (activity.windows.empty()) {
        activity.windows = std::move(bucket.windows);
      } else {
        activity.windows.insert(activity.windows.end(),
                                std::make_move_iterator(bucket.windows.begin()),
                                std::make_move_iterator(bucket.windows.end()));
      }
      activity.away.insert(activity.away.end(), bucket.away.begin(), bucket.away.end());
      activity.web.insert(activity.web.end(), std::make_move_iterator(bucket.web.begin()),
                          std::make_move_iterator(bucket.web.end()));
      activity.webEvents += bucket.webEvents;
    }
    if (activity.windows.empty()) {
      throw ReplayError(name_ + " has no window events (no \"currentwindow\" bucket with events)");
    }
    sortActivity(activity);
    return activity;
  }

  Failure failure = Failure::None;
  std::string error;        ///< Failure::Input: the ReplayError's message
  bool sawBuckets = false;  ///< the root has a "buckets" key (it means to be an export)
  bool rootDone = false;    ///< the root object ended

 private:
  enum class BucketKind { Unknown, Window, Afk, WebTab, Web, Other };
  enum class BucketKey { Other, Type, Events };

  static BucketKind kindOf(const std::string& type) {
    if (type == "currentwindow") return BucketKind::Window;
    if (type == "afkstatus") return BucketKind::Afk;
    if (type == "web.tab.current") return BucketKind::WebTab;  // aw-watcher-web (issue 16 item 4)
    if (type.rfind("web.", 0) == 0) return BucketKind::Web;
    return BucketKind::Other;
  }

  bool skipping() const { return depth_ >= skipFrom_; }

  bool fail(std::string message) {
    failure = Failure::Input;
    error = std::move(message);
    return false;
  }

  std::string bucketWhere() const { return name_ + " bucket \"" + bucketId_ + "\""; }
  std::string eventWhere(std::size_t index) const {
    return bucketWhere() + " event " + std::to_string(index);
  }

  bool number(double value) {
    return scalar(Field::Kind::Number, [&](Field& f) { f.number = value; });
  }

  /// A value that is not a container, at the current depth.
  template <typename Set>
  bool scalar(Field::Kind kind, Set set) {
    if (skipping()) return true;
    switch (depth_) {
      case 0:
        failure = Failure::NotObject;
        return false;
      case 1:
        if (!rootKeyIsBuckets_) return true;
        sawBuckets = true;
        return fail(name_ + ": \"buckets\" must be an object");
      case 2:
        return fail(bucketWhere() + " must be an object");
      case 3:
        if (bucketKey_ == BucketKey::Type) {
          if (kind != Field::Kind::Null) return fail(bucketWhere() + ": \"type\" must be a string");
          typeText_.clear();
          kind_ = BucketKind::Other;
        } else if (bucketKey_ == BucketKey::Events) {
          return fail(bucketWhere() + ": \"events\" must be an array");
        }
        return true;
      case 4:
        return eventEnd(false);
      case 5:
        return assign(eventSlot_, kind, set);
      case 6:
        return assign(dataSlot_, kind, set);
      default:
        return true;
    }
  }

  template <typename Set>
  static bool assign(Field* slot, Field::Kind kind, Set& set) {
    if (slot) {
      slot->kind = kind;
      set(*slot);
    }
    return true;
  }

  /// An object or array starts at the current depth.
  bool open(bool object) {
    const int at = depth_;
    if (++depth_ > json::kMaxDepth) {
      return fail(name_ + " is not valid JSON: nested deeper than " +
                  std::to_string(json::kMaxDepth) + " levels");
    }
    if (at >= skipFrom_) return true;
    switch (at) {
      case 0:
        if (object) return true;
        failure = Failure::NotObject;
        return false;
      case 1:
        if (!rootKeyIsBuckets_) return skip();
        sawBuckets = true;
        return object || fail(name_ + ": \"buckets\" must be an object");
      case 2:
        if (!object) return fail(bucketWhere() + " must be an object");
        startBucket();
        return true;
      case 3:
        if (bucketKey_ == BucketKey::Type)
          return fail(bucketWhere() + ": \"type\" must be a string");
        if (bucketKey_ == BucketKey::Other) return skip();
        if (object) return fail(bucketWhere() + ": \"events\" must be an array");
        eventsSeen_ = true;
        return true;
      case 4:
        if (!object) return eventEnd(false) && skip();
        event_.clear();
        data_.clear();
        eventSlot_ = nullptr;
        return true;
      case 5:
        if (eventSlot_ == &event_[kData] && object) {
          eventSlot_->kind = Field::Kind::Object;
          dataSlot_ = nullptr;
          return true;
        }
        if (eventSlot_) eventSlot_->kind = object ? Field::Kind::Object : Field::Kind::Array;
        return skip();
      case 6:
        if (dataSlot_) dataSlot_->kind = object ? Field::Kind::Object : Field::Kind::Array;
        return skip();
      default:
        return skip();
    }
  }

  /// Skips the container just opened (depth_ is its level).
  bool skip() {
    skipFrom_ = depth_;
    return true;
  }

  bool close() {
    const int level = depth_--;
    if (level > skipFrom_) return true;
    if (level == skipFrom_) {
      skipFrom_ = INT_MAX;
      return true;
    }
    switch (level) {
      case 5:
        return eventEnd(true);
      case 3:
        return bucketEnd();
      case 1:
        rootDone = true;
        return true;
      default:
        return true;
    }
  }

  void startBucket() {
    typeText_.clear();
    kind_ = BucketKind::Unknown;
    bucketKey_ = BucketKey::Other;
    eventsSeen_ = false;
    eventIndex_ = 0;
    pending_.clear();
    out_ = BucketOut{};
  }

  /// An element of "events" ended (`object`: it was an object, its fields read).
  bool eventEnd(bool object) {
    const std::size_t index = eventIndex_++;
    if (kind_ == BucketKind::Unknown) {  // "type" comes later: keep the event till then
      pending_.push_back(PendingEvent{object, event_, data_});
      return true;
    }
    return take(object, event_, data_, index);
  }

  bool bucketEnd() {
    if (!eventsSeen_) return fail(bucketWhere() + ": \"events\" must be an array");
    if (kind_ == BucketKind::Unknown) kind_ = BucketKind::Other;  // no "type"
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (!take(pending_[i].object, pending_[i].event, pending_[i].data, i)) return false;
    }
    pending_.clear();
    buckets_[bucketId_] = std::move(out_);
    out_ = BucketOut{};
    return true;
  }

  /// One event of a bucket of known kind into `out_`.
  bool take(bool object, const Fields& event, const Fields& data, std::size_t index) {
    if (kind_ == BucketKind::Web) {
      ++out_.webEvents;
      return true;
    }
    if (kind_ != BucketKind::Window && kind_ != BucketKind::Afk && kind_ != BucketKind::WebTab) {
      return true;
    }
    const auto where = [&] { return eventWhere(index); };
    try {
      if (kind_ == BucketKind::WebTab) {
        ++out_.webEvents;
        takeWebEvent(object, event, data, where);
        return true;
      }
      if (!object) throw ReplayError(where() + " must be an object");
      const std::int64_t startMs = json::timeField(event[kTimestamp], "timestamp", where);
      const auto duration = json::numberField(event[kDuration], "duration", where);
      const std::int64_t durationMs =
          duration ? static_cast<std::int64_t>(*duration * 1000.0 + 0.5) : 0;
      if (event[kData].kind != Field::Kind::Object) {
        json::fieldError(where(), "data", "must be an object");
      }
      if (kind_ == BucketKind::Window) {
        out_.windows.push_back(WindowEvent{startMs, durationMs,
                                           json::stringField(data[kApp], "app", where, false),
                                           json::stringField(data[kTitle], "title", where, false)});
      } else if (json::stringField(data[kStatus], "status", where, true) == "afk") {
        out_.away.push_back(AwaySpan{startMs, startMs + durationMs});
      }
    } catch (const ReplayError& e) {
      return fail(e.what());
    }
    return true;
  }

  /// A "web.tab.current" event into `out_.web`; one without a string data.url says nothing and
  /// is skipped; a bad timestamp or duration is a ReplayError as for windows.
  template <typename Where>
  void takeWebEvent(bool object, const Fields& event, const Fields& data, const Where& where) {
    if (!object) throw ReplayError(where() + " must be an object");
    if (event[kData].kind != Field::Kind::Object || data[kUrl].kind != Field::Kind::String) return;
    WebEvent entry;
    entry.atMs = json::timeField(event[kTimestamp], "timestamp", where);
    const auto duration = json::numberField(event[kDuration], "duration", where);
    entry.durationMs = duration ? static_cast<std::int64_t>(*duration * 1000.0 + 0.5) : 0;
    entry.title = json::stringField(data[kTitle], "title", where, false);
    entry.incognito = data[kIncognito].kind == Field::Kind::Bool && data[kIncognito].boolean;
    // Nothing of a private tab is kept but what the join and the local tiers
    // need: its title, time and domain (docs/DESIGN.md §4 "Private windows").
    entry.url = entry.incognito ? "https://" + domainOfUrl(data[kUrl].text) + "/" : data[kUrl].text;
    out_.web.push_back(std::move(entry));
  }

  const std::string& name_;
  int depth_ = 0;
  int skipFrom_ = INT_MAX;  ///< depth_ ≥ skipFrom_: inside a skipped value
  bool rootKeyIsBuckets_ = false;
  std::string bucketId_;
  BucketKey bucketKey_ = BucketKey::Other;
  std::string typeText_;
  BucketKind kind_ = BucketKind::Unknown;
  bool eventsSeen_ = false;
  std::size_t eventIndex_ = 0;
  Fields event_{"timestamp", "duration", "data"};
  Fields data_{"app", "title", "status", "url", "incognito"};
  Field* eventSlot_ = nullptr;
  Field* dataSlot_ = nullptr;
  std::vector<PendingEvent> pending_;
  BucketOut out_;
  std::map<std::string, BucketOut> buckets_;
};

/// "line L, column C" of byte `offset` of `in` (read again from its start), or "byte N" when
/// `in` cannot be read again. Only for an error message.
std::string positionOf(std::istream& in, std::size_t offset) {
  in.clear();
  in.seekg(0);
  if (!in) return "byte " + std::to_string(offset + 1);
  std::size_t line = 1;
  std::size_t column = 1;
  char buffer[64 * 1024];
  std::size_t seen = 0;
  while (seen < offset && in) {
    in.read(buffer, static_cast<std::streamsize>(std::min(sizeof buffer, offset - seen)));
    const auto got = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < got; ++i) {
      if (buffer[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    seen += got;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Streams `in` as an export. `sniffing` (loadActivity): nullopt when `in` is no export — its
/// first value is not an object with "buckets", or more follows it — so it is read as JSONL;
/// an export's own errors still throw. Otherwise every problem is a ReplayError.
std::optional<Activity> streamExport(std::istream& in, const std::string& name, bool sniffing) {
  json::ChunkStream stream(in);
  ExportHandler handler(name);
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<rapidjson::kParseNoFlags>(stream, handler);
  if (stream.failed()) throw ReplayError("cannot read " + name);
  if (handler.failure == ExportHandler::Failure::Input) throw ReplayError(handler.error);
  if (handler.failure == ExportHandler::Failure::NotObject) {
    if (sniffing) return std::nullopt;
    throw ReplayError(name + " is not a JSON object");
  }
  const bool trailing = !result.IsError() && !stream.atEnd();  // after a NUL byte
  if (result.IsError() || trailing) {
    if (sniffing && (!handler.sawBuckets || handler.rootDone)) return std::nullopt;
    const std::size_t offset = trailing ? stream.Tell() : result.Offset();
    const std::string problem =
        trailing ? std::string("a NUL byte") : json::parseErrorText(result.Code());
    throw ReplayError(name + " is not valid JSON: " + problem + " (" + positionOf(in, offset) +
                      ")");
  }
  if (!handler.sawBuckets) {
    if (sniffing) return std::nullopt;
    throw ReplayError(name + " has no \"buckets\"");
  }
  return handler.activity();
}

// ---- JSONL observations ----------------------------------------------------------------------

Activity readObservations(std::istream& in, const std::string& name) {
  enum : std::size_t { kAt, kAway, kDurationS, kAppField, kTitleField };
  Activity activity;
  json::JsonlReader reader(in, name);
  Fields fields{"at", "away", "duration_s", "app", "title"};
  bool isAway = false;
  std::int64_t awaySince = 0;
  while (reader.next(fields)) {
    const auto where = [&] { return reader.where(); };
    const std::int64_t at = json::timeField(fields[kAt], "at", where);
    if (fields[kAway].kind != Field::Kind::Missing) {
      if (fields[kAway].kind != Field::Kind::Bool) {
        json::fieldError(where(), "away", "must be true or false");
      }
      if (fields[kAway].boolean) {
        if (!isAway) awaySince = at;
        isAway = true;
      } else if (isAway) {
        activity.away.push_back(AwaySpan{awaySince, std::max(at, awaySince)});
        isAway = false;
      }
      continue;
    }
    const auto duration = json::numberField(fields[kDurationS], "duration_s", where);
    activity.windows.push_back(
        WindowEvent{at, duration ? static_cast<std::int64_t>(*duration * 1000.0) : std::int64_t{-1},
                    json::stringField(fields[kAppField], "app", where, true),
                    json::stringField(fields[kTitleField], "title", where, false)});
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

bool isSpace(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

Activity parseActivityWatch(std::istream& in, const std::string& name) {
  return *streamExport(in, name, false);
}

Activity parseObservationsJsonl(std::istream& in, const std::string& name) {
  return readObservations(in, name);
}

Activity readActivity(std::istream& in, const std::string& name) {
  int c = in.peek();
  while (c != std::char_traits<char>::eof() && isSpace(c)) {
    in.get();
    c = in.peek();
  }
  if (in.bad()) throw ReplayError("cannot read " + name);
  if (c == std::char_traits<char>::eof()) throw ReplayError(name + " is empty");
  in.clear();
  in.seekg(0);
  if (!in) throw ReplayError("cannot read " + name + " from its start (not seekable)");
  if (auto activity = streamExport(in, name, true)) return std::move(*activity);
  in.clear();
  in.seekg(0);
  if (!in) throw ReplayError("cannot read " + name + " from its start (not seekable)");
  return readObservations(in, name);
}

Activity loadActivity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReplayError("cannot read " + path + " (missing or not readable)");
  return readActivity(in, path);
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
      if (auto ms = json::parseIso(text)) return *ms;
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
