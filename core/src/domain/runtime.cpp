#include "antidrift/domain/runtime.h"

namespace antidrift {

std::optional<RuntimeState> parseRuntimeState(std::string_view text) {
  for (auto state :
       {RuntimeState::Locked, RuntimeState::Planning, RuntimeState::Active, RuntimeState::Review}) {
    if (text == toString(state)) return state;
  }
  return std::nullopt;
}

std::optional<Outcome> parseOutcome(std::string_view text) {
  for (auto outcome : {Outcome::None, Outcome::Completed, Outcome::Expired, Outcome::Abandoned}) {
    if (text == toString(outcome)) return outcome;
  }
  return std::nullopt;
}

}  // namespace antidrift
