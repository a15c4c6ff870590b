// The verdict memory through the Controller and its file (issue 16 item 3): a
// verdict survives a restart (the same page is not judged again), the file is
// written behind and coalesced, a corrupt or oversized file is set aside, the
// person lists and clears verdicts, and drift.memory = false turns it off.
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Poco/DirectoryIterator.h>
#include <Poco/File.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "antidrift/store/verdict_store.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"
#include "mocks/scripted_backend.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using test::FakeClock;
using test::ManualExecutor;
using test::MemoryAuditSink;
using test::MemorySnapshotStore;
using test::ScriptedBackend;
using test::TempDirectory;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const char* kOffTask = R"({"on_task": false, "reason": "A cat video is not the Gatsby site"})";
const char* kCats = "Cats - YouTube — Mozilla Firefox";

/// Counts saves; `failSaves` makes save() throw.
class CountingVerdictStore final : public VerdictStore {
 public:
  void save(const std::string& content) override {
    if (failSaves) throw std::runtime_error("disk full (test)");
    text = content;
    ++saves;
  }
  std::optional<std::string> load() override { return text; }
  std::string setAside(const std::string&) override {
    text.reset();
    return "aside";
  }
  std::optional<std::string> text;
  int saves = 0;
  bool failSaves = false;
};

class VerdictMemoryFlowTest : public ::testing::Test {
 protected:
  VerdictMemoryFlowTest() {
    settings_.judgeDwellSecs = 0;
    backend_ = std::make_shared<ScriptedBackend>();
    backend_->answer("judge", kOffTask);
    fileStore_ = std::make_unique<FileVerdictStore>(dir_.path());
  }

  /// A daemon (re)start: a new Controller on the same stores, restored.
  void boot(VerdictStore* store) {
    executor_.runAll();
    controller_.reset();
    controller_ = std::make_unique<Controller>(settings_, clock_, executor_, snapshots_, audit_,
                                               "scripted", false);
    controller_->setBackend(backend_);
    controller_->setVerdictStore(store);
    (void)controller_->restore();
  }

  void start(const std::string& nextAction = "Add page transitions to the Gatsby site") {
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();
    CommitmentRequest request;
    request.nextAction = nextAction;
    request.successCondition = "Transitions work between blog pages";
    request.timeboxMinutes = 50;
    request.allowedApps = std::vector<std::string>{"code"};
    ASSERT_FALSE(controller_->startCommitment(request));
  }

  void see(const std::string& app, const std::string& title) {
    controller_->recordWindow(Observation{0, app, title, "x11"});
  }

  /// Lets the write-behind fall due and runs it.
  void writeBehind() {
    clock_.advance(Controller::kWriteBehindMs);
    controller_->tick();
  }

  DriftView drift() const { return controller_->state().drift; }

  Settings settings_;
  FakeClock clock_;
  ManualExecutor executor_;
  MemorySnapshotStore snapshots_;
  MemoryAuditSink audit_;
  TempDirectory dir_;
  std::unique_ptr<FileVerdictStore> fileStore_;
  std::shared_ptr<ScriptedBackend> backend_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(VerdictMemoryFlowTest, ARestartKeepsTheVerdictAndTheSamePageIsNotJudgedAgain) {
  boot(fileStore_.get());
  start();
  see("Firefox", kCats);
  ASSERT_EQ(executor_.runAll(), 1u);
  ASSERT_EQ(drift().status, drift::DriftStatus::Drifting);
  writeBehind();
  ASSERT_TRUE(Poco::File(fileStore_->path()).exists());

  // The daemon restarts mid-session: drift state is reset, the memory is not.
  fileStore_ = std::make_unique<FileVerdictStore>(dir_.path());
  boot(fileStore_.get());
  ASSERT_EQ(controller_->runtime(), RuntimeState::Active);
  see("Code", "main.cpp");
  see("Firefox", kCats);
  EXPECT_EQ(executor_.runAll(), 0u);
  EXPECT_EQ(backend_->calls("judge"), 1u);
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);
  EXPECT_EQ(drift().reason, "remembered: AI judge: \"A cat video is not the Gatsby site\"");

  // And in a later session for related work.
  ASSERT_FALSE(controller_->abandon());
  ASSERT_FALSE(controller_->end());
  start("Polish the Gatsby blog transitions");
  see("Firefox", kCats);
  EXPECT_EQ(backend_->calls("judge"), 1u);
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);
}

TEST_F(VerdictMemoryFlowTest, TheFileIsPrivateAndListsWhatTheControllerRemembers) {
  boot(fileStore_.get());
  start();
  see("Firefox", kCats);
  executor_.runAll();
  writeBehind();
  struct stat info {};
  ASSERT_EQ(::stat(fileStore_->path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  const std::vector<drift::RememberedEntry> entries = controller_->verdicts();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_THAT(entries[0].key, StartsWith("firefox\n"));
  EXPECT_FALSE(entries[0].verdict.onTask);
  EXPECT_EQ(entries[0].verdict.source, drift::VerdictSource::Judge);
  EXPECT_THAT(test::readWholeFile(fileStore_->path()), HasSubstr("A cat video"));
}

TEST_F(VerdictMemoryFlowTest, ChangesAreWrittenBehindAndCoalesced) {
  CountingVerdictStore store;
  boot(&store);
  start();
  const int before = store.saves;
  see("Firefox", kCats);
  executor_.runAll();
  see("Firefox", "Dogs - YouTube — Mozilla Firefox");
  executor_.runAll();
  EXPECT_EQ(store.saves, before);  // not on every verdict
  writeBehind();
  EXPECT_EQ(store.saves, before + 1);  // one write for both
  ASSERT_TRUE(store.text);
  EXPECT_THAT(*store.text, HasSubstr("cats - youtube"));
  EXPECT_THAT(*store.text, HasSubstr("dogs - youtube"));
  writeBehind();
  EXPECT_EQ(store.saves, before + 1);  // nothing new: nothing written
  see("Firefox", "Birds - YouTube — Mozilla Firefox");
  executor_.runAll();
  controller_->flush();  // the daemon's shutdown writes what is pending
  EXPECT_EQ(store.saves, before + 2);
  EXPECT_THAT(*store.text, HasSubstr("birds - youtube"));
}

TEST_F(VerdictMemoryFlowTest, TheCorrectionsAreRememberedAsTheirs) {
  CountingVerdictStore store;
  boot(&store);
  start();
  see("Firefox", kCats);
  executor_.runAll();
  ASSERT_FALSE(controller_->refocus());
  ASSERT_EQ(controller_->verdicts().size(), 1u);
  EXPECT_EQ(controller_->verdicts()[0].verdict.source, drift::VerdictSource::You);
  EXPECT_FALSE(controller_->verdicts()[0].verdict.onTask);
  see("Firefox", "Gatsby page transitions - YouTube — Mozilla Firefox");
  executor_.runAll();
  ASSERT_FALSE(controller_->markOnTask());
  EXPECT_TRUE(controller_->verdicts()[0].verdict.onTask);
  EXPECT_EQ(controller_->verdicts()[0].verdict.reason, "you said this is on task");
  writeBehind();
  EXPECT_THAT(*store.text, HasSubstr("\"source\":\"you\""));
}

TEST_F(VerdictMemoryFlowTest, ACorruptFileIsSetAsideAndTheDaemonStartsAfresh) {
  test::writeWholeFile(fileStore_->path(), "this is not a verdicts file\n");
  boot(fileStore_.get());
  EXPECT_TRUE(controller_->verdicts().empty());
  EXPECT_FALSE(Poco::File(fileStore_->path()).exists());
  std::vector<std::string> aside;
  for (Poco::DirectoryIterator it(dir_.path()), end; it != end; ++it) {
    if (it.name().rfind("verdicts.jsonl.bad-", 0) == 0) aside.push_back(it.name());
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(test::readWholeFile(dir_.file(aside[0])), "this is not a verdicts file\n");
  start();  // and it still works
  see("Firefox", kCats);
  executor_.runAll();
  writeBehind();
  EXPECT_EQ(controller_->verdicts().size(), 1u);
}

TEST_F(VerdictMemoryFlowTest, AnOversizedFileIsSetAsideUnread) {
  test::writeWholeFile(fileStore_->path(), "");
  Poco::File(fileStore_->path()).setSize(FileVerdictStore::kMaxFileBytes + 1);  // sparse
  boot(fileStore_.get());
  EXPECT_TRUE(controller_->verdicts().empty());
  EXPECT_FALSE(Poco::File(fileStore_->path()).exists());
}

TEST_F(VerdictMemoryFlowTest, ForgettingOneOrAllWritesAtOnce) {
  CountingVerdictStore store;
  boot(&store);
  start();
  see("Firefox", kCats);
  executor_.runAll();
  see("Firefox", "Dogs - YouTube — Mozilla Firefox");
  executor_.runAll();
  ASSERT_EQ(controller_->verdicts().size(), 2u);
  const std::string key = controller_->verdicts()[0].key;

  const ActionResult unknown = controller_->forgetVerdicts(std::string("firefox\nnothing"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->kind, ErrorKind::NotFound);

  const int before = store.saves;
  ASSERT_FALSE(controller_->forgetVerdicts(key));
  EXPECT_EQ(store.saves, before + 1);
  EXPECT_THAT(*store.text, Not(HasSubstr("dogs - youtube")));
  ASSERT_EQ(controller_->verdicts().size(), 1u);

  store.failSaves = true;
  const ActionResult failed = controller_->forgetVerdicts(std::nullopt);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, ErrorKind::Storage);
  EXPECT_EQ(controller_->verdicts().size(), 1u);  // nothing forgotten
  store.failSaves = false;
  ASSERT_FALSE(controller_->forgetVerdicts(std::nullopt));
  EXPECT_TRUE(controller_->verdicts().empty());
  EXPECT_EQ(*store.text, std::string(drift::VerdictMemory::kHeader) + "\n");
}

TEST_F(VerdictMemoryFlowTest, WithMemoryOffARestartAsksTheJudgeAgain) {
  settings_.driftMemory = false;
  boot(fileStore_.get());
  start();
  see("Firefox", kCats);
  executor_.runAll();
  writeBehind();
  EXPECT_TRUE(controller_->verdicts().empty());
  boot(fileStore_.get());
  see("Code", "main.cpp");  // another window first: no stay continues (issue 17 item 4)
  see("Firefox", kCats);
  EXPECT_EQ(executor_.runAll(), 1u);
  EXPECT_EQ(backend_->calls("judge"), 2u);
}

}  // namespace
}  // namespace antidrift
