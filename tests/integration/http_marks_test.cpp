// POST /drift/ontask {"scope"} and POST /drift/ontask/undo (issue 17 item 4,
// docs/API.md "Drift banner") and the history's week trend and per-site drift
// (issue 17 item 5, docs/API.md §6) against the real HTTP stack on an
// ephemeral port: marks listed in the State's commitment, undo, 4xx with a
// JSON message and nothing changed for bad input.
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>

#include "in_process_daemon.h"
#include "mocks/scripted_backend.h"

namespace antidrift {
namespace {

using test::kToken;
using test::Reply;
using test::RequestOptions;
using ::testing::HasSubstr;

const char* kCommitment =
    R"({"next_action":"Draft the quarterly report","success_condition":"Three paragraphs","timebox_minutes":25,"allowed_apps":["code"]})";

class HttpMarksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = std::make_shared<test::ScriptedBackend>();
    backend_->answer("judge", std::string(R"({"on_task": false, "reason": "not the report"})"));
    test::InProcessDaemon::Options options;
    options.settings.judgeDwellSecs = 0;
    options.backend = backend_;
    daemon_ = std::make_unique<test::InProcessDaemon>(options);
    ASSERT_NE(daemon_->port(), 0);
  }

  Reply post(const std::string& path, const std::string& body) {
    RequestOptions options;
    options.token = kToken;
    return test::sendRequest(daemon_->port(), "POST", path, body, options);
  }

  void startAndDrift(const std::string& title) {
    ASSERT_EQ(post("/planning", "{}").status, 200);
    daemon_->executor().runAll();
    ASSERT_EQ(post("/commitment", kCommitment).status, 200);
    see(title);
  }

  void see(const std::string& title) {
    ASSERT_EQ(post("/evidence/window", R"({"app":"firefox","title":")" + title + "\"}").status,
              202);
    daemon_->executor().runAll();
  }

  Poco::JSON::Object::Ptr state() {
    const Reply reply = test::sendRequest(daemon_->port(), "GET", "/state");
    EXPECT_EQ(reply.status, 200);
    return reply.json();
  }

  std::shared_ptr<test::ScriptedBackend> backend_;
  std::unique_ptr<test::InProcessDaemon> daemon_;
};

TEST_F(HttpMarksTest, MarkAPageAndASiteListThemAndUndoOne) {
  startAndDrift("Cats - Kittens Daily — Mozilla Firefox");
  EXPECT_EQ(state()->getObject("drift")->getValue<std::string>("site"), "kittens daily");
  ASSERT_EQ(post("/drift/ontask", R"({"scope":"page"})").status, 200);
  see("Dogs - Puppy Tube — Mozilla Firefox");
  const Reply site = post("/drift/ontask", R"({"scope":"site"})");
  ASSERT_EQ(site.status, 200) << site.body;
  const auto commitment = state()->getObject("commitment");
  ASSERT_EQ(commitment->getArray("allowed_titles")->size(), 1u);
  const std::string pageKey =
      commitment->getArray("allowed_titles")->getObject(0)->getValue<std::string>("title");
  EXPECT_EQ(pageKey, "cats - kittens daily");
  ASSERT_EQ(commitment->getArray("allowed_sites")->size(), 1u);
  const auto marked = commitment->getArray("allowed_sites")->getObject(0);
  EXPECT_EQ(marked->getValue<std::string>("site"), "puppy tube");
  EXPECT_FALSE(marked->getValue<bool>("domain"));
  see("More dogs - Puppy Tube — Mozilla Firefox");
  EXPECT_EQ(state()->getObject("drift")->getValue<std::string>("reason"),
            "you marked all of puppy tube on task this session");

  const Reply undo = post("/drift/ontask/undo", R"({"app":"firefox","title":")" + pageKey + "\"}");
  ASSERT_EQ(undo.status, 200) << undo.body;
  EXPECT_EQ(state()->getObject("commitment")->getArray("allowed_titles")->size(), 0u);
  EXPECT_EQ(state()->getObject("commitment")->getArray("allowed_sites")->size(), 1u);
}

TEST_F(HttpMarksTest, BadInputIs4xxWithAMessageAndChangesNothing) {
  startAndDrift("Cats - Kittens Daily — Mozilla Firefox");
  const Reply scope = post("/drift/ontask", R"({"scope":"everything"})");
  EXPECT_EQ(scope.status, 400);
  EXPECT_THAT(scope.body, HasSubstr("scope must be"));
  const Reply typo = post("/drift/ontask", R"({"scop":"site"})");
  EXPECT_EQ(typo.status, 400);  // an unknown field is refused, not ignored
  const Reply both = post("/drift/ontask/undo", R"({"app":"firefox","title":"a","site":"b"})");
  EXPECT_EQ(both.status, 400);
  EXPECT_THAT(both.body, HasSubstr("exactly one of title"));
  const Reply missing = post("/drift/ontask/undo", R"({"app":"firefox","site":"nowhere"})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("no such site"));
  EXPECT_EQ(state()->getObject("commitment")->getArray("allowed_sites")->size(), 0u);
  EXPECT_EQ(state()->getObject("drift")->getValue<std::string>("status"), "drifting");
}

TEST_F(HttpMarksTest, TheHistorySaysWhereTheDriftWentAndTheWeek) {
  backend_->answer("reviewer", std::string(R"({"recap": "ok", "carry_forward": "ok"})"));
  startAndDrift("Cats - Kittens Daily — Mozilla Firefox");
  ASSERT_EQ(post("/complete", "{}").status, 200);
  daemon_->executor().runAll();
  ASSERT_EQ(post("/end", "{}").status, 200);
  const Reply history = test::sendRequest(daemon_->port(), "GET", "/history?n=5");
  ASSERT_EQ(history.status, 200);
  const auto json = history.json();
  const auto session = json->getArray("sessions")->getObject(0);
  ASSERT_TRUE(session->has("drift_by_site"));
  EXPECT_EQ(session->getArray("drift_by_site")->getObject(0)->getValue<std::string>("where"),
            "kittens daily");
  EXPECT_EQ(session->getArray("drift_by_site")->getObject(0)->getValue<std::int64_t>("visits"), 1);
  EXPECT_TRUE(session->getObject("longest_on_task")->has("secs"));
  const auto week = json->getObject("week");
  EXPECT_EQ(week->getObject("this_week")->getValue<std::int64_t>("sessions"), 1);
  EXPECT_EQ(week->getObject("this_week")->getValue<std::int64_t>("kept"), 1);
  EXPECT_EQ(week->getObject("last_week")->getValue<std::int64_t>("sessions"), 0);
}

}  // namespace
}  // namespace antidrift
