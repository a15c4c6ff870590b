#include "antidrift/domain/commitment.h"

#include <Poco/String.h>

#include "antidrift/text/utf8.h"

namespace antidrift {
namespace {

std::optional<std::string> checkLength(const std::string& field, const std::string& value) {
  if (text::countCodePoints(value) > kMaxFieldChars) {
    return field + " is longer than " + std::to_string(kMaxFieldChars) + " characters";
  }
  return std::nullopt;
}

}  // namespace

std::int64_t requestedTimeboxSecs(const CommitmentRequest& request) {
  if (request.timeboxSecs) return *request.timeboxSecs;
  if (request.timeboxMinutes) {
    // Guard the multiplication: anything this large is rejected anyway.
    if (*request.timeboxMinutes > kMaxTimeboxSecs || *request.timeboxMinutes < -kMaxTimeboxSecs) {
      return *request.timeboxMinutes > 0 ? kMaxTimeboxSecs + 1 : -1;
    }
    return *request.timeboxMinutes * 60;
  }
  return 0;
}

std::optional<std::string> validateCommitment(const CommitmentRequest& request) {
  if (Poco::trim(request.nextAction).empty()) return std::string("next_action must not be empty");
  if (auto problem = checkLength("next_action", request.nextAction)) return problem;
  if (auto problem = checkLength("success_condition", request.successCondition)) return problem;
  if (!request.timeboxSecs && !request.timeboxMinutes) {
    return std::string("a timebox is required (timebox_minutes or timebox_secs)");
  }
  const std::int64_t secs = requestedTimeboxSecs(request);
  if (secs <= 0) return std::string("the timebox must be greater than zero");
  if (secs > kMaxTimeboxSecs) return std::string("the timebox must be at most 12 hours");
  if (request.allowedApps) {
    if (request.allowedApps->size() > kMaxAllowedApps) {
      return "allowed_apps has more than " + std::to_string(kMaxAllowedApps) + " entries";
    }
    for (const auto& app : *request.allowedApps) {
      if (auto problem = checkLength("an allowed app", app)) return problem;
    }
  }
  return std::nullopt;
}

}  // namespace antidrift
