// audit.jsonl across versions and the backwards reader (issue 7 items 3, 5;
// docs/DESIGN.md §9): records written before the session detail existed still load
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
// docs/DESIGN.md §9: no planned_secs, timeline, recap, …).
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

// A chain of `count` detailed records written at once (no fsync per line).
std::string chainText(int count, std::vector<SessionSummary>* records = nullptr) {
  std::string text;
  std::string prev = kGenesisHash;
  for (int n = 1; n <= count; ++n) {
    SessionSummary summary = detailed(n);
    summary.prev = prev;
    summary.hash = computeHash(summary);
    prev = summary.hash;
    text += toJsonLine(summary) + "\n";
    if (records) records->push_back(summary);
  }
  return text;
}

std::vector<std::string> ids(const std::vector<SessionSummary>& sessions) {
  std::vector<std::string> out;
  for (const SessionSummary& summary : sessions) out.push_back(summary.id);
  return out;
}

TEST(RecentSessions, MissingEmptyAndZero) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  EXPECT_TRUE(recentSessions(path, 5).empty());
  writeWholeFile(path, "");
  EXPECT_TRUE(recentSessions(path, 5).empty());
  writeWholeFile(path, chainText(3));
  EXPECT_TRUE(recentSessions(path, 0).empty());
}

TEST(RecentSessions, OneLine) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  writeWholeFile(path, chainText(1));
  EXPECT_EQ(ids(recentSessions(path, 5)), std::vector<std::string>{"id-1"});
}

TEST(RecentSessions, TenThousandLinesNewestFirstAcrossBlockBoundaries) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  const std::string text = chainText(10'000);
  ASSERT_GT(text.size(), 10 * kBackwardBlockBytes);
  writeWholeFile(path, text);
  const std::vector<SessionSummary> recent = recentSessions(path, 200);
  ASSERT_EQ(recent.size(), 200u);
  for (std::size_t index = 0; index < recent.size(); ++index) {
    EXPECT_EQ(recent[index].id, "id-" + std::to_string(10'000 - index)) << index;
  }
  EXPECT_EQ(recent[0].timeline.size(), 2u);
  // All of them, to the very first line.
  const std::vector<SessionSummary> all = recentSessions(path, 20'000);
  ASSERT_EQ(all.size(), 10'000u);
  EXPECT_EQ(all.back().id, "id-1");
}

TEST(RecentSessions, ATornTailIsSkipped) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  std::string text = chainText(3);
  writeWholeFile(path, text + text.substr(0, 100));  // a crash mid-append
  EXPECT_EQ(ids(recentSessions(path, 2)), (std::vector<std::string>{"id-3", "id-2"}));
  // A complete record without its '\n' is torn too (as AuditLog::open sees it).
  writeWholeFile(path, text.substr(0, text.size() - 1));
  EXPECT_EQ(ids(recentSessions(path, 5)), (std::vector<std::string>{"id-2", "id-1"}));
  // Only a torn line: nothing.
  writeWholeFile(path, "{\"id\":");
  EXPECT_TRUE(recentSessions(path, 5).empty());
}

TEST(RecentSessions, BadAndHugeLinesAreSkipped) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  std::vector<SessionSummary> records;
  const std::string text = chainText(2, &records);
  const std::string first = text.substr(0, text.find('\n') + 1);
  const std::string second = text.substr(first.size());
  writeWholeFile(path,
                 first + "not json\n" + std::string(kMaxAuditLineBytes + 10, 'x') + "\n" + second);
  EXPECT_EQ(ids(recentSessions(path, 5)), (std::vector<std::string>{"id-2", "id-1"}));
}

TEST(RecentSessions, AuditLogRecentUsesIt) {
  TempDirectory temp;
  AuditLog log(temp.path());
  writeWholeFile(log.path(), chainText(30));
  EXPECT_EQ(ids(log.recent(2)), (std::vector<std::string>{"id-30", "id-29"}));
}

TEST(VerifiedHistory, RecordsAfterABrokenLinkAreNotSound) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  std::string text = chainText(4);
  // Alter record 3: its hash no longer matches.
  const std::size_t third = text.find("Task 3");
  text.replace(third, 6, "Task X");
  writeWholeFile(path, text);
  const VerifiedHistory history = readVerifiedHistory(path);
  EXPECT_FALSE(history.verification.ok);
  EXPECT_EQ(history.verification.firstBadLine, std::optional<std::size_t>(3));
  EXPECT_EQ(ids(history.sessions), (std::vector<std::string>{"id-1", "id-2"}));
}

TEST(VerifiedHistory, AnIntactChainIsAllSoundAndAMissingFileIsEmpty) {
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  EXPECT_TRUE(readVerifiedHistory(path).verification.ok);
  EXPECT_TRUE(readVerifiedHistory(path).sessions.empty());
  writeWholeFile(path, std::string(kOldChain) + chainText(0));
  const VerifiedHistory history = readVerifiedHistory(path);
  EXPECT_TRUE(history.verification.ok);
  EXPECT_EQ(history.sessions.size(), 2u);
}

}  // namespace
}  // namespace antidrift
