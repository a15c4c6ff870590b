/// @file responses.h
/// Answers of the HTTP routes (docs/DESIGN.md §10, docs/API.md "Errors"): the
/// headers every answer carries, JSON answers with an explicit length, and
/// the error body `{"error": "<sentence>"}` (with `"state"` for refused
/// transitions). Shared by HttpApi and ActivityWatchApi.
#pragma once

#include <optional>
#include <string>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Object.h>

#include "antidrift/domain/runtime.h"

namespace Poco::Net {
class HTTPServerResponse;
}  // namespace Poco::Net

namespace antidrift::http {

/// The media type of every JSON answer.
inline constexpr const char* kJsonContentType = "application/json; charset=utf-8";

/// `object` as compact JSON text (one line, Poco's key order). Pure.
std::string toJsonText(const Poco::JSON::Object& object);

/// `value` (an object, array or scalar) as compact JSON text. Pure.
std::string toJsonText(const Poco::Dynamic::Var& value);

/// The error body `{"error": message}`, plus `"state": "<runtime>"` when
/// `state` is set (a refused transition names the unchanged runtime). Pure.
std::string errorJson(const std::string& message,
                      const std::optional<RuntimeState>& state = std::nullopt);

/// Request text (path, method, header value, field name) made fit to quote
/// in an error sentence: valid UTF-8 without control characters, at most
/// kMaxTitleBytes (sanitizeTitle). Pure.
std::string sanitizeRequestText(const std::string& requestText);

/// "no such route: <method> <path>", both sanitised. Pure.
std::string noSuchRouteMessage(const std::string& method, const std::string& path);

/// "method <method> is not allowed on <path>", both sanitised. Pure.
std::string methodNotAllowedMessage(const std::string& method, const std::string& path);

/// Sets the headers every answer carries: X-Content-Type-Options nosniff,
/// Referrer-Policy no-referrer, X-Frame-Options DENY.
void setCommonHeaders(Poco::Net::HTTPServerResponse& response);

/// Sends `status` with `body` of `contentType`, the common headers, an
/// explicit Content-Length and Cache-Control no-store unless one is already
/// set, and flushes it onto the wire at once (a refused body is drained
/// after the answer, which must be sent before that). Call once per
/// response; throws Poco::Exception on a socket error.
void sendBody(Poco::Net::HTTPServerResponse& response, int status, const std::string& contentType,
              const std::string& body);

/// sendBody with kJsonContentType; `json` is sent as it is.
void sendJson(Poco::Net::HTTPServerResponse& response, int status, const std::string& json);

/// sendJson of errorJson(message, state) with `status`.
void sendError(Poco::Net::HTTPServerResponse& response, int status, const std::string& message,
               const std::optional<RuntimeState>& state = std::nullopt);

}  // namespace antidrift::http
