// The replay's streaming JSON input (issue 16 item 5), private to core/src/replay: what the
// ActivityWatch export reader (activity_reader.cpp), the observations JSONL reader and the labels
// reader (label_score.cpp) share. RapidJSON's SAX Reader does the parsing (Debian rapidjson-dev,
// header-only): the input is read in fixed chunks, and only the fields a reader names are kept,
// so memory does not grow with the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace antidrift::replay::json {

/// Containers nested deeper than this are malformed input (a ReplayError), never a deep
/// recursion of the parser: the handlers stop the parse there.
constexpr int kMaxDepth = 128;

/// One field of an object as the reader saw it: its JSON type and, for a scalar, its value.
struct Field {
  enum class Kind : std::uint8_t { Missing, Null, Bool, Number, String, Object, Array };
  Kind kind = Kind::Missing;
  bool boolean = false;
  double number = 0;
  std::string text;  ///< Kind::String only (its capacity is kept across objects)
};

/// The fields of one JSON object that a reader wants, by name; the others are skipped. Names
/// are string literals; a later duplicate key wins, as in Poco::JSON::Object.
class Fields {
 public:
  Fields(std::initializer_list<const char*> names);
  /// The slot of `key`, or nullptr when the key is not wanted.
  Field* slot(const char* key, std::size_t length);
  /// The field named `names[index]` at construction.
  const Field& operator[](std::size_t index) const { return values_[index]; }
  Field& operator[](std::size_t index) { return values_[index]; }
  /// Every field back to Missing (string capacity kept).
  void clear();
  /// The name of `slot` (one of this set's).
  const std::string& nameOf(const Field* slot) const {
    return names_[static_cast<std::size_t>(slot - values_.data())];
  }

 private:
  std::vector<std::string> names_;
  std::vector<Field> values_;
};

/// Throws ReplayError "<where>: "<name>" <problem>".
[[noreturn]] void fieldError(const std::string& where, const char* name, const char* problem);

/// A string field: "" when missing or null and not `required`; a ReplayError "<where>: "<name>"
/// is missing" / "must be a string" otherwise. `where()` names the line or event; it is called
/// only for an error (the export reader calls these 350,000 times a file).
template <typename Where>
std::string stringField(const Field& field, const char* name, const Where& where, bool required) {
  if (field.kind == Field::Kind::String) return field.text;
  if (field.kind != Field::Kind::Missing && field.kind != Field::Kind::Null) {
    fieldError(where(), name, "must be a string");
  }
  if (required) fieldError(where(), name, "is missing");
  return {};
}

/// A number field ≥ 0 and ≤ 1e15 (seconds, ms), nullopt when missing or null; a ReplayError
/// "<where>: "<name>" must be a number" (or "… ≥ 0") otherwise. Booleans are not numbers.
template <typename Where>
std::optional<double> numberField(const Field& field, const char* name, const Where& where) {
  if (field.kind == Field::Kind::Missing || field.kind == Field::Kind::Null) return std::nullopt;
  if (field.kind != Field::Kind::Number) fieldError(where(), name, "must be a number");
  if (!(field.number >= 0) || field.number > 1e15) {
    fieldError(where(), name, "must be a number ≥ 0");
  }
  return field.number;
}

/// ISO 8601 with an optional fraction and offset → UTC ms; nullopt when it is not one. The
/// common shape (YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM), years 1600–9999, every field in its
/// range) is read here, with the result Poco's DateTimeParser gives (the fraction cut to µs, then
/// to ms toward zero); any other text goes to Poco's parser, as before issue 16 item 5.
std::optional<std::int64_t> parseIso(const std::string& text);

/// A time field: UTC ms as a number, or an ISO 8601 time (parseIso). ReplayError when missing,
/// null, or neither.
template <typename Where>
std::int64_t timeField(const Field& field, const char* name, const Where& where) {
  switch (field.kind) {
    case Field::Kind::String:
      if (auto ms = parseIso(field.text)) return *ms;
      fieldError(where(), name, ("is not an ISO 8601 time: \"" + field.text + "\"").c_str());
    case Field::Kind::Number:
      return static_cast<std::int64_t>(*numberField(field, name, where));
    case Field::Kind::Missing:
    case Field::Kind::Null:
      fieldError(where(), name, "is missing");
    default:
      fieldError(where(), name, "must be UTC ms or an ISO 8601 time");
  }
}

/// A RapidJSON input stream over a std::istream, read in chunks of kChunk bytes: the stream
/// concept of RapidJSON's FileReadStream ('\0' is returned at the end). Read-only.
class ChunkStream {
 public:
  using Ch = char;
  static constexpr std::size_t kChunk = 64 * 1024;

  explicit ChunkStream(std::istream& in);
  Ch Peek() const { return *current_; }
  Ch Take() {
    const Ch c = *current_;
    advance();
    return c;
  }
  /// Bytes taken so far.
  std::size_t Tell() const { return count_ + static_cast<std::size_t>(current_ - buffer_.data()); }
  /// True once every byte was taken (a '\0' byte inside the input is not the end).
  bool atEnd() const { return eof_ && current_ == last_; }
  /// True when reading failed (an I/O error, not the end of the input).
  bool failed() const { return failed_; }

  // Writing is not supported (RapidJSON's concept requires the names).
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

 private:
  void advance() {
    if (current_ < last_) {
      ++current_;
    } else if (!eof_) {
      fill();
    }
  }
  void fill();

  std::istream& in_;
  std::vector<Ch> buffer_;
  Ch* current_ = nullptr;
  Ch* last_ = nullptr;  ///< the last byte read, or the '\0' after the input's end
  std::size_t count_ = 0;
  std::size_t read_ = 0;
  bool eof_ = false;
  bool failed_ = false;
};

/// Reads a JSONL input line by line (each line at most as long as it is; nothing else kept):
/// blank lines and lines starting with '#' are skipped, every other line must be one JSON
/// object, of which the fields named in `fields` are kept. What the observations reader and the
/// labels reader share (issue 16 item 5).
class JsonlReader {
 public:
  JsonlReader(std::istream& in, std::string name);
  /// Reads the next object into `fields` (cleared first). False at the end of the input. Throws
  /// ReplayError "<name> line N is not valid JSON: …" or "… must be a JSON object", and
  /// "cannot read <name>" on an I/O error.
  bool next(Fields& fields);
  /// "<name> line N" of the line last read, for error messages.
  std::string where() const;

 private:
  std::istream& in_;
  std::string name_;
  std::string line_;
  int number_ = 0;
};

/// True when text[0, length) is valid UTF-8 (RapidJSON's validator after an ASCII run). The
/// readers check the strings they keep, not every byte of the input (RapidJSON's
/// kParseValidateEncodingFlag cost a third of the reading).
bool validUtf8(const char* text, std::size_t length);

/// RapidJSON's English message for a parse error code, as text.
std::string parseErrorText(int code);

}  // namespace antidrift::replay::json
