/// @file reviewer.h
/// The Reviewer role (docs/DESIGN.md §7, §8; seed 004): when a session ends it
/// reflects on what just happened, read against the person's recent sessions,
/// and returns two short lines — a recap (shown on Review) and a carry-forward
/// (grounds the next coach). A leaf role: plain values in and out; it sees
/// neither the store nor the controller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "antidrift/ai/errors.h"
#include "antidrift/backend_abi.h"
#include "antidrift/domain/ai_cost.h"

namespace antidrift::ai {

/// Longest recap or carry-forward kept, in characters; a longer one is cut
/// and ends in "…" (seed 004: "at most one short line per field").
inline constexpr std::size_t kMaxReflectionChars = 240;
/// Prior sessions described in the reviewer's history (seed 004: "last 5").
inline constexpr std::size_t kReviewerHistorySessions = 5;

/// The reviewer's output (seed 004 `Reflection`): two single-line fields.
/// Both empty means "no reflection available".
struct Reflection {
  std::string recap;         ///< backward-looking, one line; shown on Review
  std::string carryForward;  ///< forward-looking, one line; grounds the next coach

  /// True when both fields are empty (the graceful fallback of seed 004).
  bool empty() const { return recap.empty() && carryForward.empty(); }
};

/// Drift at one site or app, as the reviewer reads it (issue 17 item 5; the
/// controller copies it from the session's FocusTally figures).
struct DriftPlace {
  std::string where;           ///< the site or, with none, the app
  std::int64_t driftSecs = 0;  ///< seconds drifting there
  std::int64_t visits = 0;     ///< times drifting arrived there
};

/// What one session was, as plain values (the controller builds it from the
/// commitment, the stats and the audit log's SessionSummary). Text fields are
/// untrusted: describeSession fences nothing itself, buildReviewerPrompt does.
struct SessionFacts {
  std::string nextAction;
  std::string successCondition;
  std::string outcome;             ///< "completed" | "expired" | "abandoned"
  std::int64_t plannedSecs = 0;    ///< timebox plus extensions, seconds
  std::int64_t actualSecs = 0;     ///< from start to leaving active, seconds
  std::int64_t onTaskSecs = 0;     ///< seconds on task (timeline)
  std::int64_t driftSecs = 0;      ///< seconds drifting
  std::int64_t switches = 0;       ///< app switches
  std::int64_t driftEpisodes = 0;  ///< times the status became drifting
  std::int64_t corrections = 0;    ///< "This is on task" presses
  std::vector<std::pair<std::string, std::int64_t>> topBuckets;  ///< app, seconds; largest first
  std::vector<std::string> driftReasons;  ///< the drift episodes' reasons, oldest first
  std::string success;                    ///< the person's answer: "" | "yes" | "partly" | "no"
  std::string note;                       ///< the person's one-line note, may be ""
  /// Where the drift went, most drifting time first; empty when none or
  /// unknown (issue 17 item 5).
  std::vector<DriftPlace> driftBySite;
  std::int64_t longestOnTaskSecs = -1;  ///< the longest on-task stretch, s; -1 unknown
};

/// A compact multi-line description of `facts` for the reviewer (the
/// `finished` text of seed 004): next action, success condition, outcome,
/// planned against actual minutes, switches, top buckets, drift episodes with
/// their reasons, where the drift went per site or app and the longest
/// on-task stretch (when known; issue 17 item 5), corrections, and the
/// person's answer and note. Reasons and sites are capped at 5 and each line
/// at kMaxReflectionChars characters. Pure.
std::string describeSession(const SessionFacts& facts);

/// A compact one-line-per-session description of prior sessions, newest first
/// (the `history` of seed 004): outcome, planned/actual minutes and the top
/// buckets; "" for an empty list (the first-ever session). Pure.
std::string describeHistory(const std::vector<SessionFacts>& sessions);

/// The reviewer prompt: first line "ROLE: reviewer"; `finished` and
/// `history` are fenced as data (fenceData); an empty (or blank) history says
/// this is the person's first session instead of a fence. Asks for exactly one
/// JSON object {"recap", "carry_forward"}, one short line each; the example of
/// the shape is deliberately not valid JSON. Pure; thread-safe.
std::string buildReviewerPrompt(std::string_view finished, std::string_view history);

/// Parses one JSON object text as a Reflection: "recap" and "carry_forward"
/// must be strings (null counts as ""), each made one line (control
/// characters dropped, line breaks become spaces), trimmed and capped at
/// kMaxReflectionChars characters with "…"; both blank is unusable. Errors:
/// AiErrorKind::InvalidReflection with a short reason ("invalid reflection:
/// …"). Pure; thread-safe; never throws.
Expected<Reflection> parseReflection(std::string_view json);

/// Runs the reviewer: builds the prompt, calls `backend.answer()` (prompt,
/// timeoutMs)` (milliseconds) and takes the LAST JSON object in the answer
/// that parseReflection accepts (lastValid). Errors: BackendFailed (a timeout
/// included), EmptyResponse, NoJson, InvalidReflection — as the other roles.
/// Blocking; call it off the controller's lock. Thread-safe if the backend
/// is. Never throws.
/// `cost`, when not null, receives the call's tokens and wall time (issue 18
/// item 4; role_call: answer() with the role's answer schema, answer_schema.h).
Expected<Reflection> tryReview(Backend& backend, std::string_view finished,
                               std::string_view history, std::int64_t timeoutMs,
                               CallCost* cost = nullptr);

/// The carry-forward without the AI (issue 17 item 5: AI off, or the
/// reviewer gave nothing): one line from the person's answer and note and the
/// site or app that took the most drift, e.g. "You partly met the success
/// condition — your note: the intro took longer. Most drift went to youtube.com (5 min over 6
/// visits): keep it closed next time." "" when there is nothing to carry
/// (no answer, no note, no drift). At most kMaxReflectionChars characters.
/// Pure.
std::string fallbackCarryForward(const SessionFacts& facts);

/// Seed 004 `Review`: tryReview, with any error, empty or unusable output
/// turned into an empty Reflection{} (both fields ""). Never throws.
/// `cost` as tryReview's.
Reflection review(Backend& backend, std::string_view finished, std::string_view history,
                  std::int64_t timeoutMs, CallCost* cost = nullptr);

}  // namespace antidrift::ai
