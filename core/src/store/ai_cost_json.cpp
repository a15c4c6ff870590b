#include "antidrift/store/ai_cost_json.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "store/json_fields.h"

namespace antidrift {

Poco::JSON::Object::Ptr aiCostToJson(const AiCost& cost) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("calls", cost.calls);
  json->set("input_tokens", cost.inputTokens);
  json->set("output_tokens", cost.outputTokens);
  json->set("estimated", cost.estimated);
  json->set("wall_ms", cost.wallMs);
  return json;
}

AiCost aiCostFromJson(const Poco::JSON::Object& object) {
  const std::string context = "stats.ai_cost.";
  AiCost cost;
  // A negative sum (an older daemon's overflow, docs/SECURITY.md N3) reads as
  // 0: the rest of the snapshot or record is still good.
  cost.calls = std::max<std::int64_t>(0, jsonfields::requireInt(object, "calls", context));
  cost.inputTokens =
      std::max<std::int64_t>(0, jsonfields::requireInt(object, "input_tokens", context));
  cost.outputTokens =
      std::max<std::int64_t>(0, jsonfields::requireInt(object, "output_tokens", context));
  cost.wallMs = std::max<std::int64_t>(0, jsonfields::requireInt(object, "wall_ms", context));
  const Poco::Dynamic::Var estimated = object.get("estimated");
  if (!estimated.isBoolean()) throw std::runtime_error(context + "estimated is not a boolean");
  cost.estimated = estimated.extract<bool>();
  return cost;
}

}  // namespace antidrift
