#include "server/http/responses.h"

#include <ostream>
#include <sstream>

#include <Poco/JSON/Stringifier.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "antidrift/evidence/observation.h"

namespace antidrift::http {

using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerResponse;

std::string toJsonText(const Poco::JSON::Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

std::string toJsonText(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::stringify(value, out);
  return out.str();
}

std::string errorJson(const std::string& message, const std::optional<RuntimeState>& state) {
  Poco::JSON::Object body;
  body.set("error", message);
  if (state) {
    body.set("state", std::string(toString(*state)));
  }
  return toJsonText(body);
}

std::string sanitizeRequestText(const std::string& requestText) {
  return sanitizeTitle(requestText);
}

std::string noSuchRouteMessage(const std::string& method, const std::string& path) {
  return "no such route: " + sanitizeRequestText(method) + " " + sanitizeRequestText(path);
}

std::string methodNotAllowedMessage(const std::string& method, const std::string& path) {
  return "method " + sanitizeRequestText(method) + " is not allowed on " +
         sanitizeRequestText(path);
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
  sendBody(response, status, kJsonContentType, json);
}

void sendError(HTTPServerResponse& response, int status, const std::string& message,
               const std::optional<RuntimeState>& state) {
  sendJson(response, status, errorJson(message, state));
}

}  // namespace antidrift::http
