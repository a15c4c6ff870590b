// audit.jsonl across versions and the backwards reader (issue 7 items 3, 5;
// DESIGN §9): records written before the session detail existed still load
// and verify; a chain may mix both shapes; recentSessions reads from the end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "antidrift/store/audit_log.h"
#include "unit/store/store_test_support.h"

namespace antidrift {
namespace {

using storetest::appendToFile;
using storetest::readWholeFile;
using storetest::TempDirectory;
using storetest::writeWholeFile;

// Two records exactly as the daemon wrote them before issue 7 (the shape of
// DESIGN §9: no planned_secs, timeline, recap, …).
const char* kOldChain =
    R"({"drift_episodes":0,"ended_at":1780001500000,"hash":"ac2b408a1643216dcd87cc4a8e34eed7cb8516fd8e6ace8974c174ad889802b1","id":"0f8e6c1a-3b7d-4e0f-9a2b-5c4d3e2f1a00","next_action":"Write the intro","outcome":"completed","prev":"0000000000000000000000000000000000000000000000000000000000000000","started_at":1780000000000,"success_condition":"It is done","switches":3,"timebox_secs":1500,"top_buckets":[{"app":"code","secs":1200},{"app":"firefox","secs":300}]})"
    "\n"
    R"({"drift_episodes":1,"ended_at":1780005100000,"hash":"f067e5daa2d1e8bbfc6052309e177752f0b46869ef01df736d65ba6dd94c53e5","id":"0f8e6c1a-3b7d-4e0f-9a2b-5c4d3e2f1a01","next_action":"Fix the login bug","outcome":"expired","prev":"ac2b408a1643216dcd87cc4a8e34eed7cb8516fd8e6ace8974c174ad889802b1","started_at":1780003600000,"success_condition":"It is done","switches":4,"timebox_secs":1500,"top_buckets":[{"app":"code","secs":1200},{"app":"firefox","secs":300}]})"
    "\n";

TEST(AuditHistory, AChainWrittenBeforeIssue7StillVerifiesAndLoads) {
  TempDirectory temp;
  AuditLog log(temp.path());
  writeWholeFile(log.path(), kOldChain);
  const AuditVerification verification = AuditLog::verify(log.path());
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, 2u);
  const std::vector<SessionSummary> recent = log.recent(5);
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0].nextAction, "Fix the login bug");
  EXPECT_EQ(recent[0].switches, 4);
}

SessionSummary detailed(int n) {
  SessionSummary summary;
  summary.id = "id-" + std::to_string(n);
  summary.startedAtMs = 1780000000000 + n * 3600000LL;
  summary.endedAtMs = summary.startedAtMs + 1800000;
  summary.nextAction = "Task " + std::to_string(n);
  summary.successCondition = "Done";
  summary.timeboxSecs = 1500;
  summary.outcome = Outcome::Expired;
  summary.switches = 4;
  summary.topBuckets = {{"code", 1200}};
  summary.driftEpisodes = 1;
  summary.plannedSecs = 1800;
  summary.extendedSecs = 300;
  summary.driftSecs = 120;
  summary.awaySecs = 60;
  summary.onTaskSecs = 1500;
  summary.corrections = 1;
  summary.driftReasons = {"youtube is blocked during focus"};
  summary.success = "partly";
  summary.note = "the intro took longer";
  summary.recap = "Mostly on task.";
  summary.carryForward = "Start with the intro.";
  summary.timeline = {
      {summary.startedAtMs, summary.startedAtMs + 60000, "code", SpanStatus::OnTask},
      {summary.startedAtMs + 60000, summary.endedAtMs, "firefox", SpanStatus::Drifting}};
  return summary;
}

TEST(AuditHistory, DetailedRecordsRoundTripEveryField) {
  SessionSummary summary = detailed(1);
  summary.prev = kGenesisHash;
  summary.hash = computeHash(summary);
  const SessionSummary back = summaryFromJsonLine(toJsonLine(summary));
  EXPECT_EQ(back.shape, SummaryShape::Detailed);
  EXPECT_EQ(back.plannedSecs, 1800);
  EXPECT_EQ(back.extendedSecs, 300);
  EXPECT_EQ(back.driftSecs, 120);
  EXPECT_EQ(back.awaySecs, 60);
  EXPECT_EQ(back.onTaskSecs, 1500);
  EXPECT_EQ(back.corrections, 1);
  EXPECT_EQ(back.driftReasons, summary.driftReasons);
  EXPECT_EQ(back.success, "partly");
  EXPECT_EQ(back.note, "the intro took longer");
  EXPECT_EQ(back.recap, "Mostly on task.");
  EXPECT_EQ(back.carryForward, "Start with the intro.");
  EXPECT_EQ(back.timeline, summary.timeline);
  EXPECT_EQ(computeHash(back), summary.hash);
}

TEST(AuditHistory, NewRecordsContinueAnOldChainAndTheWholeChainVerifies) {
  TempDirectory temp;
  AuditLog log(temp.path());
  writeWholeFile(log.path(), kOldChain);
  log.open();
  const SessionSummary third = log.append(detailed(3));
  EXPECT_EQ(third.prev, "f067e5daa2d1e8bbfc6052309e177752f0b46869ef01df736d65ba6dd94c53e5");
  const AuditVerification verification = AuditLog::verify(log.path());
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, 3u);
  const std::vector<SessionSummary> recent = log.recent(3);
  ASSERT_EQ(recent.size(), 3u);
  EXPECT_EQ(recent[0].shape, SummaryShape::Detailed);
  EXPECT_EQ(recent[1].shape, SummaryShape::Basic);
}

TEST(AuditHistory, AlteringADetailFieldBreaksTheHash) {
  TempDirectory temp;
  AuditLog log(temp.path());
  log.append(detailed(1));
  std::string content = readWholeFile(log.path());
  content.replace(content.find("partly"), 6, "yes\"  ");
  content.replace(content.find("yes\"  "), 6, "yes   ");
  writeWholeFile(log.path(), content);
  EXPECT_FALSE(AuditLog::verify(log.path()).ok);
}

TEST(AuditHistory, CapSummaryKeepsOneRecordSmall) {
  SessionSummary summary = detailed(1);
  summary.driftReasons.assign(50, std::string(1000, 'r'));
  summary.note = std::string(5000, 'n');
  for (int index = 0; index < 500; ++index) {
    summary.timeline.push_back(
        {index * 1000LL, index * 1000LL + 1000, std::string(300, 'a'), SpanStatus::Unknown});
  }
  const SessionSummary capped = capSummary(summary);
  EXPECT_EQ(capped.driftReasons.size(), kMaxSummaryDriftReasons);
  EXPECT_EQ(capped.timeline.size(), kMaxSummarySpans);
  EXPECT_EQ(capped.timeline.back().endMs, summary.timeline.back().endMs);
  EXPECT_LT(toJsonLine(capped).size(), 32u * 1024);
}

}  // namespace
}  // namespace antidrift
