/// @file http_api.h
/// The HTTP API of antidriftd: route table and handlers (docs/DESIGN.md §10,
/// docs/API.md). Translates requests into Controller calls; knows nothing of
/// sockets, threads or prompts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <Poco/Logger.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/SharedPtr.h>

#include "antidrift/session/controller.h"
#include "antidrift/session/state.h"
#include "server/activitywatch_api.h"
#include "server/http/body.h"
#include "server/http/peer_checked_connections.h"
#include "server/http/static_files.h"
#include "server/peer_user_check.h"
#include "server/request_guard.h"
#include "server/sse_broadcaster.h"

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Poco::Net

namespace antidrift {

/// Largest request body accepted, bytes (docs/DESIGN.md §10); larger → 413.
using http::kMaxBodyBytes;

/// Every route of docs/API.md. One instance serves all connections: handle()
/// is thread-safe (the Controller, the broadcaster and the guard are).
///
/// Order of checks for every request: the body is read (at most
/// kMaxBodyBytes; a declared Content-Length above it is not read at all) →
/// the peer socket belongs to the daemon's own Unix user (PeerUserCheck,
/// asked once per connection by ApiServer's accept thread before anything is
/// read: a canned 403, and the connection is closed) → Host (403) → route (404, 405) → body size
/// (413) → for POST Origin/token/Content-Type (403/401/415) → UTF-8 and JSON body (400) → the
/// handler. The ActivityWatch routes (`/api/0/...`, any method) take
/// RequestGuard::checkActivityWatch instead of the token check and are
/// served by ActivityWatchApi. After answering a too-large body the handler drains up to
/// 1 MiB of it (bounded by the socket's receive timeout) and closes the
/// connection, so the answer is not lost to a TCP reset.
/// Bodies, answers and the page's files are the shared server/http part
/// (body.h, responses.h, static_files.h). Every error answer is
/// `{"error": "<sentence>"}`. ActionError kinds map
/// to Validation and NotPlanning → 400, IllegalTransition → 409 and
/// Storage → 503 (both with `"state"`, the unchanged runtime).
class HttpApi {
 public:
  /// Construction options.
  struct Options {
    std::string wwwDir;  ///< directory of index.html, app.js, style.css (server.www_dir)
    /// audit.jsonl of the store (GET /history/export reads and verifies it); "" = none.
    std::string auditPath;
    /// The longest a write to an event stream may block (a client that
    /// stopped reading) before the stream is dropped and its slot freed
    /// (server.request_timeout_s; issue 9 item 6).
    std::chrono::seconds sseSendTimeout{5};
    /// The daemon's WindowJoin (issue 16 item 4): POST /evidence/window and the
    /// ActivityWatch API send windows and aw-watcher-web tabs through it.
    /// nullptr: the ActivityWatch API's own (system clock, default settings).
    WindowJoin* windows = nullptr;
    /// Makes and stores a new token and returns it (POST /token/rotate,
    /// issue 19 item 7; the daemon: TokenFile::rotate of store.dir). Throws
    /// std::runtime_error, leaving the stored token as it was, when none can
    /// be made or written. Empty: the route answers 503.
    std::function<std::string()> storeNewToken = nullptr;
    /// Where the token is kept, named in the answer of POST /token/rotate.
    std::string tokenFile = {};
  };

  /// All references must outlive the HttpApi. Publishes the controller's
  /// current state to `broadcaster` so the first SSE client gets it.
  /// `guard`'s token changes on POST /token/rotate.
  HttpApi(Controller& controller, SseBroadcaster& broadcaster, RequestGuard& guard,
          Options options);

  /// Serves one request. Thread-safe. Never throws: unexpected exceptions
  /// become 500 {"error"} (logged) when the response is not yet sent.
  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

  /// Publishes `state` to the SSE broadcaster, serialised once when a stream
  /// first sends it (SseBroadcaster::Event). Use as (part of) the
  /// Controller's change listener. Thread-safe.
  void publish(const State& state);

  /// A factory for Poco::Net::HTTPServer whose handlers call handle().
  /// The HttpApi must outlive the server. It serves whoever connects: the
  /// daemon uses createConnectionFactory().
  Poco::Net::HTTPRequestHandlerFactory::Ptr createFactory();

  /// The daemon's connection factory for ApiServer: the requests of each
  /// connection it lets in go to handle(). Whom it lets in is peerCheck()'s
  /// answer, asked by ApiServer's accept thread (other Unix users get a
  /// canned 403 there and never reach this factory: docs/SECURITY.md M1).
  /// The HttpApi must outlive the server.
  Poco::SharedPtr<http::PeerCheckedConnectionFactory> createConnectionFactory(
      Poco::Net::HTTPServerParams::Ptr params);

  /// Who may connect: the daemon's own Unix user (issue 9 item 3).
  /// Thread-safe.
  const PeerUserCheck& peerCheck() const { return peerCheck_; }

  /// The State JSON text of docs/DESIGN.md §10: toJson(state) stringified compact
  /// (one line; keys sorted by Poco). Pure.
  static std::string serializeState(const State& state);

 private:
  struct Exchange;
  using Handler = void (HttpApi::*)(Exchange&);
  /// Which checks a route takes after Host, route and size.
  enum class Access {
    Read,          ///< none (GET)
    Token,         ///< RequestGuard::checkMutating, then a JSON object body
    ActivityWatch  ///< RequestGuard::checkActivityWatch; `path` is a prefix, method "*" any
  };
  struct Route {
    const char* method;
    const char* path;
    Handler handler;
    Access access;
    /// The body's fields a Token route takes; any other is a 400 naming
    /// the nearest (issue 17 item 4).
    std::vector<std::string> fields = {};
  };
  static const Route kRoutes[];

  void dispatch(Exchange& exchange);

  void getState(Exchange& exchange);
  void getEvents(Exchange& exchange);
  void getHealth(Exchange& exchange);
  void getHistory(Exchange& exchange);
  void getHistoryExport(Exchange& exchange);  ///< the verified history as a download (issue 7)
  void postExtend(Exchange& exchange);        ///< +5 / +15 minutes (issue 7)
  void postReview(Exchange& exchange);        ///< the review's answer (issue 7)
  void postPlanning(Exchange& exchange);
  void postPlanningCancel(Exchange& exchange);
  void postCommitment(Exchange& exchange);
  void postComplete(Exchange& exchange);
  void postAbandon(Exchange& exchange);
  void postDriftRefocus(Exchange& exchange);  ///< "Back to task" (docs/DESIGN.md §4)
  void postDriftOnTask(Exchange& exchange);   ///< "This is on task" (docs/DESIGN.md §4)
  /// Undo a page or site marked on task this session (issue 17 item 4).
  void postDriftOnTaskUndo(Exchange& exchange);
  void postEnd(Exchange& exchange);
  void postEvidenceWindow(Exchange& exchange);
  void postCoach(Exchange& exchange);
  void getVerdicts(Exchange& exchange);     ///< the remembered verdicts (issue 16 item 3)
  void deleteVerdicts(Exchange& exchange);  ///< forget one (?key=) or all (issue 16 item 3)
  /// A new token, stored, then the only one accepted; open streams are told
  /// (`event: token`). Issue 19 item 7.
  void postTokenRotate(Exchange& exchange);
  void getStatic(Exchange& exchange);
  /// Answers a Service Worker script fetch (`Service-Worker: script`, any
  /// path) with a worker that unregisters itself (issue 19 item 2).
  static void sendServiceWorkerKillSwitch(Poco::Net::HTTPServerResponse& response);
  void activityWatch(Exchange& exchange);

  void answerAction(Exchange& exchange, const ActionResult& result);
  void sendState(Exchange& exchange);

  Controller& controller_;
  SseBroadcaster& broadcaster_;
  RequestGuard& guard_;
  /// Held across storing a new token and accepting it, so the file and the
  /// guard always end with the same token.
  std::mutex rotationMutex_;
  PeerUserCheck peerCheck_;
  Options options_;
  http::StaticFiles staticFiles_;
  ActivityWatchApi activityWatch_;
  Poco::Logger& logger_;
};

}  // namespace antidrift
