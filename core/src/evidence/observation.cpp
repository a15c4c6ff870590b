#include "antidrift/evidence/observation.h"

#include <cstdint>

#include "antidrift/text/normalize.h"
#include "antidrift/text/utf8.h"

namespace antidrift {

std::string sanitizeTitle(std::string_view raw) {
  return text::sanitizeUtf8(raw, text::LineBreaks::Remove, kMaxTitleBytes);
}

std::string normalizeApp(std::string_view raw) {
  std::string app = text::foldCase(sanitizeTitle(raw));
  return app.empty() ? std::string("unknown") : app;
}

}  // namespace antidrift
