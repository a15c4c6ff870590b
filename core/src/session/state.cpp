#include "antidrift/session/state.h"

namespace antidrift {

std::string toString(Health health) {
  switch (health) {
    case Health::Ok:
      return "ok";
    case Health::Stale:
      return "stale";
    case Health::Unavailable:
      return "unavailable";
  }
  return "unavailable";
}

}  // namespace antidrift
