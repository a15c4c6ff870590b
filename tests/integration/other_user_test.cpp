// No one else gets in (issue 9 item 3, docs/SECURITY.md "Other local
// users"): a request from a second Unix user, created here, is refused with
// 403 JSON on every kind of route — the page (which carries the token),
// /state, /events, the ActivityWatch API and a POST with the right token —
// over IPv4 and IPv6 loopback, and the state is unchanged; the daemon's own
// user is served on the same server.
//
// Needs root (useradd, runuser) and curl; skipped otherwise, with the reason.
#include <unistd.h>

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include "in_process_daemon.h"
#include "server/api_server.h"

namespace antidrift {
namespace {

using ::testing::HasSubstr;

/// A system user without home or login shell, created on first use and left
/// in place (harmless; the next run reuses it).
constexpr const char* kOtherUser = "antidrift-test-peer";

struct Output {
  int exitCode = -1;
  std::string out;
};

/// Runs `program` with `args`, stdout captured, stderr discarded.
Output runProgram(const std::string& program, const std::vector<std::string>& args) {
  Poco::Pipe outPipe;
  Poco::ProcessHandle handle =
      Poco::Process::launch(program, args, nullptr, &outPipe, nullptr, Poco::Process::Env());
  Output result;
  Poco::PipeInputStream out(outPipe);
  Poco::StreamCopier::copyToString(out, result.out);
  result.exitCode = handle.wait();
  return result;
}

/// True when `program` is on $PATH.
bool onPath(const std::string& program) {
  Poco::Path found;
  return Poco::Path::find(Poco::Environment::get("PATH", ""), program, found);
}

/// Creates kOtherUser unless it exists; "" on success, else why not.
std::string ensureOtherUser() {
  if (runProgram("id", {"-u", kOtherUser}).exitCode == 0) {
    return "";
  }
  const Output created = runProgram(
      "useradd", {"--system", "--no-create-home", "--shell", "/usr/sbin/nologin", kOtherUser});
  // Exit 9: created meanwhile by a parallel run.
  if (created.exitCode != 0 && created.exitCode != 9) {
    return "useradd " + std::string(kOtherUser) + " failed with exit code " +
           std::to_string(created.exitCode);
  }
  return "";
}

/// Status code and body of one curl request sent as `user` (runuser), or as
/// this process's user when `user` is empty.
struct CurlReply {
  int status = 0;
  std::string body;
};

CurlReply curlAs(const std::string& user, const std::string& method, const std::string& url,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args;
  std::string program = "curl";
  if (!user.empty()) {
    program = "runuser";
    args = {"-u", user, "--", "curl"};
  }
  // The status goes on its own last line after the body.
  for (const std::string& arg :
       {std::string("-s"), std::string("--max-time"), std::string("10"), std::string("-X"), method,
        std::string("-w"), std::string("\n%{http_code}"), url}) {
    args.push_back(arg);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  const Output output = runProgram(program, args);
  CurlReply reply;
  const std::size_t newline = output.out.rfind('\n');
  if (newline != std::string::npos) {
    reply.body = output.out.substr(0, newline);
    reply.status = std::atoi(output.out.c_str() + newline + 1);
  }
  return reply;
}

class OtherUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) {
      GTEST_SKIP() << "needs root to create a second Unix user (useradd) and run as it";
    }
    if (!onPath("curl") || !onPath("runuser")) {
      GTEST_SKIP() << "needs curl and runuser (scripts/deps.sh test installs curl)";
    }
    const std::string problem = ensureOtherUser();
    ASSERT_EQ(problem, "");
  }
};

TEST_F(OtherUserTest, AnotherUserIsRefusedEverywhereAndTheOwnerIsServed) {
  test::InProcessDaemon::Options options;
  options.wwwFiles = {{"index.html", "<meta content=\"{{ANTIDRIFT_TOKEN}}\">"}};
  test::InProcessDaemon daemon(options);
  // The same API on IPv6 loopback as well.
  ApiServerOptions v6Options;
  v6Options.address = "::1";
  v6Options.port = 0;
  v6Options.threads = 4;
  ApiServer v6(daemon.api(), daemon.broadcaster(), v6Options);
  v6.start();

  const std::vector<std::string> post = {
      "-H",     "Content-Type: application/json",
      "-H",     std::string("X-AntiDrift-Token: ") + test::kToken,
      "--data", "{}"};
  for (const std::string& base :
       {"http://127.0.0.1:" + std::to_string(daemon.port()), v6.baseUrl()}) {
    for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
             {"GET", "/"},
             {"GET", "/index.html"},
             {"GET", "/state"},
             {"GET", "/events"},
             {"GET", "/healthz"},
             {"GET", "/history"},
             {"GET", "/api/0/info"},
             {"GET", "/no-such-file"},
             {"POST", "/planning"},
             {"POST", "/api/0/buckets/aw-watcher-window_x/heartbeat?pulsetime=5"}}) {
      const CurlReply refused = curlAs(kOtherUser, method, base + path,
                                       method == "POST" ? post : std::vector<std::string>{});
      EXPECT_EQ(refused.status, 403) << method << " " << base << path << ": " << refused.body;
      EXPECT_EQ(refused.body, R"({"error":"only the user running antidriftd may use it"})")
          << method << " " << base << path;
      EXPECT_EQ(refused.body.find(test::kToken), std::string::npos);
    }
    // The owner, on the same server and with the same requests.
    const CurlReply page = curlAs("", "GET", base + "/");
    EXPECT_EQ(page.status, 200) << page.body;
    EXPECT_THAT(page.body, HasSubstr(test::kToken));
    EXPECT_EQ(curlAs("", "GET", base + "/state").status, 200);
  }
  // Nothing the other user sent changed anything.
  EXPECT_EQ(daemon.controller().state().runtime, RuntimeState::Locked);
  const CurlReply planning =
      curlAs("", "POST", "http://127.0.0.1:" + std::to_string(daemon.port()) + "/planning", post);
  EXPECT_EQ(planning.status, 200) << planning.body;
  EXPECT_EQ(daemon.controller().state().runtime, RuntimeState::Planning);
  v6.stop();
}

}  // namespace
}  // namespace antidrift
