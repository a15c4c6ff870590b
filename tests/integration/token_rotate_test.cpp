// `antidrift token --rotate` against the real antidriftd (both binaries as
// child processes, the daemon on an ephemeral port; issue 19 item 7, review
// L10): the old token is refused at once, the new one is in the file with
// mode 0600, the CLI's later calls work, open event streams are told, and
// with the daemon stopped the CLI rotates the file itself.
#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/drift/rules.h"
#include "http_test_support.h"
#include "server/token_file.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif
#ifndef ANTIDRIFT_CLI_PATH
#error "ANTIDRIFT_CLI_PATH must name the antidrift binary"
#endif
#ifndef STORE_LOCK_HOLDER_PATH
#error "STORE_LOCK_HOLDER_PATH must name the antidrift_store_lock_holder binary"
#endif

namespace antidrift {
namespace {

using test::ChildResult;
using test::RunningDaemon;
using ::testing::HasSubstr;

constexpr std::chrono::milliseconds kDeadline = std::chrono::seconds(15);

class TokenRotateTest : public ::testing::Test {
 protected:
  TokenRotateTest() : store_(directory_.path() + "/store") {
    // No user configuration file may leak into the test.
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment_["XDG_DATA_HOME"] = directory_.path() + "/data";
  }

  /// Starts antidriftd on an ephemeral port with no AI and no evidence source.
  void startDaemon() {
    daemon_ = std::make_unique<RunningDaemon>(
        ANTIDRIFTD_PATH,
        std::vector<std::string>{"-D", "server.port=0", "-D", "store.dir=" + store_, "-D",
                                 "evidence.x11=false", "-D", "evidence.source=none", "-D",
                                 "ai.backend=none"},
        environment_);
    ASSERT_NE(daemon_->port(), 0) << daemon_->firstLine();
  }

  /// Runs `antidrift -D server.port=<port> -D store.dir=<store> <args>`.
  ChildResult cli(const std::vector<std::string>& args, std::uint16_t port) {
    std::vector<std::string> all = {"-D", "server.port=" + std::to_string(port), "-D",
                                    "store.dir=" + store_};
    all.insert(all.end(), args.begin(), args.end());
    return test::runToCompletion(ANTIDRIFT_CLI_PATH, all, environment_);
  }

  /// The token file's content without its newline.
  std::string fileToken() const {
    std::string token = test::readWholeFile(store_ + "/token");
    token.erase(token.find_last_not_of('\n') + 1);
    return token;
  }

  mode_t fileMode() const {
    struct stat info {};
    EXPECT_EQ(::lstat((store_ + "/token").c_str(), &info), 0);
    EXPECT_TRUE(S_ISREG(info.st_mode));
    return info.st_mode & 07777;
  }

  /// The daemon's arguments of startDaemon().
  std::vector<std::string> daemonArguments() const {
    return {"-D", "server.port=0",        "-D", "store.dir=" + store_, "-D", "evidence.x11=false",
            "-D", "evidence.source=none", "-D", "ai.backend=none"};
  }

  /// antidrift_store_lock_holder on the store: returns once it holds the lock
  /// (its pid in `pid`), as the CLI's offline rotation holds it.
  std::unique_ptr<test::PipedChild> holdTheLock(std::string& pid) {
    auto holder = std::make_unique<test::PipedChild>(
        STORE_LOCK_HOLDER_PATH, std::vector<std::string>{store_}, environment_);
    std::string line;
    EXPECT_TRUE(holder->readOutLine(line, kDeadline)) << "the lock holder did not start";
    EXPECT_EQ(line, "held " + std::to_string(holder->pid()));
    pid = std::to_string(holder->pid());
    return holder;
  }

  /// POST /planning with `token` in X-AntiDrift-Token: the status.
  int planWith(const std::string& token) {
    test::RequestOptions options;
    options.token = token;
    return test::sendRequest(daemon_->port(), "POST", "/planning", "{}", options).status;
  }

  test::TempDirectory directory_;
  std::string store_;
  Poco::Process::Env environment_;
  std::unique_ptr<RunningDaemon> daemon_;
};

bool isHexToken(const std::string& token) {
  return std::regex_match(token, std::regex("[0-9a-f]{64}"));
}

TEST_F(TokenRotateTest, TheRunningDaemonRefusesTheOldTokenAtOnceAndTheCliGoesOn) {
  startDaemon();
  const std::string old = fileToken();
  ASSERT_TRUE(isHexToken(old)) << old;
  test::SseRecorder before(daemon_->port());
  ASSERT_EQ(before.status(), 200);
  ASSERT_TRUE(before.waitForRuntime("locked"));

  const ChildResult rotated = cli({"token", "--rotate"}, daemon_->port());
  ASSERT_EQ(rotated.exitCode, 0) << rotated.err;
  EXPECT_THAT(rotated.out,
              HasSubstr("rotated the token: antidriftd on " + daemon_->url() +
                        " accepts only the new one from now on; it is in " + store_ + "/token\n"));
  EXPECT_THAT(rotated.out,
              HasSubstr("open AntiDrift pages must be reloaded (" + daemon_->url() + "/)\n"));

  // The file holds a new strong token, written with the same mode.
  const std::string fresh = fileToken();
  EXPECT_TRUE(isHexToken(fresh)) << fresh;
  EXPECT_NE(fresh, old);
  EXPECT_EQ(fileMode(), 0600u);

  // The old token is refused in both headers; the new one is accepted.
  EXPECT_EQ(planWith(old), 403);
  test::RequestOptions bearer;
  bearer.authorization = "Bearer " + old;
  const test::Reply refused = test::sendRequest(daemon_->port(), "POST", "/planning", "{}", bearer);
  EXPECT_EQ(refused.status, 403);
  const test::Reply oldHeader = [&] {
    test::RequestOptions options;
    options.token = old;
    return test::sendRequest(daemon_->port(), "POST", "/planning", "{}", options);
  }();
  EXPECT_THAT(oldHeader.field("error"), HasSubstr("if the token was rotated: reload the page"));
  EXPECT_EQ(planWith(fresh), 200);

  // The CLI reads the file anew on every call: its later calls work
  // (start POSTs /commitment with the token).
  const ChildResult started = cli(
      {"start", "--next", "Write the intro", "--done", "The intro is drafted", "--minutes", "25"},
      daemon_->port());
  EXPECT_EQ(started.exitCode, 0) << started.err;
  EXPECT_THAT(started.out, HasSubstr("runtime: active\n"));

  // The stream open before the rotation was told, and stays open: it
  // carries no token, and goes on to bring the States.
  ASSERT_TRUE(before.waitUntil([](const std::vector<test::SseEvent>& events) {
    for (const test::SseEvent& event : events) {
      if (event.event == "token") return true;
    }
    return false;
  }));
  ASSERT_TRUE(before.waitForRuntime("active"));
  const std::vector<test::SseEvent> events = before.events();
  int notices = 0;
  for (const test::SseEvent& event : events) {
    if (event.event != "token") continue;
    ++notices;
    EXPECT_EQ(event.data, R"({"rotated":true})");
  }
  EXPECT_EQ(notices, 1);
  // A stream opened after the rotation is not told.
  test::SseRecorder after(daemon_->port());
  ASSERT_TRUE(after.waitForRuntime("active"));
  for (const test::SseEvent& event : after.events()) EXPECT_EQ(event.event, "state");

  // The page served now carries the new token and the tag of the token the
  // daemon started with, which the drift rules know until it restarts.
  const test::Reply page = test::sendRequest(daemon_->port(), "GET", "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("content=\"" + fresh + "\""));
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr(old)));
  EXPECT_THAT(page.body,
              HasSubstr("name=\"antidrift-page-tag\" content=\"" + drift::ownPageTag(old) + "\""));

  // A second rotation: the first new token goes the same way.
  ASSERT_EQ(cli({"token", "--rotate", "--json"}, daemon_->port()).exitCode, 0);
  EXPECT_EQ(planWith(fresh), 403);
  EXPECT_EQ(fileMode(), 0600u);

  // After a restart the daemon uses the file's (newest) token.
  const std::string newest = fileToken();
  daemon_->stop();
  startDaemon();
  EXPECT_EQ(planWith(fresh), 403);
  EXPECT_EQ(planWith(newest), 409) << "accepted; planning needs locked, the session is active";
}

// A tab opened before `antidrift token --rotate` and a restart carries the tag
// of the earlier token: it is still AntiDrift's own page (neutral, never
// judged) until it reloads, and State page_tag tells it the new tag.
TEST_F(TokenRotateTest, AfterARotationAndARestartATabWithTheEarlierTagIsStillTheOwnPage) {
  startDaemon();
  const std::string earlierTag = drift::ownPageTag(fileToken());
  ASSERT_EQ(cli({"token", "--rotate"}, daemon_->port()).exitCode, 0);
  daemon_->stop();
  startDaemon();
  const std::string token = fileToken();
  const std::string tag = drift::ownPageTag(token);
  ASSERT_NE(tag, earlierTag);

  // Open pages learn the new tag from the State; a reload is served it.
  auto state = test::sendRequest(daemon_->port(), "GET", "/state").json();
  ASSERT_TRUE(state);
  EXPECT_EQ(state->getValue<std::string>("page_tag"), tag);
  const test::Reply page = test::sendRequest(daemon_->port(), "GET", "/");
  EXPECT_THAT(page.body, HasSubstr("name=\"antidrift-page-tag\" content=\"" + tag + "\""));
  // The store remembers both tags, and nothing but the owner reads them.
  EXPECT_EQ(test::readWholeFile(store_ + "/page-tags"), earlierTag + "\n" + tag + "\n");
  struct stat info {};
  ASSERT_EQ(::lstat((store_ + "/page-tags").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);

  ASSERT_EQ(
      cli({"start", "--next", "Write the blog post", "--done", "Post published", "--minutes", "25"},
          daemon_->port())
          .exitCode,
      0);
  test::RequestOptions options;
  options.token = token;
  const auto see = [&](const std::string& title) {
    Poco::JSON::Object body;
    body.set("app", "chromium");
    body.set("title", title);
    std::ostringstream text;
    body.stringify(text);
    EXPECT_EQ(
        test::sendRequest(daemon_->port(), "POST", "/evidence/window", text.str(), options).status,
        202);
    return test::sendRequest(daemon_->port(), "GET", "/state").json()->getObject("drift");
  };
  auto drift = see("24 min left · AntiDrift " + earlierTag + " - Chromium");
  EXPECT_EQ(drift->getValue<std::string>("reason"), "this is AntiDrift");
  drift = see("Holiday photos · AntiDrift " + tag + " - Chromium");
  EXPECT_EQ(drift->getValue<std::string>("reason"), "this is AntiDrift");
  // A tag this store never served is any page's.
  drift = see("Funny cats · AntiDrift 0123abcd - Chromium");
  EXPECT_NE(drift->getValue<std::string>("reason"), "this is AntiDrift");
  state = test::sendRequest(daemon_->port(), "GET", "/state").json();
  EXPECT_EQ(state->getObject("stats")->getObject("ai_calls")->getValue<int>("judge"), 0);
}

TEST_F(TokenRotateTest, TheOldTokenCannotRotateAndAWrongOneChangesNothing) {
  startDaemon();
  const std::string token = fileToken();
  const std::string wrong = directory_.path() + "/wrong-token";
  test::writeWholeFile(wrong, std::string(64, 'a') + "\n");
  const ChildResult refused = cli({"--token-file", wrong, "token", "--rotate"}, daemon_->port());
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_THAT(refused.err, HasSubstr("X-AntiDrift-Token header is not valid"));
  EXPECT_EQ(fileToken(), token);
  EXPECT_EQ(planWith(token), 200);

  // Without a token the route is 401, like every POST.
  test::RequestOptions none;
  EXPECT_EQ(test::sendRequest(daemon_->port(), "POST", "/token/rotate", "{}", none).status, 401);
  EXPECT_EQ(fileToken(), token);
}

TEST_F(TokenRotateTest, ATokenThatCannotBeWrittenIsA503AndTheOldOneStays) {
  startDaemon();
  const std::string token = fileToken();
  // The daemon's temporary file cannot be created: a directory has its name.
  const std::string temporary = store_ + "/token.tmp-" + std::to_string(daemon_->pid());
  ASSERT_EQ(::mkdir(temporary.c_str(), 0700), 0);
  const ChildResult failed = cli({"token", "--rotate"}, daemon_->port());
  EXPECT_EQ(failed.exitCode, 1);
  EXPECT_THAT(failed.err,
              HasSubstr("antidrift: cannot rotate the token: cannot create " + temporary));
  EXPECT_THAT(failed.err, HasSubstr("; the current token stays valid"));
  EXPECT_EQ(fileToken(), token);
  EXPECT_EQ(fileMode(), 0600u);
  EXPECT_EQ(planWith(token), 200);

  // Once it can be written, the rotation goes through.
  ASSERT_EQ(::rmdir(temporary.c_str()), 0);
  EXPECT_EQ(cli({"token", "--rotate"}, daemon_->port()).exitCode, 0);
  EXPECT_EQ(planWith(token), 403);
}

TEST_F(TokenRotateTest, AStaleTokenFileCopyIsNamed) {
  startDaemon();
  const std::string copy = directory_.path() + "/copy";
  test::writeWholeFile(copy, fileToken() + "\n");
  const ChildResult rotated = cli({"--token-file", copy, "token", "--rotate"}, daemon_->port());
  EXPECT_EQ(rotated.exitCode, 0) << rotated.err;
  EXPECT_THAT(rotated.err, HasSubstr(copy + " (--token-file) still holds the old token"));
}

TEST_F(TokenRotateTest, WithTheDaemonStoppedTheCliRotatesTheFileItself) {
  startDaemon();
  const std::string old = fileToken();
  daemon_->stop();
  daemon_.reset();

  // Port 1: nothing listens there.
  const ChildResult rotated = cli({"token", "--rotate"}, 1);
  ASSERT_EQ(rotated.exitCode, 0) << rotated.err;
  EXPECT_EQ(rotated.out, "rotated the token in " + store_ +
                             "/token (antidriftd is not running; it uses the new token when it "
                             "starts)\n");
  const std::string fresh = fileToken();
  EXPECT_TRUE(isHexToken(fresh)) << fresh;
  EXPECT_NE(fresh, old);
  EXPECT_EQ(fileMode(), 0600u);

  startDaemon();
  EXPECT_EQ(planWith(old), 403);
  EXPECT_EQ(planWith(fresh), 200);
}

TEST_F(TokenRotateTest, ADaemonThatHoldsTheStoreButDoesNotAnswerKeepsItsToken) {
  startDaemon();
  const std::string token = fileToken();
  // The CLI looks on the wrong port: the daemon holds the store's lock, so
  // rewriting the file would leave it accepting the old token.
  const ChildResult refused = cli({"token", "--rotate"}, 1);
  EXPECT_EQ(refused.exitCode, 69);
  EXPECT_THAT(refused.err, HasSubstr("antidriftd (pid " + std::to_string(daemon_->pid()) +
                                     ") uses " + store_ + " but does not answer on " +
                                     "http://127.0.0.1:1: the token was not rotated"));
  EXPECT_EQ(fileToken(), token);
  EXPECT_EQ(planWith(token), 200);
}

/// docs/SECURITY.md "N5": the CLI's offline rotation holds the store lock for
/// a moment; a daemon starting then waits for it, says what it waits for, and
/// starts once the lock is let go (it used to exit 75 blaming "another
/// antidriftd" with the CLI's pid, which the unit never restarts).
TEST_F(TokenRotateTest, ADaemonStartingDuringAnOfflineRotationWaitsAndStarts) {
  std::string holderPid;
  std::unique_ptr<test::PipedChild> holder = holdTheLock(holderPid);
  test::PipedChild daemon(ANTIDRIFTD_PATH, daemonArguments(), environment_);
  ASSERT_TRUE(daemon.awaitErr("the store " + store_ + " is locked by pid " + holderPid +
                                  " (antidrift_store), not an antidriftd; waiting up to 5 s",
                              kDeadline))
      << daemon.err();
  holder->closeInput();
  EXPECT_EQ(holder->waitForExit(kDeadline), std::optional<int>(0));

  std::string line;
  ASSERT_TRUE(daemon.readOutLine(line, kDeadline)) << daemon.err();
  std::smatch port;
  ASSERT_TRUE(std::regex_match(line, port,
                               std::regex(R"(antidriftd listening on http://127\.0\.0\.1:(\d+))")))
      << line;
  EXPECT_EQ(
      test::sendRequest(static_cast<std::uint16_t>(std::stoi(port[1])), "GET", "/healthz").status,
      200);
  Poco::Process::requestTermination(daemon.pid());
  EXPECT_EQ(daemon.waitForExit(kDeadline), std::optional<int>(0));
  EXPECT_EQ(test::readWholeFile(store_ + "/lock"), std::to_string(daemon.pid()) + "\n");
}

/// The wait is bounded: a lock another program keeps past it is exit 75, and
/// the message names that program and its pid — not "another antidriftd".
TEST_F(TokenRotateTest, ALockHeldPastTheWaitIsExit75NamingTheHolder) {
  std::string holderPid;
  std::unique_ptr<test::PipedChild> holder = holdTheLock(holderPid);
  const auto started = std::chrono::steady_clock::now();
  const ChildResult refused =
      test::runToCompletion(ANTIDRIFTD_PATH, daemonArguments(), environment_);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(refused.exitCode, 75) << refused.err;
  EXPECT_THAT(refused.err,
              HasSubstr("antidriftd: " + store_ + " is still locked by pid " + holderPid +
                        " (antidrift_store), not an antidriftd, after 5 s; "
                        "not started"));
  EXPECT_THAT(refused.err, ::testing::Not(HasSubstr("another antidriftd")));
  EXPECT_EQ(refused.out, "") << "it must not get as far as listening";
  EXPECT_GE(waited, std::chrono::seconds(5));
  holder->closeInput();
  EXPECT_EQ(holder->waitForExit(kDeadline), std::optional<int>(0));
}

/// The review's race with the real binaries: rotations with the daemon
/// stopped started together with the daemon, again and again. Every daemon
/// start listens (none exits 75); every rotation either rotates or finds the
/// daemon holding the store (69, the safe and reported case).
TEST_F(TokenRotateTest, RotationsRacingTheDaemonsStartNeverKeepItDown) {
  startDaemon();
  daemon_->stop();
  daemon_.reset();
  for (int round = 0; round < 40; ++round) {
    test::PipedChild rotation(
        ANTIDRIFT_CLI_PATH,
        {"-D", "server.port=1", "-D", "store.dir=" + store_, "token", "--rotate"}, environment_);
    test::PipedChild daemon(ANTIDRIFTD_PATH, daemonArguments(), environment_);
    std::string line;
    const bool listened = daemon.readOutLine(line, kDeadline);
    EXPECT_TRUE(listened && line.rfind("antidriftd listening on", 0) == 0)
        << "round " << round << ": " << line << " exit "
        << daemon.waitForExit(kDeadline).value_or(-1);
    const std::optional<int> rotated = rotation.waitForExit(kDeadline);
    EXPECT_TRUE(rotated == 0 || rotated == 69)
        << "round " << round << ": exit " << rotated.value_or(-1);
    if (listened) {
      Poco::Process::requestTermination(daemon.pid());
      EXPECT_EQ(daemon.waitForExit(kDeadline), std::optional<int>(0)) << "round " << round;
    }
  }
}

TEST_F(TokenRotateTest, NoTokenFileIsNothingToRotate) {
  const ChildResult missing = cli({"token", "--rotate"}, 1);
  EXPECT_EQ(missing.exitCode, 77);
  EXPECT_THAT(missing.err, HasSubstr("cannot read the token file " + store_ + "/token"));
  struct stat info {};
  EXPECT_NE(::stat((store_ + "/token").c_str(), &info), 0) << "no token was made";
}

TEST_F(TokenRotateTest, TokenWithoutRotatePrintsThePathAndChangesNothing) {
  startDaemon();
  const std::string token = fileToken();
  const ChildResult path = cli({"token"}, daemon_->port());
  EXPECT_EQ(path.exitCode, 0) << path.err;
  EXPECT_EQ(path.out, store_ + "/token\n");
  EXPECT_EQ(fileToken(), token);
  EXPECT_EQ(planWith(token), 200);
}

}  // namespace
}  // namespace antidrift
