#include "server/http_api.h"

#include <algorithm>
#include <optional>

#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/NumberParser.h>
#include <Poco/String.h>
#include <Poco/URI.h>

#include "antidrift/domain/runtime.h"
#include "antidrift/drift/verdict_memory.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/session/history_view.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/thread_name.h"
#include "antidrift/wire/json.h"
#include "server/http/peer_hangup.h"
#include "server/http/responses.h"

namespace antidrift {
namespace {

using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

/// SO_SNDBUF of an event stream (the kernel doubles it): dozens of State
/// events, yet a client that stops reading fills it within seconds.
constexpr int kSseSendBufferBytes = 64 * 1024;

/// Default and bounds of GET /history?n=.
constexpr std::int64_t kHistoryDefault = 20;
constexpr std::int64_t kHistoryMax = 200;

/// A whole query parameter value as an integer, or nullopt when it is not
/// plain decimal digits.
std::optional<std::int64_t> parseCount(const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return Poco::NumberParser::parse64(text);
}

/// Renames a pool thread "ad-http-N" to "ad-sse-N" while it serves an event
/// stream, and back, so a stream's wake-ups are told apart from REST ones.
/// Other threads (tests without ApiServer) keep their names.
class StreamingThreadName {
 public:
  StreamingThreadName() : previous_(currentThreadName()) {
    const std::string httpPrefix = "ad-http-";
    renamed_ = previous_.rfind(httpPrefix, 0) == 0;
    if (renamed_) {
      setCurrentThreadName("ad-sse-" + previous_.substr(httpPrefix.size()));
    }
  }
  ~StreamingThreadName() {
    if (renamed_) {
      setCurrentThreadName(previous_);
    }
  }
  StreamingThreadName(const StreamingThreadName&) = delete;
  StreamingThreadName& operator=(const StreamingThreadName&) = delete;

 private:
  std::string previous_;
  bool renamed_ = false;
};

class ApiRequestHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ApiRequestHandler(HttpApi& api) : api_(api) {}
  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    api_.handle(request, response);
  }

 private:
  HttpApi& api_;
};

class ApiRequestHandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit ApiRequestHandlerFactory(HttpApi& api) : api_(api) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new ApiRequestHandler(api_);
  }

 private:
  HttpApi& api_;
};

}  // namespace

struct HttpApi::Exchange {
  HTTPServerRequest& request;
  HTTPServerResponse& response;
  std::string path;
  Poco::URI::QueryParameters query;
  http::BodyRead body;
  Poco::JSON::Object::Ptr json;  ///< parsed body of a mutating route
};

const HttpApi::Route HttpApi::kRoutes[] = {
    {"GET", "/state", &HttpApi::getState, Access::Read},
    {"GET", "/events", &HttpApi::getEvents, Access::Read},
    {"GET", "/healthz", &HttpApi::getHealth, Access::Read},
    {"GET", "/history", &HttpApi::getHistory, Access::Read},
    {"GET", "/history/export", &HttpApi::getHistoryExport, Access::Read},
    {"POST", "/extend", &HttpApi::postExtend, Access::Token, {"minutes"}},
    {"POST", "/review", &HttpApi::postReview, Access::Token, {"success", "note"}},
    {"POST", "/planning", &HttpApi::postPlanning, Access::Token},
    {"POST", "/planning/cancel", &HttpApi::postPlanningCancel, Access::Token},
    {"POST",
     "/commitment",
     &HttpApi::postCommitment,
     Access::Token,
     {"next_action", "success_condition", "timebox_minutes", "timebox_secs", "allowed_apps"}},
    {"POST", "/complete", &HttpApi::postComplete, Access::Token},
    {"POST", "/abandon", &HttpApi::postAbandon, Access::Token},
    {"POST", "/drift/refocus", &HttpApi::postDriftRefocus, Access::Token},
    {"POST", "/drift/ontask", &HttpApi::postDriftOnTask, Access::Token, {"scope"}},
    {"POST",
     "/drift/ontask/undo",
     &HttpApi::postDriftOnTaskUndo,
     Access::Token,
     {"app", "title", "site"}},
    {"POST", "/end", &HttpApi::postEnd, Access::Token},
    {"POST",
     "/evidence/window",
     &HttpApi::postEvidenceWindow,
     Access::Token,
     {"app", "title", "at"}},
    {"POST", "/coach", &HttpApi::postCoach, Access::Token, {"intent"}},
    {"GET", "/verdicts", &HttpApi::getVerdicts, Access::Read},
    {"DELETE", "/verdicts", &HttpApi::deleteVerdicts, Access::Token},
    {"POST", "/token/rotate", &HttpApi::postTokenRotate, Access::Token},
    {"*", "/api/0/", &HttpApi::activityWatch, Access::ActivityWatch},
};

HttpApi::HttpApi(Controller& controller, SseBroadcaster& broadcaster, RequestGuard& guard,
                 Options options)
    : controller_(controller),
      broadcaster_(broadcaster),
      guard_(guard),
      options_(std::move(options)),
      staticFiles_(options_.wwwDir, guard_.token()),
      activityWatch_(controller_, ActivityWatchApi::Options{"", "", options_.windows}),
      logger_(Poco::Logger::get("antidrift.http")) {
  publish(controller_.state());
}

Poco::Net::HTTPRequestHandlerFactory::Ptr HttpApi::createFactory() {
  return new ApiRequestHandlerFactory(*this);
}

Poco::SharedPtr<http::PeerCheckedConnectionFactory> HttpApi::createConnectionFactory(
    Poco::Net::HTTPServerParams::Ptr params) {
  return Poco::SharedPtr<http::PeerCheckedConnectionFactory>(
      new http::PeerCheckedConnectionFactory(std::move(params), createFactory()));
}

std::string HttpApi::serializeState(const State& state) {
  return http::toJsonText(*toJson(state));
}

void HttpApi::publish(const State& state) {
  // Serialised when a stream first sends it: at a thousand changes a second
  // most are replaced within the coalescing interval and never serialised.
  broadcaster_.publish(state.version,
                       std::function<std::string()>([state] { return serializeState(state); }));
}

void HttpApi::handle(HTTPServerRequest& request, HTTPServerResponse& response) {
  // Bytes already read of a refused (too large) body whose rest is unread.
  std::optional<std::size_t> drainFrom;
  try {
    Exchange exchange{request, response, {}, {}, http::readBody(request), nullptr};
    if (exchange.body.tooLarge) {
      // Part of the body is still unread: this connection cannot carry
      // another request. Answer first, then drain (lingering close).
      response.setKeepAlive(false);
      drainFrom = exchange.body.bytesRead;
    }
    dispatch(exchange);
  } catch (const http::BadRequest& error) {
    if (!response.sent()) {
      http::sendError(response, 400, error.what());
    }
  } catch (const Poco::Exception& error) {
    logger_.error("%s %s failed: %s", request.getMethod(), request.getURI(), error.displayText());
    if (!response.sent()) {
      http::sendError(response, 500, "internal error; see the daemon log");
    }
  } catch (const std::exception& error) {
    logger_.error("%s %s failed: %s", request.getMethod(), request.getURI(),
                  std::string(error.what()));
    if (!response.sent()) {
      http::sendError(response, 500, "internal error; see the daemon log");
    }
  }
  if (logger_.debug()) {
    logger_.debug("%s %s %d", request.getMethod(), request.getURI(),
                  static_cast<int>(response.getStatus()));
  }
  if (drainFrom) {
    http::drainAfterAnswer(request.stream(), *drainFrom);
  }
}

void HttpApi::dispatch(Exchange& exchange) {
  HTTPServerRequest& request = exchange.request;
  HTTPServerResponse& response = exchange.response;
  // Other local users were refused when they connected (docs/SECURITY.md;
  // createConnectionFactory).
  if (request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_1 &&
      request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_0) {
    response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
    response.setKeepAlive(false);
    http::sendError(response, 400, "only HTTP/1.0 and HTTP/1.1 are served");
    return;
  }
  const RequestHeaders headers = RequestHeaders::from(request);
  if (const auto rejection = guard_.checkHost(headers)) {
    if (headers.ambiguity) {
      response.setKeepAlive(false);  // the body may have been framed wrongly
    }
    http::sendError(response, rejection->status, rejection->message);
    return;
  }

  Poco::URI uri;
  try {
    uri = Poco::URI(request.getURI());
    exchange.path = uri.getPath();
    exchange.query = uri.getQueryParameters();
  } catch (const Poco::Exception&) {
    throw http::BadRequest("the request URI is malformed");
  }
  if (request.get("Service-Worker", "") == "script") {
    sendServiceWorkerKillSwitch(response);  // any path: docs/SECURITY.md M2
    return;
  }
  if (const auto rejection = guard_.checkFetchSite(headers, exchange.path)) {
    http::sendError(response, rejection->status, rejection->message);
    return;
  }

  const std::string& method = request.getMethod();
  const Route* route = nullptr;
  std::string allowed;
  for (const Route& candidate : kRoutes) {
    const bool pathMatches = candidate.access == Access::ActivityWatch
                                 ? ActivityWatchApi::handles(exchange.path)
                                 : exchange.path == candidate.path;
    if (!pathMatches) {
      continue;
    }
    if (method == candidate.method || std::string("*") == candidate.method) {
      route = &candidate;
      break;
    }
    allowed += allowed.empty() ? candidate.method : std::string(", ") + candidate.method;
  }
  if (route == nullptr && !allowed.empty()) {
    response.set("Allow", allowed);
    http::sendError(response, 405, http::methodNotAllowedMessage(method, exchange.path));
    return;
  }
  if (route == nullptr && method != "GET") {
    http::sendError(response, 404, http::noSuchRouteMessage(method, exchange.path));
    return;
  }
  if (exchange.body.tooLarge) {
    response.setKeepAlive(false);
    http::sendError(
        response, 413,
        "the request body is larger than " + std::to_string(kMaxBodyBytes / 1024) + " KiB");
    return;
  }
  if (exchange.body.cutOff) {
    // The client may still be sending: this connection carries no more.
    response.setKeepAlive(false);
    throw http::BadRequest(exchange.request.getChunkedTransferEncoding()
                               ? "the request body ended before its last chunk"
                               : "the request body is shorter than its Content-Length");
  }
  if (route == nullptr) {
    getStatic(exchange);
    return;
  }
  if (route->access == Access::Token) {
    if (const auto rejection = guard_.checkMutating(headers)) {
      http::sendError(response, rejection->status, rejection->message);
      return;
    }
    exchange.json = http::parseObject(exchange.body.text);
    http::refuseUnknownFields(*exchange.json, route->fields);
  } else if (route->access == Access::ActivityWatch) {
    if (const auto rejection = guard_.checkActivityWatch(headers, method == "POST")) {
      http::sendError(response, rejection->status, rejection->message);
      return;
    }
  }
  (this->*(route->handler))(exchange);
}

void HttpApi::sendState(Exchange& exchange) {
  http::sendJson(exchange.response, 200, serializeState(controller_.state()));
}

void HttpApi::answerAction(Exchange& exchange, const ActionResult& result) {
  if (!result) {
    sendState(exchange);
    return;
  }
  switch (result->kind) {
    case ErrorKind::Validation:
    case ErrorKind::NotPlanning:
      http::sendError(exchange.response, 400, result->message);
      return;
    case ErrorKind::IllegalTransition:
    case ErrorKind::Busy:
      http::sendError(exchange.response, 409, result->message, result->state);
      return;
    case ErrorKind::NotFound:
      http::sendError(exchange.response, 404, result->message);
      return;
    case ErrorKind::Storage:
      exchange.response.set("Retry-After", "5");
      http::sendError(exchange.response, 503, result->message, result->state);
      return;
  }
  http::sendError(exchange.response, 500, result->message);
}

void HttpApi::getState(Exchange& exchange) {
  sendState(exchange);
}

void HttpApi::getEvents(Exchange& exchange) {
  const std::unique_ptr<SseBroadcaster::Subscription> subscription =
      broadcaster_.subscribe(http::peerSocket(exchange.request));
  if (!subscription) {
    exchange.response.set("Retry-After", "5");
    http::sendError(exchange.response, 503,
                    "too many event streams are open; close another AntiDrift tab and retry");
    return;
  }
  // The first event is this client's own, freshly taken State: the last
  // broadcast one may be minutes old ("now", "remaining_secs").
  const State fresh = controller_.state();
  broadcaster_.primeFirstEvent(*subscription, fresh.version, serializeState(fresh));
  HTTPServerResponse& response = exchange.response;
  response.setStatusAndReason(HTTPResponse::HTTP_OK);
  http::setCommonHeaders(response);
  response.setContentType("text/event-stream");
  response.set("Cache-Control", "no-cache");
  response.set("X-Accel-Buffering", "no");
  response.setChunkedTransferEncoding(true);
  std::ostream& out = response.send();
  http::limitSendTime(exchange.request, options_.sseSendTimeout);
  // Every event is a whole State of a few KiB and a slow client only needs
  // the newest: a bounded buffer lets the send timeout drop a client that
  // stopped reading within seconds, not after megabytes.
  http::limitSendBuffer(exchange.request, kSseSendBufferBytes);
  const StreamingThreadName streaming;
  broadcaster_.stream(*subscription, out, http::hangupProbe(exchange.request));
}

void HttpApi::getHealth(Exchange& exchange) {
  http::sendJson(exchange.response, 200, http::toJsonText(*healthJson(controller_.state())));
}

void HttpApi::getHistory(Exchange& exchange) {
  std::int64_t count = kHistoryDefault;
  for (const auto& [name, value] : exchange.query) {
    if (name != "n") {
      continue;
    }
    const auto parsed = parseCount(value);
    if (!parsed || *parsed < 1 || *parsed > kHistoryMax) {
      throw http::BadRequest("n must be an integer from 1 to " + std::to_string(kHistoryMax));
    }
    count = *parsed;
  }
  const Controller::HistoryData data = controller_.historyView(static_cast<std::size_t>(count));
  http::sendJson(exchange.response, 200, http::toJsonText(*historyJson(data.sessions, data.days)));
}

void HttpApi::getHistoryExport(Exchange& exchange) {
  std::optional<ExportFormat> format;
  for (const auto& [name, value] : exchange.query) {
    if (name == "format") format = parseExportFormat(value);
  }
  if (!format) throw http::BadRequest("format must be jsonl, csv or markdown (md)");
  const VerifiedHistory history =
      options_.auditPath.empty() ? VerifiedHistory{} : readVerifiedHistory(options_.auditPath);
  if (!history.verification.ok) {
    // The sound part is still offered; the log says what was left out.
    logger_.warning("history export: " + describeVerification(history.verification) +
                    "; only the records before the problem are exported");
  }
  exchange.response.set("Content-Disposition", "attachment; filename=\"antidrift-history." +
                                                   exportExtension(*format) + "\"");
  exchange.response.set("X-AntiDrift-Chain", history.verification.ok ? "intact" : "broken");
  http::sendBody(exchange.response, 200, exportContentType(*format),
                 exportHistory(history.sessions, *format));
}

void HttpApi::postExtend(Exchange& exchange) {
  const std::optional<std::int64_t> minutes = http::optionalInteger(*exchange.json, "minutes");
  if (!minutes) throw http::BadRequest("minutes is required (5 or 15)");
  answerAction(exchange, controller_.extend(*minutes));
}

void HttpApi::postReview(Exchange& exchange) {
  ReviewAnswer answer;
  answer.success = http::requireString(*exchange.json, "success");
  answer.note = http::optionalString(*exchange.json, "note", "note").value_or("");
  answerAction(exchange, controller_.answerReview(answer));
}

void HttpApi::postPlanning(Exchange& exchange) {
  answerAction(exchange, controller_.enterPlanning());
}

void HttpApi::postPlanningCancel(Exchange& exchange) {
  answerAction(exchange, controller_.cancelPlanning());
}

void HttpApi::postCommitment(Exchange& exchange) {
  const Poco::JSON::Object& body = *exchange.json;
  CommitmentRequest request;
  request.nextAction = http::requireString(body, "next_action");
  request.successCondition = http::requireString(body, "success_condition");
  // The commitment has three parts everywhere (docs/DESIGN.md §2): the page,
  // the CLI and this route all refuse a session without a success condition.
  if (Poco::trim(request.successCondition).empty()) {
    throw http::BadRequest(
        "success_condition must not be empty: say what done looks like for this session");
  }
  request.timeboxMinutes = http::optionalInteger(body, "timebox_minutes");
  request.timeboxSecs = http::optionalInteger(body, "timebox_secs");
  if (!request.timeboxMinutes && !request.timeboxSecs) {
    throw http::BadRequest("timebox_minutes or timebox_secs is required");
  }
  request.allowedApps = http::optionalStringArray(body, "allowed_apps");
  answerAction(exchange, controller_.startCommitment(request));
}

void HttpApi::postComplete(Exchange& exchange) {
  answerAction(exchange, controller_.complete());
}

void HttpApi::postAbandon(Exchange& exchange) {
  answerAction(exchange, controller_.abandon());
}

void HttpApi::postDriftRefocus(Exchange& exchange) {
  answerAction(exchange, controller_.refocus());
}

void HttpApi::postDriftOnTask(Exchange& exchange) {
  // Issue 17 item 4: "page" (the default) or "site" (all of it this session).
  const std::string scope = http::optionalString(*exchange.json, "scope", "scope").value_or("page");
  if (scope != "page" && scope != "site") {
    throw http::BadRequest("scope must be \"page\" or \"site\"");
  }
  answerAction(exchange, controller_.markOnTask(scope == "site" ? drift::OnTaskScope::Site
                                                                : drift::OnTaskScope::Page));
}

void HttpApi::postDriftOnTaskUndo(Exchange& exchange) {
  const std::string app = http::requireString(*exchange.json, "app");
  const std::optional<std::string> title = http::optionalString(*exchange.json, "title", "title");
  const std::optional<std::string> site = http::optionalString(*exchange.json, "site", "site");
  if (title.has_value() == site.has_value()) {
    throw http::BadRequest("give exactly one of title (a marked page) or site (a marked site)");
  }
  answerAction(exchange, controller_.undoOnTask(app, title ? *title : *site, site.has_value()));
}

void HttpApi::postEnd(Exchange& exchange) {
  answerAction(exchange, controller_.end());
}

void HttpApi::postCoach(Exchange& exchange) {
  const std::string intent = http::requireString(*exchange.json, "intent");
  answerAction(exchange, controller_.requestCoach(intent));
}

void HttpApi::getVerdicts(Exchange& exchange) {
  for (const auto& parameter : exchange.query) {
    throw http::BadRequest("GET /verdicts takes no parameter, got \"" +
                           http::sanitizeRequestText(parameter.first) + "\"");
  }
  Poco::JSON::Array list;
  for (const drift::RememberedEntry& entry : controller_.verdicts()) {
    const drift::VerdictKeyView view = drift::describeVerdictKey(entry.key);
    Poco::JSON::Object item;
    item.set("key", entry.key);
    item.set("kind", view.kind);
    item.set("app", view.app);
    item.set("label", view.label);
    item.set("on_task", entry.verdict.onTask);
    item.set("source", std::string(drift::toString(entry.verdict.source)));
    item.set("reason", entry.verdict.reason);
    item.set("last_used", Poco::Int64(entry.verdict.lastUsedMs));
    list.add(item);
  }
  Poco::JSON::Object body;
  body.set("verdicts", list);
  http::sendJson(exchange.response, 200, http::toJsonText(body));
}

void HttpApi::deleteVerdicts(Exchange& exchange) {
  std::optional<std::string> key;
  for (const auto& [name, value] : exchange.query) {
    if (name != "key") {
      throw http::BadRequest("DELETE /verdicts takes only ?key=, got \"" +
                             http::sanitizeRequestText(name) + "\"");
    }
    if (key) throw http::BadRequest("key may be given once");
    if (value.empty()) throw http::BadRequest("key must not be empty");
    key = value;
  }
  const ActionResult result = controller_.forgetVerdicts(key);
  if (result) {
    answerAction(exchange, result);
    return;
  }
  http::sendJson(exchange.response, 200, "{\"ok\":true}");
}

void HttpApi::postTokenRotate(Exchange& exchange) {
  if (!options_.storeNewToken) {
    http::sendError(exchange.response, 503, "this server cannot rotate its token");
    return;
  }
  std::lock_guard<std::mutex> lock(rotationMutex_);
  std::string token;
  try {
    token = options_.storeNewToken();
  } catch (const std::exception& error) {
    logger_.error(std::string("cannot rotate the token: ") + error.what());
    http::sendError(exchange.response, 503,
                    std::string("cannot rotate the token: ") + error.what() +
                        "; the current token stays valid");
    return;
  }
  // The file holds the new token: from here only it is accepted (a request
  // checked before this line was checked against the old one) and served.
  guard_.replaceToken(token);
  staticFiles_.setToken(token);
  // Streams carry no token, so they stay open; a page learns that its own
  // token is stale (docs/SECURITY.md L10).
  broadcaster_.notifyAll("token", "{\"rotated\":true}");
  logger_.information(
      "the token was rotated (POST /token/rotate): the old one is refused from "
      "now on; pages opened before must be reloaded");
  Poco::JSON::Object answer;
  answer.set("ok", true);
  answer.set("token_file", options_.tokenFile);
  http::sendJson(exchange.response, 200, http::toJsonText(answer));
}

void HttpApi::postEvidenceWindow(Exchange& exchange) {
  const Poco::JSON::Object& body = *exchange.json;
  Observation observation;
  observation.app = http::requireString(body, "app");
  observation.title = http::requireString(body, "title");
  observation.atMs = http::optionalInteger(body, "at").value_or(0);
  observation.source = "http";
  activityWatch_.windows().recordWindow(std::move(observation));
  http::sendJson(exchange.response, 202, "{\"ok\":true}");
}

void HttpApi::activityWatch(Exchange& exchange) {
  const ActivityWatchApi::Reply reply = activityWatch_.handle(
      exchange.request.getMethod(), exchange.path, exchange.query, exchange.body.text);
  if (!reply.allow.empty()) {
    exchange.response.set("Allow", reply.allow);
  }
  // 304 has no body (RFC 9110 §15.4.5): Content-Length 0, nothing sent.
  http::sendJson(exchange.response, reply.status, reply.json);
}

void HttpApi::sendServiceWorkerKillSwitch(HTTPServerResponse& response) {
  // The page registers no Service Worker. A worker registered on this origin
  // by a page another user served while the port was theirs (docs/SECURITY.md
  // M2) is updated from here: the browser fetches its script past the worker,
  // with `Service-Worker: script`, on the next navigation. This worker takes
  // over at once, unregisters itself and reloads the pages it held, so they
  // load from the daemon again.
  static const std::string kKillSwitch =
      "// antidriftd: no Service Worker belongs to this origin (docs/SECURITY.md M2).\n"
      "self.addEventListener('install', () => self.skipWaiting());\n"
      "self.addEventListener('activate', (event) => event.waitUntil(\n"
      "  self.registration.unregister()\n"
      "    .then(() => self.clients.matchAll({ type: 'window' }))\n"
      "    .then((pages) => Promise.all(pages.map((page) => page.navigate(page.url))))));\n";
  http::sendBody(response, 200, "text/javascript; charset=utf-8", kKillSwitch);
}

void HttpApi::getStatic(Exchange& exchange) {
  staticFiles_.serve(exchange.path, exchange.response);
}

}  // namespace antidrift
