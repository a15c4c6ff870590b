#include "antidrift/planning/profile.h"

#include <optional>

#include "antidrift/text/utf8.h"
#include "planning/bounded_read.h"

namespace antidrift::planning {

Profile parseProfile(std::string_view bytes) {
  std::string text = text::sanitizeUtf8(bytes, text::LineBreaks::Keep, kMaxProfileBytes);
  if (text.find_first_not_of(" \t\n") == std::string::npos) return {};
  Profile profile;
  profile.status = LoadStatus::Ready;
  profile.bytes = text.size();
  profile.text = std::move(text);
  return profile;
}

Profile loadProfile(const std::string& path) {
  try {
    const std::optional<detail::FilePrefix> file = detail::readPrefix(path, kMaxProfileReadBytes);
    if (!file) return {};
    return parseProfile(file->bytes);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace antidrift::planning
