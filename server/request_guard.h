/// @file request_guard.h
/// The request security rules of docs/DESIGN.md §10: loopback Host (DNS rebinding),
/// and for mutating requests a same-origin Origin, the token header and a
/// JSON content type.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace Poco::Net {
class HTTPRequest;
}

namespace antidrift {

/// The header carrying the token on mutating requests.
inline constexpr const char* kTokenHeader = "X-AntiDrift-Token";
/// The standard header that may carry the same token as `Bearer <token>`
/// (ActivityWatch's opt-in API key, sent by aw-client and aw-client-js when
/// configured; issue 16 item 4).
inline constexpr const char* kAuthorizationHeader = "Authorization";

/// The request headers the guard looks at; absent headers are nullopt.
struct RequestHeaders {
  std::optional<std::string> host;           ///< Host
  std::optional<std::string> origin;         ///< Origin
  std::optional<std::string> contentType;    ///< Content-Type
  std::optional<std::string> token;          ///< X-AntiDrift-Token
  std::optional<std::string> authorization;  ///< Authorization (e.g. "Bearer <token>")
  std::optional<std::string> fetchSite;      ///< Sec-Fetch-Site (browsers only)
  std::optional<std::string> fetchMode;      ///< Sec-Fetch-Mode (browsers only)
  /// Why the request is ambiguous, a sentence, if it is: one of Host,
  /// Origin, Content-Type, Content-Length, Transfer-Encoding, Sec-Fetch-Site,
  /// X-AntiDrift-Token and Authorization sent more than once (one copy may pass a check the
  /// other fails), or both Content-Length and Transfer-Encoding (the body
  /// could be framed two ways: request smuggling). Refused with 400 and
  /// the connection closed (issue 9 item 8).
  std::optional<std::string> ambiguity;

  /// Copies the headers above out of a Poco request. Thread-safe.
  static RequestHeaders from(const Poco::Net::HTTPRequest& request);
};

/// Why a request was refused: the HTTP status and a sentence for {"error"}.
struct GuardRejection {
  int status;           ///< 400, 401, 403 or 415
  std::string message;  ///< human sentence, safe to show
};

/// Checks requests against the rules of docs/DESIGN.md §10. Every method is
/// thread-safe: the token alone can change (replaceToken), under a mutex.
class RequestGuard {
 public:
  /// `token`: the content of <store.dir>/token (non-empty).
  explicit RequestGuard(std::string token);

  /// Every request: the Host header must name loopback — `127.0.0.1`,
  /// `localhost` or `[::1]`, each with an optional `:port` — else 403.
  /// A missing Host is refused too.
  /// An ambiguous request (RequestHeaders::ambiguity) is 400.
  std::optional<GuardRejection> checkHost(const RequestHeaders& headers) const;

  /// Every request, once its path is known (issue 19 item 7, review L2): a
  /// request a browser marks `Sec-Fetch-Site: cross-site` or `same-site`
  /// (another site, or another port on this machine) is refused with 403,
  /// so no web page can make the daemon read the audit log in a loop
  /// (`/history/export`) or probe it. `same-origin`, `none` (typed URL,
  /// bookmark) and no header at all (the CLI, watchers, older browsers)
  /// pass. One exception: a top-level navigation (`Sec-Fetch-Mode:
  /// navigate`) to `/`, so a link to the page still opens it. Pure.
  std::optional<GuardRejection> checkFetchSite(const RequestHeaders& headers,
                                               std::string_view path) const;

  /// Mutating requests (every POST), in this order: an Origin, when sent,
  /// must be `http://<Host>` (403); the token must be presented (401) in
  /// `X-AntiDrift-Token` or as `Authorization: Bearer <token>` (issue 16 item
  /// 4), and every credential presented must equal the token (403, compared
  /// in constant time; an Authorization of another scheme is 403 too);
  /// Content-Type must be `application/json`, parameters allowed (415).
  std::optional<GuardRejection> checkMutating(const RequestHeaders& headers) const;

  /// The ActivityWatch-compatible routes (`/api/0/...`, docs/API.md
  /// "ActivityWatch-compatible API"), which need no token because aw-client
  /// sends none unless configured: an Origin header is refused (403) —
  /// browsers send one on every cross-site request, aw-client never does —
  /// unless it is a browser extension's own origin (isExtensionOrigin:
  /// aw-watcher-web; a web page cannot send one); an `Authorization` header,
  /// when sent, must be `Bearer <token>` with the daemon's token (403,
  /// constant time; ActivityWatch's opt-in API key, issue 16 item 4); a POST
  /// must have Content-Type `application/json` (415). checkHost still applies.
  std::optional<GuardRejection> checkActivityWatch(const RequestHeaders& headers, bool post) const;

  /// True for the loopback Host values listed at checkHost. Pure.
  static bool isLoopbackHost(std::string_view host);
  /// True when `origin` is exactly the origin of a page served from `host`
  /// (scheme http, same host name ignoring case, same port with 80 as the
  /// default). "null" and anything with a path are not. Pure.
  static bool isSameOrigin(std::string_view origin, std::string_view host);
  /// True when the media type of `contentType` is application/json (case
  /// ignored, parameters such as charset allowed). Pure.
  static bool isJsonContentType(std::string_view contentType);
  /// True for the origin of a browser extension's own pages and background
  /// script — `moz-extension://<uuid>` (Firefox), `chrome-extension://<id>`
  /// (Chrome, Chromium, Edge, Brave…), `safari-web-extension://<uuid>` —
  /// with a non-empty id of letters, digits and '-' and nothing after it
  /// (scheme case ignored). A web page cannot send such an Origin. Pure.
  static bool isExtensionOrigin(std::string_view origin);
  /// The credentials of `Authorization: Bearer <credentials>` (scheme case
  /// ignored, white space trimmed), or nullopt for another scheme or an empty
  /// value (RFC 6750 §2.1). Pure.
  static std::optional<std::string_view> bearerCredentials(std::string_view authorization);

  /// The current token (a copy), for pages that must carry it.
  std::string token() const;

  /// Makes `token` the only one accepted from now on (POST /token/rotate,
  /// issue 19 item 7): a check that starts after this returns refuses the
  /// old token (403). Throws std::invalid_argument for an empty token.
  void replaceToken(std::string token);

 private:
  bool tokenMatches(std::string_view presented) const;

  mutable std::mutex tokenMutex_;
  std::string token_;  ///< guarded by tokenMutex_
};

}  // namespace antidrift
