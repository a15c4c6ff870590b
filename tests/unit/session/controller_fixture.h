/// @file controller_fixture.h
/// The one set-up of the Controller tests in tests/unit/session (issue 15
/// item 6): a Controller over in-memory stores, a FakeClock and a
/// ManualExecutor, whose change listener keeps every State it announces.
/// Each test class derives from it and adds only the helpers of its flow.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"

namespace antidrift::test {

class ControllerFixture : public ::testing::Test {
 protected:
  /// Creates the Controller — again after a first time: a daemon restarted
  /// on the same settings, clock, executor and stores (work still queued on
  /// the executor is NOT drained; call executor_.runAll() first when it must
  /// not outlive the old Controller). `aiBackendName` and `aiAvailable` go to
  /// the Controller's constructor; no backend is set. Every State announced
  /// is appended to seen_.
  void makeController(const std::string& aiBackendName = "none", bool aiAvailable = false) {
    controller_ = std::make_unique<Controller>(settings_, clock_, executor_, snapshots_, audit_,
                                               aiBackendName, aiAvailable);
    controller_->setChangeListener([this](const State& state) { seen_.push_back(state); });
  }

  /// As makeController(name), then sets `backend` (possibly null: AI off).
  void makeControllerWithBackend(std::shared_ptr<Backend> backend, const std::string& name) {
    makeController(name, false);
    controller_->setBackend(std::move(backend));
  }

  /// A commitment request with a timebox in minutes and, when given, the
  /// allowed apps (else the configured default).
  static CommitmentRequest commitmentRequest(
      const std::string& nextAction, const std::string& successCondition, std::int64_t minutes,
      std::optional<std::vector<std::string>> allowedApps = std::nullopt) {
    CommitmentRequest request;
    request.nextAction = nextAction;
    request.successCondition = successCondition;
    request.timeboxMinutes = minutes;
    request.allowedApps = std::move(allowedApps);
    return request;
  }

  Settings settings_;
  FakeClock clock_;
  ManualExecutor executor_;
  MemorySnapshotStore snapshots_;
  MemoryAuditSink audit_;
  std::unique_ptr<Controller> controller_;
  std::vector<State> seen_;  ///< every State the listener received, oldest first
};

}  // namespace antidrift::test
