/// @file claude_backend.cpp
/// The claude backend: runs Claude Code in print mode with the prompt on stdin
/// and reads the answer from its JSON result envelope (docs/DESIGN.md §8,
/// docs/TECH-NOTES.md §5.1, docs/PLUGINS.md for the flags and the --help lines behind them).

#include <unistd.h>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>

#include "antidrift/backend.h"
#include "antidrift/runner/cli_settings.h"
#include "antidrift/runner/process_runner.h"

namespace {

using antidrift::BackendError;
namespace runner = antidrift::runner;

/// How to get the CLI, for the message of a missing command.
const char* const kInstallAdvice = "install Claude Code (npm install -g @anthropic-ai/claude-code)";

/// What the JSON result envelope on stdout says (the result object, or the
/// result message of the verbose array); `valid` is false when stdout is
/// neither.
struct Envelope {
  bool valid = false;
  bool hasIsError = false;
  bool isError = true;
  bool hasResult = false;
  std::string result;
};

/// The result message of `output`: the object itself when the CLI printed one
/// result object, or the LAST element whose "type" is "result" when it
/// printed a JSON array of every session message (verbose output on in the
/// user's settings or arguments, docs/TECH-NOTES.md §5.1); null otherwise. Throws
/// what Poco's parser throws on text that is not JSON.
Poco::JSON::Object::Ptr resultMessage(const std::string& output) {
  Poco::JSON::Parser parser;
  const Poco::Dynamic::Var parsed = parser.parse(output);
  if (parsed.type() == typeid(Poco::JSON::Object::Ptr)) {
    return parsed.extract<Poco::JSON::Object::Ptr>();
  }
  if (parsed.type() != typeid(Poco::JSON::Array::Ptr)) {
    return nullptr;
  }
  const Poco::JSON::Array::Ptr messages = parsed.extract<Poco::JSON::Array::Ptr>();
  for (std::size_t i = messages.isNull() ? 0 : messages->size(); i > 0; --i) {
    const Poco::JSON::Object::Ptr message = messages->getObject(static_cast<unsigned>(i - 1));
    if (!message.isNull() && message->has("type") && message->get("type").isString() &&
        message->getValue<std::string>("type") == "result") {
      return message;
    }
  }
  return nullptr;
}

Envelope parseEnvelope(const std::string& output) {
  Envelope envelope;
  try {
    const Poco::JSON::Object::Ptr object = resultMessage(output);
    if (object.isNull()) {
      return envelope;
    }
    envelope.valid = true;
    if (object->has("is_error") && object->get("is_error").isBoolean()) {
      envelope.hasIsError = true;
      envelope.isError = object->getValue<bool>("is_error");
    }
    if (object->has("result") && object->get("result").isString()) {
      envelope.hasResult = true;
      envelope.result = object->getValue<std::string>("result");
    }
  } catch (const Poco::Exception&) {
    envelope.valid = false;
  } catch (const std::exception&) {
    envelope.valid = false;
  }
  return envelope;
}

/// True when `path` is a directory this process may write into.
bool isWritableDirectory(const std::string& path) {
  if (path.empty()) {
    return false;
  }
  try {
    Poco::File file(path);
    return file.exists() && file.isDirectory() && ::access(path.c_str(), W_OK) == 0;
  } catch (const Poco::Exception&) {
    return false;
  }
}

/// Claude Code (`claude -p --output-format json`). Each complete() starts its
/// own child, so concurrent calls are safe; settings are fixed after configure().
class ClaudeBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "claude"; }

  /// Reads "command" (default "claude"), "args" (extra, space-separated) and
  /// "model". Throws BackendError on an invalid model name, and when the
  /// command is not found (not on PATH, or a path that is not an executable
  /// file), saying how to install it or what to set instead; the daemon then
  /// runs with AI off and shows that message.
  void configure(const std::map<std::string, std::string>& settings) override {
    try {
      settings_ = runner::readCliSettings(settings, "claude");
    } catch (const std::exception& e) {
      throw BackendError(std::string("claude: ") + e.what());
    }
    const std::string missing = runner::missingCommandMessage(settings_, "claude", kInstallAdvice);
    if (!missing.empty()) {
      throw BackendError(missing);
    }
  }

  /// Runs `claude -p --output-format json --tools "" --no-session-persistence
  /// --strict-mcp-config [--model M] [extra]` with `prompt` on stdin and returns
  /// the envelope's "result" (from the one result object, or from the last
  /// "type": "result" element when the CLI prints the verbose array of every
  /// session message). Success needs exit 0 and "is_error": false.
  std::string complete(const std::string& prompt, std::int64_t timeoutMs) override {
    try {
      return run(prompt, timeoutMs);
    } catch (const BackendError&) {
      throw;
    } catch (const std::exception& e) {
      throw BackendError(std::string("claude: ") + e.what());
    }
  }

 private:
  std::string run(const std::string& prompt, std::int64_t timeoutMs) const {
    runner::RunRequest request;
    request.executable = settings_.command;
    request.arguments = {"-p",
                         "--output-format",
                         "json",
                         "--tools",
                         "",
                         "--no-session-persistence",
                         "--strict-mcp-config"};
    if (!settings_.model.empty()) {
      request.arguments.push_back("--model");
      request.arguments.push_back(settings_.model);
    }
    request.arguments.insert(request.arguments.end(), settings_.extraArguments.begin(),
                             settings_.extraArguments.end());
    request.input = prompt;
    request.timeoutMs = timeoutMs;
    request.extraEnvironment["DISABLE_AUTOUPDATER"] = "1";

    // Claude writes $HOME/.claude.json and $HOME/.claude/: give it a scratch
    // home when the real one is not writable (docs/TECH-NOTES.md §5.1).
    std::unique_ptr<runner::ScratchDirectory> scratchHome;
    if (!isWritableDirectory(Poco::Environment::get("HOME", ""))) {
      scratchHome = std::make_unique<runner::ScratchDirectory>();
      request.extraEnvironment["HOME"] = scratchHome->path();
    }

    const runner::RunResult result = runner::run(request);
    Poco::Logger& logger = Poco::Logger::get("antidrift.ai.claude");
    if (!result.standardError.empty() && logger.debug()) {
      logger.debug("claude stderr: " + result.standardError);
    }
    if (result.status != runner::RunStatus::Exited) {
      logger.warning(result.error);
      throw BackendError(result.error);
    }

    const Envelope envelope = parseEnvelope(result.standardOutput);
    if (envelope.valid && envelope.hasIsError && envelope.isError) {
      const std::string text = envelope.hasResult ? runner::shorten(envelope.result) : "";
      logger.warning("claude error envelope (exit " + std::to_string(result.exitCode) +
                     "): " + result.standardOutput);
      throw BackendError(text.empty() ? "claude reported an error" : "claude: " + text);
    }
    if (!result.succeeded()) {
      std::string message = result.error;
      if (result.signal == 0 && runner::lastLine(result.standardError).empty()) {
        const std::string detail = runner::lastLine(result.standardOutput);
        if (!detail.empty()) {
          message += ": " + detail;
        }
      }
      logger.warning(message + "; stderr: " + result.standardError);
      throw BackendError(message);
    }
    if (!envelope.valid || !envelope.hasIsError) {
      logger.warning("claude printed no JSON result envelope: " + result.standardOutput);
      throw BackendError("claude printed no JSON result envelope");
    }
    if (!envelope.hasResult || envelope.result.empty()) {
      throw BackendError("claude returned an empty answer");
    }
    return envelope.result;
  }

  runner::CliSettings settings_{"claude", {}, ""};
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(ClaudeBackend)
