/// @file daemon_stack.h
/// The daemon's request path assembled in memory for the HTTP fuzz targets:
/// a real Controller on a FakeClock, a ManualExecutor and memory stores, a
/// canned AI backend, the SseBroadcaster, RequestGuard and HttpApi, wired as
/// antidriftd wires them. No socket and no file: one stack per input, so
/// every input replays the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "antidrift/backend.h"
#include "antidrift/session/controller.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"
#include "server/http_api.h"
#include "server/request_guard.h"
#include "server/sse_broadcaster.h"
#include "server/state_delivery.h"

namespace antidrift::fuzz {

/// The token every fuzz stack accepts; the seed corpus and the dictionary
/// carry it so the fuzzer reaches the handlers behind the token check.
inline constexpr const char* kFuzzToken = "fuzz-token";

/// An AI backend that answers every role at once: a proposal, a drift
/// verdict and a nudge, so coach, judge and nudger all get a valid answer.
class CannedBackend final : public Backend {
 public:
  std::string name() const override { return "fuzz"; }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string&, std::int64_t) override {
    return R"({"next_action":"Write the intro","success_condition":"Draft saved",)"
           R"("timebox_minutes":25})"
           "\n"
           R"({"on_task":false,"reason":"a video site"})"
           "\n"
           R"({"on_track":false,"message":"still on the intro?"})";
  }
};

/// See the file comment. Not thread-safe; build one per input.
class DaemonStack {
 public:
  /// `wwwDir`: the page's directory (www/ of the source tree).
  explicit DaemonStack(const std::string& wwwDir)
      : controller_(Settings{}, clock_, executor_, snapshots_, audit_, "fuzz", true),
        broadcaster_(4, std::chrono::milliseconds(1)),
        guard_(kFuzzToken),
        api_(controller_, broadcaster_, guard_, apiOptions(wwwDir)) {
    controller_.setBackend(std::make_shared<CannedBackend>());
    // As the daemon: States reach the API through the one delivery point (issue 15 item 3).
    delivery_.addSink("sse", [this](const State& state) { api_.publish(state); });
    controller_.setChangeListener([this](const State& state) { delivery_.deliver(state); });
    controller_.restore();
    delivery_.deliver(controller_.state());
  }

  /// The API's options for the page in `wwwDir`, without an audit file.
  static HttpApi::Options apiOptions(const std::string& wwwDir) {
    HttpApi::Options options;
    options.wwwDir = wwwDir;
    return options;
  }

  /// After one request: runs the AI calls it queued, lets a second pass and
  /// ticks, as the daemon's executor and ticker would.
  void settle() {
    executor_.runAll();
    clock_.advance(1000);
    controller_.tick();
    executor_.runAll();
  }

  Controller& controller() { return controller_; }
  HttpApi& api() { return api_; }

 private:
  test::FakeClock clock_;
  test::ManualExecutor executor_;
  test::MemorySnapshotStore snapshots_;
  test::MemoryAuditSink audit_;
  StateDelivery delivery_;  // outlives the controller, whose listener calls it
  Controller controller_;
  SseBroadcaster broadcaster_;
  RequestGuard guard_;
  HttpApi api_;
};

}  // namespace antidrift::fuzz
