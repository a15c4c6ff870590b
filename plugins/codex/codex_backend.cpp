/// @file codex_backend.cpp
/// The codex backend: runs `codex exec` with the prompt on stdin and reads the
/// agent's last message from the file named by `-o` (DESIGN §8,
/// docs/TECH-NOTES.md §5.2, docs/PLUGINS.md for the flags and the --help lines behind them).

#include <cstdint>
#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/Logger.h>
#include <Poco/Path.h>

#include "antidrift/backend.h"
#include "antidrift/runner/cli_settings.h"
#include "antidrift/runner/process_runner.h"

namespace {

using antidrift::BackendError;
namespace runner = antidrift::runner;

/// How to get the CLI, for the message of a missing command.
const char* const kInstallAdvice = "install Codex (npm install -g @openai/codex)";

/// The content of `path`, or "" when it does not exist.
std::string readIfPresent(const std::string& path) {
  if (!Poco::File(path).exists()) {
    return "";
  }
  Poco::FileInputStream stream(path);
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

bool isBlank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

/// OpenAI Codex (`codex exec … -o <file> -`). Each complete() starts its own
/// child and uses its own answer file, so concurrent calls are safe.
class CodexBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "codex"; }

  /// Reads "command" (default "codex"), "args" (extra, space-separated) and
  /// "model". Throws BackendError on an invalid model name, and when the
  /// command is not found (not on PATH, or a path that is not an executable
  /// file), saying how to install it or what to set instead; the daemon then
  /// runs with AI off and shows that message.
  void configure(const std::map<std::string, std::string>& settings) override {
    try {
      settings_ = runner::readCliSettings(settings, "codex");
    } catch (const std::exception& e) {
      throw BackendError(std::string("codex: ") + e.what());
    }
    const std::string missing = runner::missingCommandMessage(settings_, "codex", kInstallAdvice);
    if (!missing.empty()) {
      throw BackendError(missing);
    }
  }

  /// Runs `codex exec --skip-git-repo-check --ephemeral -s read-only --color
  /// never -o <file> [-m M] [extra] -` with `prompt` on stdin and returns the
  /// file's content. Exit 0 with an empty file is a failure.
  std::string complete(const std::string& prompt, std::int64_t timeoutMs) override {
    try {
      return run(prompt, timeoutMs);
    } catch (const BackendError&) {
      throw;
    } catch (const Poco::Exception& e) {
      throw BackendError("codex: " + e.displayText());
    } catch (const std::exception& e) {
      throw BackendError(std::string("codex: ") + e.what());
    }
  }

 private:
  std::string run(const std::string& prompt, std::int64_t timeoutMs) const {
    // Codex writes the answer file into a directory of our own, removed with it.
    const runner::ScratchDirectory answerDirectory;
    const std::string answerFile = Poco::Path(answerDirectory.path(), "answer.txt").toString();

    runner::RunRequest request;
    request.executable = settings_.command;
    request.arguments = {"exec",        "--skip-git-repo-check",
                         "--ephemeral", "-s",
                         "read-only",   "--color",
                         "never",       "-o",
                         answerFile};
    if (!settings_.model.empty()) {
      request.arguments.push_back("-m");
      request.arguments.push_back(settings_.model);
    }
    request.arguments.insert(request.arguments.end(), settings_.extraArguments.begin(),
                             settings_.extraArguments.end());
    request.arguments.push_back("-");
    request.input = prompt;
    request.timeoutMs = timeoutMs;

    const runner::RunResult result = runner::run(request);
    Poco::Logger& logger = Poco::Logger::get("antidrift.ai.codex");
    if (!result.standardError.empty() && logger.debug()) {
      logger.debug("codex stderr: " + result.standardError);
    }
    if (!result.succeeded()) {
      logger.warning(result.error + "; stderr: " + result.standardError);
      throw BackendError(result.error);
    }
    const std::string answer = runner::sanitizeUtf8(readIfPresent(answerFile));
    if (isBlank(answer)) {
      throw BackendError("codex returned an empty answer");
    }
    return answer;
  }

  runner::CliSettings settings_{"codex", {}, ""};
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(CodexBackend)
