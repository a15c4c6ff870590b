#include "antidrift/ai/nudge.h"

#include "ai/role_call.h"
#include "antidrift/ai/answer_schema.h"
#include "antidrift/ai/json_extract.h"
#include "antidrift/ai/prompt.h"
#include "antidrift/text/utf8.h"

namespace antidrift::ai {
namespace {

AiError invalid(const std::string& reason) {
  return AiError{AiErrorKind::InvalidNudge, "invalid nudge: " + reason};
}

}  // namespace

std::string buildNudgePrompt(const NudgeInput& input) {
  std::string titles;
  for (const std::string& title : input.recentTitles) {
    titles += text::oneLine(title);
    titles += '\n';
  }
  std::string prompt = roleLine(Role::Nudge);
  prompt +=
      "You are a focus assistant. A person committed to one next action and is working in an "
      "application they chose for it. Below are the titles of the windows they were in "
      "recently. Decide whether this recent activity still serves their next action, or whether "
      "they have drifted into other work inside the right application.\n\n";
  prompt += "The person's next action:\n";
  prompt += fenceData("next_action", input.nextAction);
  prompt += "\nHow they will know it is done:\n";
  prompt += fenceData("success_condition", input.successCondition);
  prompt += "\nThe recent window titles, one per line, oldest first:\n";
  prompt += fenceData("recent_titles", titles);
  prompt +=
      "\nAnswer with exactly one JSON object and nothing else (no prose, no code fence), with "
      "exactly these keys:\n"
      "{\"on_track\": <true or false>, \"message\": <one short sentence>}\n"
      "on_track is a JSON boolean. When on_track is false, the message is a gentle heads-up "
      "shown to the person, in one short sentence; when it is true, the message may be empty.\n";
  return prompt;
}

Expected<std::string> parseNudge(std::string_view json) {
  std::string reason;
  const Poco::JSON::Object::Ptr object = detail::parseObject(json, reason);
  if (object.isNull()) return invalid(reason);

  if (!object->has("on_track")) return invalid("on_track is missing");
  const Poco::Dynamic::Var onTrack = object->get("on_track");
  if (!onTrack.isBoolean()) return invalid("on_track must be true or false");
  if (onTrack.extract<bool>()) return std::string();
  if (!object->has("message") || object->isNull("message")) return std::string();
  const Poco::Dynamic::Var message = object->get("message");
  if (!message.isString()) return invalid("message must be a string");
  return text::shortMessage(message.extract<std::string>(), kMaxNudgeMessageChars);
}

Expected<std::string> nudge(Backend& backend, const NudgeInput& input, std::int64_t timeoutMs,
                            CallCost* cost) {
  const Expected<std::string> output = detail::callRole(backend, buildNudgePrompt(input), timeoutMs,
                                                        "nudge", kNudgeAnswerSchema, cost);
  if (!output) return output.error();
  return lastValid<std::string>(output.value(),
                                [](const std::string& candidate) { return parseNudge(candidate); });
}

}  // namespace antidrift::ai
