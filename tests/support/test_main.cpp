// The main() of every GoogleTest executable here (library antidrift_test_main,
// in place of GTest::gmock_main): runs the tests with $TMPDIR set to a private
// directory of this process, made by mkdtemp(3) and removed at exit.
//
// Why: Poco::TemporaryFile names are "tmp" + the pid + a per-process counter,
// so the first temporary file of every process with a given pid has the same
// name. Pids wrap (/proc/sys/kernel/pid_max is 32768 on many machines, and a CI
// run starts tens of thousands of processes), and a file or directory left by
// a killed process then sits exactly where a later test writes its own: the
// CI run of 9e847ca failed once that way (planning.LoadProfile.*). Inside a
// fresh private directory no leftover can be in the way, and whatever a
// test's children leave behind goes with it.
//
// It also points $DBUS_SESSION_BUS_ADDRESS at a bus that does not exist: the
// daemons and notifiers a test starts (notify.desktop and
// focus.do_not_disturb default to auto, issue 17 items 2 and 3) must never
// notify on, or pause, the developer's own notification server. A test that
// wants a bus starts its own (dbus-run-session) and sets the address itself.
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include <gmock/gmock.h>

namespace {

/// Makes `$TMPDIR/antidrift-test-XXXXXX` (or under /tmp), sets $TMPDIR to it
/// for this process and its children, and removes it with its content when
/// destroyed. On failure it leaves $TMPDIR alone and says so on stderr.
class PrivateTempDirectory {
 public:
  PrivateTempDirectory() {
    const char* parent = std::getenv("TMPDIR");
    std::string pattern = (parent != nullptr && *parent != '\0') ? parent : "/tmp";
    if (pattern.back() != '/') pattern.push_back('/');
    pattern += "antidrift-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::cerr << "test_main: cannot create " << pattern << ": " << std::strerror(errno)
                << "; tests use the inherited TMPDIR\n";
      return;
    }
    // mkdtemp makes it 0700; 0755 lets a test's helper run as another user
    // (the headless sway of tests/e2e runs as a system user) reach its own
    // folders inside, as it could in /tmp.
    ::chmod(pattern.c_str(), 0755);
    path_ = pattern;
    ::setenv("TMPDIR", path_.c_str(), 1);
  }
  ~PrivateTempDirectory() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateTempDirectory(const PrivateTempDirectory&) = delete;
  PrivateTempDirectory& operator=(const PrivateTempDirectory&) = delete;

 private:
  std::string path_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleMock(&argc, argv);
  const PrivateTempDirectory temp;
  ::setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/antidrift-tests-have-no-session-bus",
           1);
  return RUN_ALL_TESTS();
}
