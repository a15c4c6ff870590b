/// @file coach.h
/// The Coach role (docs/DESIGN.md §6, §8; seed 003): turns a rough intent into a
/// proposed commitment. The coach only proposes; the person still starts the
/// commitment through the Controller.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "antidrift/ai/errors.h"
#include "antidrift/backend_abi.h"
#include "antidrift/domain/ai_cost.h"

namespace antidrift::ai {

/// The coach's suggestion. NOT a Commitment: no id, no timestamps, no state.
struct Proposal {
  std::string nextAction;        ///< trimmed, non-empty, ≤ kMaxFieldChars characters
  std::string successCondition;  ///< trimmed, non-empty, ≤ kMaxFieldChars characters
  std::int64_t timeboxSecs = 0;  ///< seconds, in [1, kMaxTimeboxSecs]
};

/// What grounds the coach besides the intent (docs/DESIGN.md §6, seed 004). Either
/// field may be empty; an empty (or whitespace-only) field is left out of the
/// prompt entirely.
struct CoachGrounding {
  std::string profile;           ///< the person's profile text (planning::loadProfile), ≤ 4 KiB
  std::string lastCarryForward;  ///< the last reflection's carry-forward line
};

/// The coach prompt: first line "ROLE: coach"; asks for exactly one JSON
/// object {"next_action", "success_condition", "timebox_minutes"} and nothing
/// else. The intent, profile and carry-forward are fenced as data (fenceData).
/// The example of the answer's shape in the prompt is deliberately not valid
/// JSON, so a CLI echoing the prompt can never have its echo taken as the
/// answer. Pure; thread-safe.
std::string buildCoachPrompt(std::string_view intent, const CoachGrounding& grounding);

/// Parses and validates one JSON object text as a Proposal (seed 003):
/// "next_action" and "success_condition" must be strings, non-empty after
/// trimming (control characters removed, line breaks become spaces) and at
/// most kMaxFieldChars characters; "timebox_minutes" must be a JSON number
/// (integer or fraction; strings, booleans and null are rejected) > 0; it is
/// converted to seconds as round(minutes × 60), which must be ≥ 1 and
/// ≤ kMaxTimeboxSecs (12 h). Other keys are ignored.
/// Returns the Proposal or AiErrorKind::InvalidProposal with a short reason.
/// Pure; thread-safe; never throws.
Expected<Proposal> parseProposal(std::string_view json);

/// Runs the coach: builds the prompt, calls `backend.answer()` (prompt,
/// timeoutMs)` (timeoutMs in milliseconds), and takes the LAST JSON object in
/// the answer that parseProposal accepts (lastValid).
/// Errors: BackendFailed with the BackendError's message (any other exception
/// from a misbehaving plugin → BackendFailed "the AI backend failed
/// unexpectedly"); EmptyResponse for a blank answer; NoJson when the answer
/// has no JSON object; InvalidProposal when objects exist but none is valid.
/// Blocking (as long as the backend takes); call it off the controller's lock,
/// e.g. from launchGuarded. Thread-safe if the backend is. Never throws.
/// `cost`, when not null, receives the call's tokens and wall time (issue 18
/// item 4; role_call: answer() with the role's answer schema, answer_schema.h).
Expected<Proposal> coach(Backend& backend, std::string_view intent, const CoachGrounding& grounding,
                         std::int64_t timeoutMs, CallCost* cost = nullptr);

}  // namespace antidrift::ai
