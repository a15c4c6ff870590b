// The antidrift command against the real antidriftd (both binaries as child
// processes, the daemon on an ephemeral port): every command, its output and
// its exit code (issue 10 item 2, docs/API.md §10).
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include "antidrift/drift/rules.h"
#include "http_test_support.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif
#ifndef ANTIDRIFT_CLI_PATH
#error "ANTIDRIFT_CLI_PATH must name the antidrift binary"
#endif

namespace antidrift {
namespace {

using test::ChildResult;
using test::RunningDaemon;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

/// `antidrift watch` running until the test stops it: stdout read line by line.
class WatchingClient {
 public:
  WatchingClient(const std::vector<std::string>& args, const Poco::Process::Env& environment)
      : handle_(Poco::Process::launch(ANTIDRIFT_CLI_PATH, args, nullptr, &outPipe_, &errPipe_,
                                      environment)),
        out_(outPipe_) {
    errReader_ = std::thread([this] {
      Poco::PipeInputStream err(errPipe_);
      Poco::StreamCopier::copyToString(err, err_);
    });
  }

  ~WatchingClient() {
    if (exitCode_ < 0) {
      try {
        Poco::Process::kill(handle_);
      } catch (const Poco::Exception&) {
        // Already gone.
      }
      wait();
    }
  }

  WatchingClient(const WatchingClient&) = delete;
  WatchingClient& operator=(const WatchingClient&) = delete;

  /// The next line on stdout; "" at the end of the output.
  std::string nextLine() {
    std::string line;
    std::getline(out_, line);
    return line;
  }

  /// Sends SIGINT (Ctrl-C).
  void interrupt() { Poco::Process::requestTermination(handle_.id()); }

  /// Sends SIGTERM (what a bar sends when it reloads).
  void terminate() { ::kill(handle_.id(), SIGTERM); }

  /// Closes the reading end of stdout, as a bar that quits does.
  void closeOut() { outPipe_.close(Poco::Pipe::CLOSE_READ); }

  /// Waits for the end without reading stdout (closed by closeOut()).
  int waitWithoutOut() {
    if (exitCode_ < 0) {
      errReader_.join();
      exitCode_ = handle_.wait();
    }
    return exitCode_;
  }

  /// Waits for the end; returns the exit code.
  int wait() {
    if (exitCode_ < 0) {
      Poco::StreamCopier::copyToString(out_, restOfOut_);
      errReader_.join();
      exitCode_ = handle_.wait();
    }
    return exitCode_;
  }

  const std::string& err() const { return err_; }

  /// The process id (`antidrift`, and what it execs).
  int pid() const { return handle_.id(); }

 private:
  Poco::Pipe outPipe_;
  Poco::Pipe errPipe_;
  Poco::ProcessHandle handle_;
  Poco::PipeInputStream out_;
  std::thread errReader_;
  std::string restOfOut_;
  std::string err_;
  int exitCode_ = -1;
};

class CliTest : public ::testing::Test {
 protected:
  CliTest() : store_(directory_.path() + "/store") {
    // No user configuration file may leak into the test.
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment_["XDG_DATA_HOME"] = directory_.path() + "/data";
  }

  /// Starts antidriftd with the fake AI backend, whose judge says every
  /// window it is asked about is off task, and steam blocked; on `port`
  /// (0: an ephemeral one).
  void startDaemon(std::uint16_t port = 0) {
    const std::string responses = directory_.path() + "/responses.json";
    test::writeWholeFile(
        responses, R"({"responses": [{"role": "judge", "text": "{\"on_task\": false, \"reason\": )"
                   R"(\"Racing games are not the intro.\"}"}]})");
    daemon_ = std::make_unique<RunningDaemon>(
        ANTIDRIFTD_PATH,
        std::vector<std::string>{"-D", "server.port=" + std::to_string(port), "-D",
                                 "store.dir=" + store_, "-D", "evidence.x11=false", "-D",
                                 "ai.backend=fake", "-D", "ai.plugin_dir=" FAKE_PLUGIN_DIR, "-D",
                                 "ai.fake.responses=" + responses, "-D", "drift.judge_debounce_s=0",
                                 "-D", "drift.blocked_apps=steam"},
        environment_);
    ASSERT_NE(daemon_->port(), 0) << daemon_->firstLine();
  }

  /// The arguments that find the daemon through its configuration keys.
  std::vector<std::string> findDaemon() const {
    return {"-D", "server.port=" + std::to_string(daemon_->port()), "-D", "store.dir=" + store_};
  }

  /// Runs `antidrift <findDaemon()> <args>`.
  ChildResult cli(const std::vector<std::string>& args) {
    std::vector<std::string> all = daemon_ ? findDaemon() : std::vector<std::string>{};
    all.insert(all.end(), args.begin(), args.end());
    return test::runToCompletion(ANTIDRIFT_CLI_PATH, all, environment_);
  }

  /// Reports a window as an outside watcher would.
  void observe(const std::string& app, const std::string& title) {
    test::RequestOptions options;
    options.token = token();
    const test::Reply reply =
        test::sendRequest(daemon_->port(), "POST", "/evidence/window",
                          R"({"app":")" + app + R"(","title":")" + title + R"("})", options);
    ASSERT_EQ(reply.status, 202) << reply.body;
  }

  /// POSTs `path` with the token; asserts 200.
  void post(const std::string& path, const std::string& body = "{}") {
    test::RequestOptions options;
    options.token = token();
    const test::Reply reply = test::sendRequest(daemon_->port(), "POST", path, body, options);
    ASSERT_EQ(reply.status, 200) << path << ": " << reply.body;
  }

  /// Starts a session of `minutes` with `nextAction`, code allowed.
  void startSession(const std::string& nextAction, int minutes = 10) {
    post("/planning");
    Poco::JSON::Object body;
    body.set("next_action", nextAction);
    body.set("success_condition", "It is done");
    body.set("timebox_minutes", minutes);
    Poco::JSON::Array::Ptr apps = new Poco::JSON::Array;
    apps->add("code");
    body.set("allowed_apps", apps);
    std::ostringstream json;
    body.stringify(json);
    post("/commitment", json.str());
  }

  /// `antidrift watch --format <format> [extra]` against the daemon.
  std::unique_ptr<WatchingClient> watchBar(const std::string& format,
                                           const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = findDaemon();
    args.insert(args.end(), {"watch", "--format", format});
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<WatchingClient>(args, environment_);
  }

  std::string token() const {
    std::string token = test::readWholeFile(store_ + "/token");
    token.erase(token.find_last_not_of('\n') + 1);
    return token;
  }

  test::TempDirectory directory_;
  std::string store_;
  Poco::Process::Env environment_;
  std::unique_ptr<RunningDaemon> daemon_;
};

TEST_F(CliTest, ADaemonThatIsNotRunningIsExit69WithHowToStartIt) {
  // Port 1 is privileged and nothing listens there.
  const ChildResult result = cli({"-D", "server.port=1", "-D", "store.dir=" + store_, "status"});
  EXPECT_EQ(result.exitCode, 69);
  EXPECT_EQ(result.out, "");
  // The CLI of the build tree names the script of the source tree (issue 17 item 4).
  EXPECT_THAT(result.err, HasSubstr("antidriftd is not running on http://127.0.0.1:1 (start it "
                                    "with scripts/start.sh)"));

  // A bar gets a line it can show instead of an error.
  const ChildResult bar =
      cli({"-D", "server.port=1", "-D", "store.dir=" + store_, "status", "--format", "waybar"});
  EXPECT_EQ(bar.exitCode, 0);
  const auto json = parseObject(bar.out);
  EXPECT_EQ(json->getValue<std::string>("class"), "offline");
  EXPECT_EQ(json->getValue<std::string>("text"), "AntiDrift off");
}

/// `status` when locked with the fake backend: the runtime, then which AI and
/// where titles go (issue 18 items 2 and 3).
const std::string kLockedWithTheFake =
    "runtime: locked\nAI: fake\nwindow titles: stay on this machine\n";

TEST_F(CliTest, ASessionFromStartToEndThroughEveryCommand) {
  startDaemon();
  const ChildResult locked = cli({"status"});
  EXPECT_EQ(locked.exitCode, 0) << locked.err;
  EXPECT_EQ(locked.out, kLockedWithTheFake);

  // start enters planning on its own when locked.
  const ChildResult started = cli({"start", "--next", "Write the intro", "--done", "Draft sent",
                                   "--minutes", "25", "--apps", "code, xterm"});
  EXPECT_EQ(started.exitCode, 0) << started.err;
  EXPECT_THAT(started.out, StartsWith("runtime: active\nnext action: Write the intro\n"
                                      "done when: Draft sent\nremaining: "));
  EXPECT_THAT(started.out, HasSubstr(" of 25:00\n"));

  const ChildResult json = cli({"status", "--json"});
  EXPECT_EQ(json.exitCode, 0) << json.err;
  const auto state = parseObject(json.out);
  EXPECT_EQ(state->getValue<std::string>("runtime"), "active");
  const auto apps = state->getObject("commitment")->getArray("allowed_apps");
  ASSERT_EQ(apps->size(), 2u);
  EXPECT_EQ(apps->getElement<std::string>(0), "code");
  EXPECT_EQ(apps->getElement<std::string>(1), "xterm");

  observe("code", "main.cpp");
  const ChildResult waybar = cli({"status", "--format", "waybar"});
  EXPECT_EQ(waybar.exitCode, 0) << waybar.err;
  EXPECT_EQ(std::count(waybar.out.begin(), waybar.out.end(), '\n'), 1) << "one JSON line";
  const auto bar = parseObject(waybar.out);
  EXPECT_EQ(bar->getValue<std::string>("class"), "ontask");
  EXPECT_THAT(bar->getValue<std::string>("text"), HasSubstr(" Write the intro"));
  EXPECT_THAT(bar->getValue<std::string>("tooltip"), HasSubstr("drift: ontask"));
  EXPECT_LE(bar->getValue<int>("percentage"), 1);

  const ChildResult i3blocks = cli({"status", "--format", "i3blocks"});
  EXPECT_EQ(i3blocks.exitCode, 0) << i3blocks.err;
  const std::vector<std::string> lines = {i3blocks.out.substr(0, i3blocks.out.find('\n')),
                                          i3blocks.out.substr(i3blocks.out.find('\n') + 1)};
  EXPECT_THAT(lines[0], HasSubstr("Write the intro"));
  EXPECT_EQ(lines[1], "ontask\n#50fa7b\n");

  // A blocked app: the banner's two answers.
  observe("steam", "Store");
  const ChildResult polybar = cli({"status", "--format", "polybar"});
  EXPECT_EQ(polybar.exitCode, 0) << polybar.err;
  EXPECT_THAT(polybar.out, StartsWith("%{F#ff5555}"));
  EXPECT_THAT(polybar.out, HasSubstr("Write the intro%{F-}\n"));
  const ChildResult drifting = cli({"status"});
  EXPECT_THAT(drifting.out, HasSubstr("drift: drifting (steam is blocked during focus)\n"));
  EXPECT_THAT(drifting.out, HasSubstr("window: steam — Store (evidence ok)\n"));

  const ChildResult refocus = cli({"refocus"});
  EXPECT_EQ(refocus.exitCode, 0) << refocus.err;
  EXPECT_THAT(refocus.out, HasSubstr("drift: unknown (back to the task)\n"));

  // This is on task cannot override a hard rule: the daemon's 409 sentence.
  observe("steam", "Store again");
  const ChildResult blocked = cli({"ontask"});
  EXPECT_EQ(blocked.exitCode, 1);
  EXPECT_THAT(blocked.err, HasSubstr("antidrift: cannot mark this on task: steam is blocked"));

  // A window the (fake) judge calls off task: This is on task allows it.
  test::SseRecorder sse(daemon_->port());
  observe("supertuxkart", "Race");
  ASSERT_TRUE(sse.waitUntil([](const std::vector<test::SseEvent>& events) {
    return !events.empty() &&
           events.back().data.find(R"("reason":"AI judge: \"Racing games are not the intro.\"")") !=
               std::string::npos;
  }));
  sse.close();
  const ChildResult onTask = cli({"ontask", "--json"});
  EXPECT_EQ(onTask.exitCode, 0) << onTask.err;
  const auto afterOnTask = parseObject(onTask.out);
  EXPECT_EQ(afterOnTask->getObject("drift")->getValue<std::string>("status"), "ontask");
  EXPECT_EQ(afterOnTask->getObject("commitment")->getArray("allowed_apps")->size(), 3u);

  const ChildResult complete = cli({"complete"});
  EXPECT_EQ(complete.exitCode, 0) << complete.err;
  EXPECT_THAT(complete.out, StartsWith("runtime: review\n"));
  EXPECT_THAT(complete.out, HasSubstr("outcome: completed\n"));

  // The review's answer and note from the terminal (issue 17 item 4).
  const ChildResult review = cli({"review", "partly", "--note", "Intro half done", "--json"});
  EXPECT_EQ(review.exitCode, 0) << review.err;
  const auto answered = parseObject(review.out)->getObject("review");
  ASSERT_TRUE(answered) << review.out;
  EXPECT_EQ(answered->getValue<std::string>("success"), "partly");
  EXPECT_EQ(answered->getValue<std::string>("note"), "Intro half done");
  EXPECT_EQ(cli({"review", "yes", "--note", "Intro | done after all"}).exitCode, 0);

  const ChildResult end = cli({"end"});
  EXPECT_EQ(end.exitCode, 0) << end.err;
  // No reviewer answer from the fake: the no-AI carry-forward from the last
  // answer and its note (issue 17 item 5), then the AI lines (issue 18 items 2-4).
  EXPECT_EQ(end.out,
            "runtime: locked\nlast lesson: You met the success condition — your note: Intro | "
            "done after all.\nAI: fake\nwindow titles: stay on this machine\n");

  // Outside review the daemon refuses the answer: its sentence and exit 1.
  const ChildResult late = cli({"review", "no"});
  EXPECT_EQ(late.exitCode, 1);
  EXPECT_THAT(late.err, HasSubstr("antidrift: "));

  const ChildResult history = cli({"history"});
  EXPECT_EQ(history.exitCode, 0) << history.err;
  // Planned and actual as the page says them (issue 17 item 3 of the number walk).
  EXPECT_THAT(history.out,
              ::testing::ContainsRegex("  completed  planned 25 min · actual [0-9]+ min  "));
  // The review's answer and note (issue 17 item 4, re-walk).
  EXPECT_THAT(history.out, HasSubstr(" drifts  met: yes  Write the intro\n"));
  EXPECT_THAT(history.out, HasSubstr("\n    note: Intro | done after all\n"));
  // Where the drift went and the week (issue 17 item 5).
  EXPECT_THAT(history.out,
              ::testing::ContainsRegex("\n    drift went to: .*steam [0-9]+ s over 2 visits"));
  EXPECT_THAT(history.out, HasSubstr(" · longest on-task stretch: "));
  EXPECT_THAT(history.out, HasSubstr("this week: "));
  EXPECT_THAT(history.out,
              HasSubstr(" 1 of 1 kept · last week: 0 min focused, drift —, 0 of 0 kept\n"));
  const ChildResult historyJson = cli({"history", "-n", "5", "--json"});
  EXPECT_EQ(historyJson.exitCode, 0) << historyJson.err;
  EXPECT_EQ(parseObject(historyJson.out)->getArray("sessions")->size(), 1u);

  const ChildResult verify = cli({"verify"});
  EXPECT_EQ(verify.exitCode, 0) << verify.err;
  EXPECT_EQ(verify.out, "audit chain ok: 1 record (" + store_ + "/audit.jsonl)\n");
  const ChildResult verifyJson = cli({"verify", "--json"});
  EXPECT_EQ(verifyJson.exitCode, 0) << verifyJson.err;
  EXPECT_EQ(parseObject(verifyJson.out)->getValue<int>("records"), 1);
}

// Issue 17 item 2 of the number walk, through the real daemon, the fake
// plugin and the real CLI: the review listed "judge 1 · nudge 2 · reviewer 1"
// (4) beside "AI cost: 5 calls" — the coach's planning call was in the cost
// but not in the list — and after `antidrift review no --note …` status said
// 6. The per-role calls and the cost count the same calls at every step.
TEST_F(CliTest, TheAiCallsByRoleAndTheAiCostCountTheSameCalls) {
  startDaemon();
  // The sum of stats.ai_calls and stats.ai_cost.calls of `antidrift status --json`.
  const auto counts = [this] {
    const ChildResult json = cli({"status", "--json"});
    EXPECT_EQ(json.exitCode, 0) << json.err;
    const auto stats = parseObject(json.out)->getObject("stats");
    std::map<std::string, int> byRole;
    int sum = 0;
    const auto calls = stats->getObject("ai_calls");
    for (const std::string& role : calls->getNames()) {
      byRole[role] = calls->getValue<int>(role);
      sum += byRole[role];
    }
    return std::make_tuple(sum, stats->getObject("ai_cost")->getValue<int>("calls"), byRole);
  };
  // Waits for a State event whose `object`.status settled (not pending, not
  // idle) with at least `calls` AI calls in stats.ai_cost (0: any).
  const auto settled = [](test::SseRecorder& sse, const std::string& object, int calls = 0) {
    return sse.waitUntil([&object, calls](const std::vector<test::SseEvent>& events) {
      for (const test::SseEvent& event : events) {
        Poco::JSON::Object::Ptr state;
        try {
          state = parseObject(event.data);
        } catch (const Poco::Exception&) {
          continue;  // not a State
        }
        const auto part = state ? state->getObject(object) : nullptr;
        const std::string status = part ? part->optValue<std::string>("status", "") : "";
        const auto stats = state ? state->getObject("stats") : nullptr;
        const auto cost = stats ? stats->getObject("ai_cost") : nullptr;
        const int made = cost ? cost->optValue<int>("calls", 0) : 0;
        if (status != "" && status != "pending" && status != "idle" && made >= calls) return true;
      }
      return false;
    });
  };
  post("/planning");
  {
    test::SseRecorder sse(daemon_->port());
    post("/coach", R"({"intent":"sharpen the intro"})");
    ASSERT_TRUE(settled(sse, "coach"));
  }
  post("/commitment", R"({"next_action":"Sharpen","success_condition":"Done","timebox_minutes":2,)"
                      R"("allowed_apps":["code"]})");
  {
    test::SseRecorder sse(daemon_->port());
    observe("supertuxkart", "Race");  // judged off task by the fake
    ASSERT_TRUE(sse.waitUntil([](const std::vector<test::SseEvent>& events) {
      return !events.empty() &&
             events.back().data.find("Racing games are not the intro.") != std::string::npos;
    }));
  }
  auto [sum, cost, byRole] = counts();
  EXPECT_EQ(byRole["coach"], 1);
  EXPECT_EQ(byRole["judge"], 1);
  EXPECT_EQ(sum, cost);
  {
    test::SseRecorder sse(daemon_->port());
    ASSERT_EQ(cli({"complete"}).exitCode, 0);
    ASSERT_TRUE(settled(sse, "reflection"));
  }
  std::tie(sum, cost, byRole) = counts();
  EXPECT_EQ(byRole["reviewer"], 1);
  EXPECT_EQ(sum, cost);
  {
    test::SseRecorder sse(daemon_->port());
    const ChildResult review = cli({"review", "no", "--note", "the intro took longer"});
    ASSERT_EQ(review.exitCode, 0) << review.err;
    ASSERT_TRUE(settled(sse, "reflection", cost + 1));  // the reviewer's re-run returned
  }
  const int before = cost;
  std::tie(sum, cost, byRole) = counts();
  EXPECT_EQ(byRole["reviewer"], 2);  // re-run with the answer: listed, not only costed
  EXPECT_EQ(cost, before + 1);
  EXPECT_EQ(sum, cost);
}

TEST_F(CliTest, VerdictsSurviveARealRestartAndTheCliListsAndClearsThem) {
  // Issue 16 item 3: a restart no longer forgets what the judge said.
  startDaemon();
  ASSERT_EQ(cli({"start", "--next", "Write the intro", "--done", "Sent", "--minutes", "25",
                 "--apps", "code"})
                .exitCode,
            0);
  test::SseRecorder sse(daemon_->port());
  observe("supertuxkart", "Race");
  ASSERT_TRUE(sse.waitUntil([](const std::vector<test::SseEvent>& events) {
    return !events.empty() &&
           events.back().data.find("Racing games are not the intro.") != std::string::npos;
  }));
  sse.close();
  EXPECT_EQ(daemon_->stop(), 0) << daemon_->err();  // SIGINT: the pending write is flushed
  daemon_.reset();

  startDaemon();
  observe("code", "main.cpp");
  observe("supertuxkart", "Race");  // answered at once, from the memory
  const auto state = parseObject(cli({"status", "--json"}).out);
  EXPECT_EQ(state->getValue<std::string>("runtime"), "active");
  EXPECT_EQ(state->getObject("drift")->getValue<std::string>("status"), "drifting");
  EXPECT_EQ(state->getObject("drift")->getValue<std::string>("reason"),
            "remembered: AI judge: \"Racing games are not the intro.\"");
  EXPECT_EQ(state->getObject("stats")->getObject("ai_calls")->getValue<int>("judge"), 1);

  const ChildResult listed = cli({"verdicts"});
  EXPECT_EQ(listed.exitCode, 0) << listed.err;
  EXPECT_EQ(listed.out,
            "off  judge  app supertuxkart — Racing games are not the intro.  [key supertuxkart]\n");
  const ChildResult json = cli({"verdicts", "--json"});
  EXPECT_EQ(parseObject(json.out)->getArray("verdicts")->size(), 1u);

  const ChildResult unknown = cli({"verdicts", "--clear", "firefox\\nnothing"});
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no remembered verdict has that key"));
  const ChildResult one = cli({"verdicts", "--clear", "supertuxkart"});
  EXPECT_EQ(one.exitCode, 0) << one.err;
  EXPECT_EQ(one.out, "forgot supertuxkart\n");
  EXPECT_EQ(cli({"verdicts"}).out, "no verdicts remembered\n");
  const ChildResult all = cli({"verdicts", "--clear"});
  EXPECT_EQ(all.exitCode, 0) << all.err;
  EXPECT_EQ(all.out, "forgot every remembered verdict\n");
  EXPECT_EQ(cli({"verdicts", "extra"}).exitCode, 64);  // a key only with --clear
}

TEST_F(CliTest, PlanThenStartAndAbandon) {
  startDaemon();
  const ChildResult plan = cli({"plan"});
  EXPECT_EQ(plan.exitCode, 0) << plan.err;
  EXPECT_THAT(plan.out, StartsWith("runtime: planning\n"));
  // Planning is open already (the page, an earlier plan): it goes on, exit 0
  // (issue 17 item 4, re-walk), and stderr says what comes next.
  const ChildResult again = cli({"plan"});
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_THAT(again.out, StartsWith("runtime: planning\n"));
  EXPECT_EQ(again.err,
            "antidrift: already planning; go on with antidrift start --next TEXT --done TEXT "
            "--minutes N (or plan on the page)\n");
  EXPECT_EQ(parseObject(cli({"plan", "--json"}).out)->getValue<std::string>("runtime"), "planning");

  const ChildResult started =
      cli({"start", "--next", "Fix the bug", "--done", "Tests pass", "--minutes", "5", "--json"});
  EXPECT_EQ(started.exitCode, 0) << started.err;
  EXPECT_EQ(parseObject(started.out)->getValue<std::string>("runtime"), "active");

  // During a session `plan` is still the daemon's refusal.
  const ChildResult during = cli({"plan"});
  EXPECT_EQ(during.exitCode, 1);
  EXPECT_EQ(during.err, "antidrift: cannot enter planning while active\n");

  const ChildResult abandon = cli({"abandon"});
  EXPECT_EQ(abandon.exitCode, 0) << abandon.err;
  EXPECT_THAT(abandon.out, HasSubstr("outcome: abandoned\n"));
}

// Issue 17 item 4, re-walk: with AntiDrift's own page in front, `status` and
// the bars say neutral, as the page does, not "unknown".
TEST_F(CliTest, AntiDriftsOwnPageInFrontIsNeutralInStatusAndTheBars) {
  startDaemon();
  startSession("Write the intro");
  observe("firefox", "9 min left · AntiDrift " + drift::ownPageTag(token()) + " — Mozilla Firefox");
  const ChildResult status = cli({"status"});
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_THAT(status.out,
              HasSubstr("\ndrift: neutral (this is AntiDrift, not counted either way)\n"));
  const ChildResult waybar = cli({"status", "--format", "waybar"});
  EXPECT_EQ(waybar.exitCode, 0) << waybar.err;
  EXPECT_EQ(parseObject(waybar.out)->getValue<std::string>("class"), "neutral");
  const ChildResult i3blocks = cli({"status", "--format", "i3blocks"});
  EXPECT_THAT(i3blocks.out, ::testing::EndsWith("\nneutral\n#aaaaaa\n"));
}

TEST_F(CliTest, TheDaemonsRefusalIsItsSentenceAndExit1AndStartChangesNothing) {
  startDaemon();
  const ChildResult complete = cli({"complete"});
  EXPECT_EQ(complete.exitCode, 1);
  EXPECT_EQ(complete.out, "");
  EXPECT_EQ(complete.err, "antidrift: cannot complete while locked\n");

  // A count outside the daemon's bound is bad usage, said before anything is sent.
  const ChildResult history = cli({"history", "-n", "0"});
  EXPECT_EQ(history.exitCode, 64);
  EXPECT_THAT(history.err, HasSubstr("-n must be a number of sessions from 1 to 200, got \"0\""));

  // A timebox the core refuses: 400, and start leaves planning again.
  const ChildResult tooLong =
      cli({"start", "--next", "Forever", "--done", "Never", "--minutes", "9999"});
  EXPECT_EQ(tooLong.exitCode, 1);
  EXPECT_THAT(tooLong.err, StartsWith("antidrift: "));
  EXPECT_EQ(cli({"status"}).out, kLockedWithTheFake);
}

// A session always has a success condition: without --done, start says so,
// exits 64 and sends nothing, so the daemon stays locked.
TEST_F(CliTest, StartWithoutASuccessConditionIsRefusedAndStartsNothing) {
  startDaemon();
  const ChildResult started = cli({"start", "--next", "Fix the bug", "--minutes", "5"});
  EXPECT_EQ(started.exitCode, 64);
  EXPECT_EQ(started.out, "");
  EXPECT_THAT(started.err, StartsWith("antidrift: start needs --done TEXT (the success condition: "
                                      "what done looks like)"));
  EXPECT_EQ(cli({"status"}).out, kLockedWithTheFake);
}

TEST_F(CliTest, AMistypedDefineKeyIsNamedWithTheNearestKnownOne) {
  startDaemon();
  const ChildResult status = cli({"-D", "notify.repaet_s=60", "status"});
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_THAT(status.err, HasSubstr("antidrift: warning: unknown configuration key "
                                    "\"notify.repaet_s\" (ignored; did you mean "
                                    "\"notify.repeat_s\"?)"));
}

TEST_F(CliTest, BadUsageIsExit64) {
  startDaemon();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"fly"},
           {"status", "extra"},
           {"status", "--next", "x"},
           {"status", "--format", "dzen"},
           {"start", "--minutes", "5"},
           {"start", "--next", "x"},
           {"start", "--next", "x", "--minutes", "ten"},
           {"start", "--next", "x", "--done", "y"},
           {"start", "--next", "x", "--done", " ", "--minutes", "5"},
           {"history", "-n", "many"},
           {"history", "-n", "0"},
           {"history", "-n", "201"},
           {"history", "-n", "99999999999"},
           {"review"},
           {"review", "maybe"},
           {"review", "yes", "extra"},
           {"status", "--note", "x"},
           {"status", "--bogus"},
           {"-D", "novalue", "status"}}) {
    const ChildResult result = cli(args);
    EXPECT_EQ(result.exitCode, 64) << ::testing::PrintToString(args) << result.err;
    EXPECT_THAT(result.err, HasSubstr("see antidrift --help")) << ::testing::PrintToString(args);
  }
  const ChildResult help = cli({"--help"});
  EXPECT_EQ(help.exitCode, 0);
  // The help gives the daemon's own bound for -n.
  EXPECT_THAT(help.out, HasSubstr("history: how many sessions, 1..200"));
  EXPECT_THAT(help.out, HasSubstr("status [--format waybar|i3blocks|polybar]"));
  // Issue 17 item 4: no line is wrapped by the formatter, so the columns stay.
  EXPECT_THAT(
      help.out,
      HasSubstr("\n  plan                      enter planning (or go on with the open one)\n"));
  EXPECT_THAT(help.out, HasSubstr("\n  review yes|partly|no [--note TEXT]\n"));
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 80u) << line;
  }
}

TEST_F(CliTest, AnUnreadableTokenIsExit77AndUrlWithTokenFileWorks) {
  startDaemon();
  const ChildResult noToken = test::runToCompletion(
      ANTIDRIFT_CLI_PATH,
      {"--url", daemon_->url(), "-D", "store.dir=" + directory_.path() + "/elsewhere", "plan"},
      environment_);
  EXPECT_EQ(noToken.exitCode, 77);
  EXPECT_THAT(noToken.err, HasSubstr("cannot read the token file " + directory_.path() +
                                     "/elsewhere/token (file not found);"));
  // The path once, not again as the reason.
  EXPECT_EQ(noToken.err.find("/elsewhere/token"), noToken.err.rfind("/elsewhere/token"))
      << noToken.err;

  const ChildResult plan = test::runToCompletion(
      ANTIDRIFT_CLI_PATH, {"--url", daemon_->url(), "--token-file", store_ + "/token", "plan"},
      environment_);
  EXPECT_EQ(plan.exitCode, 0) << plan.err;
  EXPECT_THAT(plan.out, StartsWith("runtime: planning\n"));
}

TEST_F(CliTest, TheDaemonIsFoundThroughItsConfigFileAndABadFileIsExit78) {
  startDaemon();
  const std::string file = directory_.path() + "/antidrift.properties";
  std::ofstream(file) << "server.port = " << daemon_->port() << "\nstore.dir = " << store_ << "\n";
  const ChildResult status =
      test::runToCompletion(ANTIDRIFT_CLI_PATH, {"--config", file, "status"}, environment_);
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_EQ(status.out, kLockedWithTheFake);

  std::ofstream(file, std::ios::trunc) << "server.port = http\n";
  const ChildResult bad =
      test::runToCompletion(ANTIDRIFT_CLI_PATH, {"--config", file, "status"}, environment_);
  EXPECT_EQ(bad.exitCode, 78);
  EXPECT_THAT(bad.err, HasSubstr("server.port must be an integer from 0 to 65535"));
}

TEST_F(CliTest, WatchPrintsOneLinePerChangeAndEndsWhenTheDaemonStops) {
  startDaemon();
  std::vector<std::string> args = findDaemon();
  args.push_back("watch");
  WatchingClient watch(args, environment_);
  EXPECT_EQ(watch.nextLine(), "locked");

  test::RequestOptions options;
  options.token = token();
  ASSERT_EQ(test::sendRequest(daemon_->port(), "POST", "/planning", "{}", options).status, 200);
  EXPECT_EQ(watch.nextLine(), "planning");
  // An observation changes the State but not the line: nothing printed for it.
  observe("code", "main.cpp");
  ASSERT_EQ(test::sendRequest(daemon_->port(), "POST", "/commitment",
                              R"({"next_action":"Watch me","success_condition":"Done",)"
                              R"("timebox_minutes":10,"allowed_apps":["code"]})",
                              options)
                .status,
            200);
  EXPECT_THAT(watch.nextLine(), StartsWith("active ontask: Watch me ("));

  EXPECT_EQ(daemon_->stop(), 0);
  EXPECT_EQ(watch.wait(), 69);
  EXPECT_THAT(watch.err(), HasSubstr("antidriftd on " + daemon_->url() + " stopped"));
}

TEST_F(CliTest, WatchJsonPrintsEveryStateAndCtrlCEndsIt) {
  startDaemon();
  std::vector<std::string> args = findDaemon();
  args.insert(args.end(), {"watch", "--json"});
  WatchingClient watch(args, environment_);
  EXPECT_EQ(parseObject(watch.nextLine())->getValue<std::string>("runtime"), "locked");
  observe("code", "main.cpp");
  const auto state = parseObject(watch.nextLine());
  EXPECT_EQ(state->getObject("evidence")->getObject("current")->getValue<std::string>("app"),
            "code");
  watch.interrupt();
  EXPECT_EQ(watch.wait(), 256 + SIGINT) << watch.err();
}

/// The bar text of a waybar line.
std::string waybarText(const std::string& line) {
  return parseObject(line)->getValue<std::string>("text");
}

TEST_F(CliTest, WatchFormatPrintsOneLinePerChangeInEachBarsFormat) {
  startDaemon();
  auto waybar = watchBar("waybar");
  auto i3blocks = watchBar("i3blocks");
  auto polybar = watchBar("polybar");
  EXPECT_EQ(waybarText(waybar->nextLine()), "no focus session");
  EXPECT_EQ(i3blocks->nextLine(), R"(<span foreground="#aaaaaa">no focus session</span>)");
  EXPECT_EQ(polybar->nextLine(), "%{F#aaaaaa}no focus session%{F-}");

  post("/planning");
  EXPECT_EQ(waybarText(waybar->nextLine()), "planning");
  EXPECT_EQ(i3blocks->nextLine(), R"(<span foreground="#8be9fd">planning</span>)");
  EXPECT_EQ(polybar->nextLine(), "%{F#8be9fd}planning%{F-}");

  post("/planning/cancel");
  startSession("Bars by events", 25);
  // The countdown starts at the whole timebox; a change the bar shows comes
  // as one line (the cancelled planning's "locked" may come first when the
  // stream delivers it before the start coalesces).
  auto activeLine = [](WatchingClient& watch, const std::string& marker) {
    std::string line = watch.nextLine();
    while (!line.empty() && line.find(marker) == std::string::npos) {
      line = watch.nextLine();
    }
    return line;
  };
  const std::string waybarActive = activeLine(*waybar, "Bars by events");
  EXPECT_THAT(waybarText(waybarActive), testing::MatchesRegex("2[45]:[0-9][0-9] Bars by events"));
  EXPECT_THAT(activeLine(*i3blocks, "Bars by events"),
              testing::MatchesRegex(
                  R"(<span foreground="#[0-9a-f]{6}">2[45]:[0-9][0-9] Bars by events</span>)"));
  EXPECT_THAT(activeLine(*polybar, "Bars by events"),
              testing::MatchesRegex(R"(%\{F#[0-9a-f]{6}\}2[45]:[0-9][0-9] Bars by events%\{F-\})"));

  // The window in front: the class (and waybar's tooltip) change, one line
  // each; the next line is the next change, not a repeat.
  observe("code", "main.cpp");
  const auto onTask = parseObject(waybar->nextLine());
  EXPECT_EQ(onTask->getValue<std::string>("class"), "ontask");
  EXPECT_THAT(onTask->getValue<std::string>("tooltip"), HasSubstr("window: code — main.cpp"));
  EXPECT_THAT(i3blocks->nextLine(), StartsWith(R"(<span foreground="#50fa7b">)"));
  EXPECT_THAT(polybar->nextLine(), StartsWith("%{F#50fa7b}"));

  post("/abandon");
  const auto review = parseObject(waybar->nextLine());
  EXPECT_EQ(review->getValue<std::string>("class"), "review");
  EXPECT_EQ(review->getValue<int>("percentage"), 100);
  EXPECT_EQ(i3blocks->nextLine(), R"(<span foreground="#bd93f9">review: abandoned</span>)");
  EXPECT_EQ(polybar->nextLine(), "%{F#bd93f9}review: abandoned%{F-}");

  // SIGTERM ends each cleanly.
  for (WatchingClient* watch : {waybar.get(), i3blocks.get(), polybar.get()}) {
    watch->terminate();
    EXPECT_EQ(watch->wait(), 0) << watch->err();
  }
}

TEST_F(CliTest, WatchFormatEscapesMarkupAndTagsInEachBar) {
  startDaemon();
  const std::string action = "Fix <b>&</b> 100%{F#f00}";
  startSession(action);
  observe("code", "a & b <i>x</i> %{F#fff}");
  auto waybar = watchBar("waybar");
  auto i3blocks = watchBar("i3blocks");
  auto polybar = watchBar("polybar");

  const auto bar = parseObject(waybar->nextLine());
  EXPECT_THAT(bar->getValue<std::string>("text"),
              testing::EndsWith("Fix &lt;b&gt;&amp;&lt;/b&gt; 100%{F#f00}"));
  const std::string tooltip = bar->getValue<std::string>("tooltip");
  EXPECT_THAT(tooltip, HasSubstr("a &amp; b &lt;i&gt;x&lt;/i&gt; %{F#fff}"));
  EXPECT_EQ(tooltip.find('<'), std::string::npos) << tooltip;

  const std::string block = i3blocks->nextLine();
  const std::string open = R"(<span foreground="#50fa7b">)";
  ASSERT_THAT(block, StartsWith(open));
  ASSERT_THAT(block, testing::EndsWith("</span>"));
  const std::string inner = block.substr(open.size(), block.size() - open.size() - 7);
  EXPECT_THAT(inner, testing::EndsWith("Fix &lt;b&gt;&amp;&lt;/b&gt; 100%{F#f00}"));
  EXPECT_EQ(inner.find('<'), std::string::npos) << inner;

  const std::string line = polybar->nextLine();
  ASSERT_THAT(line, StartsWith("%{F#50fa7b}"));
  ASSERT_THAT(line, testing::EndsWith("%{F-}"));
  const std::string text = line.substr(11, line.size() - 11 - 5);
  EXPECT_EQ(text.find("%{"), std::string::npos) << text;
  EXPECT_EQ(text.find("%%"), std::string::npos) << text;
  EXPECT_THAT(text, HasSubstr("Fix <b>&</b> 100%\xe2\x80\x8b{F#f00}"));
}

TEST_F(CliTest, WatchFormatSaysOffWhileTheDaemonIsGoneAndResumesByItself) {
  startDaemon();
  const std::uint16_t port = daemon_->port();
  auto waybar = watchBar("waybar");
  EXPECT_EQ(parseObject(waybar->nextLine())->getValue<std::string>("class"), "locked");

  // Killed: no goodbye, the connection just ends.
  ASSERT_EQ(::kill(daemon_->pid(), SIGKILL), 0);
  daemon_->waitForExit();
  const auto off = parseObject(waybar->nextLine());
  EXPECT_EQ(off->getValue<std::string>("class"), "offline");
  EXPECT_EQ(off->getValue<std::string>("text"), "AntiDrift off");

  // Restarted on the same port and store: the watch finds it again.
  daemon_.reset();
  startDaemon(port);
  ASSERT_EQ(daemon_->port(), port);
  post("/planning");
  std::string line = waybar->nextLine();
  std::vector<std::string> classes;
  while (!line.empty()) {
    classes.push_back(parseObject(line)->getValue<std::string>("class"));
    if (classes.back() == "planning") {
      break;
    }
    line = waybar->nextLine();
  }
  EXPECT_EQ(classes.back(), "planning") << testing::PrintToString(classes);
  for (const std::string& name : classes) {
    EXPECT_TRUE(name == "locked" || name == "planning" || name == "offline") << name;
  }
  waybar->terminate();
  EXPECT_EQ(waybar->wait(), 0) << waybar->err();
}

TEST_F(CliTest, WatchFormatEndsCleanlyWhenTheBarClosesItsOutput) {
  startDaemon();
  auto polybar = watchBar("polybar");
  EXPECT_EQ(polybar->nextLine(), "%{F#aaaaaa}no focus session%{F-}");
  polybar->closeOut();
  // Nothing is written after the close: the watch notices the closed pipe
  // itself, not at its next line.
  EXPECT_EQ(polybar->waitWithoutOut(), 0) << polybar->err();
}

TEST_F(CliTest, WatchFormatCountsDownLocallyWithoutTheDaemon) {
  startDaemon();
  startSession("Tick", 10);
  auto waybar = watchBar("waybar", {"--refresh", "1"});
  const std::string first = waybarText(waybar->nextLine());
  ASSERT_THAT(first, testing::MatchesRegex("(10:00|09:[0-9][0-9]) Tick"));
  // The next line whose text differs (a State the daemon publishes meanwhile
  // may repeat the text with another tooltip).
  std::string second = first;
  for (int lines = 0; lines < 5 && second == first; ++lines) {
    second = waybarText(waybar->nextLine());
  }
  ASSERT_THAT(second, testing::MatchesRegex("09:[0-9][0-9] Tick"));
  auto seconds = [](const std::string& text) {
    return std::stoi(text.substr(0, 2)) * 60 + std::stoi(text.substr(3, 2));
  };
  // The daemon publishes nothing while the session just runs: the next text
  // is the watch's own tick, a second on (a few on a machine too loaded to
  // wake it in time).
  EXPECT_LT(seconds(second), seconds(first));
  EXPECT_GE(seconds(second), seconds(first) - 5);
  waybar->terminate();
  EXPECT_EQ(waybar->wait(), 0);
}

// Issue 20 item 2: the bar's process is antidrift-watch (the same pid: the
// bar's pipes and signals reach it), which has no Poco mapped — its RSS
// target — and neither its command line nor its environment carries the
// token, which other users could read there.
TEST_F(CliTest, WatchFormatRunsTheWatchClientWithoutPocoAndWithoutTheToken) {
  startDaemon();
  auto waybar = watchBar("waybar");
  EXPECT_EQ(waybarText(waybar->nextLine()), "no focus session");
  const std::string proc = "/proc/" + std::to_string(waybar->pid());
  char exe[4096] = {};
  ASSERT_GT(::readlink((proc + "/exe").c_str(), exe, sizeof exe - 1), 0);
  EXPECT_THAT(std::string(exe), testing::EndsWith("/antidrift-watch"));
  const std::string maps = test::readWholeFile(proc + "/maps");
  EXPECT_THAT(maps, HasSubstr("libc.so"));  // the maps were read
  EXPECT_EQ(maps.find("Poco"), std::string::npos) << maps;
  const std::string secret = token();
  ASSERT_EQ(secret.size(), 64u);
  const std::string commandLine = test::readWholeFile(proc + "/cmdline");
  EXPECT_THAT(commandLine, HasSubstr("--port"));
  EXPECT_EQ(commandLine.find(secret), std::string::npos);
  EXPECT_EQ(commandLine.find(secret.substr(0, 16)), std::string::npos);
  EXPECT_EQ(test::readWholeFile(proc + "/environ").find(secret.substr(0, 16)), std::string::npos);
  waybar->terminate();
  EXPECT_EQ(waybar->wait(), 0) << waybar->err();
}

TEST_F(CliTest, WatchFormatRefusesBadOptions) {
  startDaemon();
  EXPECT_EQ(cli({"watch", "--format", "dzen"}).exitCode, 64);
  EXPECT_EQ(cli({"watch", "--format", "waybar", "--json"}).exitCode, 64);
  EXPECT_EQ(cli({"watch", "--format", "waybar", "--refresh", "x"}).exitCode, 64);
  EXPECT_EQ(cli({"watch", "--format", "waybar", "--refresh", "3601"}).exitCode, 64);
  EXPECT_EQ(cli({"watch", "--refresh", "5"}).exitCode, 64);
}

}  // namespace
}  // namespace antidrift
