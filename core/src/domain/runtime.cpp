#include "antidrift/domain/runtime.h"

namespace antidrift {

std::string toString(RuntimeState state) {
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

std::optional<RuntimeState> parseRuntimeState(std::string_view text) {
  for (auto state :
       {RuntimeState::Locked, RuntimeState::Planning, RuntimeState::Active, RuntimeState::Review}) {
    if (text == toString(state)) return state;
  }
  return std::nullopt;
}

std::string toString(Outcome outcome) {
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

std::optional<Outcome> parseOutcome(std::string_view text) {
  for (auto outcome : {Outcome::None, Outcome::Completed, Outcome::Expired, Outcome::Abandoned}) {
    if (text == toString(outcome)) return outcome;
  }
  return std::nullopt;
}

}  // namespace antidrift
