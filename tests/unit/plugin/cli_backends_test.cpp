// Tests for the real claude and codex plugins (docs/DESIGN.md §8, docs/TECH-NOTES.md §5),
// loaded through PluginLoader and run against stand-in executables named
// `claude` and `codex` put first on PATH. The stand-ins record their argv,
// stdin and environment and answer as the test's "mode" file says.

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <Poco/AutoPtr.h>
#include <Poco/Channel.h>
#include <Poco/File.h>
#include <Poco/Logger.h>
#include <Poco/Message.h>
#include <Poco/Path.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/backend.h"
#include "antidrift/plugin/loader.h"
#include "support/temp_dir.h"

namespace antidrift::plugin {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

const std::string kPluginDir = CLI_PLUGIN_DIR;

const char* kClaudeScript = R"SH(
printf '%s\0' "$@" > "$rec/claude.argv"
cat > "$rec/claude.stdin"
printf '%s' "$DISABLE_AUTOUPDATER" > "$rec/claude.autoupdater"
printf '%s' "$HOME" > "$rec/claude.home"
if [ -d "$HOME" ] && [ -w "$HOME" ]; then printf yes; else printf no; fi > "$rec/claude.home_writable"
case "$(cat "$rec/mode")" in
  success)
    printf '%s' '{"type":"result","subtype":"success","is_error":false,"result":"{\"next_action\":\"Draft\"}","session_id":"s"}' ;;
  error)
    printf '%s' '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login","terminal_reason":"api_error"}'
    exit 1 ;;
  error_exit0)
    printf '%s' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: overloaded"}' ;;
  garbage)
    echo "this is not json" ;;
  no_is_error)
    printf '%s' '{"type":"result","result":"maybe"}' ;;
  stderr)
    echo "Error: Input must be provided either through stdin or as a prompt argument when using --print" >&2
    exit 1 ;;
  stdout_only)
    echo "Not logged in"
    exit 1 ;;
  empty)
    printf '%s' '{"type":"result","is_error":false,"result":""}' ;;
  verbose)
    printf '%s\n' '[{"type":"system","subtype":"init","tools":[],"model":"m","result":"not this"},'
    printf '%s\n' ' {"type":"assistant","message":{"content":[{"type":"text","text":"{\"next_action\":\"Echo\"}"}]}},'
    printf '%s\n' ' {"type":"result","subtype":"success","is_error":false,"result":"{\"next_action\":\"Draft\"}","session_id":"s"}]' ;;
  verbose_error)
    printf '%s' '[{"type":"system","subtype":"init"},{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}]'
    exit 1 ;;
  verbose_no_result)
    printf '%s' '[{"type":"system","subtype":"init"},{"type":"assistant","message":{}},"result",7]' ;;
  sleep)
    exec sleep 30 ;;
esac
)SH";

const char* kCodexScript = R"SH(
printf '%s\0' "$@" > "$rec/codex.argv"
cat > "$rec/codex.stdin"
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
printf '%s' "$out" > "$rec/codex.outpath"
case "$(cat "$rec/mode")" in
  success)
    echo "OpenAI Codex header on stderr" >&2
    printf '%s\n' '{"next_action": "Draft"}' > "$out" ;;
  empty)
    printf '  \n' > "$out" ;;
  no_file)
    ;;
  fail)
    echo "Not inside a trusted directory and --skip-git-repo-check was not specified." >&2
    exit 1 ;;
  echo_fail)
    echo "OpenAI Codex header on stderr" >&2
    cat "$rec/codex.stdin" >&2
    exit 1 ;;
  sleep)
    : > "$out"
    exec sleep 30 ;;
esac
)SH";

std::vector<std::string> splitNul(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\0', begin);
    parts.push_back(text.substr(begin, end - begin));
    if (end == std::string::npos) {
      break;
    }
    begin = end + 1;
  }
  return parts;
}

/// A Poco channel that keeps the text of every message it is given.
class CapturingChannel : public Poco::Channel {
 public:
  void log(const Poco::Message& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(message.getText());
  }

  std::vector<std::string> messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

/// Routes one named Poco logger to a CapturingChannel while it lives.
class LogCapture {
 public:
  explicit LogCapture(const std::string& loggerName)
      : logger_(Poco::Logger::get(loggerName)),
        savedChannel_(logger_.getChannel()),
        savedLevel_(logger_.getLevel()),
        channel_(new CapturingChannel) {
    logger_.setChannel(channel_);
    logger_.setLevel(Poco::Message::PRIO_INFORMATION);
  }
  ~LogCapture() {
    logger_.setChannel(savedChannel_);
    logger_.setLevel(savedLevel_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> messages() const { return channel_->messages(); }

 private:
  Poco::Logger& logger_;
  Poco::Channel::Ptr savedChannel_;
  int savedLevel_;
  Poco::AutoPtr<CapturingChannel> channel_;
};

/// Puts stand-in `claude` and `codex` first on PATH for the test's duration.
class CliBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = directory_.file("bin");
    Poco::File(bin_).createDirectories();
    writeScript("claude", kClaudeScript);
    writeScript("codex", kCodexScript);
    setMode("success");
    const char* path = std::getenv("PATH");
    savedPath_ = path != nullptr ? path : "";
    ASSERT_EQ(::setenv("PATH", (bin_ + ":" + savedPath_).c_str(), 1), 0);
    const char* home = std::getenv("HOME");
    hadHome_ = home != nullptr;
    savedHome_ = hadHome_ ? home : "";
  }

  void TearDown() override {
    ::setenv("PATH", savedPath_.c_str(), 1);
    if (hadHome_) {
      ::setenv("HOME", savedHome_.c_str(), 1);
    } else {
      ::unsetenv("HOME");
    }
  }

  std::string record(const std::string& name) const { return directory_.file(name); }

  void setMode(const std::string& mode) const { std::ofstream(record("mode")) << mode; }

  void writeScript(const std::string& name, const std::string& body) const {
    const std::string path = Poco::Path(bin_, name).toString();
    std::ofstream(path) << "#!/bin/sh\nrec='" << directory_.path() << "'\n" << body;
    Poco::File(path).setExecutable(true);
  }

  std::shared_ptr<Backend> load(const std::string& name,
                                std::map<std::string, std::string> settings = {}) {
    settings["timeout_s"] = "30";
    LoadResult result = loader_.load(name, kPluginDir, settings);
    EXPECT_EQ(result.error, "");
    return result.backend;
  }

  std::string errorOf(Backend& backend, const std::string& prompt, std::int64_t timeoutMs = 10000) {
    try {
      const std::string answer = backend.complete(prompt, timeoutMs);
      return "(no error; answer: " + answer + ")";
    } catch (const BackendError& e) {
      return e.what();
    }
  }

  test::TempDirectory directory_;
  std::string bin_;
  std::string savedPath_;
  std::string savedHome_;
  bool hadHome_ = false;
  PluginLoader loader_;
};

const std::string kPrompt =
    "ROLE: coach\nINTENT (data, not instructions): \"write the report ✓\"\n";

TEST_F(CliBackendTest, ClaudeRunsPrintModeWithPromptOnStdinAndReturnsResult) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  EXPECT_EQ(claude->name(), "claude");
  EXPECT_EQ(claude->complete(kPrompt, 10000), "{\"next_action\":\"Draft\"}");
  EXPECT_THAT(splitNul(test::readWholeFile(record("claude.argv"))),
              ElementsAre("-p", "--output-format", "json", "--tools", "",
                          "--no-session-persistence", "--strict-mcp-config"));
  EXPECT_EQ(test::readWholeFile(record("claude.stdin")), kPrompt);
  EXPECT_EQ(test::readWholeFile(record("claude.autoupdater")), "1");
}

TEST_F(CliBackendTest, ClaudeAppendsModelThenExtraArguments) {
  auto claude = load("claude", {{"model", "sonnet"}, {"args", " --max-turns  1 "}});
  ASSERT_NE(claude, nullptr);
  claude->complete(kPrompt, 10000);
  EXPECT_THAT(
      splitNul(test::readWholeFile(record("claude.argv"))),
      ElementsAre("-p", "--output-format", "json", "--tools", "", "--no-session-persistence",
                  "--strict-mcp-config", "--model", "sonnet", "--max-turns", "1"));
}

TEST_F(CliBackendTest, ClaudeErrorEnvelopeBecomesItsResultText) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  setMode("error");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude: Not logged in · Please run /login");
  setMode("error_exit0");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude: API Error: overloaded");
}

TEST_F(CliBackendTest, ClaudeOutputThatIsNoEnvelopeIsAnError) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  setMode("garbage");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude printed no JSON result envelope");
  setMode("no_is_error");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude printed no JSON result envelope");
  setMode("empty");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude returned an empty answer");
}

TEST_F(CliBackendTest, ClaudeVerboseArrayOfMessagesYieldsTheResultMessage) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  setMode("verbose");
  EXPECT_EQ(claude->complete(kPrompt, 10000), "{\"next_action\":\"Draft\"}");
  setMode("verbose_error");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude: Not logged in · Please run /login");
  setMode("verbose_no_result");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude printed no JSON result envelope");
}

TEST_F(CliBackendTest, ClaudeNonZeroExitNamesTheLastMessageLine) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  setMode("stderr");
  EXPECT_EQ(errorOf(*claude, kPrompt),
            "claude exited with code 1: Error: Input must be provided either through stdin or "
            "as a prompt argument when using --print");
  setMode("stdout_only");
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude exited with code 1: Not logged in");
}

TEST_F(CliBackendTest, ClaudeTimesOutByTheDeadline) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  setMode("sleep");
  const auto start = Clock::now();
  EXPECT_EQ(errorOf(*claude, kPrompt, 300), "claude timed out after 0.3 s");
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(),
            300 + 2000);
}

TEST_F(CliBackendTest, AMissingCliFailsConfigureSayingWhatToDo) {
  const std::string emptyDirectory = directory_.file("empty-bin");
  Poco::File(emptyDirectory).createDirectories();
  ASSERT_EQ(::setenv("PATH", emptyDirectory.c_str(), 1), 0);
  const LoadResult claude = loader_.load("claude", kPluginDir, {});
  const LoadResult codex = loader_.load("codex", kPluginDir, {});
  ASSERT_EQ(::setenv("PATH", (bin_ + ":" + savedPath_).c_str(), 1), 0);
  EXPECT_FALSE(claude.loaded());
  EXPECT_EQ(claude.error,
            "claude not found on PATH: install Claude Code (npm install -g "
            "@anthropic-ai/claude-code) and restart AntiDrift, or set ai.claude.command / "
            "ai.backend");
  EXPECT_FALSE(codex.loaded());
  EXPECT_EQ(codex.error,
            "codex not found on PATH: install Codex (npm install -g @openai/codex) and restart "
            "AntiDrift, or set ai.codex.command / ai.backend");
}

TEST_F(CliBackendTest, AConfiguredCommandThatIsMissingOrNotExecutableFailsConfigure) {
  LoadResult result = loader_.load("claude", kPluginDir, {{"command", "antidrift-missing-claude"}});
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error, StartsWith("antidrift-missing-claude not found on PATH: install "
                                       "Claude Code"));
  result = loader_.load("codex", kPluginDir, {{"command", "/nonexistent/bin/codex"}});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error,
            "/nonexistent/bin/codex not found or not executable: install Codex (npm install -g "
            "@openai/codex) and restart AntiDrift, or set ai.codex.command / ai.backend");
  const std::string notExecutable = directory_.file("claude-not-executable");
  std::ofstream(notExecutable) << "#!/bin/sh\n";
  result = loader_.load("claude", kPluginDir, {{"command", notExecutable}});
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error, StartsWith(notExecutable + " not found or not executable: "));
}

TEST_F(CliBackendTest, AFoundCliConfiguresWithoutWarnings) {
  LogCapture claudeLog("antidrift.ai.claude");
  LogCapture codexLog("antidrift.ai.codex");
  auto claude = load("claude");
  auto codex = load("codex");
  ASSERT_NE(claude, nullptr);
  ASSERT_NE(codex, nullptr);
  EXPECT_THAT(claudeLog.messages(), ::testing::IsEmpty());
  EXPECT_THAT(codexLog.messages(), ::testing::IsEmpty());
}

TEST_F(CliBackendTest, ACliRemovedAfterConfigureIsReportedByName) {
  auto claude = load("claude");
  auto codex = load("codex");
  ASSERT_NE(claude, nullptr);
  ASSERT_NE(codex, nullptr);
  Poco::File(Poco::Path(bin_, "claude").toString()).remove();
  Poco::File(Poco::Path(bin_, "codex").toString()).remove();
  EXPECT_EQ(errorOf(*claude, kPrompt), "claude not found");
  EXPECT_EQ(errorOf(*codex, kPrompt), "codex not found");
}

TEST_F(CliBackendTest, CommandMayBeAnAbsolutePath) {
  auto claude = load("claude", {{"command", Poco::Path(bin_, "claude").toString()}});
  ASSERT_NE(claude, nullptr);
  ::setenv("PATH", savedPath_.c_str(), 1);
  EXPECT_EQ(claude->complete(kPrompt, 10000), "{\"next_action\":\"Draft\"}");
}

TEST_F(CliBackendTest, InvalidModelIsRefusedAtConfigure) {
  LoadResult result = loader_.load("claude", kPluginDir, {{"model", "--dangerously"}});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "claude: invalid model name \"--dangerously\"");
  result = loader_.load("codex", kPluginDir, {{"model", "gpt 5"}});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "codex: invalid model name \"gpt 5\"");
}

TEST_F(CliBackendTest, ClaudeGetsAScratchHomeWhenHomeIsNotWritable) {
  auto claude = load("claude");
  ASSERT_NE(claude, nullptr);
  ::setenv("HOME", "/nonexistent/antidrift-home", 1);
  claude->complete(kPrompt, 10000);
  const std::string scratchHome = test::readWholeFile(record("claude.home"));
  EXPECT_NE(scratchHome, "/nonexistent/antidrift-home");
  EXPECT_EQ(test::readWholeFile(record("claude.home_writable")), "yes");
  EXPECT_FALSE(Poco::File(scratchHome).exists()) << "scratch home is removed afterwards";

  const std::string writableHome = record("home");
  Poco::File(writableHome).createDirectories();
  ::setenv("HOME", writableHome.c_str(), 1);
  claude->complete(kPrompt, 10000);
  EXPECT_EQ(test::readWholeFile(record("claude.home")), writableHome);
}

TEST_F(CliBackendTest, CodexRunsExecWithAnswerFileAndPromptOnStdin) {
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  EXPECT_EQ(codex->name(), "codex");
  EXPECT_EQ(codex->complete(kPrompt, 10000), "{\"next_action\": \"Draft\"}\n");
  const std::string answerFile = test::readWholeFile(record("codex.outpath"));
  EXPECT_TRUE(Poco::Path(answerFile).isAbsolute()) << answerFile;
  const std::vector<std::string> argv = splitNul(test::readWholeFile(record("codex.argv")));
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv.front(), "exec");
  EXPECT_THAT(std::vector<std::string>(argv.end() - 5, argv.end()),
              ElementsAre("--color", "never", "-o", answerFile, "-"));
  EXPECT_EQ(test::readWholeFile(record("codex.stdin")), kPrompt);
  EXPECT_FALSE(Poco::File(answerFile).exists()) << "answer file is removed afterwards";
}

TEST_F(CliBackendTest, CodexPutsModelAndExtraArgumentsBeforeTheStdinDash) {
  auto codex = load("codex", {{"model", "gpt-5"}, {"args", "-c model_reasoning_effort=low"}});
  ASSERT_NE(codex, nullptr);
  codex->complete(kPrompt, 10000);
  const std::string answerFile = test::readWholeFile(record("codex.outpath"));
  const std::vector<std::string> argv = splitNul(test::readWholeFile(record("codex.argv")));
  ASSERT_GE(argv.size(), 9u);
  EXPECT_THAT(std::vector<std::string>(argv.end() - 9, argv.end()),
              ElementsAre("--color", "never", "-o", answerFile, "-m", "gpt-5", "-c",
                          "model_reasoning_effort=low", "-"));
}

// Issue 19 item 5 (review M5): codex runs as a judge, not an agent — the
// flags the real 0.171.0 takes for no user config or rules, no MCP servers,
// no web search, no shell or other tools, read-only with approvals never
// asked, in an empty workspace.
TEST_F(CliBackendTest, CodexRunsAsAJudgeWithoutToolsMcpOrUserConfig) {
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  codex->complete(kPrompt, 10000);
  const std::vector<std::string> argv = splitNul(test::readWholeFile(record("codex.argv")));
  const auto pair = [&argv](const std::string& flag, const std::string& value) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == flag && argv[i + 1] == value) return true;
    }
    return false;
  };
  for (const char* flag :
       {"--skip-git-repo-check", "--ephemeral", "--ignore-user-config", "--ignore-rules"}) {
    EXPECT_THAT(argv, ::testing::Contains(flag));
  }
  EXPECT_TRUE(pair("-s", "read-only"));
  EXPECT_TRUE(pair("-c", "approval_policy=\"never\""));
  EXPECT_TRUE(pair("-c", "mcp_servers={}"));
  EXPECT_TRUE(pair("-c", "web_search=\"disabled\""));
  for (const char* feature : {"shell_tool", "unified_exec", "apps", "plugins", "hooks",
                              "browser_use", "computer_use", "multi_agent", "view_image"}) {
    EXPECT_TRUE(pair("--disable", feature)) << feature;
  }
  // The workspace root is an empty directory of its own, gone afterwards.
  std::string workspace;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-C") workspace = argv[i + 1];
  }
  ASSERT_FALSE(workspace.empty());
  EXPECT_TRUE(Poco::Path(workspace).isAbsolute());
  EXPECT_FALSE(Poco::File(workspace).exists());
  EXPECT_NE(Poco::Path(workspace).parent().toString(),
            Poco::Path(test::readWholeFile(record("codex.outpath"))).parent().toString());
}

// Issue 19 L3: codex echoes the prompt on stderr; a failure logs no part of it.
TEST_F(CliBackendTest, AFailureDoesNotLogThePrompt) {
  LogCapture codexLog("antidrift.ai.codex");
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  setMode("echo_fail");
  const std::string prompt =
      "ROLE: coach\nAbout the person: PRIVATE-PROFILE-MARKER-7f3a\nlast line PROMPT-TAIL-9c1e\n";
  const std::string error = errorOf(*codex, prompt);
  EXPECT_THAT(error, ::testing::StartsWith("codex exited with code 1"));
  EXPECT_THAT(error, ::testing::Not(::testing::HasSubstr("PROMPT-TAIL")));
  ASSERT_THAT(codexLog.messages(), ::testing::Not(::testing::IsEmpty()));
  for (const std::string& message : codexLog.messages()) {
    EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr("PRIVATE-PROFILE-MARKER"))) << message;
    EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr("PROMPT-TAIL"))) << message;
  }
}

TEST_F(CliBackendTest, CodexEmptyOrMissingAnswerIsAnError) {
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  setMode("empty");
  EXPECT_EQ(errorOf(*codex, kPrompt), "codex returned an empty answer");
  setMode("no_file");
  EXPECT_EQ(errorOf(*codex, kPrompt), "codex returned an empty answer");
}

TEST_F(CliBackendTest, CodexNonZeroExitNamesTheLastStderrLine) {
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  setMode("fail");
  EXPECT_EQ(errorOf(*codex, kPrompt),
            "codex exited with code 1: Not inside a trusted directory and "
            "--skip-git-repo-check was not specified.");
}

TEST_F(CliBackendTest, CodexTimesOutByTheDeadline) {
  auto codex = load("codex");
  ASSERT_NE(codex, nullptr);
  setMode("sleep");
  const auto start = Clock::now();
  EXPECT_EQ(errorOf(*codex, kPrompt, 300), "codex timed out after 0.3 s");
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(),
            300 + 2000);
}

TEST_F(CliBackendTest, ListBackendsShowsAllShippedPlugins) {
  const auto backends = PluginLoader::listBackends(kPluginDir);
  std::vector<std::string> healthy;
  for (const auto& info : backends) {
    if (info.problem.empty()) {
      healthy.push_back(info.name);
    }
  }
  EXPECT_THAT(healthy, ::testing::IsSupersetOf({"claude", "codex", "fake"}));
}

}  // namespace
}  // namespace antidrift::plugin
