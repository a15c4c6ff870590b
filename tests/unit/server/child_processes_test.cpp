// Ending the daemon's child processes at shutdown (issue 9 item 7):
// /proc/<pid>/stat parsing, the children of a process, and a whole process
// tree under setsid ended while the "executor" waits for it.
#include "server/child_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

namespace antidrift {
namespace {

TEST(ParseProcessStat, ReadsPidStateParentAndGroup) {
  const auto stat = parseProcessStat(
      "4242 (claude) S 4000 4242 4242 0 -1 4194560 1000 0 0 0 5 3 0 0 20 0 1 0 9999\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->parentPid, 4000);
  EXPECT_EQ(stat->processGroup, 4242);
}

TEST(ParseProcessStat, ACommandNameWithSpacesAndParenthesesIsSkipped) {
  const auto stat = parseProcessStat("77 (a) b (c) Z 1 70 70 0 -1\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 77);
  EXPECT_EQ(stat->state, 'Z');
  EXPECT_EQ(stat->parentPid, 1);
  EXPECT_EQ(stat->processGroup, 70);
}

TEST(ParseProcessStat, MalformedTextIsNullopt) {
  for (const char* text : {"", "garbage", "12 (x", "x (y) S 1 2", "12 (y) SS 1 2", "12 (y) S 1",
                           "12 (y) S 1 -5", "-3 (y) S 1 2"}) {
    EXPECT_FALSE(parseProcessStat(text)) << text;
  }
}

/// Waits until the process behind `pidFd` (pidfd_open) has exited, or
/// `timeout` passes; true if it exited.
bool waitForExit(int pidFd, std::chrono::milliseconds timeout) {
  pollfd ready{pidFd, POLLIN, 0};
  return ::poll(&ready, 1, static_cast<int>(timeout.count())) == 1;
}

TEST(RunWhileEndingChildren, EndsAWholeTreeUnderSetsidAtOnce) {
  // Like an AI CLI that started a helper: both sleep a minute. The script
  // reports both pids on stdout, then waits.
  Poco::Pipe out;
  Poco::ProcessHandle handle = Poco::Process::launch(
      "setsid", {"sh", "-c", "sleep 60 & echo $$; echo $!; wait"}, nullptr, &out, nullptr);
  Poco::PipeInputStream lines(out);
  pid_t leader = 0;
  pid_t helper = 0;
  ASSERT_TRUE(lines >> leader >> helper);
  EXPECT_EQ(leader, handle.id());
  ASSERT_EQ(listChildren(::getpid()).size(), 1u);
  const int helperFd = static_cast<int>(::syscall(SYS_pidfd_open, helper, 0));
  ASSERT_GE(helperFd, 0);

  const auto start = std::chrono::steady_clock::now();
  int code = -1;
  runWhileEndingChildren([&] { code = handle.wait(); }, std::chrono::milliseconds(500));
  const auto elapsed = std::chrono::steady_clock::now() - start;

  EXPECT_LT(elapsed, std::chrono::seconds(2));
  EXPECT_EQ(code, 256 + SIGTERM);
  // The helper got the signal too; it ends (asynchronously) within moments.
  EXPECT_TRUE(waitForExit(helperFd, std::chrono::seconds(2)))
      << "the helper in the same group must end too";
  ::close(helperFd);
  EXPECT_TRUE(listChildren(::getpid()).empty());
}

TEST(RunWhileEndingChildren, AChildIgnoringSigtermGetsSigkillAfterTheGrace) {
  Poco::Pipe out;
  Poco::ProcessHandle handle = Poco::Process::launch(
      "setsid", {"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"}, nullptr, &out,
      nullptr);
  Poco::PipeInputStream lines(out);
  std::string ready;
  ASSERT_TRUE(std::getline(lines, ready));

  const auto start = std::chrono::steady_clock::now();
  int code = -1;
  runWhileEndingChildren([&] { code = handle.wait(); }, std::chrono::milliseconds(200));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(code, 256 + SIGKILL);
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST(RunWhileEndingChildren, WithoutChildrenItJustRunsTheWork) {
  bool ran = false;
  runWhileEndingChildren([&] { ran = true; }, std::chrono::milliseconds(500));
  EXPECT_TRUE(ran);
}

TEST(RunWhileEndingChildren, RethrowsWhatTheWorkThrew) {
  EXPECT_THROW(runWhileEndingChildren([] { throw std::runtime_error("boom"); },
                                      std::chrono::milliseconds(500)),
               std::runtime_error);
}

}  // namespace
}  // namespace antidrift
