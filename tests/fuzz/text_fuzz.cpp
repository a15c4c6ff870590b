// Fuzz target: the title sanitiser and the normalisers (DESIGN §3; issue 6
// items 2 and 3): sanitizeTitle, normalizeApp, text::normalizeUnicode,
// text::foldCase and drift::normalizeTitle. Properties: none throws; every
// result is valid UTF-8; sanitizeTitle keeps no control character and at most
// kMaxTitleBytes; normalizeApp is never empty; normalizeUnicode and
// normalizeTitle are idempotent (their headers say so, and keys depend on it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/text/normalize.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw = fuzz::asText(data, size);

  const std::string title = sanitizeTitle(raw);
  fuzz::check(fuzz::isValidUtf8(title), "sanitizeTitle: valid UTF-8 (observation.h)");
  fuzz::check(title.size() <= kMaxTitleBytes, "sanitizeTitle: at most kMaxTitleBytes");
  fuzz::check(fuzz::hasNoAsciiControl(title), "sanitizeTitle: control characters dropped");

  const std::string app = normalizeApp(raw);
  fuzz::check(!app.empty() && fuzz::isValidUtf8(app),
              "normalizeApp: non-empty valid UTF-8 (observation.h)");

  const std::string normal = text::normalizeUnicode(raw);
  fuzz::check(fuzz::isValidUtf8(normal), "normalizeUnicode: valid UTF-8 (normalize.h)");
  fuzz::check(text::normalizeUnicode(normal) == normal, "normalizeUnicode: idempotent");

  const std::string folded = text::foldCase(raw);
  fuzz::check(fuzz::isValidUtf8(folded), "foldCase: valid UTF-8 (normalize.h)");

  const std::string key = drift::normalizeTitle(title);
  fuzz::check(fuzz::isValidUtf8(key), "normalizeTitle: valid UTF-8 (title_normalizer.h)");
  fuzz::check(drift::normalizeTitle(key) == key, "normalizeTitle: idempotent (title_normalizer.h)");
  return 0;
}
