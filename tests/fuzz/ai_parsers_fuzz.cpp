// Fuzz target: every role parser on one JSON text (parseProposal,
// parseVerdict, parseNudge; docs/DESIGN.md §4, §6, §8). Properties: none throws on
// any input; an accepted answer keeps the limits its header promises (valid
// UTF-8, one line, non-empty where required, bounded length and timebox).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "antidrift/ai/coach.h"
#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/domain/commitment.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

namespace {

/// True for one line of valid UTF-8 with no control characters.
bool isCleanLine(const std::string& text) {
  return fuzz::isValidUtf8(text) && fuzz::hasNoAsciiControl(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json = fuzz::asText(data, size);

  const auto proposal = ai::parseProposal(json);
  if (proposal.hasValue()) {
    const ai::Proposal& value = proposal.value();
    fuzz::check(!value.nextAction.empty() && isCleanLine(value.nextAction) &&
                    !value.successCondition.empty() && isCleanLine(value.successCondition),
                "parseProposal: fields are non-empty single lines (coach.h)");
    fuzz::check(fuzz::countChars(value.nextAction) <= kMaxFieldChars &&
                    fuzz::countChars(value.successCondition) <= kMaxFieldChars,
                "parseProposal: fields at most kMaxFieldChars characters (coach.h)");
    fuzz::check(value.timeboxSecs >= 1 && value.timeboxSecs <= kMaxTimeboxSecs,
                "parseProposal: timebox in [1 s, 12 h] (coach.h)");
  }

  const auto verdict = ai::parseVerdict(json);
  if (verdict.hasValue()) {
    const ai::Verdict& value = verdict.value();
    fuzz::check(isCleanLine(value.reason), "parseVerdict: the reason is one clean line (judge.h)");
    fuzz::check(value.onTask || !value.reason.empty(),
                "parseVerdict: a drift verdict has a reason (judge.h)");
    fuzz::check(fuzz::countChars(value.reason) <= ai::kMaxReasonChars + 1,
                "parseVerdict: reason capped at kMaxReasonChars + \"…\" (judge.h)");
  }

  const auto nudge = ai::parseNudge(json);
  if (nudge.hasValue()) {
    fuzz::check(isCleanLine(nudge.value()), "parseNudge: the advisory is one clean line (nudge.h)");
    fuzz::check(fuzz::countChars(nudge.value()) <= ai::kMaxNudgeMessageChars + 1,
                "parseNudge: capped at kMaxNudgeMessageChars + \"…\" (nudge.h)");
  }
  return 0;
}
