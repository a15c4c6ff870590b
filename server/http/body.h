/// @file body.h
/// Request bodies of the HTTP routes (docs/DESIGN.md §10): reading with the 64 KiB
/// cap and the cut-off check, JSON parsing that answers malformed input with
/// a sentence fit for the client, and readers for the fields of a parsed
/// body. Shared by HttpApi and ActivityWatchApi.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Object.h>

namespace Poco::Net {
class HTTPServerRequest;
}  // namespace Poco::Net

namespace antidrift::http {

/// Largest request body accepted, bytes (docs/DESIGN.md §10); larger → 413.
inline constexpr std::size_t kMaxBodyBytes = 64 * 1024;

/// Bytes of an oversized body read and thrown away after the 413 answer is
/// sent (see drainAfterAnswer).
inline constexpr std::size_t kDrainLimit = 1024 * 1024;

/// A request the client got wrong; the routes answer it with
/// 400 {"error": what()}. what() is a sentence safe to show (no Poco
/// internals, request text sanitised).
class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What was read of a request body.
struct BodyRead {
  std::string text;           ///< the body, empty when tooLarge
  bool tooLarge = false;      ///< over kMaxBodyBytes (declared or actual)
  bool cutOff = false;        ///< ended before its Content-Length or last chunk
  std::size_t bytesRead = 0;  ///< bytes consumed from the connection so far
};

/// Reads the body, never more than kMaxBodyBytes into memory. A request
/// without Content-Length and not chunked has no body (RFC 9112 §6.3). A
/// declared Content-Length over the cap is refused from the header alone:
/// nothing is read, so the 413 goes out at once however slowly the body
/// arrives (the rest is drained after the answer). A body that stops short
/// (the client closed or went silent past server.request_timeout_s) is
/// marked cutOff and must not be acted on. Blocks on the connection; may
/// throw Poco::Exception on a socket error. Call once per request, on the
/// connection's thread.
BodyRead readBody(Poco::Net::HTTPServerRequest& request);

/// Reads and throws away the rest of a refused body after the answer has
/// been sent, so that answer is not lost to a TCP reset when the socket
/// closes with unread data: up to kDrainLimit bytes in all (counting
/// `alreadyRead`), or until server.request_timeout_s passes without a byte
/// (the socket's receive timeout). Never throws.
void drainAfterAnswer(std::istream& in, std::size_t alreadyRead);

/// What a route accepts as its JSON body.
enum class BodyShape {
  Object,        ///< one JSON object; an empty (or blank) body is {}
  ObjectOrArray  ///< one JSON object or array; an empty body is refused
};

/// Parses a request body of `shape`. Throws BadRequest with a sentence for
/// the client: "the request body is not valid UTF-8", "malformed JSON: <why>",
/// "<field> must be an integer" (a number beyond 64 bits), or a sentence
/// naming the shape required. Pure; thread-safe.
Poco::Dynamic::Var parseJsonBody(const std::string& text, BodyShape shape);

/// parseJsonBody(text, BodyShape::Object) as the object. Throws BadRequest.
Poco::JSON::Object::Ptr parseObject(const std::string& text);

/// `value` as a JSON object; throws BadRequest "<what> must be a JSON
/// object" when it is another value. Pure.
Poco::JSON::Object::Ptr requireObject(const Poco::Dynamic::Var& value, const std::string& what);

/// The string `field` of `object`, nullopt when absent or null. Throws
/// BadRequest "<label> must be a string" for another type (`label` names
/// the field for the client, e.g. "data.app"). Pure.
std::optional<std::string> optionalString(const Poco::JSON::Object& object,
                                          const std::string& field, const std::string& label);

/// The string `field` of `object`. Throws BadRequest "<field> is required"
/// when absent or null, "<field> must be a string" for another type. Pure.
std::string requireString(const Poco::JSON::Object& object, const std::string& field);

/// The integer `field` of `object`, nullopt when absent or null. Throws
/// BadRequest "<field> must be an integer" for another type, a fraction, a
/// boolean or a value beyond a signed 64-bit integer. Pure.
std::optional<std::int64_t> optionalInteger(const Poco::JSON::Object& object,
                                            const std::string& field);

/// Refuses a body with a field not in `known` (issue 17 item 4: a typo such
/// as `allowed_app` must not silently lose what it carried). Throws
/// BadRequest `unknown field "allowed_app"; did you mean "allowed_apps"?`
/// (the nearest known field, config-style), or `unknown field "x"; this
/// request takes no fields` when `known` is empty. Pure.
void refuseUnknownFields(const Poco::JSON::Object& object, const std::vector<std::string>& known);

/// The array of strings `field` of `object`, nullopt when absent or null.
/// Throws BadRequest "<field> must be an array of strings" otherwise. Pure.
std::optional<std::vector<std::string>> optionalStringArray(const Poco::JSON::Object& object,
                                                            const std::string& field);

}  // namespace antidrift::http
