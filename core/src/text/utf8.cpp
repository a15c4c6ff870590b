#include "antidrift/text/utf8.h"

namespace antidrift::text {

// A strict UTF-8 decoder, written here on purpose: Poco's TextConverter
// consumes the *claimed* length of an invalid sequence (so "\xE2A" loses the
// "A") and accepts overlong forms and surrogates. Titles come from arbitrary
// programs, so every invalid sequence must become exactly one U+FFFD and no
// valid byte after it may be lost (docs/DESIGN.md §3).
char32_t decodeOne(std::string_view raw, std::size_t& pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(raw[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  std::size_t length = 0;
  char32_t codePoint = 0;
  char32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, codePoint = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, codePoint = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, codePoint = lead & 0x07, minimum = 0x10000;
  } else {
    ++pos;  // continuation byte or invalid lead (C0, C1, F5..FF)
    return kReplacementCharacter;
  }
  std::size_t i = 1;
  for (; i < length; ++i) {
    if (pos + i >= raw.size() || (byte(pos + i) & 0xC0) != 0x80) break;
    codePoint = (codePoint << 6) | (byte(pos + i) & 0x3F);
  }
  if (i < length) {
    pos += i;  // truncated sequence: replace what was read, keep the next byte
    return kReplacementCharacter;
  }
  pos += length;
  if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
    return kReplacementCharacter;
  }
  return codePoint;
}

void appendUtf8(std::string& out, char32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

namespace {

bool isContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

bool isControl(char32_t codePoint) {
  return codePoint < 0x20 || codePoint == 0x7F || (codePoint >= 0x80 && codePoint <= 0x9F);
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    if (decodeOne(text, pos) == kReplacementCharacter &&
        text.substr(start, pos - start) != "\xEF\xBF\xBD") {
      return false;
    }
  }
  return true;
}

std::string toValidUtf8(std::string_view text) {
  if (isValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  std::size_t pos = 0;
  while (pos < text.size()) appendUtf8(out, decodeOne(text, pos));
  return out;
}

std::size_t countCodePoints(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) count += isContinuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return count;
}

std::size_t boundaryBefore(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text.size();
  std::size_t end = maxBytes;
  while (end > 0 && isContinuation(static_cast<unsigned char>(text[end]))) --end;
  return end;
}

std::string cutBytes(std::string_view text, std::size_t maxBytes) {
  return std::string(text.substr(0, boundaryBefore(text, maxBytes)));
}

std::string cutCodePoints(std::string_view text, std::size_t maxCodePoints,
                          std::string_view ellipsis) {
  std::size_t count = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (!isContinuation(static_cast<unsigned char>(text[at])) && ++count > maxCodePoints) {
      std::string cut(text.substr(0, at));
      cut += ellipsis;
      return cut;
    }
  }
  return std::string(text);
}

std::string sanitizeUtf8(std::string_view raw, LineBreaks lineBreaks, std::size_t maxBytes) {
  std::string out;
  out.reserve(raw.size() < maxBytes ? raw.size() : maxBytes);
  std::string encoded;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    char32_t codePoint = decodeOne(raw, pos);
    if (codePoint == '\r' || codePoint == '\n' || codePoint == '\t') {
      if (lineBreaks == LineBreaks::Remove) continue;
      if (lineBreaks == LineBreaks::ToSpace) {
        codePoint = ' ';
      } else if (codePoint == '\r') {
        if (pos < raw.size() && raw[pos] == '\n') ++pos;
        codePoint = '\n';
      }
    } else if (isControl(codePoint)) {
      continue;
    }
    encoded.clear();
    appendUtf8(encoded, codePoint);
    if (out.size() + encoded.size() > maxBytes) break;  // cut on a code-point boundary
    out += encoded;
  }
  return out;
}

std::string oneLine(std::string_view raw) {
  // No Poco here (Poco::trim would link PocoFoundation's character table):
  // this file is also linked into antidrift-watch, which links no Poco
  // (issue 20 item 2). After ToSpace the only ASCII white space left is ' '.
  std::string line = sanitizeUtf8(raw, LineBreaks::ToSpace);
  const std::size_t first = line.find_first_not_of(' ');
  if (first == std::string::npos) {
    return {};
  }
  return line.substr(first, line.find_last_not_of(' ') - first + 1);
}

std::string shortMessage(std::string_view raw, std::size_t maxCodePoints) {
  return cutCodePoints(oneLine(raw), maxCodePoints, "…");
}

}  // namespace antidrift::text
