#include "antidrift/ai/json_extract.h"

#include <vector>

#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

namespace antidrift::ai {
namespace {

constexpr char kEscape = '\x1B';
constexpr char kBell = '\x07';
constexpr std::size_t kMaxDepth = 64;
constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool inRange(char c, unsigned char low, unsigned char high) {
  const auto byte = static_cast<unsigned char>(c);
  return byte >= low && byte <= high;
}

// Skips the escape sequence starting at text[pos] == ESC; returns the index
// after it. Malformed or unterminated sequences are dropped up to where they
// stop making sense (an unterminated string sequence runs to the end).
std::size_t skipEscape(std::string_view text, std::size_t pos) {
  std::size_t i = pos + 1;
  if (i >= text.size()) return i;
  const char kind = text[i];
  if (kind == '[') {  // CSI: parameters, intermediates, one final byte
    ++i;
    while (i < text.size() && inRange(text[i], 0x30, 0x3F)) ++i;
    while (i < text.size() && inRange(text[i], 0x20, 0x2F)) ++i;
    if (i < text.size() && inRange(text[i], 0x40, 0x7E)) ++i;
    return i;
  }
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
    ++i;  // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \)
    while (i < text.size()) {
      if (text[i] == kBell) return i + 1;
      if (text[i] == kEscape && i + 1 < text.size() && text[i + 1] == '\\') return i + 2;
      ++i;
    }
    return i;
  }
  if (inRange(kind, 0x20, 0x2F)) {  // nF: intermediates then a final byte
    while (i < text.size() && inRange(text[i], 0x20, 0x2F)) ++i;
    if (i < text.size() && inRange(text[i], 0x30, 0x7E)) ++i;
    return i;
  }
  if (inRange(kind, 0x30, 0x7E)) return i + 1;  // two-byte escape (ESC 7, ESC =, …)
  return i;                                     // a lone ESC
}

enum class ScanOutcome {
  Complete,   // the object closed; `end` is one past its '}'
  Truncated,  // the output ended while the text was still valid JSON
  Invalid,    // the text stopped being JSON
};

struct ScanResult {
  ScanOutcome outcome;
  std::size_t end = 0;
};

// What the grammar accepts next.
enum class Expect { KeyOrClose, Key, Colon, ValueOrClose, Value, CommaOrClose };

bool isJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isScalarChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '+' || c == '.';
}

// Follows the JSON grammar from the '{' at `start`. Scalars (numbers, true,
// false, null) are only checked to be runs of scalar characters; Poco checks
// the rest when the candidate is parsed.
ScanResult scanObject(std::string_view text, std::size_t start) {
  std::vector<char> open{'{'};
  Expect expect = Expect::KeyOrClose;
  std::size_t i = start + 1;
  const auto scanString = [&]() -> std::optional<ScanOutcome> {
    ++i;  // opening quote
    while (i < text.size()) {
      const char c = text[i];
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '"') {
        ++i;
        return std::nullopt;
      }
      if (static_cast<unsigned char>(c) < 0x20) return ScanOutcome::Invalid;  // raw control
      ++i;
    }
    return ScanOutcome::Truncated;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (isJsonSpace(c)) {
      ++i;
      continue;
    }
    bool closed = false;
    switch (expect) {
      case Expect::KeyOrClose:
      case Expect::Key:
        if (c == '}' && expect == Expect::KeyOrClose) {
          closed = true;
          break;
        }
        if (c != '"') return {ScanOutcome::Invalid};
        if (auto stop = scanString()) return {*stop};
        expect = Expect::Colon;
        continue;
      case Expect::Colon:
        if (c != ':') return {ScanOutcome::Invalid};
        ++i;
        expect = Expect::Value;
        continue;
      case Expect::ValueOrClose:
      case Expect::Value:
        if (c == ']' && expect == Expect::ValueOrClose) {
          closed = true;
          break;
        }
        if (c == '{' || c == '[') {
          if (open.size() >= kMaxDepth) return {ScanOutcome::Invalid};
          open.push_back(c);
          expect = c == '{' ? Expect::KeyOrClose : Expect::ValueOrClose;
          ++i;
          continue;
        }
        if (c == '"') {
          if (auto stop = scanString()) return {*stop};
          expect = Expect::CommaOrClose;
          continue;
        }
        if (!isScalarChar(c)) return {ScanOutcome::Invalid};
        while (i < text.size() && isScalarChar(text[i])) ++i;
        expect = Expect::CommaOrClose;
        continue;
      case Expect::CommaOrClose:
        if (c == ',') {
          expect = open.back() == '{' ? Expect::Key : Expect::Value;
          ++i;
          continue;
        }
        if ((c == '}' && open.back() == '{') || (c == ']' && open.back() == '[')) {
          closed = true;
          break;
        }
        return {ScanOutcome::Invalid};
    }
    if (closed) {
      open.pop_back();
      ++i;
      if (open.empty()) return {ScanOutcome::Complete, i};
      expect = Expect::CommaOrClose;
    }
  }
  return {ScanOutcome::Truncated};
}

bool parsesAsObject(const std::string& candidate) {
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var parsed = parser.parse(candidate);
    return parsed.type() == typeid(Poco::JSON::Object::Ptr);
  } catch (const Poco::Exception&) {
    return false;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string normalizeCliOutput(std::string_view output) {
  if (output.substr(0, kBom.size()) == kBom) output.remove_prefix(kBom.size());
  std::string cleaned;
  cleaned.reserve(output.size());
  std::size_t i = 0;
  while (i < output.size()) {
    const char c = output[i];
    if (c == kEscape) {
      i = skipEscape(output, i);
    } else if (c == '\r') {
      cleaned += '\n';
      i += (i + 1 < output.size() && output[i + 1] == '\n') ? 2 : 1;
    } else {
      cleaned += c;
      ++i;
    }
  }
  return cleaned;
}

std::vector<std::string> extractJsonCandidates(std::string_view output) {
  std::string text = normalizeCliOutput(output);
  if (text.size() > kMaxScanBytes) text.erase(0, text.size() - kMaxScanBytes);
  std::vector<std::string> candidates;
  std::size_t from = 0;
  while (true) {
    const std::size_t start = text.find('{', from);
    if (start == std::string::npos) break;
    const ScanResult scan = scanObject(text, start);
    if (scan.outcome == ScanOutcome::Truncated) break;  // all later text is inside it
    if (scan.outcome == ScanOutcome::Complete) {
      std::string candidate = text.substr(start, scan.end - start);
      if (parsesAsObject(candidate)) {
        candidates.push_back(std::move(candidate));
        from = scan.end;
        continue;
      }
    }
    from = start + 1;
  }
  return candidates;
}

}  // namespace antidrift::ai
