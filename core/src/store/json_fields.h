/// @file json_fields.h
/// Private helpers of the stores: typed, named access to Poco::JSON fields so
/// a parse error says which field is wrong (docs/DESIGN.md §9).
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <cstdint>
#include <string>

namespace antidrift::jsonfields {

/// Parses `text` as one JSON object. Throws std::runtime_error("malformed
/// JSON: ...") when it is not valid JSON or not an object.
Poco::JSON::Object::Ptr parseObject(const std::string& text);

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD
/// (text::toValidUtf8, antidrift/text/utf8.h). Valid UTF-8 comes back unchanged. Poco::JSON writes
/// invalid bytes through unescaped and then cannot parse its own output, so
/// every string the stores write passes through here first. Pure.
std::string validUtf8(const std::string& text);

/// Compact text of `object` (keys sorted unless the object preserves order).
std::string stringify(const Poco::JSON::Object& object);

/// The integer field `key` of `object`. Throws std::runtime_error naming
/// `context + key` when it is missing, not an integer (booleans and
/// fractions are refused) or out of the int64 range.
std::int64_t requireInt(const Poco::JSON::Object& object, const std::string& key,
                        const std::string& context);

/// The string field `key`. Throws std::runtime_error naming the field when
/// missing or not a string.
std::string requireString(const Poco::JSON::Object& object, const std::string& key,
                          const std::string& context);

/// The object field `key`. Throws std::runtime_error naming the field when
/// missing or not an object.
Poco::JSON::Object::Ptr requireObject(const Poco::JSON::Object& object, const std::string& key,
                                      const std::string& context);

/// The array field `key`. Throws std::runtime_error naming the field when
/// missing or not an array.
Poco::JSON::Array::Ptr requireArray(const Poco::JSON::Object& object, const std::string& key,
                                    const std::string& context);

/// Element `index` of `array` as an object. Throws std::runtime_error naming
/// `field[index]` when it is not an object.
Poco::JSON::Object::Ptr requireObjectAt(const Poco::JSON::Array& array, std::size_t index,
                                        const std::string& field);

/// Element `index` of `array` as a string. Throws std::runtime_error naming
/// `field[index]` when it is not a string.
std::string requireStringAt(const Poco::JSON::Array& array, std::size_t index,
                            const std::string& field);

}  // namespace antidrift::jsonfields
