/// @file fake_backend.cpp
/// The fake backend: answers with canned text from a JSON file, chosen by the
/// prompt's role line and an optional substring (docs/DESIGN.md §8, README.md here).
/// A real plugin like the others, so tests and demos swap backends through
/// the config file (docs/CONVENTIONS.md "The fake is a real plugin").

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/FileStream.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/backend.h"

namespace {

/// One canned answer from the responses file.
struct CannedResponse {
  std::string role;      ///< "coach", "judge", "nudge", "reviewer", … or "*"
  std::string match;     ///< substring the prompt must contain; "" = any
  std::string text;      ///< the raw answer
  std::int64_t delayMs;  ///< how long to take before answering, ms
  std::string fail;      ///< when not empty, complete() throws this message
  bool fails;            ///< true when the entry has a "fail" key
};

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return "";
  }
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

/// The role named by the prompt's first line "ROLE: <role>", lower-cased;
/// "" when the first line is not a role line.
std::string roleOf(const std::string& prompt) {
  const std::string firstLine = prompt.substr(0, prompt.find('\n'));
  const std::string kTag = "role:";
  const std::string line = trim(firstLine);
  if (line.size() < kTag.size() || lowerCase(line.substr(0, kTag.size())) != kTag) {
    return "";
  }
  return lowerCase(trim(line.substr(kTag.size())));
}

/// A problem with one field of a responses entry: a plain sentence naming
/// the field and what it should be.
class FieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr const char* kRoleKinds = "coach, judge, nudge, reviewer or *";

/// "a number", "an array", … for "must be a string, not <kind>".
std::string kindOf(const Poco::Dynamic::Var& value) {
  if (value.isEmpty()) {
    return "null";
  }
  if (value.isBoolean()) {
    return "a boolean";
  }
  if (value.isString()) {
    return "a string";
  }
  if (value.isNumeric()) {
    return "a number";
  }
  if (value.type() == typeid(Poco::JSON::Array::Ptr)) {
    return "an array";
  }
  if (value.type() == typeid(Poco::JSON::Object::Ptr)) {
    return "an object";
  }
  return "another kind of value";
}

/// Whether an entry field must be there.
enum class Presence { Required, Optional };

/// The string field `name` of `entry`: nullopt when absent (a FieldError
/// when Required); a FieldError naming the field when it is not a string.
/// `meaning` says what the string holds, for the error sentence.
std::optional<std::string> stringField(const Poco::JSON::Object& entry, const std::string& name,
                                       const std::string& meaning, Presence presence) {
  if (!entry.has(name)) {
    if (presence == Presence::Required) {
      throw FieldError("\"" + name + "\" is missing (a string: " + meaning + ")");
    }
    return std::nullopt;
  }
  const Poco::Dynamic::Var value = entry.get(name);
  if (!value.isString()) {
    throw FieldError("\"" + name + "\" must be a string (" + meaning + "), not " + kindOf(value));
  }
  return value.extract<std::string>();
}

/// "delay_ms": absent = 0; otherwise a whole number of milliseconds, 0 or more.
std::int64_t delayField(const Poco::JSON::Object& entry) {
  if (!entry.has("delay_ms")) {
    return 0;
  }
  const std::string expected = "a whole number of milliseconds, 0 or more";
  const Poco::Dynamic::Var value = entry.get("delay_ms");
  if (value.isBoolean() || !value.isNumeric()) {
    throw FieldError("\"delay_ms\" must be " + expected + ", not " + kindOf(value));
  }
  if (!value.isInteger()) {
    throw FieldError("\"delay_ms\" must be " + expected + ", not a fraction");
  }
  std::int64_t delayMs = 0;
  try {
    delayMs = value.convert<std::int64_t>();
  } catch (const Poco::Exception&) {
    throw FieldError("\"delay_ms\" is too large (" + expected + ")");
  }
  if (delayMs < 0) {
    throw FieldError("\"delay_ms\" is negative (" + expected + ")");
  }
  return delayMs;
}

/// One entry of the "responses" array. Throws FieldError.
CannedResponse readEntry(const Poco::JSON::Object& entry) {
  CannedResponse response;
  response.role = lowerCase(*stringField(entry, "role", kRoleKinds, Presence::Required));
  if (response.role.empty()) {
    throw FieldError(std::string("\"role\" is empty (a string: ") + kRoleKinds + ")");
  }
  response.match =
      stringField(entry, "match", "a substring of the prompt", Presence::Optional).value_or("");
  const std::optional<std::string> text =
      stringField(entry, "text", "the answer", Presence::Optional);
  const std::optional<std::string> fail =
      stringField(entry, "fail", "the error message", Presence::Optional);
  response.delayMs = delayField(entry);
  if (!text && !fail) {
    throw FieldError("needs \"text\" or \"fail\"");
  }
  response.text = text.value_or("");
  response.fails = fail.has_value();
  response.fail = fail.value_or("");
  if (response.fails && response.fail.empty()) {
    response.fail = "fake: canned failure";
  }
  return response;
}

std::vector<CannedResponse> readResponses(const std::string& path) {
  std::string text;
  try {
    Poco::FileInputStream stream(path);
    std::ostringstream content;
    content << stream.rdbuf();
    text = content.str();
  } catch (const Poco::Exception& e) {
    throw antidrift::BackendError("fake: cannot read responses file " + path + ": " +
                                  e.displayText());
  }

  Poco::JSON::Object::Ptr root;
  try {
    Poco::JSON::Parser parser;
    root = parser.parse(text).extract<Poco::JSON::Object::Ptr>();
  } catch (const Poco::Exception& e) {
    throw antidrift::BackendError("fake: responses file " + path +
                                  " is not a JSON object: " + e.displayText());
  }
  Poco::JSON::Array::Ptr entries = root.isNull() ? nullptr : root->getArray("responses");
  if (entries.isNull()) {
    throw antidrift::BackendError("fake: responses file " + path + " has no \"responses\" array");
  }

  std::vector<CannedResponse> responses;
  for (std::size_t index = 0; index < entries->size(); ++index) {
    const std::string where =
        "fake: responses file " + path + ", entry " + std::to_string(index) + ": ";
    Poco::JSON::Object::Ptr entry = entries->getObject(static_cast<unsigned>(index));
    if (entry.isNull()) {
      throw antidrift::BackendError(where + "not an object");
    }
    try {
      responses.push_back(readEntry(*entry));
    } catch (const FieldError& error) {
      throw antidrift::BackendError(where + error.what());
    }
  }
  return responses;
}

/// Canned answers for tests and demos. Immutable after configure(), so
/// complete() is safe to call from several threads at once.
class FakeBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "fake"; }

  /// Reads settings["responses"], the path of the responses file. Throws
  /// BackendError naming the path when it is missing, unreadable or invalid.
  void configure(const std::map<std::string, std::string>& settings) override {
    const auto it = settings.find("responses");
    if (it == settings.end() || it->second.empty()) {
      throw antidrift::BackendError("fake: setting ai.fake.responses (a JSON file) is not set");
    }
    responses_ = readResponses(it->second);
  }

  /// Returns the text of the first entry whose role matches the prompt's
  /// "ROLE: <role>" line (or is "*") and whose match substring is in the
  /// prompt. Waits delay_ms first; if that exceeds timeoutMs, waits timeoutMs
  /// and throws "fake: timed out after N ms". Throws the entry's "fail" text,
  /// or "fake: no canned response for role X" when nothing matches.
  std::string complete(const std::string& prompt, std::int64_t timeoutMs) override {
    try {
      const std::string role = roleOf(prompt);
      for (const CannedResponse& response : responses_) {
        if (response.role != "*" && response.role != role) {
          continue;
        }
        if (!response.match.empty() && prompt.find(response.match) == std::string::npos) {
          continue;
        }
        return cannedAnswer(response, timeoutMs);
      }
      throw antidrift::BackendError("fake: no canned response for role " +
                                    (role.empty() ? std::string("(none)") : role));
    } catch (const antidrift::BackendError&) {
      throw;
    } catch (const std::exception& e) {
      throw antidrift::BackendError(std::string("fake: ") + e.what());
    }
  }

 private:
  static std::string cannedAnswer(const CannedResponse& response, std::int64_t timeoutMs) {
    const std::int64_t limit = std::max<std::int64_t>(timeoutMs, 0);
    if (response.delayMs > limit) {
      std::this_thread::sleep_for(std::chrono::milliseconds(limit));
      throw antidrift::BackendError("fake: timed out after " + std::to_string(limit) + " ms");
    }
    if (response.delayMs > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(response.delayMs));
    }
    if (response.fails) {
      throw antidrift::BackendError(response.fail);
    }
    return response.text;
  }

  std::vector<CannedResponse> responses_;
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(FakeBackend)
