// Tests for antidrift::runner::run with real child processes (docs/DESIGN.md §8,
// docs/TECH-NOTES.md §3): pipes, deadlines, process-group kill, no zombie, no fd leak.

#include "antidrift/runner/process_runner.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift::runner {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

RunRequest shell(const std::string& script, std::int64_t timeoutMs = 20000) {
  RunRequest request;
  request.executable = "sh";
  request.arguments = {"-c", script};
  request.timeoutMs = timeoutMs;
  return request;
}

std::int64_t millisecondsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// Pids of the processes in group `processGroupId` that are not yet dead
/// (zombies count as dead: they only wait for their parent to reap them).
std::vector<int> liveMembersOfGroup(int processGroupId) {
  std::vector<int> members;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return members;
  }
  while (dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::ifstream statFile("/proc/" + name + "/stat");
    std::string stat;
    std::getline(statFile, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) {
      continue;
    }
    std::istringstream fields(stat.substr(close + 1));
    char state = 0;
    int parent = 0;
    int group = 0;
    fields >> state >> parent >> group;
    if (group == processGroupId && state != 'Z' && state != 'X') {
      members.push_back(std::stoi(name));
    }
  }
  ::closedir(proc);
  return members;
}

/// Waits (bounded) until group `processGroupId` has no live member; SIGKILL
/// is delivered asynchronously, so give the kernel a moment.
bool groupDiesWithin(int processGroupId, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!liveMembersOfGroup(processGroupId).empty()) {
    if (Clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::size_t openDescriptorCount() {
  std::size_t count = 0;
  DIR* fds = ::opendir("/proc/self/fd");
  while (dirent* entry = ::readdir(fds)) {
    if (entry->d_name[0] != '.') {
      ++count;
    }
  }
  ::closedir(fds);
  return count;
}

TEST(ProcessRunnerTest, CatEchoesStdin) {
  RunRequest request;
  request.executable = "cat";
  request.input = "ROLE: coach\nhello ✓\n";
  const RunResult result = run(request);
  EXPECT_EQ(result.status, RunStatus::Exited);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.standardOutput, request.input);
  EXPECT_EQ(result.standardError, "");
  EXPECT_GT(result.processGroupId, 0);
}

TEST(ProcessRunnerTest, LargeInputAndOutputFlowConcurrently) {
  RunRequest request;
  request.executable = "cat";
  request.input.assign(1024 * 1024 + 17, 'p');
  const RunResult result = run(request);
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput.size(), request.input.size());
  EXPECT_EQ(result.standardOutput, request.input);
}

TEST(ProcessRunnerTest, MegabyteOnStderrBeforeStdoutDoesNotDeadlock) {
  const RunResult result =
      run(shell("head -c 1048576 /dev/zero | tr '\\0' x >&2; echo done", 20000));
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput, "done\n");
  EXPECT_EQ(result.standardError, std::string(1024 * 1024, 'x'));
}

TEST(ProcessRunnerTest, SleepIsKilledAtTheDeadline) {
  RunRequest request;
  request.executable = "sleep";
  request.arguments = {"30"};
  request.timeoutMs = 300;
  const auto start = Clock::now();
  const RunResult result = run(request);
  const auto elapsed = millisecondsSince(start);
  EXPECT_EQ(result.status, RunStatus::TimedOut);
  EXPECT_EQ(result.error, "sleep timed out after 0.3 s");
  EXPECT_EQ(result.signal, SIGTERM);
  EXPECT_GE(elapsed, 300);
  EXPECT_LT(elapsed, 300 + 2000);
  EXPECT_TRUE(groupDiesWithin(result.processGroupId, std::chrono::seconds(2)));
}

TEST(ProcessRunnerTest, GrandchildHoldingThePipeIsKilledAndDoesNotDelayReturn) {
  const auto start = Clock::now();
  const RunResult result = run(shell("sleep 30 & sleep 30", 400));
  const auto elapsed = millisecondsSince(start);
  EXPECT_EQ(result.status, RunStatus::TimedOut);
  EXPECT_EQ(result.error, "sh timed out after 0.4 s");
  EXPECT_LT(elapsed, 400 + 2000);
  ASSERT_GT(result.processGroupId, 0);
  EXPECT_TRUE(groupDiesWithin(result.processGroupId, std::chrono::seconds(2)))
      << "live members: " << liveMembersOfGroup(result.processGroupId).size();
}

TEST(ProcessRunnerTest, HelperLeftBehindAfterNormalExitIsKilled) {
  const auto start = Clock::now();
  const RunResult result = run(shell("sleep 30 & echo answer", 20000));
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput, "answer\n");
  EXPECT_LT(millisecondsSince(start), 2000);
  EXPECT_TRUE(groupDiesWithin(result.processGroupId, std::chrono::seconds(2)));
}

TEST(ProcessRunnerTest, ChildThatEscapesItsGroupCannotHoldTheRunnerOpen) {
  // The grandchild starts its own session, so the group kill misses it; the
  // runner must still return soon after the direct child exits.
  const auto start = Clock::now();
  const RunResult result = run(shell("setsid sleep 3 & echo out", 20000));
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput, "out\n");
  EXPECT_LT(millisecondsSince(start), 2000);
}

TEST(ProcessRunnerTest, NonZeroExitReportsCodeAndLastStderrLine) {
  const RunResult result =
      run(shell("echo partial; echo first >&2; echo '  not logged in  ' >&2; echo >&2; exit 3"));
  EXPECT_EQ(result.status, RunStatus::Exited);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.error, "sh exited with code 3: not logged in");
  EXPECT_EQ(result.standardOutput, "partial\n");
}

TEST(ProcessRunnerTest, NonZeroExitWithoutStderrHasNoColon) {
  RunRequest request = shell("exit 4");
  request.displayName = "claude";
  const RunResult result = run(request);
  EXPECT_EQ(result.error, "claude exited with code 4");
}

TEST(ProcessRunnerTest, DeathBySignalIsReported) {
  const RunResult result = run(shell("kill -9 $$"));
  EXPECT_EQ(result.status, RunStatus::Exited);
  EXPECT_EQ(result.signal, 9);
  EXPECT_EQ(result.error, "sh was killed by signal 9");
}

TEST(ProcessRunnerTest, MissingExecutableIsFoundBeforeLaunch) {
  RunRequest request;
  request.executable = "antidrift-no-such-cli";
  RunResult result = run(request);
  EXPECT_EQ(result.status, RunStatus::NotFound);
  EXPECT_EQ(result.error, "antidrift-no-such-cli not found");
  EXPECT_EQ(result.processGroupId, 0);

  request.executable = "/nonexistent/dir/codex";
  result = run(request);
  EXPECT_EQ(result.status, RunStatus::NotFound);
  EXPECT_EQ(result.error, "codex not found");
}

TEST(ProcessRunnerTest, InvalidUtf8OutputIsSanitised) {
  const RunResult result =
      run(shell("printf 'a\\377b\\303'; printf '\\303\\251\\355\\240\\200' >&2"));
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(result.standardError, "\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ProcessRunnerTest, SanitizeKeepsValidTextAndReplacesEachBadByte) {
  EXPECT_EQ(sanitizeUtf8("plain ascii"), "plain ascii");
  EXPECT_EQ(sanitizeUtf8("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80");
  EXPECT_EQ(sanitizeUtf8("a\xC3"
                         "b"),
            "a\xEF\xBF\xBD"
            "b");                                                   // truncated sequence
  EXPECT_EQ(sanitizeUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(sanitizeUtf8("x\xE2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(sanitizeUtf8(std::string("nul\0ok", 6)), std::string("nul\0ok", 6));
}

TEST(ProcessRunnerTest, ExtraEnvironmentIsAddedToTheInheritedOne) {
  ASSERT_EQ(::setenv("ANTIDRIFT_TEST_INHERITED", "inherited", 1), 0);
  RunRequest request = shell("echo \"$ANTIDRIFT_TEST_INHERITED:$ANTIDRIFT_TEST_EXTRA\"");
  request.extraEnvironment = {{"ANTIDRIFT_TEST_EXTRA", "extra value"}};
  const RunResult result = run(request);
  ::unsetenv("ANTIDRIFT_TEST_INHERITED");
  EXPECT_EQ(result.standardOutput, "inherited:extra value\n");
}

TEST(ProcessRunnerTest, WorkingDirectoryIsFreshEmptyAndRemovedAfterwards) {
  const RunResult result = run(shell("pwd; ls -A | wc -l; touch left-behind"));
  ASSERT_TRUE(result.succeeded()) << result.error;
  std::istringstream lines(result.standardOutput);
  std::string directory;
  std::string entries;
  std::getline(lines, directory);
  std::getline(lines, entries);
  EXPECT_NE(directory, "");
  EXPECT_NE(directory, "/");
  EXPECT_EQ(entries.find_first_not_of(' '), entries.find('0'));
  EXPECT_FALSE(Poco::File(directory).exists()) << directory;
}

TEST(ProcessRunnerTest, ChildThatIgnoresStdinDoesNotKillUsWithSigpipe) {
  RunRequest request = shell("exit 0");
  request.input.assign(4 * 1024 * 1024, 'q');
  const RunResult result = run(request);
  EXPECT_TRUE(result.succeeded()) << result.error;
}

TEST(ProcessRunnerTest, OutputBeyondTheLimitIsDrainedAndDropped) {
  RunRequest request = shell("head -c 100000 /dev/zero | tr '\\0' y; echo tail >&2");
  request.maxOutputBytes = 10;
  const RunResult result = run(request);
  EXPECT_TRUE(result.succeeded()) << result.error;
  EXPECT_EQ(result.standardOutput, "yyyyyyyyyy");
  EXPECT_EQ(result.standardError, "tail\n");
}

TEST(ProcessRunnerTest, TwentyRunsLeakNoDescriptorAndLeaveNoZombie) {
  const std::size_t before = openDescriptorCount();
  for (int i = 0; i < 20; ++i) {
    RunRequest request = shell(i % 2 == 0 ? "cat; echo err >&2" : "exit 2");
    request.input = "x";
    const RunResult result = run(request);
    EXPECT_EQ(result.status, RunStatus::Exited);
  }
  RunRequest timeout;
  timeout.executable = "sleep";
  timeout.arguments = {"5"};
  timeout.timeoutMs = 50;
  EXPECT_EQ(run(timeout).status, RunStatus::TimedOut);
  EXPECT_EQ(openDescriptorCount(), before);
  int status = 0;
  errno = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ProcessRunnerTest, ConcurrentRunsAreIndependent) {
  std::vector<RunResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&results, i] {
      RunRequest request;
      request.executable = "cat";
      request.input = "run " + std::to_string(i) + std::string(200000, '.');
      results[i] = run(request);
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(results[i].succeeded()) << results[i].error;
    EXPECT_THAT(results[i].standardOutput, StartsWith("run " + std::to_string(i) + "."));
    EXPECT_EQ(results[i].standardOutput.size(), 4 + std::to_string(i).size() + 200000);
  }
}

TEST(ProcessRunnerTest, ScratchDirectoriesAreFreshDistinctAndRemovedWithContent) {
  std::string firstPath;
  {
    const ScratchDirectory first;
    const ScratchDirectory second;
    firstPath = first.path();
    EXPECT_NE(first.path(), second.path());
    EXPECT_TRUE(Poco::Path(first.path()).isAbsolute());
    ASSERT_TRUE(Poco::File(first.path()).isDirectory());
    // Random names of our own, private to the person: never Poco's "tmp<pid>..."
    // that the next process with a reused pid would take for its own temp file.
    EXPECT_THAT(Poco::Path(first.path()).getFileName(), StartsWith("antidrift-"));
    struct stat info {};
    ASSERT_EQ(::stat(first.path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0700u);
    std::vector<std::string> entries;
    Poco::File(first.path()).list(entries);
    EXPECT_TRUE(entries.empty());
    Poco::File(first.path() + "/nested/deeper").createDirectories();
    std::ofstream(first.path() + "/nested/file.txt") << "content";
  }
  EXPECT_FALSE(Poco::File(firstPath).exists());
}

TEST(ProcessRunnerTest, ScratchParentsPreferTmpdirThenTheServiceAndSessionRuntimeDirectories) {
  // Issue 17 item 1: under the unit's ProtectSystem=strict, /tmp is read-only;
  // the runtime directories are where a service may write.
  std::map<std::string, std::string> variables{{"TMPDIR", "/run/user/1000/antidrift/"},
                                               {"RUNTIME_DIRECTORY", "/run/user/1000/antidrift:/x"},
                                               {"XDG_RUNTIME_DIR", "/run/user/1000"}};
  const auto lookup = [&variables](const std::string& name) {
    const auto found = variables.find(name);
    return found == variables.end() ? std::string() : found->second;
  };
  EXPECT_THAT(scratchParents(lookup),
              ::testing::ElementsAre("/run/user/1000/antidrift", "/run/user/1000", P_tmpdir));
  variables = {{"TMPDIR", "relative/dir"}, {"XDG_RUNTIME_DIR", "/run/user/7"}};
  EXPECT_THAT(scratchParents(lookup), ::testing::ElementsAre("/run/user/7", P_tmpdir));
  variables.clear();
  EXPECT_THAT(scratchParents(lookup), ::testing::ElementsAre(P_tmpdir));
}

TEST(ProcessRunnerTest, AScratchDirectoryFallsBackPastAPlaceItCannotWriteAndNamesEveryFailure) {
  const ScratchDirectory parent;
  const std::string notAFolder = parent.path() + "/a-file";  // fails for root too
  std::ofstream(notAFolder) << "x";
  const std::string missing = parent.path() + "/missing";
  const std::string writable = parent.path() + "/writable";
  ASSERT_EQ(::mkdir(writable.c_str(), 0700), 0);
  {
    const ScratchDirectory inside({notAFolder, writable});
    EXPECT_EQ(Poco::Path(inside.path()).parent().toString(), writable + "/");
  }
  {
    const ScratchDirectory inside({missing, writable});
    EXPECT_EQ(Poco::Path(inside.path()).parent().toString(), writable + "/");
  }
  try {
    const ScratchDirectory none({missing, missing + "-too"});
    FAIL() << "made " << none.path();
  } catch (const Poco::CreateFileException& error) {
    EXPECT_THAT(error.displayText(), HasSubstr(missing + ": No such file or directory"));
    EXPECT_THAT(error.displayText(), HasSubstr(missing + "-too: No such file or directory"));
  }
}

TEST(ProcessRunnerTest, MessageHelpers) {
  EXPECT_EQ(formatSeconds(30000), "30 s");
  EXPECT_EQ(formatSeconds(1500), "1.5 s");
  EXPECT_EQ(formatSeconds(50), "0.1 s");
  EXPECT_EQ(lastLine("one\ntwo  \n\n  \n"), "two");
  EXPECT_EQ(lastLine(""), "");
  EXPECT_EQ(lastLine("\n\n"), "");
  EXPECT_EQ(shorten("  abcdef  ", 3), "abc\xE2\x80\xA6");
  EXPECT_EQ(shorten("\xC3\xA9\xC3\xA9", 3), "\xC3\xA9\xE2\x80\xA6");  // no split é
  EXPECT_EQ(shorten("short"), "short");
}

}  // namespace
}  // namespace antidrift::runner
