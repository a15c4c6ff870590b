/// @file ai_cost_json.h
/// The JSON shape of an AiCost (issue 18 item 4), one for the snapshot, the
/// audit's session records, the history, the export and the State:
/// `{"calls", "input_tokens", "output_tokens", "estimated", "wall_ms"}`
/// (docs/API.md `stats.ai_cost`).
#pragma once

#include <Poco/JSON/Object.h>

#include "antidrift/domain/ai_cost.h"

namespace antidrift {

/// `cost` as `{"calls", "input_tokens", "output_tokens", "estimated",
/// "wall_ms"}` (integers; estimated a boolean). Pure; thread-safe.
Poco::JSON::Object::Ptr aiCostToJson(const AiCost& cost);

/// Reads what aiCostToJson wrote. Throws std::runtime_error naming the field
/// ("stats.ai_cost.calls …") when one is missing or of the wrong type. Pure.
AiCost aiCostFromJson(const Poco::JSON::Object& object);

}  // namespace antidrift
