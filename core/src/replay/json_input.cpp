#include "replay/json_input.h"

#include <cstring>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "antidrift/replay/activity_reader.h"

namespace antidrift::replay::json {

Fields::Fields(std::initializer_list<const char*> names)
    : names_(names.begin(), names.end()), values_(names.size()) {}

Field* Fields::slot(const char* key, std::size_t length) {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i].size() == length && std::memcmp(names_[i].data(), key, length) == 0) {
      return &values_[i];
    }
  }
  return nullptr;
}

void Fields::clear() {
  for (Field& field : values_) field.kind = Field::Kind::Missing;
}

void fieldError(const std::string& where, const char* name, const char* problem) {
  throw ReplayError(where + ": \"" + name + "\" " + problem);
}

namespace {

/// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (H. Hinnant's
/// days_from_civil).
std::int64_t daysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
  return kDays[m - 1];
}

/// The common shape, read directly; nullopt for anything else (Poco then decides).
std::optional<std::int64_t> parseCommonIso(const std::string& text) {
  const char* s = text.data();
  const std::size_t n = text.size();
  std::size_t i = 0;
  const auto digits = [&](std::size_t count, int& value) {
    if (i + count > n) return false;
    value = 0;
    for (std::size_t k = 0; k < count; ++k, ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      value = value * 10 + (s[i] - '0');
    }
    return true;
  };
  const auto literal = [&](char c) { return i < n && s[i++] == c; };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(4, year) || !literal('-') || !digits(2, month) || !literal('-') || !digits(2, day) ||
      i >= n || (s[i] != 'T' && s[i] != ' ')) {
    return std::nullopt;
  }
  ++i;
  if (!digits(2, hour) || !literal(':') || !digits(2, minute) || !literal(':') ||
      !digits(2, second)) {
    return std::nullopt;
  }
  std::int64_t micros = 0;
  if (i < n && s[i] == '.') {
    ++i;
    const std::size_t first = i;
    int kept = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (kept < 6) {
        micros = micros * 10 + (s[i] - '0');
        ++kept;
      }
    }
    if (i == first) return std::nullopt;
    for (; kept < 6; ++kept) micros *= 10;
  }
  int offsetSecs = 0;
  if (i < n && s[i] == 'Z') {
    ++i;
  } else if (i < n && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i++] == '-' ? -1 : 1;
    int oh = 0, om = 0;
    if (!digits(2, oh) || !literal(':') || !digits(2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offsetSecs = sign * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (i != n || year < 1600 || month < 1 || month > 12 || day < 1 ||
      day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  const std::int64_t secs =
      daysFromCivil(year, month, day) * 86'400 + hour * 3600 + minute * 60 + second - offsetSecs;
  return (secs * 1'000'000 + micros) / 1000;
}

}  // namespace

std::optional<std::int64_t> parseIso(const std::string& text) {
  if (auto ms = parseCommonIso(text)) return ms;
  // Poco's parser is lenient ("yesterday" parses): the date part must be there.
  const auto digit = [&](std::size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() < 19 || !digit(0) || !digit(1) || !digit(2) || !digit(3) || text[4] != '-' ||
      !digit(5) || !digit(6) || text[7] != '-' || !digit(8) || !digit(9) ||
      (text[10] != 'T' && text[10] != ' ')) {
    return std::nullopt;
  }
  Poco::DateTime at;
  int tzd = 0;
  if (!Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, text, at, tzd) &&
      !Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FORMAT, text, at, tzd)) {
    return std::nullopt;
  }
  at.makeUTC(tzd);
  return at.timestamp().epochMicroseconds() / 1000;
}

ChunkStream::ChunkStream(std::istream& in) : in_(in), buffer_(kChunk + 1) {
  fill();
}

void ChunkStream::fill() {
  count_ += read_;
  in_.read(buffer_.data(), static_cast<std::streamsize>(kChunk));
  read_ = static_cast<std::size_t>(in_.gcount());
  if (in_.bad()) failed_ = true;
  current_ = buffer_.data();
  last_ = current_ + read_;
  if (read_ < kChunk) {
    *last_ = '\0';  // the end: Peek() returns '\0' from now on
    eof_ = true;
  } else {
    --last_;
  }
}

namespace {

/// SAX handler of one JSONL line: the top-level fields named in `fields`, nested values
/// skipped (to kMaxDepth).
class LineHandler {
 public:
  explicit LineHandler(Fields& fields) : fields_(fields) {}

  bool Null() {
    return scalar([](Field& f) { f.kind = Field::Kind::Null; });
  }
  bool Bool(bool value) {
    return scalar([&](Field& f) {
      f.kind = Field::Kind::Bool;
      f.boolean = value;
    });
  }
  bool Int(int value) { return number(value); }
  bool Uint(unsigned value) { return number(value); }
  bool Int64(std::int64_t value) { return number(static_cast<double>(value)); }
  bool Uint64(std::uint64_t value) { return number(static_cast<double>(value)); }
  bool Double(double value) { return number(value); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return true; }  // flag not used
  bool String(const char* text, rapidjson::SizeType length, bool) {
    if (depth_ == 1 && current_ && !validUtf8(text, length)) {
      badUtf8 = current_;
      return false;
    }
    return scalar([&](Field& f) {
      f.kind = Field::Kind::String;
      f.text.assign(text, length);
    });
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (depth_ == 1) current_ = fields_.slot(text, length);
    return true;
  }
  bool StartObject() {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    return open(Field::Kind::Object);
  }
  bool StartArray() {
    if (depth_ == 0) {
      notObject = true;
      return false;
    }
    return open(Field::Kind::Array);
  }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  bool notObject = false;
  bool tooDeep = false;
  const Field* badUtf8 = nullptr;  ///< a kept string that is not valid UTF-8

 private:
  template <typename Set>
  bool scalar(Set set) {
    if (depth_ == 0) {
      notObject = true;
      return false;
    }
    if (depth_ == 1 && current_) set(*current_);
    return true;
  }
  bool number(double value) {
    return scalar([&](Field& f) {
      f.kind = Field::Kind::Number;
      f.number = value;
    });
  }
  bool open(Field::Kind kind) {
    if (depth_ == 1 && current_) current_->kind = kind;
    if (++depth_ > kMaxDepth) {
      tooDeep = true;
      return false;
    }
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  Fields& fields_;
  Field* current_ = nullptr;
  int depth_ = 0;
};

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

namespace {

/// RapidJSON's validator writes what it reads to an output stream: here, nowhere.
struct NoOutput {
  using Ch = char;
  void Put(Ch) {}
};

}  // namespace

bool validUtf8(const char* text, std::size_t length) {
  std::size_t ascii = 0;
  while (ascii < length && static_cast<unsigned char>(text[ascii]) < 0x80) ++ascii;
  if (ascii == length) return true;
  rapidjson::MemoryStream in(text + ascii, length - ascii);
  NoOutput out;
  while (in.Tell() < length - ascii) {
    if (!rapidjson::UTF8<>::Validate(in, out)) return false;
  }
  return true;
}

std::string parseErrorText(int code) {
  return rapidjson::GetParseError_En(static_cast<rapidjson::ParseErrorCode>(code));
}

JsonlReader::JsonlReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

std::string JsonlReader::where() const {
  return name_ + " line " + std::to_string(number_);
}

bool JsonlReader::next(Fields& fields) {
  while (std::getline(in_, line_)) {
    ++number_;
    std::size_t begin = 0;
    std::size_t end = line_.size();
    while (begin < end && isSpace(line_[begin])) ++begin;
    while (end > begin && isSpace(line_[end - 1])) --end;
    if (begin == end || line_[begin] == '#') continue;
    fields.clear();
    LineHandler handler(fields);
    rapidjson::MemoryStream stream(line_.data() + begin, end - begin);
    rapidjson::Reader reader;
    const rapidjson::ParseResult result = reader.Parse<rapidjson::kParseNoFlags>(stream, handler);
    if (handler.notObject) throw ReplayError(where() + " must be a JSON object");
    if (handler.badUtf8) {
      fieldError(where(), fields.nameOf(handler.badUtf8).c_str(), "is not valid UTF-8");
    }
    if (handler.tooDeep) {
      throw ReplayError(where() + " is not valid JSON: nested deeper than " +
                        std::to_string(kMaxDepth) + " levels");
    }
    if (result.IsError()) {
      throw ReplayError(where() + " is not valid JSON: " + parseErrorText(result.Code()) +
                        " (column " + std::to_string(result.Offset() + 1) + ")");
    }
    if (stream.Tell() != end - begin) {  // a NUL byte, which the parser takes for the end
      throw ReplayError(where() + " is not valid JSON: a NUL byte (column " +
                        std::to_string(stream.Tell() + 1) + ")");
    }
    return true;
  }
  if (in_.bad()) throw ReplayError("cannot read " + name_);
  return false;
}

}  // namespace antidrift::replay::json
