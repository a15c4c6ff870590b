#include "antidrift/ai/errors.h"

namespace antidrift::ai {

std::string_view toString(AiErrorKind kind) {
  switch (kind) {
    case AiErrorKind::BackendFailed:
      return "backend_failed";
    case AiErrorKind::EmptyResponse:
      return "empty_response";
    case AiErrorKind::NoJson:
      return "no_json";
    case AiErrorKind::InvalidProposal:
      return "invalid_proposal";
    case AiErrorKind::InvalidVerdict:
      return "invalid_verdict";
    case AiErrorKind::InvalidReflection:
      return "invalid_reflection";
    case AiErrorKind::AmbiguousVerdict:
      return "ambiguous_verdict";
    case AiErrorKind::InvalidNudge:
      return "invalid_nudge";
  }
  return "unknown";
}

}  // namespace antidrift::ai
