/// @file nudge.h
/// The Nudger role (docs/DESIGN.md §5, §8; seed 000): inside an allowed app, asks the
/// model whether the recent window titles still serve the commitment, for the
/// soft "Heads up" tier. It advises only; silence is the safe answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "antidrift/ai/errors.h"
#include "antidrift/backend_abi.h"
#include "antidrift/domain/ai_cost.h"

namespace antidrift::ai {

/// Longest nudge message kept, in characters; a longer one is cut and ends in "…".
inline constexpr std::size_t kMaxNudgeMessageChars = 200;

/// What the nudger sees (seed 000: the commitment and a copy of the ring of
/// recent distinct titles). The titles are already redacted by the caller
/// (Redactor::apply, docs/DESIGN.md §8 privacy.redact).
struct NudgeInput {
  std::string nextAction;                 ///< the commitment's next action
  std::string successCondition;           ///< the commitment's success condition
  std::vector<std::string> recentTitles;  ///< oldest first, already redacted
};

/// The nudge prompt: first line "ROLE: nudge" (roleLine); asks for exactly one
/// JSON object {"on_track", "message"} and nothing else. The next action and
/// success condition are fenced as data, and the titles are fenced together
/// as data, one per line, oldest first (a title's own line breaks become
/// spaces). The example of the answer's shape is deliberately not valid JSON,
/// so a CLI echoing the prompt never has its echo taken as the answer.
/// Pure; thread-safe.
std::string buildNudgePrompt(const NudgeInput& input);

/// Parses one JSON object text as a nudge answer (seed 000 "Parsing"):
/// "on_track" must be a JSON boolean (else InvalidNudge); on_track true → ""
/// (whatever the message);
/// on_track false with a message → the message made one line (control
/// characters dropped, line breaks become spaces), trimmed and capped at
/// kMaxNudgeMessageChars characters with "…"; on_track false with a missing,
/// null or blank message → "" (a concern with no words is silence, not an
/// error). With on_track false, a "message" that is neither a string nor null
/// is InvalidNudge.
/// Returns the advisory sentence ("" = on track) or AiErrorKind::InvalidNudge
/// with a short reason ("invalid nudge: …"). Pure; thread-safe; never throws.
Expected<std::string> parseNudge(std::string_view json);

/// Runs the nudger: builds the prompt, calls `backend.answer()` (prompt,
/// timeoutMs)` (timeoutMs in milliseconds), and takes the LAST JSON object in
/// the answer that parseNudge accepts (lastValid).
/// Errors: BackendFailed with the BackendError's message (a timeout included;
/// any other exception from a misbehaving plugin → "the AI backend failed
/// unexpectedly"); EmptyResponse for a blank answer; NoJson when the answer has
/// no JSON object; InvalidNudge when objects exist but none is valid. The
/// caller leaves its advisory unchanged on any error (seed 000). Blocking (as
/// long as the backend takes); call it off the controller's lock. Thread-safe
/// if the backend is. Never throws.
/// `cost`, when not null, receives the call's tokens and wall time (issue 18
/// item 4; role_call: answer() with the role's answer schema, answer_schema.h).
Expected<std::string> nudge(Backend& backend, const NudgeInput& input, std::int64_t timeoutMs,
                            CallCost* cost = nullptr);

}  // namespace antidrift::ai
