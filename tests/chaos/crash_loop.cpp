// crash_loop: kills the real antidriftd with SIGKILL at random moments and
// checks after every kill that nothing was lost (issue 9 item 1,
// docs/RELIABILITY.md "Crash loops").
//
// One store directory survives every round. Each round starts antidriftd
// (ephemeral port, evidence from HTTP only, the fake AI plugin answering
// after short delays), drives scripted sessions over HTTP from one client —
// planning, coach calls, start, observations through POST /evidence/window
// and the ActivityWatch heartbeat route, complete or abandon, the review
// answer, End — while another client holds GET /events open (SSE fan-out),
// then kills the daemon with SIGKILL after a random delay, so the kill lands
// during snapshot writes, audit appends, fan-out and AI calls alike. After
// every kill, before the next start:
//   - snapshot.json (when present) parses as JSON;
//   - `antidriftd --verify-audit` exits 0;
//   - every session whose End answered 200 is in audit.jsonl;
//   - no session id is in audit.jsonl twice;
// and the restarted daemon must print its listening line and answer
// GET /state. Exit status 0 when every check of every round held, 1 when one
// failed (what failed is printed), 2 on a usage error.
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <signal.h>
#include <sys/types.h>

#include "support/child_process.h"
#include "support/rest_client.h"
#include "support/temp_dir.h"

namespace {

using antidrift::test::ChildResult;
using antidrift::test::RunningDaemon;
using antidrift::test::TempDirectory;

struct Options {
  int kills = 100;
  unsigned seed = 0;  ///< 0: from the clock (printed, so a failure can be replayed)
  int minDelayMs = 20;
  int maxDelayMs = 300;
  std::string antidriftd = ANTIDRIFTD_PATH;
  std::string pluginDir = FAKE_PLUGIN_DIR;
};

using antidrift::test::Answer;

/// A keep-alive REST client (5 s timeouts). Throws Poco::Exception when the daemon is gone.
class Rest : public antidrift::test::RestClient {
 public:
  Rest(std::uint16_t port, std::string token) : RestClient(port, std::move(token), 5) {}
};

Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

/// The fake plugin's answers: every role answers, after a short delay, so
/// kills land while AI calls are in flight.
void writeResponses(const std::string& path) {
  std::ofstream(path) << R"({"responses": [
  {"role": "coach", "delay_ms": 40, "text": "{\"next_action\": \"Write the chaos loop\", \"success_condition\": \"It runs\", \"timebox_minutes\": 25}"},
  {"role": "judge", "match": "youtube", "delay_ms": 30, "text": "{\"on_task\": false, \"reason\": \"A video is not the chaos loop.\"}"},
  {"role": "judge", "delay_ms": 30, "text": "{\"on_task\": true, \"reason\": \"on task\"}"},
  {"role": "nudge", "delay_ms": 30, "text": "{\"on_track\": false, \"message\": \"Back to the loop.\"}"},
  {"role": "reviewer", "delay_ms": 60, "text": "{\"recap\": \"The loop ran.\", \"carry_forward\": \"Kill it again.\"}"}
]})";
}

/// Drives sessions until `stop`; records the id of every session whose End
/// answered 200 in `acknowledged`.
class Driver {
 public:
  Driver(std::uint16_t port, std::string token, unsigned seed, std::mutex& mutex,
         std::set<std::string>& acknowledged, std::map<std::string, int>& calls)
      : rest_(port, std::move(token)),
        random_(seed),
        mutex_(mutex),
        acknowledged_(acknowledged),
        calls_(calls) {}

  void run(const std::atomic<bool>& stop) {
    while (!stop) {
      try {
        step();
      } catch (const Poco::Exception&) {
        if (stop) return;
        std::this_thread::yield();
      } catch (const std::exception&) {
        if (stop) return;
      }
    }
  }

 private:
  bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(random_) < percent; }

  Answer post(const std::string& path, const std::string& body = "{}") {
    Answer answer = rest_.call("POST", path, body);
    std::lock_guard<std::mutex> lock(mutex_);
    ++calls_[path + " " + std::to_string(answer.status)];
    return answer;
  }

  void observe() {
    static const char* const kWindows[][2] = {{"code", "crash_loop.cpp - Code"},
                                              {"qterminal", "ctest"},
                                              {"firefox", "YouTube - cats"},
                                              {"firefox", "Poco::Process docs"}};
    const auto& window = kWindows[std::uniform_int_distribution<int>(0, 3)(random_)];
    if (chance(50)) {
      post("/evidence/window",
           std::string(R"({"app": ")") + window[0] + R"(", "title": ")" + window[1] + "\"}");
    } else {
      post(
          "/api/0/buckets/aw-watcher-window_chaos/heartbeat?pulsetime=5",
          std::string(R"({"timestamp": "2020-01-01T00:00:00Z", "duration": 0, "data": {"app": ")") +
              window[0] + R"(", "title": ")" + window[1] + "\"}}");
    }
  }

  void step() {
    const Answer state = rest_.call("GET", "/state");
    const Poco::JSON::Object::Ptr object = parseObject(state.body);
    const std::string runtime = object->getValue<std::string>("runtime");
    if (runtime == "locked") {
      post("/planning");
    } else if (runtime == "planning") {
      if (chance(30)) post("/coach", R"({"intent": "write the chaos loop"})");
      if (chance(20)) observe();
      post("/commitment",
           R"({"next_action": "Write the chaos loop", "success_condition": "It runs",)"
           R"( "timebox_minutes": 25, "allowed_apps": ["code", "qterminal"]})");
    } else if (runtime == "active") {
      const int observations = std::uniform_int_distribution<int>(1, 6)(random_);
      for (int i = 0; i < observations; ++i) observe();
      if (chance(10)) post("/extend", R"({"minutes": 5})");
      post(chance(60) ? "/complete" : "/abandon");
    } else if (runtime == "review") {
      const std::string id = object->getObject("commitment")->getValue<std::string>("id");
      if (chance(40)) post("/review", R"({"success": "partly", "note": "killed a few times"})");
      if (post("/end").status == 200) {
        std::lock_guard<std::mutex> lock(mutex_);
        acknowledged_.insert(id);
      }
    }
  }

  Rest rest_;
  std::mt19937 random_;
  std::mutex& mutex_;
  std::set<std::string>& acknowledged_;
  std::map<std::string, int>& calls_;
};

/// Holds GET /events open and reads it until the daemon dies.
void readEvents(std::uint16_t port, const std::atomic<bool>& stop) {
  try {
    Poco::Net::HTTPClientSession session("127.0.0.1", port);
    session.setTimeout(Poco::Timespan(1, 0));
    Poco::Net::HTTPRequest request("GET", "/events", Poco::Net::HTTPMessage::HTTP_1_1);
    session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    char buffer[4096];
    while (!stop && in.read(buffer, sizeof buffer)) {
    }
  } catch (const Poco::Exception&) {
  }
}

class CrashLoop {
 public:
  explicit CrashLoop(Options options) : options_(std::move(options)) {}

  int run() {
    store_ = directory_.path() + "/store";
    responses_ = directory_.path() + "/responses.json";
    writeResponses(responses_);
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment_["XDG_DATA_HOME"] = directory_.path() + "/data";
    // Never the developer's session bus: do-not-disturb (issue 17 item 3)
    // must not pause their notification server from a killed test daemon.
    environment_["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/antidrift-tests-no-bus";
    std::mt19937 random(options_.seed);
    std::cout << "crash_loop: " << options_.kills << " kills, seed " << options_.seed << ", delay "
              << options_.minDelayMs << "-" << options_.maxDelayMs << " ms\n";
    const auto started = std::chrono::steady_clock::now();
    for (int round = 0; round < options_.kills && failures_ == 0; ++round) {
      oneRound(random, round);
    }
    if (failures_ == 0) finalRound();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    std::cout << "kills: " << kills_ << "\nrestarts: " << restarts_
              << "\nEnds answered 200 (all checked in audit.jsonl after every kill): "
              << acknowledged_.size() << "\naudit records: " << auditIds_.size()
              << "\nduplicate session ids: " << duplicates_
              << "\nsnapshots parsed: " << snapshotsParsed_
              << "\n--verify-audit passed: " << verified_ << "\nfailures: " << failures_
              << "\nseconds: " << seconds << "\nrequests:";
    for (const auto& [what, count] : calls_) std::cout << "\n  " << what << ": " << count;
    std::cout << std::endl;
    return failures_ == 0 ? 0 : 1;
  }

 private:
  void fail(const std::string& what) {
    ++failures_;
    std::cerr << "crash_loop: FAILED after " << kills_ << " kills: " << what << "\n";
  }

  std::unique_ptr<RunningDaemon> start() {
    auto daemon = std::make_unique<RunningDaemon>(
        options_.antidriftd,
        std::vector<std::string>{"-D", "server.port=0", "-D", "store.dir=" + store_, "-D",
                                 "evidence.source=none", "-D", "evidence.x11=false", "-D",
                                 "ai.backend=fake", "-D", "ai.plugin_dir=" + options_.pluginDir,
                                 "-D", "ai.fake.responses=" + responses_, "-D",
                                 "notify.desktop=false"},
        environment_);
    if (daemon->port() == 0) {
      daemon->stop();
      fail("antidriftd did not start: " + daemon->firstLine() + "\n" + daemon->err());
      return nullptr;
    }
    ++restarts_;
    return daemon;
  }

  std::string token() const {
    std::string token = antidrift::test::readWholeFile(store_ + "/token");
    token.erase(token.find_last_not_of('\n') + 1);
    return token;
  }

  void oneRound(std::mt19937& random, int round) {
    std::unique_ptr<RunningDaemon> daemon = start();
    if (!daemon) return;
    try {
      Rest(daemon->port(), "").call("GET", "/state").body.swap(lastState_);
      parseObject(lastState_);
    } catch (const std::exception& e) {
      fail(std::string("GET /state after the restart: ") + e.what());
      return;
    }
    std::atomic<bool> stop{false};
    Driver driver(daemon->port(), token(), options_.seed + static_cast<unsigned>(round), mutex_,
                  acknowledged_, calls_);
    std::thread events([&] { readEvents(daemon->port(), stop); });
    std::thread sessions([&] { driver.run(stop); });
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::uniform_int_distribution<int>(options_.minDelayMs, options_.maxDelayMs)(random)));
    ::kill(daemon->pid(), SIGKILL);  // the moment under test: no cleanup at all
    ++kills_;
    stop = true;
    sessions.join();
    events.join();
    daemon->waitForExit();
    checkFiles();
  }

  /// A last start after the final kill: the daemon resumes and serves.
  void finalRound() {
    std::unique_ptr<RunningDaemon> daemon = start();
    if (!daemon) return;
    try {
      parseObject(Rest(daemon->port(), "").call("GET", "/state").body);
    } catch (const std::exception& e) {
      fail(std::string("GET /state after the last restart: ") + e.what());
    }
    if (daemon->stop() != 0) fail("antidriftd did not exit 0 on SIGTERM");
    checkFiles();
  }

  void checkFiles() {
    const std::string snapshot = store_ + "/snapshot.json";
    if (Poco::File(snapshot).exists()) {
      try {
        parseObject(antidrift::test::readWholeFile(snapshot));
        ++snapshotsParsed_;
      } catch (const std::exception& e) {
        fail(std::string("snapshot.json does not parse: ") + e.what());
      }
    }
    const ChildResult verify = antidrift::test::runToCompletion(
        options_.antidriftd, {"--verify-audit", "-D", "store.dir=" + store_}, environment_);
    if (verify.exitCode != 0) {
      fail("--verify-audit exited " + std::to_string(verify.exitCode) + ": " + verify.out +
           verify.err);
    } else {
      ++verified_;
    }
    auditIds_.clear();
    duplicates_ = 0;
    const std::string audit = store_ + "/audit.jsonl";
    if (Poco::File(audit).exists()) {
      for (const std::string& line : antidrift::test::readLines(audit)) {
        if (line.empty()) continue;
        try {
          const std::string id = parseObject(line)->getValue<std::string>("id");
          if (!auditIds_.insert(id).second) {
            ++duplicates_;
            fail("session " + id + " is in audit.jsonl twice");
          }
        } catch (const std::exception& e) {
          fail(std::string("an audit line does not parse: ") + e.what());
        }
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& id : acknowledged_) {
      if (auditIds_.count(id) == 0) fail("End of " + id + " answered 200 but is not in the log");
    }
  }

  Options options_;
  TempDirectory directory_;
  std::string store_;
  std::string responses_;
  Poco::Process::Env environment_;
  std::mutex mutex_;
  std::set<std::string> acknowledged_;
  std::map<std::string, int> calls_;
  std::set<std::string> auditIds_;
  std::string lastState_;
  int kills_ = 0;
  int restarts_ = 0;
  int duplicates_ = 0;
  int snapshotsParsed_ = 0;
  int verified_ = 0;
  int failures_ = 0;
};

int usage() {
  std::cerr << "usage: crash_loop [--kills=N (100)] [--seed=S (from the clock)]\n"
               "                  [--min-delay-ms=M (20)] [--max-delay-ms=M (300)]\n"
               "                  [--antidriftd=PATH] [--plugin-dir=DIR]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  options.seed = static_cast<unsigned>(std::chrono::system_clock::now().time_since_epoch().count() &
                                       0x7fffffff);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&arg](const std::string& name) -> std::optional<std::string> {
      if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
      return std::nullopt;
    };
    try {
      if (auto v = value("--kills")) {
        options.kills = std::stoi(*v);
      } else if (auto v = value("--seed")) {
        options.seed = static_cast<unsigned>(std::stoul(*v));
      } else if (auto v = value("--min-delay-ms")) {
        options.minDelayMs = std::stoi(*v);
      } else if (auto v = value("--max-delay-ms")) {
        options.maxDelayMs = std::stoi(*v);
      } else if (auto v = value("--antidriftd")) {
        options.antidriftd = *v;
      } else if (auto v = value("--plugin-dir")) {
        options.pluginDir = *v;
      } else {
        return usage();
      }
    } catch (const std::exception&) {
      return usage();
    }
  }
  if (options.kills < 1 || options.minDelayMs < 0 || options.maxDelayMs < options.minDelayMs) {
    return usage();
  }
  return CrashLoop(options).run();
}
