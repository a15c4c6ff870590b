#include "server/http/body.h"

#include <algorithm>
#include <istream>

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/JSONException.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/SharedPtr.h>
#include <Poco/String.h>

#include "antidrift/text/utf8.h"
#include "server/config.h"
#include "server/http/responses.h"

namespace antidrift::http {
namespace {

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
  return sanitizeRequestText(reason);
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

}  // namespace

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

BodyRead readBody(Poco::Net::HTTPServerRequest& request) {
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

Poco::Dynamic::Var parseJsonBody(const std::string& text, BodyShape shape) {
  const std::string trimmed = Poco::trim(text);
  if (trimmed.empty()) {
    if (shape == BodyShape::ObjectOrArray) {
      throw BadRequest("the request body is empty; a JSON object or array is required");
    }
    return Poco::JSON::Object::Ptr(new Poco::JSON::Object);
  }
  if (!text::isValidUtf8(text)) {
    throw BadRequest("the request body is not valid UTF-8");
  }
  const char* const shapeProblem = shape == BodyShape::Object
                                       ? "the request body must be a JSON object"
                                       : "the request body must be a JSON object or array";
  const bool shapeStart =
      trimmed.front() == '{' || (shape == BodyShape::ObjectOrArray && trimmed.front() == '[');
  if (!shapeStart) {
    // Poco's ParseHandler refuses a top-level scalar with "Attempt to set
    // value on an empty stack"; parsing it inside an array tells a valid
    // value of another shape (`"x"`, `null`, `[1]`) from text that is not
    // JSON at all.
    try {
      Poco::JSON::Parser parser;
      parser.parse("[" + text + "]");
    } catch (const Poco::JSON::JSONException& error) {
      throw BadRequest("malformed JSON: " + parseReason(error));
    } catch (const Poco::Exception&) {
      // Valid JSON whose number Poco cannot hold: still the wrong shape.
    }
    throw BadRequest(shapeProblem);
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
    throw BadRequest(sanitizeRequestText(handler->lastKey()) + " must be an integer");
  } catch (const Poco::Exception&) {
    throw BadRequest("malformed JSON");
  }
  const bool isObject = parsed.type() == typeid(Poco::JSON::Object::Ptr);
  const bool isArray = parsed.type() == typeid(Poco::JSON::Array::Ptr);
  if (!isObject && !(isArray && shape == BodyShape::ObjectOrArray)) {
    throw BadRequest(shapeProblem);
  }
  return parsed;
}

Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  return parseJsonBody(text, BodyShape::Object).extract<Poco::JSON::Object::Ptr>();
}

Poco::JSON::Object::Ptr requireObject(const Poco::Dynamic::Var& value, const std::string& what) {
  if (value.type() != typeid(Poco::JSON::Object::Ptr)) {
    throw BadRequest(what + " must be a JSON object");
  }
  return value.extract<Poco::JSON::Object::Ptr>();
}

std::optional<std::string> optionalString(const Poco::JSON::Object& object,
                                          const std::string& field, const std::string& label) {
  if (!object.has(field) || object.get(field).isEmpty()) {
    return std::nullopt;
  }
  const Poco::Dynamic::Var value = object.get(field);
  if (!value.isString()) {
    throw BadRequest(label + " must be a string");
  }
  return value.extract<std::string>();
}

std::string requireString(const Poco::JSON::Object& object, const std::string& field) {
  std::optional<std::string> value = optionalString(object, field, field);
  if (!value) {
    throw BadRequest(field + " is required");
  }
  return std::move(*value);
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

void refuseUnknownFields(const Poco::JSON::Object& object, const std::vector<std::string>& known) {
  std::vector<std::string> names;
  object.getNames(names);
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (known.empty()) {
      throw BadRequest("unknown field \"" + name + "\"; this request takes no fields");
    }
    throw BadRequest("unknown field \"" + name + "\"; did you mean \"" + nearestName(name, known) +
                     "\"?");
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

}  // namespace antidrift::http
