#include "ai/role_call.h"

#include <chrono>
#include <exception>
#include <typeinfo>

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/text/utf8.h"

namespace antidrift::ai::detail {

Expected<Completion> answerSafely(Backend& backend, const Request& request) {
  try {
    return backend.answer(request);
  } catch (const BackendError& error) {
    std::string message = text::shortMessage(error.what(), kMaxErrorMessageChars);
    if (message.empty()) message = "the AI backend failed";
    return AiError{AiErrorKind::BackendFailed, std::move(message)};
  } catch (...) {
    return AiError{AiErrorKind::BackendFailed, "the AI backend failed unexpectedly"};
  }
}

std::string roleOfPrompt(std::string_view prompt) {
  constexpr std::string_view kPrefix = "ROLE: ";
  if (prompt.substr(0, kPrefix.size()) != kPrefix) return {};
  const std::string_view rest = prompt.substr(kPrefix.size());
  return std::string(rest.substr(0, rest.find_first_of("\r\n")));
}

Expected<std::string> completeSafely(Backend& backend, const std::string& prompt,
                                     std::int64_t timeoutMs) {
  Request request;
  request.prompt = prompt;
  request.timeoutMs = timeoutMs;
  request.role = roleOfPrompt(prompt);
  Expected<Completion> answered = answerSafely(backend, request);
  if (!answered.hasValue()) return answered.error();
  return std::move(answered.value().text);
}

Expected<std::string> callRole(Backend& backend, std::string prompt, std::int64_t timeoutMs,
                               const char* role, const char* schema, CallCost* cost) {
  Request request;
  request.prompt = std::move(prompt);
  request.timeoutMs = timeoutMs;
  request.role = role;
  request.answerSchema = schema;
  const auto started = std::chrono::steady_clock::now();
  Expected<Completion> answered = answerSafely(backend, request);
  if (cost != nullptr) {
    *cost = CallCost{};
    cost->wallMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
    if (answered.hasValue()) {
      const Usage& usage = answered.value().usage;
      // Whatever the backend says, a believable count (docs/SECURITY.md N3).
      cost->inputTokens = boundedCallTokens(usage.inputTokens);
      cost->outputTokens = boundedCallTokens(usage.outputTokens);
      cost->estimated = usage.estimated;
    }
  }
  if (!answered.hasValue()) return answered.error();
  return std::move(answered.value().text);
}

Poco::JSON::Object::Ptr parseObject(std::string_view json, std::string& reason) {
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var parsed = parser.parse(std::string(json));
    if (parsed.type() != typeid(Poco::JSON::Object::Ptr)) {
      reason = "not a JSON object";
      return nullptr;
    }
    Poco::JSON::Object::Ptr object = parsed.extract<Poco::JSON::Object::Ptr>();
    if (object.isNull()) reason = "not a JSON object";
    return object;
  } catch (const Poco::Exception&) {
  } catch (const std::exception&) {
  }
  reason = "not valid JSON";
  return nullptr;
}

}  // namespace antidrift::ai::detail
