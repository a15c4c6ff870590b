#include "antidrift/replay/oracle.h"

#include <algorithm>
#include <sstream>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Stringifier.h>

#include "antidrift/ai/nudge.h"

namespace antidrift::replay {

ai::Verdict oracleVerdict(const Labels& labels, const std::string& app, const std::string& title) {
  ai::Verdict verdict;
  verdict.scope = ai::VerdictScope::Page;
  switch (labels.find(app, title).value_or(Label::Neutral)) {
    case Label::On:
      verdict.onTask = true;
      verdict.reason = "labelled on task";
      break;
    case Label::Off:
      verdict.onTask = false;
      verdict.reason = kOracleOffReason;
      break;
    case Label::Neutral:
      verdict.onTask = true;
      verdict.reason = "labelled neutral";
      break;
  }
  return verdict;
}

std::string oracleNudge(const Labels& labels, const std::vector<OracleWindow>& recent) {
  if (recent.empty()) return {};
  const std::size_t count = std::min(kOracleNudgeWindow, recent.size());
  std::vector<const OracleWindow*> off;
  for (std::size_t index = recent.size() - count; index < recent.size(); ++index) {
    const OracleWindow& window = recent[index];
    if (labels.find(window.app, window.title) == Label::Off) off.push_back(&window);
  }
  const bool newestOff = !off.empty() && off.back() == &recent.back();
  if (!newestOff || off.size() * 2 <= count) return {};
  std::string message = "Heads up: these windows are labelled off task:";
  for (std::size_t index = 0; index < off.size(); ++index) {
    const OracleWindow& window = *off[index];
    message += index == 0 ? " \"" : ", \"";
    message += window.shownTitle.empty() ? window.title : window.shownTitle;
    message += '"';
  }
  // Through the Nudger's own parser, as a model's answer would go: one line, capped.
  Poco::JSON::Object answer;
  answer.set("on_track", false);
  answer.set("message", message);
  std::ostringstream json;
  Poco::JSON::Stringifier::condense(answer, json);
  const ai::Expected<std::string> parsed = ai::parseNudge(json.str());
  return parsed ? parsed.value() : std::string();
}

}  // namespace antidrift::replay
