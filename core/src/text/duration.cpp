#include "antidrift/text/duration.h"

#include <algorithm>

namespace antidrift::text {

std::string minutesText(std::int64_t secs) {
  return std::to_string((std::max<std::int64_t>(0, secs) + 30) / 60) + " min";
}

std::string shortDurationText(std::int64_t secs) {
  secs = std::max<std::int64_t>(0, secs);
  return secs < 60 ? std::to_string(secs) + " s" : minutesText(secs);
}

std::string countText(std::int64_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace antidrift::text
