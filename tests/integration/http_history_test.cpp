// Issue 7 over HTTP (docs/API.md): POST /extend, POST /review, the
// reflection in the State, GET /history's view and GET /history/export, with
// a real server on port 0, real stores and a scripted AI backend.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Parser.h>

#include "http_test_support.h"
#include "in_process_daemon.h"
#include "mocks/scripted_backend.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using test::kToken;
using test::Reply;
using test::RequestOptions;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const char* kCommitment =
    R"({"next_action":"Draft, the \"report\"","success_condition":"Three paragraphs",)"
    R"("timebox_minutes":25,"allowed_apps":["code"]})";

class HttpHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = std::make_shared<test::ScriptedBackend>();
    backend_->answer("reviewer",
                     R"({"recap": "Finished on time.", "carry_forward": "Start with the intro."})");
    backend_->answer("coach",
                     R"({"next_action": "a", "success_condition": "b", "timebox_minutes": 20})");
    test::InProcessDaemon::Options options;
    options.backend = backend_;
    daemon_ = std::make_unique<test::InProcessDaemon>(options);
    ASSERT_NE(daemon_->port(), 0);
  }
  void TearDown() override { daemon_.reset(); }

  Reply get(const std::string& path) { return test::sendRequest(daemon_->port(), "GET", path); }
  Reply post(const std::string& path, const std::string& body = "{}") {
    RequestOptions options;
    options.token = kToken;
    return test::sendRequest(daemon_->port(), "POST", path, body, options);
  }
  void startSession() {
    ASSERT_EQ(post("/planning").status, 200);
    daemon_->executor().runAll();
    ASSERT_EQ(post("/commitment", kCommitment).status, 200);
  }
  void see(const std::string& app) {
    ASSERT_EQ(post("/evidence/window", R"({"app":")" + app + R"(","title":"t"})").status, 202);
  }

  std::shared_ptr<test::ScriptedBackend> backend_;
  std::unique_ptr<test::InProcessDaemon> daemon_;
};

TEST_F(HttpHistoryTest, ExtendIsActiveOnlyAndTakesFiveOrFifteen) {
  const Reply locked = post("/extend", R"({"minutes":5})");
  EXPECT_EQ(locked.status, 409);
  EXPECT_EQ(locked.field("state"), "locked");
  startSession();
  for (const char* bad :
       {R"({"minutes":7})", R"({"minutes":"5"})", R"({})", R"({"minutes":5.5})"}) {
    EXPECT_EQ(post("/extend", bad).status, 400) << bad;
  }
  const Reply extended = post("/extend", R"({"minutes":15})");
  ASSERT_EQ(extended.status, 200) << extended.body;
  const auto commitment = extended.json()->getObject("commitment");
  EXPECT_EQ(commitment->getValue<std::int64_t>("extended_secs"), 900);
  EXPECT_EQ(commitment->getValue<std::int64_t>("remaining_secs"), 40 * 60);
}

TEST_F(HttpHistoryTest, ReviewAnswerRecapAndTimelineRideTheState) {
  EXPECT_EQ(post("/review", R"({"success":"yes"})").status, 409);
  startSession();
  see("code");
  daemon_->clock().advance(60'000);
  see("code");
  const Reply review = post("/complete");
  ASSERT_EQ(review.status, 200);
  EXPECT_EQ(review.json()->getObject("reflection")->getValue<std::string>("status"), "pending");
  const auto timeline = review.json()->getArray("timeline");
  ASSERT_EQ(timeline->size(), 1u);
  EXPECT_EQ(timeline->getObject(0)->getValue<std::string>("status"), "ontask");
  const auto bucket = review.json()->getObject("stats")->getArray("buckets")->getObject(0);
  EXPECT_EQ(bucket->getValue<std::int64_t>("ontask_secs"), 60);
  EXPECT_EQ(bucket->getValue<std::int64_t>("drifting_secs"), 0);

  EXPECT_EQ(post("/review", R"({"success":"maybe"})").status, 400);
  EXPECT_EQ(post("/review", R"({"note":"x"})").status, 400);
  EXPECT_EQ(post("/review", R"({"success":"no","note":")" + std::string(501, 'x') + R"("})").status,
            400);
  const Reply answered = post("/review", R"({"success":"partly","note":"the intro took long"})");
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json()->getObject("review")->getValue<std::string>("success"), "partly");
  daemon_->executor().runAll();
  const auto state = get("/state").json();
  EXPECT_EQ(state->getObject("reflection")->getValue<std::string>("recap"), "Finished on time.");
  EXPECT_THAT(backend_->prompts("reviewer").back(), HasSubstr("the intro took long"));
  ASSERT_EQ(post("/end").status, 200);
  EXPECT_EQ(get("/state").field("last_carry_forward"), "Start with the intro.");

  // The next coach hears it.
  ASSERT_EQ(post("/planning").status, 200);
  daemon_->executor().runAll();
  ASSERT_EQ(post("/coach", R"({"intent":"write"})").status, 200);
  daemon_->executor().runAll();
  EXPECT_THAT(backend_->prompts("coach").back(), HasSubstr("Start with the intro."));
}

TEST_F(HttpHistoryTest, HistoryAnswersTheDocumentedViewNotTheAuditLines) {
  for (int index = 0; index < 2; ++index) {
    startSession();
    see("code");
    daemon_->clock().advance(120'000);
    see("code");
    ASSERT_EQ(post("/complete").status, 200);
    daemon_->executor().runAll();
    ASSERT_EQ(post("/review", R"({"success":"partly","note":"intro | outro"})").status, 200);
    daemon_->executor().runAll();
    ASSERT_EQ(post("/end").status, 200);
  }
  const Reply reply = get("/history?n=1");
  ASSERT_EQ(reply.status, 200);
  EXPECT_THAT(reply.body, Not(HasSubstr("\"hash\"")));
  EXPECT_THAT(reply.body, Not(HasSubstr("\"prev\"")));
  const auto sessions = reply.json()->getArray("sessions");
  ASSERT_EQ(sessions->size(), 1u);
  const auto view = sessions->getObject(0);
  EXPECT_EQ(view->getValue<std::string>("outcome"), "completed");
  EXPECT_EQ(view->getValue<std::int64_t>("planned_secs"), 1500);
  EXPECT_EQ(view->getValue<std::int64_t>("actual_secs"), 120);
  EXPECT_EQ(view->getValue<std::int64_t>("on_task_secs"), 120);
  EXPECT_DOUBLE_EQ(view->getValue<double>("on_task_share"), 1.0);
  EXPECT_EQ(view->getValue<std::string>("recap"), "Finished on time.");
  EXPECT_EQ(view->getArray("timeline")->size(), 1u);
  const auto days = reply.json()->getArray("days");
  ASSERT_EQ(days->size(), 14u);
  const auto today = days->getObject(13);
  EXPECT_EQ(today->getValue<std::int64_t>("sessions"), 2);
  EXPECT_EQ(today->getValue<std::int64_t>("focused_secs"), 240);
  EXPECT_TRUE(days->getObject(0)->isNull("on_task_share"));

  // The export of the same log, in each format.
  const Reply jsonl = get("/history/export?format=jsonl");
  ASSERT_EQ(jsonl.status, 200);
  EXPECT_EQ(jsonl.response.getContentType(), "application/x-ndjson");
  EXPECT_THAT(jsonl.response.get("Content-Disposition"),
              HasSubstr("attachment; filename=\"antidrift-history.jsonl\""));
  EXPECT_EQ(std::count(jsonl.body.begin(), jsonl.body.end(), '\n'), 2);
  const Reply csv = get("/history/export?format=csv");
  ASSERT_EQ(csv.status, 200);
  EXPECT_THAT(csv.response.getContentType(), StartsWith("text/csv"));
  EXPECT_THAT(csv.body, StartsWith("id,started_at,ended_at,next_action,"));
  EXPECT_THAT(csv.body, HasSubstr(",\"Draft, the \"\"report\"\"\","));
  const Reply markdown = get("/history/export?format=markdown");
  ASSERT_EQ(markdown.status, 200);
  EXPECT_THAT(markdown.response.getContentType(), StartsWith("text/markdown"));
  EXPECT_THAT(markdown.body, HasSubstr("| Draft, the \"report\" | completed | 25 min | 2 min |"));
  // The review's note, its pipe escaped, and the AI cost (issue 17 item 4, re-walk).
  EXPECT_THAT(markdown.body, HasSubstr("| Met | Note | Recap | AI cost |\n"));
  EXPECT_THAT(markdown.body, HasSubstr("| partly | intro \\| outro | Finished on time. | "));
  EXPECT_THAT(csv.body, HasSubstr(",ai_calls,ai_input_tokens,ai_output_tokens,"
                                  "ai_tokens_estimated,ai_wall_ms\r\n"));
  EXPECT_EQ(get("/history/export?format=pdf").status, 400);
  EXPECT_EQ(get("/history/export").status, 400);
}

TEST_F(HttpHistoryTest, CrossSiteFetchMetadataIs403) {
  // Issue 19 item 7 (review L2): no web page can loop /history/export.
  startSession();
  ASSERT_EQ(post("/complete").status, 200);
  daemon_->executor().runAll();
  ASSERT_EQ(post("/end").status, 200);
  const auto withSite = [this](const std::string& path, const std::string& site,
                               const std::string& mode) {
    RequestOptions options;
    options.headers = {{"Sec-Fetch-Site", site}, {"Sec-Fetch-Mode", mode}};
    return test::sendRequest(daemon_->port(), "GET", path, "", options);
  };
  for (const std::string site : {"cross-site", "same-site", "Cross-Site"}) {
    for (const std::string path : {"/history/export?format=jsonl", "/events", "/state"}) {
      const Reply refused = withSite(path, site, "no-cors");
      EXPECT_EQ(refused.status, 403) << site << " " << path;
      EXPECT_THAT(refused.field("error"), HasSubstr("other sites")) << site << " " << path;
      EXPECT_THAT(refused.body, Not(HasSubstr("Draft"))) << site << " " << path;
    }
    // A link from another site still opens the page itself, never a route.
    // (This daemon serves no www directory, so / is 404: past the check.)
    const Reply page = withSite("/", site, "navigate");
    EXPECT_NE(page.status, 403) << site;
    EXPECT_THAT(page.body, Not(HasSubstr("other sites"))) << site;
    EXPECT_EQ(withSite("/history/export?format=jsonl", site, "navigate").status, 403) << site;
  }
  for (const std::string site : {"same-origin", "none"}) {
    const Reply served = withSite("/history/export?format=jsonl", site, "cors");
    EXPECT_EQ(served.status, 200) << site;
    EXPECT_THAT(served.body, HasSubstr("Draft")) << site;
  }
  EXPECT_EQ(get("/history/export?format=jsonl").status, 200);  // the CLI sends none
  RequestOptions twice;
  twice.headers = {{"Sec-Fetch-Site", "same-origin"}, {"Sec-Fetch-Site", "cross-site"}};
  EXPECT_EQ(test::sendRequest(daemon_->port(), "GET", "/state", "", twice).status, 400);
}

TEST_F(HttpHistoryTest, TheExportLeavesOutRecordsAfterABrokenLink) {
  for (int index = 0; index < 3; ++index) {
    startSession();
    ASSERT_EQ(post("/complete").status, 200);
    ASSERT_EQ(post("/end").status, 200);
  }
  const std::string path = daemon_->storeDir() + "/audit.jsonl";
  std::string content = test::readWholeFile(path);
  const std::size_t second = content.find('\n') + 1;
  content.replace(content.find("\"switches\":0", second), 12, "\"switches\":9");
  test::writeWholeFile(path, content);
  const Reply jsonl = get("/history/export?format=jsonl");
  ASSERT_EQ(jsonl.status, 200);
  EXPECT_EQ(jsonl.response.get("X-AntiDrift-Chain"), "broken");
  EXPECT_EQ(std::count(jsonl.body.begin(), jsonl.body.end(), '\n'), 1);
}

}  // namespace
}  // namespace antidrift
