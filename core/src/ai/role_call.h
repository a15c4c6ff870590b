/// @file role_call.h
/// Private helpers shared by the AI roles (coach, judge, nudge; docs/DESIGN.md §8):
/// the backend call that never throws, and reading one JSON object.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <Poco/JSON/Object.h>

#include "antidrift/ai/errors.h"
#include "antidrift/backend_abi.h"
#include "antidrift/domain/ai_cost.h"

namespace antidrift::ai::detail {

/// Longest backend error message passed on to the caller, in characters.
inline constexpr std::size_t kMaxErrorMessageChars = 200;

/// `backend.answer(request)` (ABI 2) as a value: the Completion (text and
/// usage), or BackendFailed exactly as completeSafely() reports it.
/// Blocking; thread-safe if the backend is; never throws.
Expected<Completion> answerSafely(Backend& backend, const Request& request);

/// The role named by a prompt's first line "ROLE: <role>", or "" without one.
/// Pure; never throws.
std::string roleOfPrompt(std::string_view prompt);

/// answerSafely() for `prompt` (its role read by roleOfPrompt(), no answer
/// schema; timeoutMs in milliseconds) reduced to the raw answer text, as a
/// value: the raw answer, or BackendFailed with the BackendError's message as
/// one line capped at kMaxErrorMessageChars ("the AI backend failed" when it
/// is blank); any other exception from a misbehaving plugin → BackendFailed
/// "the AI backend failed unexpectedly" (its text may hold raw CLI output).
/// Blocking; thread-safe if the backend is; never throws.
Expected<std::string> completeSafely(Backend& backend, const std::string& prompt,
                                     std::int64_t timeoutMs);

/// One role's call (issue 18 items 1 and 4): answerSafely() with `prompt`,
/// `timeoutMs` (milliseconds), `role` and the role's answer `schema`
/// (answer_schema.h), reduced to the raw answer text or BackendFailed exactly
/// as completeSafely() reports it. When `cost` is not null it receives the
/// call's usage (unknown, -1, when the call failed) and its wall time in ms,
/// measured on std::chrono::steady_clock (the roles have no injected clock;
/// the time is reported, never acted on). Blocking; thread-safe if the
/// backend is; never throws.
Expected<std::string> callRole(Backend& backend, std::string prompt, std::int64_t timeoutMs,
                               const char* role, const char* schema, CallCost* cost);

/// Parses `json` as one JSON object. Returns null and sets `reason` ("not
/// valid JSON" or "not a JSON object") otherwise. Pure; never throws.
Poco::JSON::Object::Ptr parseObject(std::string_view json, std::string& reason);

}  // namespace antidrift::ai::detail
