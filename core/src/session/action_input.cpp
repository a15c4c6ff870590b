#include "session/action_input.h"

#include <Poco/String.h>
#include <Poco/UUIDGenerator.h>

#include "antidrift/text/utf8.h"
#include "session/session_values.h"

namespace antidrift::session {
namespace {

/// One line of plain text: invalid UTF-8 replaced, control characters
/// (newlines, ESC, NUL) dropped, surrounding blanks trimmed.
std::string oneLine(const std::string& text) {
  return Poco::trim(text::sanitizeUtf8(text));
}

}  // namespace

std::variant<Commitment, std::string> commitmentFrom(
    const CommitmentRequest& raw, const std::vector<std::string>& defaultAllowedApps,
    std::int64_t nowMs) {
  CommitmentRequest request = raw;
  request.nextAction = oneLine(raw.nextAction);
  request.successCondition = oneLine(raw.successCondition);
  if (auto problem = validateCommitment(request)) return *problem;
  const std::int64_t timeboxSecs = requestedTimeboxSecs(request);
  Commitment commitment;
  commitment.id = Poco::UUIDGenerator::defaultGenerator().createRandom().toString();
  commitment.nextAction = request.nextAction;
  commitment.successCondition = request.successCondition;
  commitment.timeboxSecs = timeboxSecs;
  commitment.startedAtMs = nowMs;
  commitment.deadlineMs = nowMs + timeboxSecs * 1000;
  commitment.allowedApps =
      normalizeApps(request.allowedApps ? *request.allowedApps : defaultAllowedApps);
  return commitment;
}

std::variant<ReviewAnswer, std::string> reviewAnswerFrom(const ReviewAnswer& raw) {
  if (raw.success != "yes" && raw.success != "partly" && raw.success != "no") {
    return std::string("success must be \"yes\", \"partly\" or \"no\"");
  }
  ReviewAnswer answer;
  answer.success = raw.success;
  answer.note = oneLine(raw.note);
  if (utf8Chars(answer.note) > kMaxFieldChars) {
    return "note is longer than " + std::to_string(kMaxFieldChars) + " characters";
  }
  return answer;
}

std::optional<std::string> intentProblem(const std::string& intent) {
  if (Poco::trim(intent).empty()) return std::string("intent must not be empty");
  if (utf8Chars(intent) > kMaxIntentChars) {
    return "intent is longer than " + std::to_string(kMaxIntentChars) + " characters";
  }
  return std::nullopt;
}

std::int64_t observedAtMs(std::int64_t rawAtMs, std::int64_t wallNowMs, std::int64_t sessionNowMs,
                          std::int64_t heartbeatSecs) {
  const std::int64_t oldest = wallNowMs - 3 * heartbeatSecs * 1000;
  const bool plausible = rawAtMs > 0 && rawAtMs <= wallNowMs && rawAtMs >= oldest;
  return plausible ? sessionNowMs - (wallNowMs - rawAtMs) : sessionNowMs;
}

bool driftViewChanged(const drift::DriftView& before, const drift::DriftView& after) {
  return before.status != after.status || before.reason != after.reason ||
         before.nudge != after.nudge || before.app != after.app ||
         before.blocked != after.blocked || before.judgeAtMs != after.judgeAtMs ||
         before.memoryKey != after.memoryKey;
}

}  // namespace antidrift::session
