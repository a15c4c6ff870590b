// Issue 19 item 7, review L13 and L5: the Controller's lock is never held
// while the snapshot is written (and fsynced) nor while the config regexes
// (drift.blocked_titles) run against a title. Proven with a store whose save
// blocks on a latch the test opens, and with a PCRE callout that, in the
// middle of a match, asks another thread to take the Controller's locks.
// Nothing sleeps: a read that does not come back within kStuck means the
// lock is held (the latch is then opened so the test fails instead of hanging).
#include <pcre.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using ::testing::HasSubstr;

/// How long a read may take before the test calls the lock held (a bound on
/// a deadlock, not a wait for work: a free lock answers at once).
constexpr auto kStuck = std::chrono::seconds(10);

/// A SnapshotStore whose save() can be made to stop on a latch until the
/// test opens it, and to fail after that (a slow disk, then a full one).
class LatchedSnapshotStore final : public SnapshotStore {
 public:
  void save(const Snapshot& snapshot) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) {
      blocked_ = true;
      changed_.notify_all();
      changed_.wait(lock, [this] { return !closed_; });
      blocked_ = false;
    }
    if (fail_) throw std::runtime_error("disk full (test)");
    json_ = snapshotToJson(snapshot);
    ++saves_;
  }
  std::optional<Snapshot> load() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!json_) return std::nullopt;
    return snapshotFromJson(*json_);
  }

  /// The next saves stop on the latch; they fail once it opens when `fail`.
  void close(bool fail = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    fail_ = fail;
  }
  /// Returns once a save() stands on the closed latch.
  void waitUntilBlocked() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return blocked_; });
  }
  /// Opens the latch: the save standing on it goes on (or fails).
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = false;
    changed_.notify_all();
  }
  /// Saves that succeeded.
  int saves() {
    std::lock_guard<std::mutex> lock(mutex_);
    return saves_;
  }
  /// The last snapshot written.
  Snapshot last() {
    std::lock_guard<std::mutex> lock(mutex_);
    return snapshotFromJson(json_.value());
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool closed_ = false;
  bool blocked_ = false;
  bool fail_ = false;
  std::optional<std::string> json_;
  int saves_ = 0;
};

class OffLockTest : public test::ControllerFixture {
 protected:
  /// A Controller over the latched store (the fixture's clock, executor and
  /// audit log); every State announced goes to seen_.
  void makeLatchedController() {
    controller_ = std::make_unique<Controller>(settings_, clock_, executor_, store_, audit_);
    controller_->setChangeListener([this](const State& state) {
      std::lock_guard<std::mutex> lock(seenMutex_);
      seen_.push_back(state);
    });
  }

  void toActive() {
    ASSERT_FALSE(controller_->enterPlanning());
    ASSERT_FALSE(controller_->startCommitment(
        commitmentRequest("Write the report", "Section 2 drafted", 25, {{"libreoffice"}})));
  }

  std::size_t announced() {
    std::lock_guard<std::mutex> lock(seenMutex_);
    return seen_.size();
  }

  /// Runs `read` on another thread; true when it came back within kStuck.
  /// Otherwise opens the latch (so the blocked writer, and with it the read,
  /// can finish) and returns false.
  template <class Read>
  bool comesBackWhileBlocked(Read read) {
    auto reading = std::async(std::launch::async, read);
    if (reading.wait_for(kStuck) == std::future_status::ready) return true;
    store_.open();
    reading.wait();
    return false;
  }

  LatchedSnapshotStore store_;
  std::mutex seenMutex_;
};

TEST_F(OffLockTest, AStateReadIsNotBlockedByASlowSnapshotWrite) {
  makeLatchedController();
  store_.close();
  auto planning = std::async(std::launch::async, [this] { return controller_->enterPlanning(); });
  store_.waitUntilBlocked();  // enterPlanning's write stands on the latch

  std::optional<State> read;
  ASSERT_TRUE(comesBackWhileBlocked([this, &read] {
    read = controller_->state();
    controller_->nextWakeMonotonicMs();
    controller_->timeline();
  })) << "state() waited for the snapshot write: the Controller's lock is held during it";
  // What is shown while the write runs is what is on disk: the action is not yet.
  EXPECT_EQ(read->runtime, RuntimeState::Locked);
  EXPECT_EQ(announced(), 0u);

  store_.open();
  EXPECT_FALSE(planning.get());
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Planning);
  EXPECT_EQ(store_.last().runtime, RuntimeState::Planning);
  ASSERT_EQ(announced(), 1u);
  EXPECT_EQ(seen_.back().runtime, RuntimeState::Planning);
  EXPECT_GT(seen_.back().version, read->version);
}

TEST_F(OffLockTest, AWindowSwitchIsNotBlockedByASlowWriteBehind) {
  makeLatchedController();
  toActive();
  controller_->recordWindow(Observation{0, "libreoffice", "report.odt", "x11"});
  clock_.advance(Controller::kWriteBehindMs);  // the window's write-behind is due
  const int savesBefore = store_.saves();
  store_.close();
  auto ticking = std::async(std::launch::async, [this] { controller_->tick(); });
  store_.waitUntilBlocked();  // tick's write-behind stands on the latch

  ASSERT_TRUE(comesBackWhileBlocked([this] {
    controller_->recordWindow(Observation{0, "firefox", "Mail - Mozilla Firefox", "x11"});
  })) << "the window switch waited for the snapshot write";
  EXPECT_EQ(controller_->state().evidence.current->app, "firefox");

  store_.open();
  ticking.get();
  EXPECT_EQ(store_.saves(), savesBefore + 1);
}

TEST_F(OffLockTest, ASlowWriteThatFailsUndoesTheActionAndNothingSawIt) {
  makeLatchedController();
  toActive();
  const State before = controller_->state();
  const std::size_t announcedBefore = announced();
  store_.close(/*fail=*/true);
  auto completing = std::async(std::launch::async, [this] { return controller_->complete(); });
  store_.waitUntilBlocked();

  std::optional<State> read;
  ASSERT_TRUE(comesBackWhileBlocked([this, &read] { read = controller_->state(); }));
  EXPECT_EQ(read->runtime, RuntimeState::Active);  // never shown before it is on disk

  store_.open();
  const ActionResult result = completing.get();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Active);
  EXPECT_EQ(controller_->state().version, before.version);
  EXPECT_EQ(announced(), announcedBefore);
  EXPECT_EQ(store_.last().runtime, RuntimeState::Active);  // the file as it was
}

// ---- L5: the hard title rules run before the lock is taken.

/// What the callout saw: whether another thread could take the Controller's
/// locks (a change and a read) in the middle of each match.
struct CalloutProbe {
  Controller* controller = nullptr;
  int calls = 0;
  std::vector<std::future<RuntimeState>> reads;  ///< kept: a blocked read must outlive the match
  int blocked = 0;
};
CalloutProbe* probe = nullptr;

extern "C" int probeCallout(pcre_callout_block*) {
  ++probe->calls;
  Controller* controller = probe->controller;
  probe->reads.push_back(std::async(std::launch::async, [controller] {
    controller->setAway(false);  // a change: takes both locks (nothing changes)
    return controller->runtime();
  }));
  if (probe->reads.back().wait_for(kStuck) != std::future_status::ready) ++probe->blocked;
  return 0;  // go on matching
}

TEST_F(OffLockTest, TheBlockedTitlePatternsRunWithoutTheControllerLock) {
  // (?C1): libpcre calls pcre_callout once the match reaches it.
  settings_.blockedTitles = {{"casino", "casino(?C1)"}};
  makeController();
  ASSERT_FALSE(controller_->enterPlanning());
  ASSERT_FALSE(controller_->startCommitment(
      commitmentRequest("Write the report", "Section 2 drafted", 25, {{"libreoffice"}})));

  CalloutProbe seen;
  seen.controller = controller_.get();
  probe = &seen;
  pcre_callout = probeCallout;
  controller_->recordWindow(Observation{0, "firefox", "Online casino - Mozilla Firefox", "x11"});
  pcre_callout = nullptr;
  for (auto& read : seen.reads) read.wait();
  probe = nullptr;

  ASSERT_GE(seen.calls, 1) << "the pattern never ran (is Poco linked with the system libpcre?)";
  EXPECT_EQ(seen.blocked, 0) << "a blocked-title pattern ran under the Controller's lock";
  // The rule's verdict still reached the engine, from the entry step.
  const State state = controller_->state();
  EXPECT_EQ(state.drift.status, drift::DriftStatus::Drifting);
  EXPECT_TRUE(state.drift.blocked);
  EXPECT_THAT(state.drift.reason, HasSubstr("drift.blocked_titles.casino"));
}

}  // namespace
}  // namespace antidrift
