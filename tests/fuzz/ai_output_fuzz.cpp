// Fuzz target: a CLI's raw output through JSON extraction and every role's
// answer reader (core/src/ai/json_extract.cpp; docs/DESIGN.md §8, seed 003
// "extractJSON"). Properties: normalizeCliOutput and extractJsonCandidates
// never throw; every candidate is one JSON object Poco parses; lastValid with
// each role parser never throws and what it accepts keeps that role's limits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/ai/coach.h"
#include "antidrift/ai/json_extract.h"
#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/domain/commitment.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view output = fuzz::asText(data, size);
  const std::string cleaned = ai::normalizeCliOutput(output);
  fuzz::check(cleaned.find('\r') == std::string::npos,
              "normalizeCliOutput: carriage returns become \\n (json_extract.h)");

  for (const std::string& candidate : ai::extractJsonCandidates(output)) {
    Poco::JSON::Parser parser;
    Poco::Dynamic::Var parsed;
    try {
      parsed = parser.parse(candidate);
    } catch (const std::exception&) {
      fuzz::check(false, "extractJsonCandidates: every candidate parses (json_extract.h)");
    }
    fuzz::check(parsed.type() == typeid(Poco::JSON::Object::Ptr),
                "extractJsonCandidates: every candidate is an object (json_extract.h)");
  }

  const auto proposal = ai::lastValid<ai::Proposal>(
      output, [](const std::string& candidate) { return ai::parseProposal(candidate); });
  if (proposal.hasValue()) {
    fuzz::check(
        !proposal.value().nextAction.empty() && fuzz::isValidUtf8(proposal.value().nextAction),
        "Proposal.nextAction: non-empty valid UTF-8 (coach.h)");
    fuzz::check(
        proposal.value().timeboxSecs >= 1 && proposal.value().timeboxSecs <= kMaxTimeboxSecs,
        "Proposal.timeboxSecs in [1, kMaxTimeboxSecs] (coach.h)");
  }
  const auto verdict = ai::lastValid<ai::Verdict>(
      output, [](const std::string& candidate) { return ai::parseVerdict(candidate); });
  if (verdict.hasValue()) {
    fuzz::check(verdict.value().onTask || !verdict.value().reason.empty(),
                "Verdict: a drift verdict has a reason (judge.h)");
    fuzz::check(fuzz::isValidUtf8(verdict.value().reason), "Verdict.reason: valid UTF-8 (judge.h)");
  }
  const auto nudge = ai::lastValid<std::string>(
      output, [](const std::string& candidate) { return ai::parseNudge(candidate); });
  if (nudge.hasValue()) {
    fuzz::check(fuzz::isValidUtf8(nudge.value()) && nudge.value().find('\n') == std::string::npos,
                "parseNudge: one line of valid UTF-8 (nudge.h)");
  }
  return 0;
}
