/// @file action_input.h
/// What the Controller's actions and observations are given, made safe and
/// checked before anything changes (docs/DESIGN.md §2, §3, §6, §7; issue 15
/// item 2). Pure functions; private to core/src/session/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "antidrift/domain/commitment.h"
#include "antidrift/drift/engine.h"
#include "antidrift/session/state.h"

namespace antidrift::session {

/// Longest coach intent accepted, in characters (seed 003).
inline constexpr std::size_t kMaxIntentChars = 2000;

/// Start's request made a Commitment (docs/DESIGN.md §2): next action and success
/// condition made one line of plain text (invalid UTF-8 replaced, control
/// characters dropped, trimmed) before validation, so the limits apply to
/// what is stored; the allowed apps normalised (else `defaultAllowedApps`);
/// a new random id; started at `nowMs` (UTC ms), its deadline the timebox
/// later. The problem sentence (→ ErrorKind::Validation) when invalid.
std::variant<Commitment, std::string> commitmentFrom(
    const CommitmentRequest& raw, const std::vector<std::string>& defaultAllowedApps,
    std::int64_t nowMs);

/// Review's answer made safe (issue 7): success "yes" | "partly" | "no", the
/// note one line, trimmed, at most kMaxFieldChars characters. The problem
/// sentence (→ ErrorKind::Validation) when invalid.
std::variant<ReviewAnswer, std::string> reviewAnswerFrom(const ReviewAnswer& raw);

/// Why the coach cannot take `intent` (empty, or over kMaxIntentChars
/// characters), or nullopt.
std::optional<std::string> intentProblem(const std::string& intent);

/// When an observation counts, on the session's clock (issue 9 item 2): a
/// watcher's own stamp `rawAtMs` (UTC ms; ≤ 0 none) is kept only when
/// plausible — not after `wallNowMs` and not older than three heartbeats (a
/// late delivery) — and counts as that long before `sessionNowMs`; else the
/// observation counts at `sessionNowMs`.
std::int64_t observedAtMs(std::int64_t rawAtMs, std::int64_t wallNowMs, std::int64_t sessionNowMs,
                          std::int64_t heartbeatSecs);

/// Whether what the page shows of drift changed (issue 8 item 2): status,
/// reason, nudge, app, blocked or the judge's time.
bool driftViewChanged(const drift::DriftView& before, const drift::DriftView& after);

}  // namespace antidrift::session
