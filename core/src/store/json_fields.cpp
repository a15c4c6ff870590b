#include "store/json_fields.h"

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include <sstream>
#include <stdexcept>

#include "antidrift/text/utf8.h"

namespace antidrift::jsonfields {
namespace {

std::runtime_error fieldError(const std::string& field, const std::string& what) {
  return std::runtime_error("field \"" + field + "\" " + what);
}

Poco::Dynamic::Var requireField(const Poco::JSON::Object& object, const std::string& key,
                                const std::string& context) {
  if (!object.has(key)) {
    throw fieldError(context + key, "is missing");
  }
  return object.get(key);
}

std::int64_t toInt(const Poco::Dynamic::Var& value, const std::string& field) {
  // Poco reports booleans as integers too; a boolean is not a count.
  if (value.isEmpty() || !value.isInteger() || value.isBoolean()) {
    throw fieldError(field, "must be an integer");
  }
  try {
    return value.convert<Poco::Int64>();
  } catch (const Poco::Exception&) {
    throw fieldError(field, "is out of range");
  }
}

}  // namespace

Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  Poco::Dynamic::Var result;
  try {
    Poco::JSON::Parser parser;
    result = parser.parse(text);
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("malformed JSON: " + error.displayText());
  }
  if (result.type() != typeid(Poco::JSON::Object::Ptr)) {
    throw std::runtime_error("malformed JSON: not an object");
  }
  Poco::JSON::Object::Ptr object = result.extract<Poco::JSON::Object::Ptr>();
  if (object.isNull()) {
    throw std::runtime_error("malformed JSON: not an object");
  }
  return object;
}

std::string validUtf8(const std::string& text) {
  return text::toValidUtf8(text);
}

std::string stringify(const Poco::JSON::Object& object) {
  std::ostringstream out;
  object.stringify(out, 0);
  return out.str();
}

std::int64_t requireInt(const Poco::JSON::Object& object, const std::string& key,
                        const std::string& context) {
  return toInt(requireField(object, key, context), context + key);
}

std::string requireString(const Poco::JSON::Object& object, const std::string& key,
                          const std::string& context) {
  const Poco::Dynamic::Var value = requireField(object, key, context);
  if (value.isEmpty() || !value.isString()) {
    throw fieldError(context + key, "must be a string");
  }
  return value.convert<std::string>();
}

Poco::JSON::Object::Ptr requireObject(const Poco::JSON::Object& object, const std::string& key,
                                      const std::string& context) {
  requireField(object, key, context);
  Poco::JSON::Object::Ptr result = object.getObject(key);
  if (result.isNull()) {
    throw fieldError(context + key, "must be an object");
  }
  return result;
}

Poco::JSON::Array::Ptr requireArray(const Poco::JSON::Object& object, const std::string& key,
                                    const std::string& context) {
  requireField(object, key, context);
  Poco::JSON::Array::Ptr result = object.getArray(key);
  if (result.isNull()) {
    throw fieldError(context + key, "must be an array");
  }
  return result;
}

Poco::JSON::Object::Ptr requireObjectAt(const Poco::JSON::Array& array, std::size_t index,
                                        const std::string& field) {
  Poco::JSON::Object::Ptr result = array.getObject(static_cast<unsigned>(index));
  if (result.isNull()) {
    throw fieldError(field + "[" + std::to_string(index) + "]", "must be an object");
  }
  return result;
}

std::string requireStringAt(const Poco::JSON::Array& array, std::size_t index,
                            const std::string& field) {
  const Poco::Dynamic::Var value = array.get(static_cast<unsigned>(index));
  if (value.isEmpty() || !value.isString()) {
    throw fieldError(field + "[" + std::to_string(index) + "]", "must be a string");
  }
  return value.convert<std::string>();
}

}  // namespace antidrift::jsonfields
