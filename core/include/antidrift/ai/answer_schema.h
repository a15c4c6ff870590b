/// @file answer_schema.h
/// The JSON Schema of each role's one JSON answer object (Backend ABI 2,
/// Request::answerSchema; issue 18 item 1): a backend that can constrain its
/// output (an OpenAI-compatible server's `response_format`) asks for exactly
/// this shape. Each schema describes what the role's parser accepts
/// (parseVerdict, parseNudge, parseProposal, parseReflection) and what its
/// prompt asks for; the roles still extract and validate whatever comes back.
#pragma once

namespace antidrift::ai {

/// The judge's answer {"on_task", "reason", "scope"} (judge.h parseVerdict).
inline constexpr const char* kJudgeAnswerSchema =
    R"({"type":"object","properties":{"on_task":{"type":"boolean"},)"
    R"("reason":{"type":"string"},"scope":{"type":"string","enum":["page","site"]}},)"
    R"("required":["on_task","reason"],"additionalProperties":false})";

/// The nudger's answer {"on_track", "message"} (nudge.h parseNudge).
inline constexpr const char* kNudgeAnswerSchema =
    R"({"type":"object","properties":{"on_track":{"type":"boolean"},)"
    R"("message":{"type":"string"}},"required":["on_track","message"],)"
    R"("additionalProperties":false})";

/// The coach's answer {"next_action", "success_condition", "timebox_minutes"}
/// (coach.h parseProposal: non-blank strings, minutes > 0 and ≤ 12 h).
inline constexpr const char* kCoachAnswerSchema =
    R"({"type":"object","properties":{"next_action":{"type":"string","minLength":1},)"
    R"("success_condition":{"type":"string","minLength":1},)"
    R"("timebox_minutes":{"type":"number","exclusiveMinimum":0,"maximum":720}},)"
    R"("required":["next_action","success_condition","timebox_minutes"],)"
    R"("additionalProperties":false})";

/// The reviewer's answer {"recap", "carry_forward"} (reviewer.h parseReflection).
inline constexpr const char* kReviewerAnswerSchema =
    R"({"type":"object","properties":{"recap":{"type":"string"},)"
    R"("carry_forward":{"type":"string"}},"required":["recap","carry_forward"],)"
    R"("additionalProperties":false})";

}  // namespace antidrift::ai
