/// @file json_extract.h
/// Finding the JSON answer in a CLI's raw output (docs/DESIGN.md §8, seed 003
/// "extractJSON"): prose, code fences, ANSI colours and prompt echoes around it
/// are tolerated.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "antidrift/ai/errors.h"

namespace antidrift::ai {

/// Output longer than this is scanned over its last kMaxScanBytes bytes only
/// (answers come last; bounds the work on pathological output).
inline constexpr std::size_t kMaxScanBytes = 1 << 20;

/// The output with terminal noise removed: a leading UTF-8 BOM, ANSI escape
/// sequences (CSI `ESC [ … final`, OSC/DCS/SOS/PM/APC strings ended by BEL or
/// `ESC \`, and two-byte/nF escapes), and carriage returns ("\r\n" and a lone
/// "\r" become "\n"). Bytes are otherwise kept as they are. Pure; thread-safe.
std::string normalizeCliOutput(std::string_view output);

/// Every JSON object candidate in `output`, in order of appearance, each the
/// exact text of one object that Poco::JSON::Parser parses as an object.
///
/// Rules (each is tested in tests/unit/ai/json_extract_test.cpp):
///  - The output is first cleaned by normalizeCliOutput.
///  - A scan starts at each '{' and follows the JSON grammar (strings with
///    escapes, nested objects and arrays; scalars are checked by Poco later):
///    - it ends the object → a candidate if Poco parses it; the search resumes
///      after it, so objects nested in a candidate are NOT listed separately
///      (they are part of it); if Poco rejects it, the search restarts at the
///      next '{' after its start;
///    - it meets text that JSON cannot contain (prose) → that '{' was not an
///      object; the search restarts at the next '{' after it, so a '{' in prose
///      never hides a later object;
///    - it reaches the end of the output while still valid JSON → the object
///      was truncated: it is dropped, and so is everything inside it — a
///      complete inner object of a truncated outer object is never returned
///      (in `{"a": {"next_action": "x"}` the inner object is not an answer).
///  - Braces and escaped quotes inside JSON strings never count; text inside a
///    string is never searched (a JSON answer escaped inside another object's
///    string, such as a raw claude envelope, is not unwrapped).
///  - Top-level arrays are not candidates; objects nested deeper than 64
///    levels are treated as not JSON.
/// Pure; thread-safe; never throws on any input (invalid UTF-8 included).
std::vector<std::string> extractJsonCandidates(std::string_view output);

/// The answer of an AI role: the LAST candidate of `output` that `validate`
/// accepts (real CLIs may echo the prompt, with its example JSON, before the
/// answer).
///
/// `validate` is called as `validate(const std::string& candidate)` and
/// returns Expected<T>. Result:
///  - EmptyResponse when the cleaned output is empty or whitespace only;
///  - NoJson when it holds no candidate;
///  - the value of the last candidate that validates;
///  - otherwise the error `validate` returned for the last candidate (its
///    role-specific kind, e.g. InvalidProposal).
/// Pure apart from `validate`; thread-safe if `validate` is.
template <class T, class Validate>
Expected<T> lastValid(std::string_view output, Validate&& validate) {
  const std::string cleaned = normalizeCliOutput(output);
  if (cleaned.find_first_not_of(" \t\n\v\f") == std::string::npos) {
    return AiError{AiErrorKind::EmptyResponse, "the AI returned an empty answer"};
  }
  const std::vector<std::string> candidates = extractJsonCandidates(cleaned);
  if (candidates.empty()) {
    return AiError{AiErrorKind::NoJson, "the AI's answer contained no JSON object"};
  }
  std::optional<AiError> lastCandidateError;
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    Expected<T> result = validate(*it);
    if (result.hasValue()) return result;
    if (!lastCandidateError) lastCandidateError = result.error();
  }
  return *lastCandidateError;
}

}  // namespace antidrift::ai
