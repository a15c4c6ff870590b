/// @file codex_backend.cpp
/// The codex backend: runs `codex exec` with the prompt on stdin and reads the
/// agent's last message from the file named by `-o` (docs/DESIGN.md §8,
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

/// What makes `codex exec` a judge rather than an agent (issue 19 item 5;
/// each checked against the real `@openai/codex` 0.171.0, which rejects an
/// unknown feature name — docs/PLUGINS.md "codex"): no user config.toml (its
/// MCP servers, profiles, tools) and no execpolicy rules, the read-only
/// sandbox with approvals never asked, no MCP servers, no web search, and the
/// shell, exec, apps, plugins, hooks, browser, computer, sub-agent and image
/// tools switched off.
const char* const kJudgeFlags[] = {"--skip-git-repo-check",
                                   "--ephemeral",
                                   "--ignore-user-config",
                                   "--ignore-rules",
                                   "-s",
                                   "read-only",
                                   "-c",
                                   "approval_policy=\"never\"",
                                   "-c",
                                   "mcp_servers={}",
                                   "-c",
                                   "web_search=\"disabled\"",
                                   "--disable",
                                   "shell_tool",
                                   "--disable",
                                   "unified_exec",
                                   "--disable",
                                   "apps",
                                   "--disable",
                                   "plugins",
                                   "--disable",
                                   "hooks",
                                   "--disable",
                                   "browser_use",
                                   "--disable",
                                   "computer_use",
                                   "--disable",
                                   "multi_agent",
                                   "--disable",
                                   "view_image"};

/// `result.error` with its stderr detail withheld when that line is a piece
/// of `prompt` (codex echoes the prompt on stderr; the prompt carries titles
/// and the private profile: issue 19 L3).
std::string withoutPromptEcho(const runner::RunResult& result, const std::string& prompt) {
  const std::string marker = "code " + std::to_string(result.exitCode) + ": ";
  const std::size_t at = result.error.find(marker);
  if (result.status != runner::RunStatus::Exited || at == std::string::npos) return result.error;
  std::string detail = result.error.substr(at + marker.size());
  const std::string ellipsis = "\xE2\x80\xA6";  // a line cut by the runner ends so
  if (detail.size() >= ellipsis.size() &&
      detail.compare(detail.size() - ellipsis.size(), ellipsis.size(), ellipsis) == 0) {
    detail.resize(detail.size() - ellipsis.size());
  }
  if (detail.size() < 4 || prompt.find(detail) == std::string::npos) return result.error;
  return result.error.substr(0, at + marker.size()) +
         "its last stderr line echoes the prompt and is not shown";
}

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

  /// Runs `codex exec <kJudgeFlags…> -C <empty dir> --color never -o <file>
  /// [-m M] [extra] -` with `prompt` on stdin and returns the file's content
  /// (issue 19 item 5: a judge, not an agent). Exit 0 with an empty file is a
  /// failure. A failure is logged at warning without stderr (codex echoes the
  /// prompt there, issue 19 L3); stderr, cut to 4 KiB, only at debug.
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

    // Its workspace root: empty, and no file of ours in it.
    const runner::ScratchDirectory emptyDirectory;

    runner::RunRequest request;
    request.executable = settings_.command;
    request.arguments = {"exec"};
    request.arguments.insert(request.arguments.end(), std::begin(kJudgeFlags),
                             std::end(kJudgeFlags));
    request.arguments.insert(request.arguments.end(),
                             {"-C", emptyDirectory.path(), "--color", "never", "-o", answerFile});
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
      logger.debug("codex stderr (first 4 KiB): " + result.standardError.substr(0, 4096));
    }
    if (!result.succeeded()) {
      // The last stderr line may be a line of the echoed prompt (L3).
      const std::string error = withoutPromptEcho(result, prompt);
      logger.warning(error);
      throw BackendError(error);
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
