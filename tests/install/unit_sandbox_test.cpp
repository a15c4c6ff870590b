// The installed daemon the way antidrift.service runs it (issue 17 item 1;
// docs/TECH-NOTES.md §8 "emulating the unit's sandbox"). Where systemd is not
// PID 1 (CI containers, this machine) the unit's own settings are read from
// the installed file and applied by unit_sandbox: ProtectSystem=strict as a
// private mount namespace with everything read-only except ReadWritePaths=
// and the runtime directory, RestrictAddressFamilies= as a seccomp filter on
// socket(2), Environment=, RuntimeDirectory= and the ExecStartPre= line run
// as systemd runs them. Root only (a mount namespace); skipped otherwise.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/File.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/String.h>

#include "integration/http_test_support.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

/// The [Service] section of a unit file: each key's values in file order.
std::multimap<std::string, std::string> serviceSection(const std::string& unitFile) {
  std::multimap<std::string, std::string> service;
  std::istringstream lines(test::readWholeFile(unitFile));
  std::string section;
  for (std::string line; std::getline(lines, line);) {
    line = Poco::trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = line;
      continue;
    }
    const std::size_t equals = line.find('=');
    if (section == "[Service]" && equals != std::string::npos) {
      service.emplace(line.substr(0, equals), line.substr(equals + 1));
    }
  }
  return service;
}

std::vector<std::string> values(const std::multimap<std::string, std::string>& service,
                                const std::string& key) {
  std::vector<std::string> found;
  const auto range = service.equal_range(key);
  for (auto it = range.first; it != range.second; ++it) found.push_back(it->second);
  return found;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

/// The octal permission bits of `path`, e.g. "700"; "" when it does not exist.
std::string modeOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";
  std::ostringstream mode;
  mode << std::oct << (info.st_mode & 07777);
  return mode.str();
}

std::string firstLineOf(const std::string& path) {
  std::string text = test::readWholeFile(path);
  return text.substr(0, text.find('\n'));
}

class UnitSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) {
      GTEST_SKIP() << "not root: the unit's sandbox is emulated in a private mount namespace, "
                      "which needs root (CI runs this as root)";
    }
    prefix_ = directory_.path() + "/prefix";
    const test::ChildResult install = test::runToCompletion(
        CMAKE_COMMAND_PATH, {"--install", ANTIDRIFT_BUILD_DIR, "--prefix", prefix_}, {});
    ASSERT_EQ(install.exitCode, 0) << install.out << install.err;
    service_ = serviceSection(prefix_ + "/lib/systemd/user/antidrift.service");
    home_ = directory_.path() + "/home";
    runtime_ = directory_.path() + "/runtime";
    Poco::File(home_).createDirectories();
    Poco::File(runtime_).createDirectories();
    ASSERT_EQ(::chmod(runtime_.c_str(), 0700), 0);

    // A stand-in claude CLI on the PATH: it records where it ran and whether
    // /tmp was writable, makes a temporary file as the real CLI does, and
    // answers the coach in Claude Code's JSON envelope.
    const std::string bin = directory_.path() + "/bin";
    Poco::File(bin).createDirectories();
    std::ofstream(bin + "/claude")
        << "#!/bin/sh\n"
           "cat > /dev/null\n"
           "pwd > \"$RUNTIME_DIRECTORY/claude.cwd\"\n"
           "if touch /tmp/antidrift-probe.$$ 2>/dev/null; then rm -f /tmp/antidrift-probe.$$;"
           " echo writable; else echo read-only; fi > \"$RUNTIME_DIRECTORY/claude.tmp\"\n"
           "t=$(mktemp) && rm \"$t\" && echo \"$t\" > \"$RUNTIME_DIRECTORY/claude.mktemp\"\n"
           "printf '%s' '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
           "\"result\":\"{\\\"next_action\\\":\\\"Outline the report\\\",\\\"success_condition\\\":"
           "\\\"an outline exists\\\",\\\"timebox_minutes\\\":25}\"}'\n";
    ASSERT_EQ(::chmod((bin + "/claude").c_str(), 0755), 0);
    path_ = bin + ":/usr/local/bin:/usr/bin:/bin";
  }

  /// `value` with the unit's specifiers %h and %t expanded.
  std::string expand(std::string value) const {
    for (const auto& [specifier, replacement] :
         std::map<std::string, std::string>{{"%h", home_}, {"%t", runtime_}}) {
      for (std::size_t at = value.find(specifier); at != std::string::npos;
           at = value.find(specifier, at + replacement.size())) {
        value.replace(at, specifier.size(), replacement);
      }
    }
    return value;
  }

  /// What systemd does before ExecStart=: the ExecStartPre= lines ("+" runs
  /// them outside the sandbox) and RuntimeDirectory= with its mode.
  void prepareAsSystemdDoes() {
    for (const std::string& line : values(service_, "ExecStartPre")) {
      std::vector<std::string> argv = words(expand(line));
      ASSERT_FALSE(argv.empty());
      if (argv[0][0] == '+') argv[0].erase(0, 1);
      const std::string program = argv[0];
      argv.erase(argv.begin());
      const test::ChildResult pre = test::runToCompletion(program, argv, {});
      ASSERT_EQ(pre.exitCode, 0) << line << ": " << pre.err;
    }
    const std::vector<std::string> runtimeDirectory = values(service_, "RuntimeDirectory");
    ASSERT_EQ(runtimeDirectory.size(), 1u) << "the unit names one RuntimeDirectory=";
    serviceRuntime_ = runtime_ + "/" + runtimeDirectory[0];
    Poco::File(serviceRuntime_).createDirectories();
    const std::vector<std::string> mode = values(service_, "RuntimeDirectoryMode");
    ASSERT_EQ(::chmod(serviceRuntime_.c_str(),
                      static_cast<mode_t>(std::stoi(mode.empty() ? "0755" : mode[0], nullptr, 8))),
              0);
  }

  /// The unit_sandbox command line for the unit's ExecStart= plus `extra`;
  /// `families` replaces RestrictAddressFamilies= when not empty.
  std::vector<std::string> sandboxedCommand(const std::vector<std::string>& extra,
                                            const std::string& families = "") const {
    std::vector<std::string> args;
    EXPECT_EQ(values(service_, "ProtectSystem"), std::vector<std::string>{"strict"});
    for (const std::string& line : values(service_, "ReadWritePaths")) {
      for (std::string path : words(expand(line))) {
        const bool optional = path[0] == '-';
        if (optional) path.erase(0, 1);
        if (optional && !Poco::File(path).exists()) continue;
        args.insert(args.end(), {"--rw", path});
      }
    }
    // ProtectSystem=strict leaves /run/user (the runtime directory) writable.
    args.insert(args.end(), {"--rw", runtime_});
    std::string restricted = families;
    if (restricted.empty()) {
      const std::vector<std::string> lines = values(service_, "RestrictAddressFamilies");
      EXPECT_EQ(lines.size(), 1u);
      for (const std::string& family : words(lines.empty() ? "" : lines[0])) {
        restricted += (restricted.empty() ? "" : ",") + family;
      }
    }
    args.insert(args.end(), {"--families", restricted});
    // A user service's environment: the manager's few variables, then Environment=.
    for (const std::string& variable : std::vector<std::string>{
             "HOME=" + home_, "PATH=" + path_, "USER=root", "LOGNAME=root",
             "XDG_RUNTIME_DIR=" + runtime_, "RUNTIME_DIRECTORY=" + serviceRuntime_}) {
      args.insert(args.end(), {"--env", variable});
    }
    for (const std::string& line : values(service_, "Environment")) {
      for (const std::string& assignment : words(expand(line))) {
        args.insert(args.end(), {"--env", assignment});
      }
    }
    args.push_back("--");
    const std::vector<std::string> execStart = values(service_, "ExecStart");
    EXPECT_EQ(execStart.size(), 1u);
    for (const std::string& word : words(execStart.empty() ? "" : execStart[0])) {
      args.push_back(word);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  test::TempDirectory directory_;
  std::string prefix_;
  std::string home_;
  std::string runtime_;
  std::string serviceRuntime_;
  std::string path_;
  std::multimap<std::string, std::string> service_;
};

TEST_F(UnitSandboxTest, TheCoachAnswersThroughClaudeOnThePathAndThePeerCheckUsesSockDiag) {
  // The store already exists, group- and world-readable, as `mkdir -p`
  // under the default umask left it before issue 17.
  const std::string store = home_ + "/.local/share/antidrift";
  Poco::File(store).createDirectories();
  ASSERT_EQ(::chmod(store.c_str(), 0755), 0);
  prepareAsSystemdDoes();

  test::RunningDaemon daemon(UNIT_SANDBOX_PATH,
                             // claude named explicitly: the stand-in has no login for auto to find
                             // (issue 18 item 2); this test is about the sandbox.
                             sandboxedCommand({"-D", "server.port=0", "-D", "evidence.x11=false",
                                               "-D", "ai.backend=claude"}),
                             {});
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.stop() << daemon.err();
  std::string token = test::readWholeFile(store + "/token");
  token.erase(token.find_last_not_of('\n') + 1);
  test::RequestOptions options;
  options.token = token;
  test::SseRecorder events(daemon.port());
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
  const test::Reply asked = test::sendRequest(daemon.port(), "POST", "/coach",
                                              R"({"intent":"write the report"})", options);
  ASSERT_EQ(asked.status, 200) << asked.body;

  Poco::JSON::Object::Ptr coach;
  const bool answered = events.waitUntil(
      [&](const std::vector<test::SseEvent>& seen) {
        if (seen.empty()) return false;
        Poco::JSON::Parser parser;
        const auto state = parser.parse(seen.back().data).extract<Poco::JSON::Object::Ptr>();
        coach = state->getObject("coach");
        return !coach.isNull() && coach->getValue<std::string>("status") != "pending" &&
               coach->getValue<std::string>("status") != "idle";
      },
      std::chrono::seconds(30));
  events.close();
  ASSERT_EQ(daemon.stop(), 0) << daemon.err();
  ASSERT_TRUE(answered) << daemon.err();
  std::ostringstream shown;
  coach->stringify(shown);
  ASSERT_EQ(coach->getValue<std::string>("status"), "ready") << shown.str() << daemon.err();
  EXPECT_EQ(coach->getObject("proposal")->getValue<std::string>("next_action"),
            "Outline the report");
  EXPECT_THAT(daemon.err(), Not(HasSubstr("scratch directory")));

  // It ran in a scratch directory under the unit's runtime directory, with
  // /tmp read-only around it, and its own temporary file followed $TMPDIR.
  EXPECT_THAT(firstLineOf(serviceRuntime_ + "/claude.cwd"), StartsWith(serviceRuntime_ + "/"));
  EXPECT_EQ(firstLineOf(serviceRuntime_ + "/claude.tmp"), "read-only")
      << "the emulated ProtectSystem=strict did not make /tmp read-only";
  EXPECT_THAT(firstLineOf(serviceRuntime_ + "/claude.mktemp"), StartsWith(serviceRuntime_ + "/"));

  // The peer check asks the kernel (AF_NETLINK is allowed), and the store
  // that existed as 0755 is 0700 now.
  EXPECT_THAT(daemon.err(), HasSubstr("peer check: sock_diag"));
  EXPECT_EQ(modeOf(store), "700");
  EXPECT_THAT(daemon.err(), HasSubstr("was mode 0755; tightened to 0700"));
}

// The control: the same sandbox without AF_NETLINK makes the daemon say it
// falls back to /proc/net/tcp, so the test above would catch a unit that lost
// AF_NETLINK again.
TEST_F(UnitSandboxTest, WithoutAfNetlinkThePeerCheckSaysItReadsProcNetTcp) {
  prepareAsSystemdDoes();
  test::RunningDaemon daemon(
      UNIT_SANDBOX_PATH,
      sandboxedCommand({"-D", "server.port=0", "-D", "evidence.x11=false", "-D", "ai.backend=none"},
                       "AF_UNIX,AF_INET,AF_INET6"),
      {});
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.stop() << daemon.err();
  EXPECT_EQ(test::sendRequest(daemon.port(), "GET", "/healthz").status, 200);
  ASSERT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), HasSubstr("peer check: /proc/net/tcp (sock_diag unavailable: Address "
                                      "family not supported by protocol)"));
}

}  // namespace
}  // namespace antidrift
