/// @file runtime.h
/// Runtime states and session outcomes of docs/DESIGN.md §2.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace antidrift {

/// The four runtime states (docs/DESIGN.md §2). `Locked` is the resting state.
enum class RuntimeState { Locked, Planning, Active, Review };

/// How an active session ended (docs/DESIGN.md §2). `None` while not in review.
enum class Outcome { None, Completed, Expired, Abandoned };

/// "locked" | "planning" | "active" | "review".
std::string toString(RuntimeState state);
/// Inverse of toString; nullopt for any other text.
std::optional<RuntimeState> parseRuntimeState(std::string_view text);
/// "" | "completed" | "expired" | "abandoned".
std::string toString(Outcome outcome);
/// Inverse of toString(Outcome); "" maps to None; nullopt for any other text.
std::optional<Outcome> parseOutcome(std::string_view text);

}  // namespace antidrift
