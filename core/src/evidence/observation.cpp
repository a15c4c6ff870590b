#include "antidrift/evidence/observation.h"

#include <cstdint>

#include "antidrift/text/normalize.h"
#include "text/utf8.h"

namespace antidrift {
namespace {

using text::detail::appendUtf8;
using text::detail::decodeOne;

bool isControl(char32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

}  // namespace

std::string sanitizeTitle(std::string_view raw) {
  return sanitizeText(raw, kMaxTitleBytes);
}

std::string sanitizeText(std::string_view raw, std::size_t maxBytes) {
  std::string out;
  out.reserve(raw.size() < maxBytes ? raw.size() : maxBytes);
  std::size_t pos = 0;
  while (pos < raw.size()) {
    const char32_t cp = decodeOne(raw, pos);
    if (isControl(cp)) continue;
    std::string encoded;
    appendUtf8(encoded, cp);
    if (out.size() + encoded.size() > maxBytes) break;  // cut on a character boundary
    out += encoded;
  }
  return out;
}

std::string normaliseApp(std::string_view raw) {
  std::string app = text::foldCase(sanitizeTitle(raw));
  return app.empty() ? std::string("unknown") : app;
}

}  // namespace antidrift
