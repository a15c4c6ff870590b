/// @file activitywatch_api.h
/// The ActivityWatch-compatible heartbeat API (`/api/0/...`, docs/DESIGN.md §3,
/// docs/API.md "ActivityWatch-compatible API"): lets unchanged aw-client
/// based watchers (aw-watcher-window, aw-watcher-afk, …) feed evidence to the
/// Controller. A compatibility façade, not a store: buckets live in memory
/// only and events are never kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Poco/JSON/Object.h>

#include "antidrift/evidence/observation.h"
#include "antidrift/session/controller.h"
#include "server/window_join.h"

namespace antidrift {

/// Serves the `/api/0/` routes that aw-client uses. Transport-neutral: it
/// gets the method, the decoded path, the query and the body text (already
/// checked by HttpApi and RequestGuard::checkActivityWatch) and returns the
/// status and JSON text to send. Thread-safe (buckets are guarded by a mutex;
/// the Controller is thread-safe).
class ActivityWatchApi {
 public:
  /// The path prefix of every route served here.
  static constexpr std::string_view kPrefix = "/api/0/";
  /// At most this many buckets are kept; creating more is 400 (memory bound).
  static constexpr std::size_t kMaxBuckets = 64;
  /// Longest bucket id accepted, bytes.
  static constexpr std::size_t kMaxBucketIdBytes = 256;
  /// The `source` of observations made from ActivityWatch events.
  static constexpr const char* kSource = "activitywatch";
  /// The bucket type of aw-watcher-web (issue 16 item 4).
  static constexpr const char* kWebTabType = "web.tab.current";

  /// Construction options; empty values get defaults.
  struct Options {
    std::string hostname;  ///< GET /api/0/info "hostname"; default Poco::Environment::nodeName()
    std::string version;   ///< GET /api/0/info "version"; default "v0.12.0 (antidrift <version>)"
    /// Where window observations and aw-watcher-web tabs go (the daemon's one
    /// WindowJoin, shared with the other sources; issue 16 item 4). nullptr:
    /// an own WindowJoin on the system clock with default settings.
    WindowJoin* windows = nullptr;
  };

  /// What to send back: an HTTP status and a JSON text.
  struct Reply {
    int status = 200;   ///< HTTP status
    std::string json;   ///< body, a JSON value (may be "null"); empty for 304
    std::string allow;  ///< for 405: the methods the path allows
  };

  /// `controller` (and `options.windows`) must outlive this object.
  ActivityWatchApi(Controller& controller, Options options);
  ~ActivityWatchApi();

  /// Where this API sends windows and tabs: options.windows, or its own.
  WindowJoin& windows() { return windows_; }

  /// True when `path` belongs to this API (`/api/0` or starts with kPrefix).
  /// Pure.
  static bool handles(std::string_view path);

  /// Serves one request. `path` is the decoded URI path, `query` the decoded
  /// query parameters, `body` the request body (valid size; not yet parsed).
  /// Malformed JSON, a bad bucket id or a missing `pulsetime` → 400
  /// {"error"}; unknown routes 404; a known path with another method 405.
  /// Never throws for bad input; thread-safe.
  Reply handle(const std::string& method, const std::string& path,
               const std::vector<std::pair<std::string, std::string>>& query,
               const std::string& body);

  /// Milliseconds since the Unix epoch (UTC) of an ISO 8601 timestamp with
  /// optional fraction and timezone offset (`2020-06-28T21:14:25.734000+00:00`,
  /// `...Z`), or nullopt when it is not one (or before 1970). Pure.
  static std::optional<std::int64_t> parseTimestampMs(const std::string& text);

 private:
  /// An in-memory bucket: only its metadata (aw-server's create fields).
  struct Bucket {
    std::string type;      ///< event type, e.g. "currentwindow", "afkstatus"
    std::string client;    ///< e.g. "aw-watcher-window"
    std::string hostname;  ///< the watcher's host
    std::string created;   ///< ISO 8601 UTC, when it was created here
  };

  Reply info() const;
  Reply listBuckets() const;
  Reply getBucket(const std::string& id) const;
  Reply createBucket(const std::string& id, const std::string& body);
  Reply deleteBucket(const std::string& id);
  Reply heartbeat(const std::string& id,
                  const std::vector<std::pair<std::string, std::string>>& query,
                  const std::string& body);
  Reply insertEvents(const std::string& id, const std::string& body);

  /// What one event asks of the Controller, decided before anything is
  /// applied so a request with one bad event changes nothing.
  struct Effect {
    enum class Kind { None, Window, Away, WebTab } kind = Kind::None;
    Observation observation;  ///< for Window
    bool away = false;        ///< for Away
    WebTabHeartbeat tab;      ///< for WebTab (aw-watcher-web; issue 16 item 4)
  };

  /// Reads one event according to the bucket type (or, for an unknown
  /// bucket, the shape of its data). Throws http::BadRequest (a
  /// sentence for the client) for an event that is not an object or whose
  /// data has the wrong type. Pure.
  static Effect interpretEvent(const std::optional<std::string>& bucketType,
                               const Poco::Dynamic::Var& event);
  void apply(const std::string& bucket, const Effect& effect);
  std::optional<std::string> bucketType(const std::string& id) const;
  Poco::JSON::Object::Ptr bucketJson(const std::string& id, const Bucket& bucket) const;

  Controller& controller_;
  Options options_;
  std::unique_ptr<WindowJoin> ownWindows_;  // when options_.windows was nullptr
  WindowJoin& windows_;
  std::string deviceId_;
  mutable std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;  // guarded by mutex_
};

}  // namespace antidrift
