/// @file fake_backend.cpp
/// The fake backend: answers with canned text from a JSON file, chosen by the
/// prompt's role line and an optional substring (DESIGN §8, README.md here).
/// A real plugin like the others, so tests and demos swap backends through
/// the config file (CONVENTIONS "The fake is a real plugin").

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <thread>
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
      CannedResponse response;
      response.role = lowerCase(entry->getValue<std::string>("role"));
      response.match = entry->optValue<std::string>("match", "");
      response.text = entry->optValue<std::string>("text", "");
      response.delayMs = entry->optValue<std::int64_t>("delay_ms", 0);
      response.fails = entry->has("fail");
      response.fail = entry->optValue<std::string>("fail", "");
      if (response.role.empty()) {
        throw antidrift::BackendError(where + "\"role\" is empty");
      }
      if (response.delayMs < 0) {
        throw antidrift::BackendError(where + "\"delay_ms\" is negative");
      }
      if (!response.fails && !entry->has("text")) {
        throw antidrift::BackendError(where + "needs \"text\" or \"fail\"");
      }
      if (response.fails && response.fail.empty()) {
        response.fail = "fake: canned failure";
      }
      responses.push_back(std::move(response));
    } catch (const Poco::Exception& e) {
      throw antidrift::BackendError(where + e.displayText());
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
        return answer(response, timeoutMs);
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
  static std::string answer(const CannedResponse& response, std::int64_t timeoutMs) {
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
