#include "antidrift/session/state.h"

namespace antidrift {

std::string_view toString(GroundingStatus status) {
  switch (status) {
    case GroundingStatus::Idle:
      return "idle";
    case GroundingStatus::Pending:
      return "pending";
    case GroundingStatus::Ready:
      return "ready";
    case GroundingStatus::None:
      return "none";
  }
  return "none";
}

}  // namespace antidrift
