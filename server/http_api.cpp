#include "server/http_api.h"

#include <algorithm>
#include <istream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/JSONException.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/NumberParser.h>
#include <Poco/SharedPtr.h>
#include <Poco/String.h>
#include <Poco/TextConverter.h>
#include <Poco/URI.h>
#include <Poco/UTF8Encoding.h>

#include "antidrift/domain/runtime.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/store/audit_log.h"

namespace antidrift {
namespace {

using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

/// Bytes of an oversized body read and thrown away after the 413 answer is
/// sent, so that answer is not lost to a TCP reset when the socket closes
/// with unread data; beyond this (or after server.request_timeout_s without
/// a byte) the connection is just closed.
constexpr std::size_t kDrainLimit = 1024 * 1024;
/// Default and bounds of GET /history?n=.
constexpr std::int64_t kHistoryDefault = 10;
constexpr std::int64_t kHistoryMax = 100;

constexpr const char* kTokenPlaceholder = "{{ANTIDRIFT_TOKEN}}";
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

/// Request text (path, method, header value) made fit to quote in an error
/// message: valid UTF-8 without control characters, at most kMaxTitleBytes.
std::string echo(const std::string& requestText) {
  return sanitizeTitle(requestText);
}

/// A request the client got wrong; becomes 400 {"error": what()}.
class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string stringify(const Poco::JSON::Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

void setCommonHeaders(HTTPServerResponse& response) {
  response.set("X-Content-Type-Options", "nosniff");
  response.set("Referrer-Policy", "no-referrer");
  response.set("X-Frame-Options", "DENY");
}

void sendBody(HTTPServerResponse& response, int status, const std::string& contentType,
              const std::string& body) {
  response.setStatusAndReason(static_cast<HTTPResponse::HTTPStatus>(status));
  setCommonHeaders(response);
  response.setContentType(contentType);
  if (!response.has("Cache-Control")) {
    response.set("Cache-Control", "no-store");
  }
  response.setContentLength64(static_cast<Poco::Int64>(body.size()));
  // send() + flush rather than sendBuffer(), whose buffered stream is only
  // flushed when the handler returns: a refused body is drained after the
  // answer, and the answer must be on the wire before that.
  std::ostream& out = response.send();
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  out.flush();
}

void sendJson(HTTPServerResponse& response, int status, const std::string& json) {
  sendBody(response, status, "application/json; charset=utf-8", json);
}

void sendError(HTTPServerResponse& response, int status, const std::string& message,
               const std::optional<RuntimeState>& state = std::nullopt) {
  Poco::JSON::Object body;
  body.set("error", message);
  if (state) {
    body.set("state", toString(*state));
  }
  sendJson(response, status, stringify(body));
}

/// What was read of a request body.
struct BodyRead {
  std::string text;
  bool tooLarge = false;      ///< over kMaxBodyBytes (declared or actual)
  bool cutOff = false;        ///< ended before its Content-Length or last chunk
  std::size_t bytesRead = 0;  ///< bytes consumed from the connection so far
};

/// Reads and throws away the rest of a refused body, up to kDrainLimit bytes
/// in all, after the answer has been sent. A client that stops sending ends
/// it after server.request_timeout_s (the socket's receive timeout).
void drainAfterAnswer(std::istream& in, std::size_t alreadyRead) {
  char buffer[8192];
  std::size_t total = alreadyRead;
  try {
    while (total <= kDrainLimit && in.good()) {
      in.read(buffer, sizeof buffer);
      const std::streamsize count = in.gcount();
      if (count <= 0) {
        return;
      }
      total += static_cast<std::size_t>(count);
    }
  } catch (const std::exception&) {
    // A timeout or reset: the connection closes either way.
  }
}

/// Reads the body, never more than kMaxBodyBytes into memory. A request
/// without Content-Length and not chunked has no body (RFC 9112 §6.3). A
/// declared Content-Length over the cap is refused from the header alone:
/// nothing is read, so the 413 goes out at once however slowly the body
/// arrives (the rest is drained after the answer). A body that stops short
/// (the client closed or went silent past server.request_timeout_s) is
/// marked cutOff and must not be acted on.
BodyRead readBody(HTTPServerRequest& request) {
  BodyRead result;
  const bool chunked = request.getChunkedTransferEncoding();
  const Poco::Int64 declared = request.hasContentLength() ? request.getContentLength64() : -1;
  if (!chunked && declared <= 0) {
    return result;
  }
  if (!chunked && declared > static_cast<Poco::Int64>(kMaxBodyBytes)) {
    result.tooLarge = true;
    return result;
  }
  std::istream& in = request.stream();
  char buffer[8192];
  while (true) {
    in.read(buffer, sizeof buffer);
    const std::streamsize count = in.gcount();
    if (count <= 0) {
      break;
    }
    result.bytesRead += static_cast<std::size_t>(count);
    if (result.text.size() + static_cast<std::size_t>(count) > kMaxBodyBytes) {
      result.tooLarge = true;
      result.text.clear();
      break;
    }
    result.text.append(buffer, static_cast<std::size_t>(count));
  }
  if (!result.tooLarge) {
    // A timeout or reset leaves the stream bad; a close before the declared
    // length leaves it short.
    result.cutOff = in.bad() || (!chunked && static_cast<Poco::Int64>(result.bytesRead) < declared);
  }
  return result;
}

/// True when `text` is well-formed UTF-8 (no stray continuation bytes,
/// overlong forms, surrogates or code points past U+10FFFF).
bool isValidUtf8(const std::string& text) {
  Poco::UTF8Encoding utf8;
  Poco::TextConverter converter(utf8, utf8);
  std::string copy;
  return converter.convert(text, copy) == 0;
}

/// Poco's short parse error ("unexpected byte '}' in value") without its
/// "JSON Exception: " prefix or a trailing period.
std::string parseReason(const Poco::Exception& error) {
  std::string reason = error.message();
  while (!reason.empty() && (reason.back() == '.' || reason.back() == ' ')) {
    reason.pop_back();
  }
  if (reason.empty() || reason.find("stack") != std::string::npos) {
    return "not a single JSON value";
  }
  if (reason.front() >= 'A' && reason.front() <= 'Z' && reason.compare(0, 4, "JSON") != 0) {
    reason.front() = static_cast<char>(reason.front() - 'A' + 'a');
  }
  return echo(reason);
}

/// A ParseHandler that remembers the last object key read, so a number Poco
/// cannot hold (it throws Poco::SyntaxException from inside the parser) is
/// blamed on its field.
class KeyTrackingHandler : public Poco::JSON::ParseHandler {
 public:
  void key(const std::string& name) override {
    lastKey_ = name;
    ParseHandler::key(name);
  }
  const std::string& lastKey() const { return lastKey_; }

 private:
  std::string lastKey_;
};

/// Parses a request body that must be one JSON object (empty = {}). Throws
/// BadRequest with a sentence fit for the client, never Poco's internals.
Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  const std::string trimmed = Poco::trim(text);
  if (trimmed.empty()) {
    return new Poco::JSON::Object;
  }
  if (!isValidUtf8(text)) {
    throw BadRequest("the request body is not valid UTF-8");
  }
  if (trimmed.front() != '{') {
    // Poco's ParseHandler refuses a top-level scalar with "Attempt to set
    // value on an empty stack"; parsing it inside an array tells a valid
    // non-object (`"x"`, `null`, `[1]`) from text that is not JSON at all.
    try {
      Poco::JSON::Parser parser;
      parser.parse("[" + text + "]");
    } catch (const Poco::JSON::JSONException& error) {
      throw BadRequest("malformed JSON: " + parseReason(error));
    } catch (const Poco::Exception&) {
      // Valid JSON whose number Poco cannot hold: still not an object.
    }
    throw BadRequest("the request body must be a JSON object");
  }
  Poco::SharedPtr<KeyTrackingHandler> handler = new KeyTrackingHandler;
  Poco::Dynamic::Var parsed;
  try {
    Poco::JSON::Parser parser(handler);
    parsed = parser.parse(text);
  } catch (const Poco::JSON::JSONException& error) {
    throw BadRequest("malformed JSON: " + parseReason(error));
  } catch (const Poco::SyntaxException&) {
    // Poco::NumberParser refused a number literal: beyond 64 bits.
    if (handler->lastKey().empty()) {
      throw BadRequest("malformed JSON: a number is out of range");
    }
    throw BadRequest(echo(handler->lastKey()) + " must be an integer");
  } catch (const Poco::Exception&) {
    throw BadRequest("malformed JSON");
  }
  if (parsed.type() != typeid(Poco::JSON::Object::Ptr)) {
    throw BadRequest("the request body must be a JSON object");
  }
  return parsed.extract<Poco::JSON::Object::Ptr>();
}

std::string requireString(const Poco::JSON::Object& body, const std::string& field) {
  if (!body.has(field) || body.get(field).isEmpty()) {
    throw BadRequest(field + " is required");
  }
  const Poco::Dynamic::Var value = body.get(field);
  if (!value.isString()) {
    throw BadRequest(field + " must be a string");
  }
  return value.extract<std::string>();
}

std::optional<std::int64_t> optionalInteger(const Poco::JSON::Object& body,
                                            const std::string& field) {
  if (!body.has(field) || body.get(field).isEmpty()) {
    return std::nullopt;
  }
  const Poco::Dynamic::Var value = body.get(field);
  // Integers above 2^63 - 1 (Poco keeps them as UInt64) are refused like
  // the ones Poco cannot parse at all: same sentence.
  if (value.isBoolean() || !value.isInteger()) {
    throw BadRequest(field + " must be an integer");
  }
  try {
    return value.convert<Poco::Int64>();
  } catch (const Poco::Exception&) {
    throw BadRequest(field + " must be an integer");
  }
}

std::optional<std::vector<std::string>> optionalStringArray(const Poco::JSON::Object& body,
                                                            const std::string& field) {
  if (!body.has(field) || body.get(field).isEmpty()) {
    return std::nullopt;
  }
  const std::string problem = field + " must be an array of strings";
  if (!body.isArray(field)) {
    throw BadRequest(problem);
  }
  const Poco::JSON::Array::Ptr array = body.getArray(field);
  std::vector<std::string> items;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const Poco::Dynamic::Var item = array->get(static_cast<unsigned>(i));
    if (!item.isString()) {
      throw BadRequest(problem);
    }
    items.push_back(item.extract<std::string>());
  }
  return items;
}

/// A relative file path under www/ made only of safe segments (no "..", no
/// hidden files); nullopt otherwise.
std::optional<std::string> staticRelativePath(const std::string& path) {
  if (path == "/") {
    return std::string("index.html");
  }
  if (path.size() < 2 || path.front() != '/') {
    return std::nullopt;
  }
  const std::string relative = path.substr(1);
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t slash = relative.find('/', start);
    const std::string segment =
        relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (segment.empty() || segment.front() == '.') {
      return std::nullopt;
    }
    for (char c : segment) {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
      if (!allowed) {
        return std::nullopt;
      }
    }
    if (slash == std::string::npos) {
      break;
    }
    start = slash + 1;
  }
  return relative;
}

std::string contentTypeFor(const std::string& file) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
      {".webmanifest", "application/manifest+json"},
      {".woff2", "font/woff2"},
  };
  for (const auto& [extension, type] : kTypes) {
    const std::string suffix(extension);
    if (file.size() >= suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return type;
    }
  }
  return "application/octet-stream";
}

/// A whole query parameter value as an integer, or nullopt when it is not
/// plain decimal digits.
std::optional<std::int64_t> parseCount(const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return Poco::NumberParser::parse64(text);
}

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
  BodyRead body;
  Poco::JSON::Object::Ptr json;  ///< parsed body of a mutating route
};

const HttpApi::Route HttpApi::kRoutes[] = {
    {"GET", "/state", &HttpApi::getState, Access::Read},
    {"GET", "/events", &HttpApi::getEvents, Access::Read},
    {"GET", "/healthz", &HttpApi::getHealth, Access::Read},
    {"GET", "/history", &HttpApi::getHistory, Access::Read},
    {"POST", "/planning", &HttpApi::postPlanning, Access::Token},
    {"POST", "/planning/cancel", &HttpApi::postPlanningCancel, Access::Token},
    {"POST", "/commitment", &HttpApi::postCommitment, Access::Token},
    {"POST", "/complete", &HttpApi::postComplete, Access::Token},
    {"POST", "/abandon", &HttpApi::postAbandon, Access::Token},
    {"POST", "/end", &HttpApi::postEnd, Access::Token},
    {"POST", "/evidence/window", &HttpApi::postEvidenceWindow, Access::Token},
    {"POST", "/coach", &HttpApi::postCoach, Access::Token},
    {"*", "/api/0/", &HttpApi::activityWatch, Access::ActivityWatch},
};

HttpApi::HttpApi(Controller& controller, SseBroadcaster& broadcaster, const RequestGuard& guard,
                 Options options)
    : controller_(controller),
      broadcaster_(broadcaster),
      guard_(guard),
      options_(std::move(options)),
      activityWatch_(controller_, ActivityWatchApi::Options{}),
      logger_(Poco::Logger::get("antidrift.http")) {
  publish(controller_.state());
}

Poco::Net::HTTPRequestHandlerFactory::Ptr HttpApi::createFactory() {
  return new ApiRequestHandlerFactory(*this);
}

std::string HttpApi::serializeState(const State& state) {
  return stringify(*toJson(state));
}

void HttpApi::publish(const State& state) {
  broadcaster_.publish(state.version, serializeState(state));
}

void HttpApi::handle(HTTPServerRequest& request, HTTPServerResponse& response) {
  // Bytes already read of a refused (too large) body whose rest is unread.
  std::optional<std::size_t> drainFrom;
  try {
    Exchange exchange{request, response, {}, {}, readBody(request), nullptr};
    if (exchange.body.tooLarge) {
      // Part of the body is still unread: this connection cannot carry
      // another request. Answer first, then drain (lingering close).
      response.setKeepAlive(false);
      drainFrom = exchange.body.bytesRead;
    }
    dispatch(exchange);
  } catch (const BadRequest& error) {
    if (!response.sent()) {
      sendError(response, 400, error.what());
    }
  } catch (const Poco::Exception& error) {
    logger_.error("%s %s failed: %s", request.getMethod(), request.getURI(), error.displayText());
    if (!response.sent()) {
      sendError(response, 500, "internal error; see the daemon log");
    }
  } catch (const std::exception& error) {
    logger_.error("%s %s failed: %s", request.getMethod(), request.getURI(),
                  std::string(error.what()));
    if (!response.sent()) {
      sendError(response, 500, "internal error; see the daemon log");
    }
  }
  if (logger_.debug()) {
    logger_.debug("%s %s %d", request.getMethod(), request.getURI(),
                  static_cast<int>(response.getStatus()));
  }
  if (drainFrom) {
    drainAfterAnswer(request.stream(), *drainFrom);
  }
}

void HttpApi::dispatch(Exchange& exchange) {
  HTTPServerRequest& request = exchange.request;
  HTTPServerResponse& response = exchange.response;
  const RequestHeaders headers = RequestHeaders::from(request);
  if (const auto rejection = guard_.checkHost(headers)) {
    sendError(response, rejection->status, rejection->message);
    return;
  }

  Poco::URI uri;
  try {
    uri = Poco::URI(request.getURI());
    exchange.path = uri.getPath();
    exchange.query = uri.getQueryParameters();
  } catch (const Poco::Exception&) {
    throw BadRequest("the request URI is malformed");
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
    sendError(response, 405,
              "method " + echo(method) + " is not allowed on " + echo(exchange.path));
    return;
  }
  if (route == nullptr && method != "GET") {
    sendError(response, 404, "no such route: " + echo(method) + " " + echo(exchange.path));
    return;
  }
  if (exchange.body.tooLarge) {
    response.setKeepAlive(false);
    sendError(response, 413,
              "the request body is larger than " + std::to_string(kMaxBodyBytes / 1024) + " KiB");
    return;
  }
  if (exchange.body.cutOff) {
    // The client may still be sending: this connection carries no more.
    response.setKeepAlive(false);
    throw BadRequest(exchange.request.getChunkedTransferEncoding()
                         ? "the request body ended before its last chunk"
                         : "the request body is shorter than its Content-Length");
  }
  if (route == nullptr) {
    getStatic(exchange);
    return;
  }
  if (route->access == Access::Token) {
    if (const auto rejection = guard_.checkMutating(headers)) {
      sendError(response, rejection->status, rejection->message);
      return;
    }
    exchange.json = parseObject(exchange.body.text);
  } else if (route->access == Access::ActivityWatch) {
    if (const auto rejection = guard_.checkActivityWatch(headers, method == "POST")) {
      sendError(response, rejection->status, rejection->message);
      return;
    }
  }
  (this->*(route->handler))(exchange);
}

void HttpApi::sendState(Exchange& exchange) {
  sendJson(exchange.response, 200, serializeState(controller_.state()));
}

void HttpApi::answerAction(Exchange& exchange, const ActionResult& result) {
  if (!result) {
    sendState(exchange);
    return;
  }
  switch (result->kind) {
    case ErrorKind::Validation:
    case ErrorKind::NotPlanning:
      sendError(exchange.response, 400, result->message);
      return;
    case ErrorKind::IllegalTransition:
    case ErrorKind::Busy:
      sendError(exchange.response, 409, result->message, result->state);
      return;
    case ErrorKind::Storage:
      exchange.response.set("Retry-After", "5");
      sendError(exchange.response, 503, result->message, result->state);
      return;
  }
  sendError(exchange.response, 500, result->message);
}

void HttpApi::getState(Exchange& exchange) {
  sendState(exchange);
}

void HttpApi::getEvents(Exchange& exchange) {
  const std::unique_ptr<SseBroadcaster::Subscription> subscription = broadcaster_.subscribe();
  if (!subscription) {
    exchange.response.set("Retry-After", "5");
    sendError(exchange.response, 503,
              "too many event streams are open; close another AntiDrift tab and retry");
    return;
  }
  // The first event is this client's own, freshly taken State: the last
  // broadcast one may be minutes old ("now", "remaining_secs").
  const State fresh = controller_.state();
  broadcaster_.primeFirstEvent(*subscription, fresh.version, serializeState(fresh));
  HTTPServerResponse& response = exchange.response;
  response.setStatusAndReason(HTTPResponse::HTTP_OK);
  setCommonHeaders(response);
  response.setContentType("text/event-stream");
  response.set("Cache-Control", "no-cache");
  response.set("X-Accel-Buffering", "no");
  response.setChunkedTransferEncoding(true);
  std::ostream& out = response.send();
  broadcaster_.stream(*subscription, out);
}

void HttpApi::getHealth(Exchange& exchange) {
  const State state = controller_.state();
  Poco::JSON::Object body;
  body.set("status", "ok");
  body.set("runtime", toString(state.runtime));
  body.set("evidence", toString(state.evidence.health));
  sendJson(exchange.response, 200, stringify(body));
}

void HttpApi::getHistory(Exchange& exchange) {
  std::int64_t count = kHistoryDefault;
  for (const auto& [name, value] : exchange.query) {
    if (name != "n") {
      continue;
    }
    const auto parsed = parseCount(value);
    if (!parsed || *parsed < 1 || *parsed > kHistoryMax) {
      throw BadRequest("n must be an integer from 1 to " + std::to_string(kHistoryMax));
    }
    count = *parsed;
  }
  std::string body = "{\"sessions\":[";
  bool first = true;
  for (const SessionSummary& summary : controller_.history(static_cast<std::size_t>(count))) {
    body += first ? "" : ",";
    body += toJsonLine(summary);
    first = false;
  }
  body += "]}";
  sendJson(exchange.response, 200, body);
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
  request.nextAction = requireString(body, "next_action");
  request.successCondition = requireString(body, "success_condition");
  request.timeboxMinutes = optionalInteger(body, "timebox_minutes");
  request.timeboxSecs = optionalInteger(body, "timebox_secs");
  if (!request.timeboxMinutes && !request.timeboxSecs) {
    throw BadRequest("timebox_minutes or timebox_secs is required");
  }
  request.allowedApps = optionalStringArray(body, "allowed_apps");
  answerAction(exchange, controller_.startCommitment(request));
}

void HttpApi::postComplete(Exchange& exchange) {
  answerAction(exchange, controller_.complete());
}

void HttpApi::postAbandon(Exchange& exchange) {
  answerAction(exchange, controller_.abandon());
}

void HttpApi::postEnd(Exchange& exchange) {
  answerAction(exchange, controller_.end());
}

void HttpApi::postCoach(Exchange& exchange) {
  const std::string intent = requireString(*exchange.json, "intent");
  answerAction(exchange, controller_.requestCoach(intent));
}

void HttpApi::postEvidenceWindow(Exchange& exchange) {
  const Poco::JSON::Object& body = *exchange.json;
  Observation observation;
  observation.app = requireString(body, "app");
  observation.title = requireString(body, "title");
  observation.atMs = optionalInteger(body, "at").value_or(0);
  observation.source = "http";
  controller_.recordWindow(std::move(observation));
  sendJson(exchange.response, 202, "{\"ok\":true}");
}

void HttpApi::activityWatch(Exchange& exchange) {
  const ActivityWatchApi::Reply reply = activityWatch_.handle(
      exchange.request.getMethod(), exchange.path, exchange.query, exchange.body.text);
  if (!reply.allow.empty()) {
    exchange.response.set("Allow", reply.allow);
  }
  // 304 has no body (RFC 9110 §15.4.5): Content-Length 0, nothing sent.
  sendJson(exchange.response, reply.status, reply.json);
}

void HttpApi::getStatic(Exchange& exchange) {
  const auto relative = staticRelativePath(exchange.path);
  const std::string fullPath = relative ? options_.wwwDir + "/" + *relative : std::string();
  bool found = false;
  if (relative) {
    try {
      Poco::File file(fullPath);
      found = file.exists() && file.isFile();
    } catch (const Poco::Exception&) {
      found = false;
    }
  }
  if (!found) {
    sendError(exchange.response, 404, "not found: " + echo(exchange.path));
    return;
  }
  std::string content;
  {
    Poco::FileInputStream in(fullPath);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    content = buffer.str();
  }
  const std::string type = contentTypeFor(*relative);
  HTTPServerResponse& response = exchange.response;
  if (*relative == "index.html") {
    Poco::replaceInPlace(content, std::string(kTokenPlaceholder), guard_.token());
  }
  if (type.rfind("text/html", 0) == 0) {
    response.set("Content-Security-Policy", kContentSecurityPolicy);
    response.set("Cache-Control", "no-store");
  } else {
    response.set("Cache-Control", "no-cache");
  }
  sendBody(response, 200, type, content);
}

}  // namespace antidrift
