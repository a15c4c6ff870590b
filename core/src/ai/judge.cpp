#include "antidrift/ai/judge.h"

#include <vector>

#include <Poco/String.h>

#include "ai/role_call.h"
#include "antidrift/ai/answer_schema.h"
#include "antidrift/ai/json_extract.h"
#include "antidrift/ai/prompt.h"
#include "antidrift/text/utf8.h"

namespace antidrift::ai {
namespace {

AiError invalid(const std::string& reason) {
  return AiError{AiErrorKind::InvalidVerdict, "invalid verdict: " + reason};
}

}  // namespace

std::string buildJudgePrompt(const JudgeInput& input) {
  std::string prompt = roleLine(Role::Judge);
  prompt +=
      "You are a focus assistant. A person committed to one next action and is now in the "
      "window described below. Decide whether working in this window plausibly serves their "
      "next action. Judge only from the data below.\n\n";
  prompt += "The person's next action:\n";
  prompt += fenceData("next_action", input.nextAction);
  prompt += "\nHow they will know it is done:\n";
  prompt += fenceData("success_condition", input.successCondition);
  prompt += "\nThe application (window class) they are in:\n";
  prompt += fenceData("app", input.app);
  prompt += "\nThe window's title:\n";
  prompt += fenceData("title", input.title);
  if (!input.site.empty()) {
    // Only for a browser window whose tab was joined (issue 16 item 4): prompts
    // of every other window stay as they were.
    prompt += "\nThe web site the browser shows (the host of the page's address):\n";
    prompt += fenceData("site", input.site);
  }
  prompt +=
      "\nAnswer with exactly one JSON object and nothing else (no prose, no code fence), with "
      "exactly these keys:\n"
      "{\"on_task\": <true or false>, \"reason\": <one short sentence>, \"scope\": <\"page\" "
      "or \"site\">}\n"
      "on_task is a JSON boolean. When on_task is false, the reason is shown to the person: "
      "say in one short sentence why this window does not serve the next action.\n"
      "scope is \"site\" only when the title ends with a web site's name and your verdict "
      "holds for every page of that site (a video or social site while the work is code); "
      "otherwise \"page\" (one page of a code host or a search result says nothing about "
      "the rest of the site).\n";
  return prompt;
}

Expected<Verdict> parseVerdict(std::string_view json) {
  std::string reason;
  const Poco::JSON::Object::Ptr object = detail::parseObject(json, reason);
  if (object.isNull()) return invalid(reason);

  if (!object->has("on_task")) return invalid("on_task is missing");
  const Poco::Dynamic::Var onTask = object->get("on_task");
  if (!onTask.isBoolean()) return invalid("on_task must be true or false");

  Verdict verdict;
  verdict.onTask = onTask.extract<bool>();
  if (object->has("reason") && !object->isNull("reason")) {
    const Poco::Dynamic::Var text = object->get("reason");
    if (!text.isString()) return invalid("reason must be a string");
    verdict.reason = antidrift::text::shortMessage(text.extract<std::string>(), kMaxReasonChars);
  }
  if (object->has("scope") && !object->isNull("scope")) {
    const Poco::Dynamic::Var scope = object->get("scope");
    if (!scope.isString()) return invalid("scope must be \"page\" or \"site\"");
    const std::string text = Poco::toLower(scope.extract<std::string>());
    if (text == "site") {
      verdict.scope = VerdictScope::Site;
    } else if (text != "page") {
      return invalid("scope must be \"page\" or \"site\"");
    }
  }
  if (!verdict.onTask && verdict.reason.empty()) {
    return invalid("a drift verdict (on_task false) needs a reason");
  }
  return verdict;
}

Expected<Verdict> judge(Backend& backend, const JudgeInput& input, std::int64_t timeoutMs,
                        CallCost* cost) {
  const Expected<std::string> output = detail::callRole(backend, buildJudgePrompt(input), timeoutMs,
                                                        "judge", kJudgeAnswerSchema, cost);
  if (!output) return output.error();
  Expected<Verdict> last = lastValid<Verdict>(
      output.value(), [](const std::string& candidate) { return parseVerdict(candidate); });
  if (!last) return last;
  const std::vector<std::string> candidates = extractJsonCandidates(output.value());
  for (const std::string& candidate : candidates) {
    const Expected<Verdict> verdict = parseVerdict(candidate);
    if (verdict && verdict.value().onTask != last.value().onTask) {
      return AiError{AiErrorKind::AmbiguousVerdict,
                     "the AI's answer holds verdicts that disagree (on task and off task)"};
    }
  }
  return last;
}

}  // namespace antidrift::ai
