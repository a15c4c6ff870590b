// Tests of audit.jsonl (docs/DESIGN.md §9): canonical JSON, hash chain, recovery of a
// torn last line, verification.

#include "antidrift/store/audit_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/DigestEngine.h>
#include <Poco/File.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/SHA2Engine.h>
#include <Poco/StreamCopier.h>

#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "unit/store/store_test_support.h"

namespace antidrift {
namespace {

using storetest::appendToFile;
using storetest::FileSizeLimit;
using storetest::listDirectory;
using storetest::readLines;
using storetest::readWholeFile;
using storetest::TempDirectory;
using storetest::writeWholeFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

/// A summary numbered `n`, every field set, prev/hash empty.
SessionSummary makeSummary(int n) {
  SessionSummary summary;
  summary.id = "00000000-0000-4000-8000-00000000000" + std::to_string(n);
  summary.startedAtMs = 1780000000000 + n * 3600000LL;
  summary.endedAtMs = summary.startedAtMs + 1500000;
  summary.nextAction = "Task " + std::to_string(n) + " — 日本語 😀 \"q\"";
  summary.successCondition = "Done " + std::to_string(n);
  summary.timeboxSecs = 1500;
  summary.outcome = Outcome::Completed;
  summary.switches = n;
  summary.topBuckets = {{"code", 1200}, {"firefox", 300}};
  summary.driftEpisodes = 1;
  return summary;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    text += line + "\n";
  }
  return text;
}

std::string replaceOnce(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << text;
  if (at != std::string::npos) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// A log in a temp directory with `count` records appended through the API.
struct FilledLog {
  explicit FilledLog(int count) : log(temp.path()) {
    log.open();
    for (int n = 1; n <= count; ++n) {
      records.push_back(log.append(makeSummary(n)));
    }
  }
  TempDirectory temp;
  AuditLog log;
  std::vector<SessionSummary> records;
};

// --- canonical JSON and hash ---------------------------------------------------

TEST(AuditJson, CanonicalJsonIsCompactSortedAndWithoutHash) {
  SessionSummary summary;
  summary.id = "abc";
  summary.startedAtMs = 1000;
  summary.endedAtMs = 2000;
  summary.nextAction = "Write ✓";
  summary.successCondition = "Done";
  summary.timeboxSecs = 60;
  summary.outcome = Outcome::Abandoned;
  summary.switches = 3;
  summary.topBuckets = {{"zed", 50}, {"code", 10}};  // order kept: largest first
  summary.driftEpisodes = 2;
  summary.prev = kGenesisHash;
  summary.hash = "must-not-appear";
  summary.shape = SummaryShape::Basic;  // a record as written before issue 7
  EXPECT_EQ(canonicalJson(summary),
            "{\"drift_episodes\":2,\"ended_at\":2000,\"id\":\"abc\",\"next_action\":\"Write ✓\","
            "\"outcome\":\"abandoned\",\"prev\":\"" +
                kGenesisHash +
                "\",\"started_at\":1000,\"success_condition\":\"Done\",\"switches\":3,"
                "\"timebox_secs\":60,\"top_buckets\":[{\"app\":\"zed\",\"secs\":50},"
                "{\"app\":\"code\",\"secs\":10}]}");
}

TEST(AuditJson, GenesisHashIs64Zeros) {
  EXPECT_EQ(kGenesisHash, std::string(64, '0'));
}

TEST(AuditJson, JsonLineRoundTripsEveryField) {
  SessionSummary summary = makeSummary(4);
  summary.outcome = Outcome::Expired;
  summary.prev = kGenesisHash;
  summary.hash = computeHash(summary);
  const std::string line = toJsonLine(summary);
  EXPECT_THAT(line, Not(HasSubstr("\n")));
  EXPECT_THAT(line, HasSubstr("\"hash\":\"" + summary.hash + "\""));

  const SessionSummary parsed = summaryFromJsonLine(line);
  EXPECT_EQ(parsed.id, summary.id);
  EXPECT_EQ(parsed.startedAtMs, summary.startedAtMs);
  EXPECT_EQ(parsed.endedAtMs, summary.endedAtMs);
  EXPECT_EQ(parsed.nextAction, summary.nextAction);
  EXPECT_EQ(parsed.successCondition, summary.successCondition);
  EXPECT_EQ(parsed.timeboxSecs, summary.timeboxSecs);
  EXPECT_EQ(parsed.outcome, Outcome::Expired);
  EXPECT_EQ(parsed.switches, summary.switches);
  EXPECT_EQ(parsed.topBuckets, summary.topBuckets);
  EXPECT_EQ(parsed.driftEpisodes, summary.driftEpisodes);
  EXPECT_EQ(parsed.prev, summary.prev);
  EXPECT_EQ(parsed.hash, summary.hash);
}

// Issue 18 item 4: a session's AI cost is kept in its record when a call was
// made, and a session without one hashes as before (no "ai_cost" key).
TEST(AuditJson, TheAiCostIsKeptOnlyWhenACallWasMade) {
  SessionSummary summary = makeSummary(5);
  summary.prev = kGenesisHash;
  EXPECT_THAT(canonicalJson(summary), Not(HasSubstr("ai_cost")));
  summary.aiCost = AiCost{4, 3900, 120, false, 5200};
  summary.hash = computeHash(summary);
  const std::string line = toJsonLine(summary);
  EXPECT_THAT(line, HasSubstr(R"("ai_cost":{"calls":4,"estimated":false,"input_tokens":3900,)"
                              R"("output_tokens":120,"wall_ms":5200})"));
  const SessionSummary parsed = summaryFromJsonLine(line);
  EXPECT_EQ(parsed.aiCost, summary.aiCost);
  EXPECT_EQ(computeHash(parsed), summary.hash);
}

struct BadLineCase {
  const char* name;
  const char* from;
  const char* to;
  const char* expectedInMessage;
};

class AuditBadLine : public ::testing::TestWithParam<BadLineCase> {};

TEST_P(AuditBadLine, ThrowsNamingTheProblem) {
  SessionSummary summary = makeSummary(1);
  summary.prev = kGenesisHash;
  summary.hash = computeHash(summary);
  const std::string line = std::string(GetParam().from).empty()
                               ? std::string(GetParam().to)
                               : replaceOnce(toJsonLine(summary), GetParam().from, GetParam().to);
  try {
    summaryFromJsonLine(line);
    FAIL() << "accepted: " << line;
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(GetParam().expectedInMessage));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AuditBadLine,
    ::testing::Values(
        BadLineCase{"HalfLine", "", "{\"drift_episodes\":1,\"ended", "malformed JSON"},
        BadLineCase{"Empty", "", "", "malformed JSON"},
        BadLineCase{"MissingHash", ",\"hash\":", ",\"hush\":", "\"hash\" is missing"},
        BadLineCase{"SwitchesAsString", "\"switches\":1", "\"switches\":\"1\"", "\"switches\""},
        BadLineCase{"UnknownOutcome", "\"outcome\":\"completed\"", "\"outcome\":\"won\"",
                    "\"outcome\""},
        BadLineCase{"BucketNotObject", "\"top_buckets\":[{", "\"top_buckets\":[7,{",
                    "top_buckets[0]"},
        BadLineCase{"BucketSecsMissing", "\"secs\":1200", "\"sex\":1200", "top_buckets[0].secs"}),
    [](const ::testing::TestParamInfo<BadLineCase>& info) { return info.param.name; });

TEST(AuditHash, IsSha256HexOfCanonicalJsonAndStable) {
  SessionSummary summary = makeSummary(1);
  summary.prev = kGenesisHash;
  const std::string hash = computeHash(summary);
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(computeHash(summary), hash);
  EXPECT_EQ(computeHash(makeSummary(1)), computeHash(makeSummary(1)));
  SessionSummary withHash = summary;
  withHash.hash = "anything";  // the hash field is not part of its own input
  EXPECT_EQ(computeHash(withHash), hash);
}

TEST(AuditHash, MatchesSha256sumOfCanonicalJson) {
  TempDirectory temp;
  SessionSummary summary = makeSummary(2);
  summary.prev = kGenesisHash;
  const std::string inputPath = temp.file("canonical.json");
  writeWholeFile(inputPath, canonicalJson(summary));

  Poco::Pipe outputPipe;
  Poco::ProcessHandle process =
      Poco::Process::launch("/usr/bin/sha256sum", {inputPath}, nullptr, &outputPipe, nullptr);
  Poco::PipeInputStream output(outputPipe);
  std::string printed;
  Poco::StreamCopier::copyToString(output, printed);
  ASSERT_EQ(process.wait(), 0);
  ASSERT_GE(printed.size(), 64u);
  EXPECT_EQ(computeHash(summary), printed.substr(0, 64));
}

struct FieldChange {
  const char* name;
  std::function<void(SessionSummary&)> change;
};

class AuditHashChanges : public ::testing::TestWithParam<FieldChange> {};

TEST_P(AuditHashChanges, WhenTheFieldChanges) {
  SessionSummary original = makeSummary(3);
  original.prev = kGenesisHash;
  SessionSummary changed = original;
  GetParam().change(changed);
  EXPECT_NE(canonicalJson(changed), canonicalJson(original));
  EXPECT_NE(computeHash(changed), computeHash(original));
}

INSTANTIATE_TEST_SUITE_P(
    EveryField, AuditHashChanges,
    ::testing::Values(
        FieldChange{"Id", [](SessionSummary& s) { s.id += "x"; }},
        FieldChange{"StartedAt", [](SessionSummary& s) { s.startedAtMs += 1; }},
        FieldChange{"EndedAt", [](SessionSummary& s) { s.endedAtMs += 1; }},
        FieldChange{"NextAction", [](SessionSummary& s) { s.nextAction += " "; }},
        FieldChange{"SuccessCondition", [](SessionSummary& s) { s.successCondition = ""; }},
        FieldChange{"TimeboxSecs", [](SessionSummary& s) { s.timeboxSecs += 1; }},
        FieldChange{"Outcome", [](SessionSummary& s) { s.outcome = Outcome::Abandoned; }},
        FieldChange{"Switches", [](SessionSummary& s) { s.switches += 1; }},
        FieldChange{"BucketApp", [](SessionSummary& s) { s.topBuckets[0].first = "Code"; }},
        FieldChange{"BucketSecs", [](SessionSummary& s) { s.topBuckets[1].second += 1; }},
        FieldChange{"BucketOrder",
                    [](SessionSummary& s) { std::swap(s.topBuckets[0], s.topBuckets[1]); }},
        FieldChange{"BucketRemoved", [](SessionSummary& s) { s.topBuckets.pop_back(); }},
        FieldChange{"DriftEpisodes", [](SessionSummary& s) { s.driftEpisodes += 1; }},
        FieldChange{"Prev", [](SessionSummary& s) { s.prev[63] = '1'; }}),
    [](const ::testing::TestParamInfo<FieldChange>& info) { return info.param.name; });

// --- AuditLog: append, chain, verify -----------------------------------------

TEST(AuditLog, PathIsAuditJsonlInTheDirectory) {
  AuditLog log("/some/dir");
  EXPECT_EQ(log.path(), "/some/dir/audit.jsonl");
}

TEST(AuditLog, ChainOfThreeVerifies) {
  FilledLog filled(3);
  const std::vector<SessionSummary>& records = filled.records;
  EXPECT_EQ(records[0].prev, kGenesisHash);
  EXPECT_EQ(records[1].prev, records[0].hash);
  EXPECT_EQ(records[2].prev, records[1].hash);
  for (const SessionSummary& record : records) {
    EXPECT_EQ(record.hash, computeHash(record));
  }
  const std::vector<std::string> lines = readLines(filled.log.path());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], toJsonLine(records[1]));
  EXPECT_EQ(readWholeFile(filled.log.path()).back(), '\n');

  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, 3u);
  EXPECT_FALSE(verification.firstBadLine.has_value());
  EXPECT_EQ(describeVerification(verification), "ok: 3 records, chain intact");
}

TEST(AuditLog, ChainContinuesAcrossRestart) {
  FilledLog filled(2);
  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  EXPECT_FALSE(report.tornLineMovedTo.has_value());
  EXPECT_TRUE(report.lastRecordChecked);
  EXPECT_FALSE(report.lastLineProblem.has_value());
  const SessionSummary third = restarted.append(makeSummary(3));
  EXPECT_EQ(third.prev, filled.records[1].hash);
  EXPECT_TRUE(AuditLog::verify(restarted.path()).ok);
}

TEST(AuditLog, OpenCreatesPrivateDirectoryAndAppendCreatesPrivateFile) {
  TempDirectory temp;
  const std::string directory = temp.file("x/antidrift");
  AuditLog log(directory);
  const AuditOpenReport report = log.open();
  EXPECT_FALSE(report.lastLineProblem.has_value());
  EXPECT_FALSE(report.lastRecordChecked);
  struct stat info {};
  ASSERT_EQ(::stat(directory.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  log.append(makeSummary(1));
  ASSERT_EQ(::stat(log.path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(AuditLog, AppendWithoutOpenStillChains) {
  FilledLog filled(1);
  AuditLog second(filled.temp.path());
  const SessionSummary stored = second.append(makeSummary(2));
  EXPECT_EQ(stored.prev, filled.records[0].hash);
  EXPECT_TRUE(AuditLog::verify(second.path()).ok);
}

TEST(AuditLog, InvalidUtf8IsReplacedAndTheChainStaysValid) {
  TempDirectory temp;
  AuditLog log(temp.path());
  log.open();
  SessionSummary summary = makeSummary(1);
  summary.nextAction =
      "a\xff"
      "b";
  summary.topBuckets = {{"caf\xe9", 10}};
  const SessionSummary stored = log.append(summary);

  const AuditVerification verification = AuditLog::verify(log.path());
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, 1u);
  const std::vector<SessionSummary> recent = log.recent(1);
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].nextAction,
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(recent[0].topBuckets[0].first, "caf\xEF\xBF\xBD");
  EXPECT_EQ(stored.nextAction, recent[0].nextAction);  // append returns what was stored
  EXPECT_EQ(recent[0].hash, stored.hash);
  EXPECT_EQ(computeHash(recent[0]), stored.hash);
}

TEST(AuditLog, AppendIgnoresCallerPrevAndHash) {
  TempDirectory temp;
  AuditLog log(temp.path());
  log.open();
  SessionSummary summary = makeSummary(1);
  summary.prev = "bogus";
  summary.hash = "bogus";
  const SessionSummary stored = log.append(summary);
  EXPECT_EQ(stored.prev, kGenesisHash);
  EXPECT_EQ(stored.hash, computeHash(stored));
}

TEST(AuditLog, TamperedRecordIsNamedByLineAndHash) {
  FilledLog filled(3);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines[1] = replaceOnce(lines[1], "\"switches\":2", "\"switches\":0");
  writeWholeFile(filled.log.path(), joinLines(lines));

  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(2));
  EXPECT_THAT(verification.problem, HasSubstr("hash mismatch (record altered)"));
  EXPECT_EQ(verification.records, 3u);
  EXPECT_THAT(describeVerification(verification), StartsWith("broken at line 2: hash"));
}

TEST(AuditLog, OpenChecksOnlyTheTailAndNeverRewrites) {
  // Issue 19 item 6: start reads the last record only; verify() finds the rest.
  FilledLog filled(3);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines[1] = replaceOnce(lines[1], "Task 2", "Task 9");
  const std::string tampered = joinLines(lines);
  writeWholeFile(filled.log.path(), tampered);

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  EXPECT_FALSE(report.tornLineMovedTo.has_value());
  EXPECT_TRUE(report.lastRecordChecked);
  EXPECT_FALSE(report.lastLineProblem.has_value());
  EXPECT_EQ(readWholeFile(restarted.path()), tampered);
  EXPECT_EQ(AuditLog::verify(restarted.path()).firstBadLine, std::optional<std::size_t>(2));
  EXPECT_EQ(restarted.append(makeSummary(4)).prev, filled.records[2].hash);
}

TEST(AuditLog, OpenReportsAnAlteredLastRecordButNeverRewrites) {
  FilledLog filled(2);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines[1] = replaceOnce(lines[1], "Task 2", "Task 9");
  const std::string tampered = joinLines(lines);
  writeWholeFile(filled.log.path(), tampered);

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  ASSERT_TRUE(report.lastLineProblem.has_value());
  EXPECT_THAT(*report.lastLineProblem, HasSubstr("altered"));
  EXPECT_EQ(readWholeFile(restarted.path()), tampered);
}

TEST(AuditLog, AHugeLogOpensFromItsTailWithoutReadingTheStart) {
  // Issue 19 item 6 (review L4): a 64 MiB first line (a sparse hole) is never
  // read at start; the chain head is the last record. docs/PERFORMANCE.md has
  // the 1 GB figures (tests/bench/audit_open.py).
  TempDirectory temp;
  const std::string path = temp.file("audit.jsonl");
  {
    std::ofstream out(path, std::ios::binary);
    out.seekp(64 * 1024 * 1024);
    out << '\n';
  }
  SessionSummary record = makeSummary(1);
  record.prev = kGenesisHash;
  record.hash = computeHash(record);
  appendToFile(path, toJsonLine(record) + "\n");
  AuditLog log(temp.path());
  const AuditOpenReport report = log.open();
  EXPECT_TRUE(report.lastRecordChecked);
  EXPECT_FALSE(report.lastLineProblem.has_value());
  EXPECT_EQ(log.append(makeSummary(2)).prev, record.hash);
  const AuditVerification whole = AuditLog::verify(path);
  EXPECT_EQ(whole.firstBadLine, std::optional<std::size_t>(1));
  EXPECT_THAT(whole.problem, HasSubstr("over"));
}

TEST(AuditLog, DeletedRecordIsNamedAsBrokenPrevLink) {
  FilledLog filled(3);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines.erase(lines.begin() + 1);
  const std::string broken = joinLines(lines);
  writeWholeFile(filled.log.path(), broken);

  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(2));
  EXPECT_EQ(verification.problem, "prev does not match line 1's hash");
  EXPECT_EQ(verification.records, 2u);

  // open() leaves the file as it is.
  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  EXPECT_FALSE(report.tornLineMovedTo.has_value());
  EXPECT_EQ(readWholeFile(restarted.path()), broken);
}

TEST(AuditLog, FirstRecordMustStartFromGenesis) {
  FilledLog filled(2);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines.erase(lines.begin());
  writeWholeFile(filled.log.path(), joinLines(lines));
  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(1));
  EXPECT_THAT(verification.problem, HasSubstr("prev"));
  EXPECT_THAT(verification.problem, HasSubstr("genesis"));
}

TEST(AuditLog, MalformedMiddleLineIsNamed) {
  FilledLog filled(3);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines[1] = "this is not json";
  writeWholeFile(filled.log.path(), joinLines(lines));
  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(2));
  EXPECT_THAT(verification.problem, StartsWith("malformed JSON"));
  EXPECT_EQ(verification.records, 2u);
}

TEST(AuditLog, MissingOrEmptyFileVerifiesWithZeroRecords) {
  TempDirectory temp;
  const AuditVerification missing = AuditLog::verify(temp.file("audit.jsonl"));
  EXPECT_TRUE(missing.ok);
  EXPECT_EQ(missing.records, 0u);
  EXPECT_FALSE(missing.firstBadLine.has_value());

  writeWholeFile(temp.file("audit.jsonl"), "");
  const AuditVerification empty = AuditLog::verify(temp.file("audit.jsonl"));
  EXPECT_TRUE(empty.ok);
  EXPECT_EQ(empty.records, 0u);
}

TEST(AuditLog, UnreadableFileIsReportedNotThrown) {
  TempDirectory temp;
  Poco::File(temp.file("audit.jsonl")).createDirectories();  // a directory, not a file
  AuditVerification verification;
  ASSERT_NO_THROW(verification = AuditLog::verify(temp.file("audit.jsonl")));
  EXPECT_FALSE(verification.ok);
  EXPECT_FALSE(verification.firstBadLine.has_value());
  EXPECT_THAT(verification.problem, HasSubstr("audit.jsonl"));
}

// --- torn last line --------------------------------------------------------------

TEST(AuditLog, TornLastLineIsMovedAsideAndChainContinues) {
  FilledLog filled(2);
  const std::string good = readWholeFile(filled.log.path());
  SessionSummary half = makeSummary(3);
  half.prev = filled.records[1].hash;
  half.hash = computeHash(half);
  const std::string fullLine = toJsonLine(half);
  const std::string torn = fullLine.substr(0, fullLine.size() / 2);
  appendToFile(filled.log.path(), torn);

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  ASSERT_TRUE(report.tornLineMovedTo.has_value());
  EXPECT_THAT(*report.tornLineMovedTo, StartsWith(restarted.path() + ".torn-"));
  ASSERT_TRUE(Poco::File(*report.tornLineMovedTo).exists());
  EXPECT_EQ(readWholeFile(*report.tornLineMovedTo), torn);
  EXPECT_EQ(readWholeFile(restarted.path()), good);
  EXPECT_TRUE(report.lastRecordChecked);
  EXPECT_FALSE(report.lastLineProblem.has_value());

  const SessionSummary third = restarted.append(makeSummary(3));
  EXPECT_EQ(third.prev, filled.records[1].hash);
  const AuditVerification after = AuditLog::verify(restarted.path());
  EXPECT_TRUE(after.ok) << after.problem;
  EXPECT_EQ(after.records, 3u);
}

TEST(AuditLog, ACompleteButUnknownLastLineIsNotTruncated) {
  // Issue 19 item 6 (review L4): a line that ends in '\n' was written whole;
  // one that does not parse is corruption, reported and kept, never cut.
  FilledLog filled(1);
  appendToFile(filled.log.path(), "{\"id\":\"x\",\"ended_at\n");
  const std::string before = readWholeFile(filled.log.path());

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  EXPECT_FALSE(report.tornLineMovedTo.has_value());
  ASSERT_TRUE(report.lastLineProblem.has_value());
  EXPECT_THAT(*report.lastLineProblem, HasSubstr("does not parse"));
  EXPECT_EQ(readWholeFile(restarted.path()), before);
  EXPECT_EQ(listDirectory(filled.temp.path()).size(), 1u);  // nothing moved aside
  const AuditVerification verification = AuditLog::verify(restarted.path());
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(2));
  EXPECT_THAT(verification.problem, StartsWith("malformed JSON"));
  // Later records chain after the last record that parses; verify names the corruption.
  EXPECT_EQ(restarted.append(makeSummary(2)).prev, filled.records[0].hash);
  EXPECT_EQ(readWholeFile(restarted.path()).substr(0, before.size()), before);
}

TEST(AuditLog, ANewerVersionsRecordIsKeptAndChainedAfter) {
  // A record with an outcome this version does not know (a downgrade): the
  // chain continues from its hash instead of forking (review L4).
  FilledLog filled(1);
  SessionSummary newer = makeSummary(2);
  newer.prev = filled.records[0].hash;
  newer.hash = computeHash(newer);
  const std::string line =
      replaceOnce(toJsonLine(newer), "\"outcome\":\"completed\"", "\"outcome\":\"teleported\"");
  appendToFile(filled.log.path(), line + "\n");

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  EXPECT_FALSE(report.tornLineMovedTo.has_value());
  ASSERT_TRUE(report.lastLineProblem.has_value());
  EXPECT_THAT(*report.lastLineProblem, HasSubstr("newer"));
  EXPECT_EQ(restarted.append(makeSummary(3)).prev, newer.hash);
  EXPECT_EQ(readLines(restarted.path())[1], line);
}

TEST(AuditLog, CompleteRecordWithoutNewlineCountsAsTorn) {
  FilledLog filled(1);
  SessionSummary next = makeSummary(2);
  next.prev = filled.records[0].hash;
  next.hash = computeHash(next);
  appendToFile(filled.log.path(), toJsonLine(next));  // the '\n' never made it

  AuditLog restarted(filled.temp.path());
  const AuditOpenReport report = restarted.open();
  ASSERT_TRUE(report.tornLineMovedTo.has_value());
  EXPECT_EQ(readWholeFile(*report.tornLineMovedTo), toJsonLine(next));
  EXPECT_EQ(AuditLog::verify(restarted.path()).records, 1u);
}

TEST(AuditLog, FileHoldingOnlyATornLineBecomesEmpty) {
  TempDirectory temp;
  writeWholeFile(temp.file("audit.jsonl"), "{\"id\":");
  AuditLog log(temp.path());
  const AuditOpenReport report = log.open();
  ASSERT_TRUE(report.tornLineMovedTo.has_value());
  EXPECT_EQ(readWholeFile(log.path()), "");
  EXPECT_FALSE(report.lastLineProblem.has_value());
  EXPECT_EQ(log.append(makeSummary(1)).prev, kGenesisHash);
  EXPECT_TRUE(AuditLog::verify(log.path()).ok);
}

TEST(AuditLog, VerifyNamesATornLastLineAsSuch) {
  const std::string kTorn =
      "torn last line (a crash mid-append; the daemon moves it aside on its next start)";
  FilledLog filled(2);
  const std::string good = readWholeFile(filled.log.path());
  SessionSummary next = makeSummary(3);
  next.prev = filled.records[1].hash;
  next.hash = computeHash(next);
  const std::string fullLine = toJsonLine(next);

  // Half a record, a whole record without its '\n'.
  for (const std::string& tail : {fullLine.substr(0, fullLine.size() / 2), fullLine}) {
    writeWholeFile(filled.log.path(), good + tail);
    const AuditVerification verification = AuditLog::verify(filled.log.path());
    EXPECT_FALSE(verification.ok) << tail;
    EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(3)) << tail;
    EXPECT_EQ(verification.problem, kTorn) << tail;
    EXPECT_EQ(verification.records, 2u) << tail;
  }
}

TEST(AuditLog, VerifyNamesACompleteUnparseableLastLineAsMalformedNotTorn) {
  FilledLog filled(2);
  appendToFile(filled.log.path(), "{\"id\":\"x\"\n");
  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(3));
  EXPECT_THAT(verification.problem, StartsWith("malformed"));
}

// --- the store's edges (issue 19 item 6, review L1) ---------------------------------

TEST(AuditLog, ASymlinkedAuditLogIsRefusedAndItsTargetUntouched) {
  TempDirectory temp;
  const std::string victim = temp.file("victim.txt");
  writeWholeFile(victim, "export PATH=/usr/bin\nlast line without newline");
  ASSERT_EQ(::symlink(victim.c_str(), temp.file("audit.jsonl").c_str()), 0);
  AuditLog log(temp.path());
  try {
    log.open();
    FAIL() << "open() followed the symbolic link";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("symbolic link"));
  }
  EXPECT_THROW(log.append(makeSummary(1)), std::runtime_error);
  EXPECT_THROW(AuditLog(temp.path()).append(makeSummary(1)), std::runtime_error);
  EXPECT_FALSE(AuditLog::verify(temp.file("audit.jsonl")).ok);
  EXPECT_EQ(readWholeFile(victim), "export PATH=/usr/bin\nlast line without newline");
}

TEST(AuditLog, AGroupReadableAuditLogIsTightened) {
  FilledLog filled(1);
  ASSERT_EQ(::chmod(filled.log.path().c_str(), 0644), 0);
  AuditLog restarted(filled.temp.path());
  restarted.open();
  struct stat info {};
  ASSERT_EQ(::stat(restarted.path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(AuditLog, AnEarlierProblemIsNamedBeforeATornLastLine) {
  FilledLog filled(3);
  std::vector<std::string> lines = readLines(filled.log.path());
  lines[0] = "this is not json";
  writeWholeFile(filled.log.path(), joinLines(lines) + "{\"id\":");
  const AuditVerification verification = AuditLog::verify(filled.log.path());
  EXPECT_FALSE(verification.ok);
  EXPECT_EQ(verification.firstBadLine, std::optional<std::size_t>(1));
  EXPECT_THAT(verification.problem, StartsWith("malformed JSON"));
}

TEST(AuditLog, FailedAppendLeavesNoPartialLine) {
  FilledLog filled(1);
  const std::string before = readWholeFile(filled.log.path());
  SessionSummary huge = makeSummary(2);
  huge.nextAction = std::string(64 * 1024, 'x');
  {
    FileSizeLimit limit(before.size() + 100);  // room for a fragment, not the line
    EXPECT_THROW(filled.log.append(huge), std::runtime_error);
  }
  EXPECT_EQ(readWholeFile(filled.log.path()), before);
  const SessionSummary next = filled.log.append(makeSummary(2));
  EXPECT_EQ(next.prev, filled.records[0].hash);
  EXPECT_TRUE(AuditLog::verify(filled.log.path()).ok);
}

// --- recent and concurrency --------------------------------------------------------

TEST(AuditLog, RecentIsNewestFirstAndBoundedByCount) {
  FilledLog filled(3);
  std::vector<std::string> ids;
  for (const SessionSummary& summary : filled.log.recent(2)) {
    ids.push_back(summary.id);
  }
  EXPECT_THAT(ids, ElementsAre(filled.records[2].id, filled.records[1].id));

  const std::vector<SessionSummary> all = filled.log.recent(10);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].hash, filled.records[2].hash);
  EXPECT_EQ(all[2].hash, filled.records[0].hash);
  EXPECT_TRUE(filled.log.recent(0).empty());
}

TEST(AuditLog, RecentOfMissingFileIsEmpty) {
  TempDirectory temp;
  AuditLog log(temp.path());
  EXPECT_TRUE(log.recent(5).empty());
}

TEST(AuditLog, RecentSkipsUnreadableLines) {
  FilledLog filled(2);
  appendToFile(filled.log.path(), "garbage\n");
  const std::vector<SessionSummary> recent = filled.log.recent(5);
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0].id, filled.records[1].id);
}

TEST(AuditLog, ConcurrentAppendsKeepOneValidChain) {
  TempDirectory temp;
  AuditLog log(temp.path());
  log.open();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < kPerThread; ++i) {
        log.append(makeSummary(t * kPerThread + i));
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  const AuditVerification verification = AuditLog::verify(log.path());
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace antidrift
