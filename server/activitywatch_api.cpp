// What aw-client sends and checks, from the ActivityWatch sources (read
// 2024; the façade below answers so that none of it errors):
//
// ActivityWatch/aw-client aw_client/client.py
//   - Every call is http://<host>:<port>/api/0/<endpoint>; every answer goes
//     through response.raise_for_status(), so any status >= 400 is an error
//     and 304 is not.
//   - POST sends headers {"Content-type": "application/json", "charset":
//     "utf-8"} and a JSON body; no Origin, no token. GET sends no body.
//   - get_info(): GET info → .json() ("hostname", "testing", …).
//   - get_buckets(): GET buckets/ → .json(), a dict keyed by bucket id.
//   - create_bucket(id, type): POST buckets/<id> with {"client", "hostname",
//     "type"}; queued=True (what aw-watcher-window and aw-watcher-afk use)
//     registers it and posts it on every (re)connect, so it is sent again
//     each time; the answer body is not read.
//   - heartbeat(id, event, pulsetime, queued): POST
//     buckets/<id>/heartbeat?pulsetime=<float seconds> with
//     event.to_json_dict() = {"timestamp": ISO 8601 with offset, "duration":
//     seconds (float), "data": {...}} (plus "id" when set). Not queued:
//     Event(**answer.json()), so the answer must be one event object with
//     only id/timestamp/duration/data keys. Queued: the client pre-merges
//     heartbeats, so "timestamp" is the start of the merged span and the
//     window was last seen at timestamp + duration; the answer is ignored,
//     and a failed post (any >= 400) marks the client disconnected, after
//     which it re-creates its buckets and retries the same request.
//   - insert_event(s): POST buckets/<id>/events with a list of events;
//     insert_event does Event(**answer.json()) on the answer.
// ActivityWatch/aw-server aw_server/rest.py
//   - GET /api/0/info → {"hostname", "version", "testing", "device_id"}.
//   - POST /api/0/buckets/<id>: 200 {} when created, 304 when it exists.
//   - POST .../events accepts one event object or a list; answers the last
//     created event (or null), 200.
//   - POST .../heartbeat: missing pulsetime → 400; answers the (merged)
//     event, 200.
// ActivityWatch/aw-server-rust aw-server/src/endpoints/bucket.rs
//   - bucket_new: BucketAlreadyExists → 304 NotModified, else 200.
//   - heartbeat/events to a bucket that does not exist → 404.
//
// Differences here, on purpose: buckets are kept in memory only (lost on
// restart), so a heartbeat to an unknown bucket is accepted (200) and read by
// the shape of its data rather than 404 — a watcher that outlives a daemon
// restart keeps working without reconnecting. Events are never stored: GET
// .../events answers [] and .../events/count 0.
#include "server/activitywatch_api.h"

#include <cmath>
#include <stdexcept>
#include <utility>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/DateTimeParser.h>
#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/NumberParser.h>
#include <Poco/Timestamp.h>
#include <Poco/UUID.h>
#include <Poco/UUIDGenerator.h>

#include "antidrift/text/utf8.h"
#include "server/http/body.h"
#include "server/http/responses.h"

#ifndef ANTIDRIFT_VERSION
#define ANTIDRIFT_VERSION "0"
#endif

namespace antidrift {
namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

/// The aw-server version answered by GET /api/0/info.
constexpr const char* kCompatibleVersion = "v0.12.0";
/// Largest event duration taken into account, seconds (one day).
constexpr double kMaxDurationSecs = 86400.0;

ActivityWatchApi::Reply errorReply(int status, const std::string& message) {
  return {status, http::errorJson(message), {}};
}

/// A number field in seconds, 0 when absent, not a number or out of range.
double durationSecs(const Poco::JSON::Object& event) {
  if (!event.has("duration")) {
    return 0.0;
  }
  const Poco::Dynamic::Var value = event.get("duration");
  if (value.isEmpty() || value.isString() || value.isBoolean() || !value.isNumeric()) {
    return 0.0;
  }
  double seconds = 0.0;
  try {
    seconds = value.convert<double>();
  } catch (const Poco::Exception&) {
    return 0.0;
  }
  return std::isfinite(seconds) && seconds >= 0.0 && seconds <= kMaxDurationSecs ? seconds : 0.0;
}

/// The path after kPrefix split at '/'; a trailing '/' gives an empty last
/// segment ("buckets/" → {"buckets", ""}).
std::vector<std::string> splitSegments(std::string_view rest) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = rest.find('/', start);
    segments.emplace_back(
        rest.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) {
      break;
    }
    start = slash + 1;
  }
  return segments;
}

ActivityWatchApi::Reply notAllowed(const std::string& method, const std::string& path,
                                   const std::string& allow) {
  ActivityWatchApi::Reply reply = errorReply(405, http::methodNotAllowedMessage(method, path));
  reply.allow = allow;
  return reply;
}

std::string nowIso() {
  return Poco::DateTimeFormatter::format(Poco::Timestamp(),
                                         Poco::DateTimeFormat::ISO8601_FRAC_FORMAT);
}

/// The clock of a WindowJoin the API makes for itself (no daemon wiring).
const Clock& systemClock() {
  static const SystemClock clock;
  return clock;
}

}  // namespace

ActivityWatchApi::ActivityWatchApi(Controller& controller, Options options)
    : controller_(controller),
      options_(std::move(options)),
      ownWindows_(options_.windows == nullptr
                      ? std::make_unique<WindowJoin>(controller, systemClock())
                      : nullptr),
      windows_(options_.windows != nullptr ? *options_.windows : *ownWindows_) {
  if (options_.hostname.empty()) {
    try {
      options_.hostname = Poco::Environment::nodeName();
    } catch (const Poco::Exception&) {
      options_.hostname = "localhost";
    }
  }
  if (options_.version.empty()) {
    options_.version = std::string(kCompatibleVersion) + " (antidrift " ANTIDRIFT_VERSION ")";
  }
  // Stable across restarts without storing anything: a name-based UUID.
  deviceId_ = Poco::UUIDGenerator::defaultGenerator()
                  .createFromName(Poco::UUID::dns(), "antidrift." + options_.hostname)
                  .toString();
}

ActivityWatchApi::~ActivityWatchApi() = default;

bool ActivityWatchApi::handles(std::string_view path) {
  return path == "/api/0" || path.substr(0, kPrefix.size()) == kPrefix;
}

std::optional<std::int64_t> ActivityWatchApi::parseTimestampMs(const std::string& text) {
  // Poco's parser is lenient; insist on the date-time shape first.
  const bool shaped = text.size() >= 19 && text.size() <= 64 && text[4] == '-' && text[7] == '-' &&
                      (text[10] == 'T' || text[10] == 't' || text[10] == ' ') && text[13] == ':' &&
                      text[16] == ':';
  if (!shaped) {
    return std::nullopt;
  }
  Poco::DateTime dateTime;
  int timeZoneDifference = 0;
  if (!Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, text, dateTime,
                                      timeZoneDifference) &&
      !Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FORMAT, text, dateTime,
                                      timeZoneDifference)) {
    return std::nullopt;
  }
  dateTime.makeUTC(timeZoneDifference);
  const std::int64_t ms = dateTime.timestamp().epochMicroseconds() / 1000;
  if (ms < 0) {
    return std::nullopt;
  }
  return ms;
}

ActivityWatchApi::Reply ActivityWatchApi::handle(const std::string& method, const std::string& path,
                                                 const Query& query, const std::string& body) {
  if (!handles(path) || path.size() <= kPrefix.size()) {
    return errorReply(404, http::noSuchRouteMessage(method, path));
  }
  const std::vector<std::string> segments =
      splitSegments(std::string_view(path).substr(kPrefix.size()));
  try {
    if (segments.size() == 1 && segments[0] == "info") {
      return method == "GET" ? info() : notAllowed(method, path, "GET");
    }
    if (segments[0] == "buckets" &&
        (segments.size() == 1 || (segments.size() == 2 && segments[1].empty()))) {
      return method == "GET" ? listBuckets() : notAllowed(method, path, "GET");
    }
    if (segments[0] == "buckets" && segments.size() >= 2 && !segments[1].empty()) {
      const std::string& id = segments[1];
      if (id.size() > kMaxBucketIdBytes || sanitizeTitle(id) != id) {
        throw http::BadRequest("the bucket id must be at most " +
                               std::to_string(kMaxBucketIdBytes) +
                               " bytes of UTF-8 without control characters");
      }
      if (segments.size() == 2) {
        if (method == "GET") return getBucket(id);
        if (method == "POST") return createBucket(id, body);
        if (method == "DELETE") return deleteBucket(id);
        return notAllowed(method, path, "GET, POST, DELETE");
      }
      if (segments.size() == 3 && segments[2] == "heartbeat") {
        return method == "POST" ? heartbeat(id, query, body) : notAllowed(method, path, "POST");
      }
      if (segments.size() == 3 && segments[2] == "events") {
        if (method == "GET") return {200, "[]", {}};
        if (method == "POST") return insertEvents(id, body);
        return notAllowed(method, path, "GET, POST");
      }
      if (segments.size() == 4 && segments[2] == "events" && segments[3] == "count") {
        return method == "GET" ? Reply{200, "0", {}} : notAllowed(method, path, "GET");
      }
    }
  } catch (const http::BadRequest& error) {
    return errorReply(400, error.what());
  }
  return errorReply(404, http::noSuchRouteMessage(method, path));
}

ActivityWatchApi::Reply ActivityWatchApi::info() const {
  Poco::JSON::Object body;
  body.set("hostname", options_.hostname);
  body.set("version", options_.version);
  body.set("testing", false);
  body.set("device_id", deviceId_);
  return {200, http::toJsonText(body), {}};
}

Poco::JSON::Object::Ptr ActivityWatchApi::bucketJson(const std::string& id,
                                                     const Bucket& bucket) const {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("id", id);
  json->set("name", Poco::Dynamic::Var());
  json->set("type", bucket.type);
  json->set("client", bucket.client);
  json->set("hostname", bucket.hostname);
  json->set("created", bucket.created);
  json->set("data", Poco::JSON::Object::Ptr(new Poco::JSON::Object));
  return json;
}

ActivityWatchApi::Reply ActivityWatchApi::listBuckets() const {
  Poco::JSON::Object body;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [id, bucket] : buckets_) {
    body.set(id, bucketJson(id, bucket));
  }
  return {200, http::toJsonText(body), {}};
}

ActivityWatchApi::Reply ActivityWatchApi::getBucket(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = buckets_.find(id);
  if (found == buckets_.end()) {
    return errorReply(404, "no such bucket: " + id);
  }
  return {200, http::toJsonText(bucketJson(id, found->second)), {}};
}

ActivityWatchApi::Reply ActivityWatchApi::createBucket(const std::string& id,
                                                       const std::string& body) {
  const Poco::JSON::Object::Ptr json = http::requireObject(
      http::parseJsonBody(body, http::BodyShape::ObjectOrArray), "the request body");
  Bucket bucket;
  const auto type = http::optionalString(*json, "type", "type");
  if (!type || type->empty()) {
    throw http::BadRequest("type is required");
  }
  bucket.type = text::sanitizeUtf8(*type, text::LineBreaks::Remove, kMaxBucketIdBytes);
  bucket.client = text::sanitizeUtf8(http::optionalString(*json, "client", "client").value_or(""),
                                     text::LineBreaks::Remove, kMaxBucketIdBytes);
  bucket.hostname =
      text::sanitizeUtf8(http::optionalString(*json, "hostname", "hostname").value_or(""),
                         text::LineBreaks::Remove, kMaxBucketIdBytes);
  bucket.created = nowIso();
  std::lock_guard<std::mutex> lock(mutex_);
  if (buckets_.count(id) != 0) {
    return {304, "", {}};  // aw-server: the bucket already exists
  }
  if (buckets_.size() >= kMaxBuckets) {
    return errorReply(400, "too many buckets (at most " + std::to_string(kMaxBuckets) + ")");
  }
  buckets_.emplace(id, std::move(bucket));
  return {200, "{}", {}};
}

ActivityWatchApi::Reply ActivityWatchApi::deleteBucket(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (buckets_.erase(id) == 0) {
    return errorReply(404, "no such bucket: " + id);
  }
  return {200, "{}", {}};
}

std::optional<std::string> ActivityWatchApi::bucketType(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = buckets_.find(id);
  if (found == buckets_.end()) {
    return std::nullopt;
  }
  return found->second.type;
}

ActivityWatchApi::Reply ActivityWatchApi::heartbeat(const std::string& id, const Query& query,
                                                    const std::string& body) {
  std::optional<double> pulsetime;
  for (const auto& [name, value] : query) {
    double parsed = 0.0;
    if (name == "pulsetime" && Poco::NumberParser::tryParseFloat(value, parsed) &&
        std::isfinite(parsed) && parsed >= 0.0) {
      pulsetime = parsed;
    }
  }
  if (!pulsetime) {
    throw http::BadRequest("pulsetime is required: a number of seconds >= 0");
  }
  const Poco::Dynamic::Var event = http::parseJsonBody(body, http::BodyShape::ObjectOrArray);
  const Effect effect = interpretEvent(bucketType(id), event);
  apply(id, effect);
  return {200, http::toJsonText(event), {}};
}

ActivityWatchApi::Reply ActivityWatchApi::insertEvents(const std::string& id,
                                                       const std::string& body) {
  const Poco::Dynamic::Var parsed = http::parseJsonBody(body, http::BodyShape::ObjectOrArray);
  std::vector<Poco::Dynamic::Var> events;
  if (parsed.type() == typeid(Poco::JSON::Array::Ptr)) {
    const Poco::JSON::Array::Ptr array = parsed.extract<Poco::JSON::Array::Ptr>();
    for (std::size_t i = 0; i < array->size(); ++i) {
      events.push_back(array->get(static_cast<unsigned>(i)));
    }
  } else {
    events.push_back(parsed);
  }
  const std::optional<std::string> type = bucketType(id);
  std::vector<Effect> effects;
  effects.reserve(events.size());
  for (const Poco::Dynamic::Var& event : events) {
    effects.push_back(interpretEvent(type, event));
  }
  for (const Effect& effect : effects) {
    apply(id, effect);
  }
  return {200, events.empty() ? std::string("null") : http::toJsonText(events.back()), {}};
}

ActivityWatchApi::Effect ActivityWatchApi::interpretEvent(const std::optional<std::string>& type,
                                                          const Poco::Dynamic::Var& event) {
  const Poco::JSON::Object::Ptr object = http::requireObject(event, "each event");
  Poco::JSON::Object::Ptr data = new Poco::JSON::Object;
  if (object->has("data") && !object->get("data").isEmpty()) {
    data = http::requireObject(object->get("data"), "data");
  }
  const bool windowBucket = type && *type == "currentwindow";
  const bool afkBucket = type && *type == "afkstatus";
  const bool webBucket = type && *type == kWebTabType;
  const bool hasWindowData = data->has("app") && data->get("app").isString() &&
                             data->has("title") && data->get("title").isString();
  const auto status = afkBucket || !type ? http::optionalString(*data, "status", "data.status")
                                         : std::optional<std::string>();

  Effect effect;
  const bool hasWebData = !hasWindowData && data->has("url") && data->get("url").isString();
  if (webBucket || (!type && hasWebData)) {
    // aw-watcher-web: {url, title, audible, incognito, tabCount}; only url,
    // title and incognito are read, and only the url's domain is ever kept.
    const auto url = http::optionalString(*data, "url", "data.url");
    if (!url) {
      throw http::BadRequest("data.url is required: a string");
    }
    effect.kind = Effect::Kind::WebTab;
    effect.tab.url = *url;
    effect.tab.title = http::optionalString(*data, "title", "data.title").value_or("");
    if (data->has("incognito") && !data->get("incognito").isEmpty()) {
      const Poco::Dynamic::Var incognito = data->get("incognito");
      if (!incognito.isBoolean()) {
        throw http::BadRequest("data.incognito must be true or false");
      }
      effect.tab.incognito = incognito.extract<bool>();
    }
    return effect;
  }
  if (windowBucket || hasWindowData) {
    const auto app = http::optionalString(*data, "app", "data.app");
    if (!app) {
      throw http::BadRequest("data.app is required: a string");
    }
    effect.kind = Effect::Kind::Window;
    effect.observation.app = *app;
    effect.observation.title = http::optionalString(*data, "title", "data.title").value_or("");
    effect.observation.source = kSource;
    // Seen last at the end of the (possibly pre-merged) span; a missing or
    // malformed timestamp means "now" (the Controller's receipt time).
    const auto timestamp = http::optionalString(*object, "timestamp", "timestamp");
    const std::optional<std::int64_t> startMs =
        timestamp ? parseTimestampMs(*timestamp) : std::nullopt;
    effect.observation.atMs =
        startMs ? *startMs + static_cast<std::int64_t>(std::llround(durationSecs(*object) * 1000.0))
                : 0;
    return effect;
  }
  if (afkBucket || (!type && status && (*status == "afk" || *status == "not-afk"))) {
    if (!status || (*status != "afk" && *status != "not-afk")) {
      throw http::BadRequest("data.status must be \"afk\" or \"not-afk\"");
    }
    effect.kind = Effect::Kind::Away;
    effect.away = *status == "afk";
  }
  return effect;  // other bucket types: accepted, nothing to do
}

void ActivityWatchApi::apply(const std::string& bucket, const Effect& effect) {
  switch (effect.kind) {
    case Effect::Kind::Window:
      windows_.recordWindow(effect.observation);
      return;
    case Effect::Kind::WebTab:
      windows_.recordTab(bucket, effect.tab);
      return;
    case Effect::Kind::Away:
      controller_.setAway(effect.away);
      return;
    case Effect::Kind::None:
      return;
  }
}

}  // namespace antidrift
