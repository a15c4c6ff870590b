/// @file in_process_daemon.h
/// The daemon's HTTP stack assembled in-process for the integration tests
/// (InProcessDaemon), on top of the HTTP client helpers.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <Poco/File.h>

#include "antidrift/session/controller.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"
#include "antidrift/store/verdict_store.h"
#include "http_test_support.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "server/api_server.h"
#include "server/http_api.h"
#include "server/request_guard.h"
#include "server/sse_broadcaster.h"
#include "server/state_delivery.h"
#include "server/window_join.h"
#include "support/temp_dir.h"

namespace antidrift::test {

/// The API token every in-process daemon of these tests accepts
/// (X-AntiDrift-Token, docs/DESIGN.md §10).
inline const std::string kToken =
    "5f3c9a0e7b2d41c8a6e0f19d3b7c5a2e5f3c9a0e7b2d41c8a6e0f19d3b7c5a2e";

/// The daemon's HTTP stack assembled in-process (docs/DESIGN.md §10, docs/API.md):
/// a temp directory with the file stores, a FakeClock, a ManualExecutor, a
/// real Controller, SseBroadcaster, RequestGuard(kToken), WindowJoin, HttpApi and an
/// ApiServer on 127.0.0.1 with an ephemeral port, wired as antidriftd wires
/// them (change listener → HttpApi::publish, restore, initial publish).
/// The destructor stops the server, then runs every queued executor task.
/// Not thread-safe itself; the server answers on its own threads.
class InProcessDaemon {
 public:
  /// What differs between the tests using it.
  struct Options {
    std::size_t maxSseClients = 8;           ///< SseBroadcaster cap (server.max_sse_clients)
    std::chrono::seconds requestTimeout{5};  ///< server.request_timeout_s
    /// server.request_deadline_s (milliseconds here, so a test can be short)
    std::chrono::milliseconds requestDeadline{10000};
    int maxConnectionsPerUid = 0;  ///< server.max_connections_per_uid; 0: 2 × threads
    int threads = 16;              ///< server.threads
    /// server.sse_keepalive_s; short, so a closed stream is also noticed by a write.
    std::chrono::milliseconds sseKeepAlive{100};
    std::string wwwDir;  ///< web root under the temp dir; "" = the temp dir
    std::map<std::string, std::string> wwwFiles;  ///< file name → content, written into wwwDir
    Settings settings;                            ///< the core's settings (drift rules, …)
    std::shared_ptr<Backend> backend;             ///< the AI backend; nullptr = AI off
  };

  /// Builds and starts everything; throws what the stores or the server throw
  /// (Poco::Exception, std::runtime_error).
  explicit InProcessDaemon(const Options& options)
      : storeDir_(directory_.path() + "/store"),
        wwwDir_(options.wwwDir.empty() ? directory_.path()
                                       : directory_.path() + "/" + options.wwwDir) {
    Poco::File(wwwDir_).createDirectories();
    for (const auto& [name, content] : options.wwwFiles) {
      std::ofstream(wwwDir_ + "/" + name) << content;
    }
    snapshots_ = std::make_unique<FileSnapshotStore>(storeDir_);
    audit_ = std::make_unique<AuditLog>(storeDir_);
    audit_->open();
    controller_ =
        std::make_unique<Controller>(options.settings, clock_, executor_, *snapshots_, *audit_);
    if (options.backend) controller_->setBackend(options.backend);
    verdicts_ = std::make_unique<FileVerdictStore>(storeDir_);
    controller_->setVerdictStore(verdicts_.get());  // as antidriftd: verdicts.jsonl in the store
    broadcaster_ = std::make_unique<SseBroadcaster>(options.maxSseClients, options.sseKeepAlive);
    guard_ = std::make_unique<RequestGuard>(kToken);
    windows_ = std::make_unique<WindowJoin>(*controller_, clock_);
    HttpApi::Options apiOptions{wwwDir_, audit_->path()};
    apiOptions.windows = windows_.get();
    api_ = std::make_unique<HttpApi>(*controller_, *broadcaster_, *guard_, apiOptions);
    // As the daemon: States reach the API through the one delivery point (issue 15 item 3).
    delivery_.addSink("sse", [this](const State& state) { api_->publish(state); });
    controller_->setChangeListener([this](const State& state) { delivery_.deliver(state); });
    controller_->restore();
    delivery_.deliver(controller_->state());

    ApiServerOptions serverOptions;
    serverOptions.address = "127.0.0.1";
    serverOptions.port = 0;
    serverOptions.threads = options.threads;
    serverOptions.requestTimeout = options.requestTimeout;
    serverOptions.requestDeadline = options.requestDeadline;
    serverOptions.maxConnectionsPerUid = options.maxConnectionsPerUid;
    server_ = std::make_unique<ApiServer>(*api_, *broadcaster_, serverOptions);
    server_->start();
  }

  /// Stops the server, then drains the executor.
  ~InProcessDaemon() {
    server_->stop();
    executor_.runAll();
  }

  InProcessDaemon(const InProcessDaemon&) = delete;
  InProcessDaemon& operator=(const InProcessDaemon&) = delete;

  /// The ephemeral port the server listens on (0 if it did not bind).
  std::uint16_t port() const { return server_->port(); }
  /// The store directory (snapshot, audit.jsonl).
  const std::string& storeDir() const { return storeDir_; }
  /// The web root HttpApi serves.
  const std::string& wwwDir() const { return wwwDir_; }
  /// The parts, for tests that drive or inspect them directly; valid until destruction.
  FakeClock& clock() { return clock_; }
  ManualExecutor& executor() { return executor_; }
  FileSnapshotStore& snapshots() { return *snapshots_; }
  AuditLog& audit() { return *audit_; }
  FileVerdictStore& verdicts() { return *verdicts_; }
  Controller& controller() { return *controller_; }
  SseBroadcaster& broadcaster() { return *broadcaster_; }
  HttpApi& api() { return *api_; }
  /// The join of aw-watcher-web tabs to windows (issue 16 item 4), as the daemon wires it.
  WindowJoin& windows() { return *windows_; }
  ApiServer& server() { return *server_; }

 private:
  TempDirectory directory_;
  std::string storeDir_;
  std::string wwwDir_;
  FakeClock clock_;
  ManualExecutor executor_;
  std::unique_ptr<FileSnapshotStore> snapshots_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<FileVerdictStore> verdicts_;
  StateDelivery delivery_;  // outlives the controller, whose listener calls it
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<SseBroadcaster> broadcaster_;
  std::unique_ptr<RequestGuard> guard_;
  std::unique_ptr<WindowJoin> windows_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace antidrift::test
