/// @file runtime.h
/// Runtime states and session outcomes of docs/DESIGN.md §2.
#pragma once

#include <optional>
#include <string_view>

namespace antidrift {

/// The four runtime states (docs/DESIGN.md §2). `Locked` is the resting state.
enum class RuntimeState { Locked, Planning, Active, Review };

/// How an active session ended (docs/DESIGN.md §2). `None` while not in review.
enum class Outcome { None, Completed, Expired, Abandoned };

/// "locked" | "planning" | "active" | "review" (the wire and snapshot names;
/// issue 15 item 5). Pure; thread-safe.
constexpr std::string_view toString(RuntimeState state) {
  switch (state) {
    case RuntimeState::Locked:
      return "locked";
    case RuntimeState::Planning:
      return "planning";
    case RuntimeState::Active:
      return "active";
    case RuntimeState::Review:
      return "review";
  }
  return "locked";
}
/// Inverse of toString; nullopt for any other text.
std::optional<RuntimeState> parseRuntimeState(std::string_view text);
/// "" | "completed" | "expired" | "abandoned" (the wire, snapshot and audit
/// log names; issue 15 item 5). Pure; thread-safe.
constexpr std::string_view toString(Outcome outcome) {
  switch (outcome) {
    case Outcome::None:
      return "";
    case Outcome::Completed:
      return "completed";
    case Outcome::Expired:
      return "expired";
    case Outcome::Abandoned:
      return "abandoned";
  }
  return "";
}
/// Inverse of toString(Outcome); "" maps to None; nullopt for any other text.
std::optional<Outcome> parseOutcome(std::string_view text);

}  // namespace antidrift
