// Tests of snapshot.json (docs/DESIGN.md §9): JSON round trip and FileSnapshotStore.

#include "antidrift/store/snapshot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/File.h>

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "unit/store/store_test_support.h"

namespace antidrift {
namespace {

using storetest::FileSizeLimit;
using storetest::listDirectory;
using storetest::readWholeFile;
using storetest::TempDirectory;
using storetest::writeWholeFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kUnicode = "Kapitel 3 — 日本語 😀 \"quoted\" \\ back\nslash\ttab";

/// A snapshot with every field set to a non-default value.
Snapshot fullSnapshot() {
  Snapshot snapshot;
  snapshot.runtime = RuntimeState::Review;
  Commitment commitment;
  commitment.id = "0c6a1d2e-5f4b-4e3a-9c1d-2b3a4c5d6e7f";
  commitment.nextAction = "Write " + kUnicode;
  commitment.successCondition = "Done when ✓ " + kUnicode;
  commitment.timeboxSecs = 1500;
  commitment.startedAtMs = 1780000000123;
  commitment.deadlineMs = 1780001500123;
  commitment.allowedApps = {"code", "qterminal", "épée"};
  commitment.allowedTitles = {{"firefox", "gatsby docs transition link"}, {"chromium", "日本"}};
  snapshot.commitment = commitment;
  snapshot.outcome = Outcome::Completed;
  snapshot.endedAtMs = 1780001400456;
  snapshot.stats.bucketsMs = {{"code", 120000}, {"firefox", 3000}, {"日本", 7}};
  snapshot.stats.switches = 5;
  snapshot.stats.driftEpisodes = 2;
  snapshot.stats.driftMs = 45000;
  snapshot.stats.awayMs = 60000;
  snapshot.stats.corrections = 3;
  snapshot.stats.aiCalls = {{"judge", 4}, {"nudge", 1}};
  snapshot.stats.aiCost = AiCost{5, 4100, 230, true, 6400};  // issue 18 item 4
  snapshot.lastAllowedApps = {"code", "qterminal"};
  snapshot.reflection.status = ReflectionStatus::Ready;
  snapshot.reflection.recap = "Recap " + kUnicode;
  snapshot.reflection.carryForward = "Carry " + kUnicode;
  snapshot.lastCarryForward = "Last " + kUnicode;
  snapshot.savedAtMs = 1780001400999;
  snapshot.driftStay = DriftStay{"firefox\ncats - catflix " + kUnicode, true, "AI judge: \"Cats.\"",
                                 false};  // issue 17 item 4
  return snapshot;
}

void expectSameSnapshot(const Snapshot& actual, const Snapshot& expected) {
  EXPECT_EQ(actual.version, expected.version);
  EXPECT_EQ(actual.runtime, expected.runtime);
  ASSERT_EQ(actual.commitment.has_value(), expected.commitment.has_value());
  if (expected.commitment) {
    EXPECT_EQ(actual.commitment->id, expected.commitment->id);
    EXPECT_EQ(actual.commitment->nextAction, expected.commitment->nextAction);
    EXPECT_EQ(actual.commitment->successCondition, expected.commitment->successCondition);
    EXPECT_EQ(actual.commitment->timeboxSecs, expected.commitment->timeboxSecs);
    EXPECT_EQ(actual.commitment->startedAtMs, expected.commitment->startedAtMs);
    EXPECT_EQ(actual.commitment->deadlineMs, expected.commitment->deadlineMs);
    EXPECT_EQ(actual.commitment->allowedApps, expected.commitment->allowedApps);
    ASSERT_EQ(actual.commitment->allowedTitles.size(), expected.commitment->allowedTitles.size());
    for (std::size_t i = 0; i < expected.commitment->allowedTitles.size(); ++i) {
      EXPECT_EQ(actual.commitment->allowedTitles[i].app, expected.commitment->allowedTitles[i].app);
      EXPECT_EQ(actual.commitment->allowedTitles[i].title,
                expected.commitment->allowedTitles[i].title);
    }
  }
  EXPECT_EQ(actual.outcome, expected.outcome);
  EXPECT_EQ(actual.endedAtMs, expected.endedAtMs);
  EXPECT_EQ(actual.stats.bucketsMs, expected.stats.bucketsMs);
  EXPECT_EQ(actual.stats.switches, expected.stats.switches);
  EXPECT_EQ(actual.stats.driftEpisodes, expected.stats.driftEpisodes);
  EXPECT_EQ(actual.stats.driftMs, expected.stats.driftMs);
  EXPECT_EQ(actual.stats.awayMs, expected.stats.awayMs);
  EXPECT_EQ(actual.stats.corrections, expected.stats.corrections);
  EXPECT_EQ(actual.stats.aiCalls, expected.stats.aiCalls);
  EXPECT_EQ(actual.stats.aiCost, expected.stats.aiCost);
  EXPECT_EQ(actual.lastAllowedApps, expected.lastAllowedApps);
  EXPECT_EQ(actual.reflection.status, expected.reflection.status);
  EXPECT_EQ(actual.reflection.recap, expected.reflection.recap);
  EXPECT_EQ(actual.reflection.carryForward, expected.reflection.carryForward);
  EXPECT_EQ(actual.lastCarryForward, expected.lastCarryForward);
  EXPECT_EQ(actual.savedAtMs, expected.savedAtMs);
  EXPECT_EQ(actual.driftStay, expected.driftStay);
}

std::string replaceOnce(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << text;
  if (at != std::string::npos) {
    text.replace(at, from.size(), to);
  }
  return text;
}

unsigned permissionsOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

// --- JSON --------------------------------------------------------------------

TEST(SnapshotJson, RoundTripsEveryFieldIncludingUnicode) {
  const Snapshot original = fullSnapshot();
  expectSameSnapshot(snapshotFromJson(snapshotToJson(original)), original);
}

TEST(SnapshotJson, ADriftStayThatIsNotTextAndBooleansIsRefused) {
  const std::string json = snapshotToJson(fullSnapshot());
  EXPECT_THAT(json, HasSubstr("\"drift_stay\":{"));
  EXPECT_THROW(snapshotFromJson(replaceOnce(json, "\"drifting\":true", "\"drifting\":1")),
               std::runtime_error);
}

TEST(SnapshotJson, RoundTripsDefaultSnapshotWithoutCommitment) {
  const Snapshot original;
  const std::string json = snapshotToJson(original);
  EXPECT_THAT(json, Not(HasSubstr("commitment")));
  const Snapshot parsed = snapshotFromJson(json);
  expectSameSnapshot(parsed, original);
  EXPECT_FALSE(parsed.commitment.has_value());
}

TEST(SnapshotJson, IsCompactUtf8WithSnakeCaseFields) {
  const std::string json = snapshotToJson(fullSnapshot());
  EXPECT_THAT(json, Not(HasSubstr("\n")));   // the newline inside strings is escaped
  EXPECT_THAT(json, HasSubstr("日本語 😀"));  // UTF-8 kept, not \u-escaped
  EXPECT_THAT(json, HasSubstr("\"runtime\":\"review\""));
  EXPECT_THAT(json, HasSubstr("\"outcome\":\"completed\""));
  EXPECT_THAT(json, HasSubstr("\"version\":1"));
  EXPECT_THAT(json, HasSubstr("\"last_carry_forward\":"));
  EXPECT_THAT(json, HasSubstr("\"started_at\":1780000000123"));
}

TEST(SnapshotJson, ASnapshotWrittenBeforeTheDriftFieldsStillLoads) {
  // What version 1 wrote before allowed_titles, corrections, ai_calls and
  // last_allowed_apps existed: an active session must survive the upgrade.
  const std::string older =
      R"({"version":1,"runtime":"active","commitment":{"id":"x","next_action":"Write",)"
      R"("success_condition":"Done","timebox_secs":60,"started_at":1,"deadline":60001,)"
      R"("allowed_apps":["code"]},"outcome":"","ended_at":0,"stats":{"buckets_ms":{},)"
      R"("switches":0,"drift_episodes":0,"drift_ms":0,"away_ms":0},"reflection":{"status":)"
      R"("idle","recap":"","carry_forward":""},"last_carry_forward":"","saved_at":1})";
  const Snapshot parsed = snapshotFromJson(older);
  ASSERT_TRUE(parsed.commitment.has_value());
  EXPECT_EQ(parsed.commitment->allowedApps, std::vector<std::string>{"code"});
  EXPECT_TRUE(parsed.commitment->allowedTitles.empty());
  EXPECT_EQ(parsed.stats.corrections, 0);
  EXPECT_TRUE(parsed.stats.aiCalls.empty());
  EXPECT_EQ(parsed.stats.aiCost, AiCost{});  // written before issue 18: no cost
  EXPECT_TRUE(parsed.lastAllowedApps.empty());
  EXPECT_FALSE(parsed.driftStay);  // issue 17 item 4: no stay to continue
}

struct ReflectionCase {
  const char* text;
  ReflectionStatus status;
};

class SnapshotReflectionStatus : public ::testing::TestWithParam<ReflectionCase> {};

// Issue 15 item 5: the reflection status became an enum; a snapshot written
// while it was a string (the same names) loads, and is written back unchanged.
TEST_P(SnapshotReflectionStatus, ASnapshotWrittenWhileItWasAStringLoadsAndWritesTheSameName) {
  const std::string status = std::string("\"status\":\"") + GetParam().text + "\"";
  const std::string older =
      R"({"version":1,"runtime":"review","commitment":{"id":"x","next_action":"Write",)"
      R"("success_condition":"Done","timebox_secs":60,"started_at":1,"deadline":60001,)"
      R"("allowed_apps":["code"]},"outcome":"completed","ended_at":60001,"stats":{)"
      R"("buckets_ms":{},"switches":0,"drift_episodes":0,"drift_ms":0,"away_ms":0},)"
      R"("reflection":{)" +
      status +
      R"(,"recap":"Wrote it","carry_forward":""},"last_carry_forward":"",)"
      R"("saved_at":1})";
  const Snapshot parsed = snapshotFromJson(older);
  EXPECT_EQ(parsed.reflection.status, GetParam().status);
  EXPECT_EQ(parsed.reflection.recap, "Wrote it");
  EXPECT_THAT(snapshotToJson(parsed),
              HasSubstr(R"("reflection":{"carry_forward":"","recap":"Wrote it",)" + status + "}"));
}

INSTANTIATE_TEST_SUITE_P(EveryName, SnapshotReflectionStatus,
                         ::testing::Values(ReflectionCase{"idle", ReflectionStatus::Idle},
                                           ReflectionCase{"pending", ReflectionStatus::Pending},
                                           ReflectionCase{"ready", ReflectionStatus::Ready},
                                           ReflectionCase{"absent", ReflectionStatus::Absent}),
                         [](const ::testing::TestParamInfo<ReflectionCase>& info) {
                           return std::string(info.param.text);
                         });

TEST(SnapshotJson, ReflectionStatusNamesAreTheirOwnInverse) {
  for (const ReflectionStatus status : {ReflectionStatus::Idle, ReflectionStatus::Pending,
                                        ReflectionStatus::Ready, ReflectionStatus::Absent}) {
    EXPECT_EQ(parseReflectionStatus(toString(status)), status);
  }
  EXPECT_EQ(parseReflectionStatus("none"), std::nullopt);  // GroundingStatus's name, not this one's
  EXPECT_EQ(parseReflectionStatus("Ready"), std::nullopt);  // names are lower case
  EXPECT_EQ(parseReflectionStatus(""), std::nullopt);
}

TEST(SnapshotJson, TimelineSpansKeepTheHeadsUpAndOldSpansLoadWithout) {
  Snapshot original = fullSnapshot();
  original.timeline = {{1'000, 5'000, "code", SpanStatus::OnTask, false},
                       {5'000, 9'000, "code", SpanStatus::OnTask, true},
                       {9'000, 9'500, "firefox", SpanStatus::Drifting, false}};
  original.timelineSplit = {{"code", AppSplit{8'000, 0}}, {"firefox", AppSplit{0, 500}}};
  const std::string json = snapshotToJson(original);
  EXPECT_THAT(json, HasSubstr("\"heads_up\":true"));
  EXPECT_THAT(json, Not(HasSubstr("\"heads_up\":false"))) << "written only when shown";
  EXPECT_EQ(snapshotFromJson(json).timeline, original.timeline);

  // Issue 16 item 1: a snapshot written before "heads_up" existed loads with none shown.
  const std::string older = replaceOnce(json, ",\"heads_up\":true", "");
  ASSERT_THAT(older, Not(HasSubstr("heads_up")));
  const Snapshot parsed = snapshotFromJson(older);
  ASSERT_EQ(parsed.timeline.size(), 3u);
  for (const TimelineSpan& span : parsed.timeline) EXPECT_FALSE(span.headsUp);
  EXPECT_EQ(parsed.timeline[1].startMs, 5'000);

  try {
    snapshotFromJson(replaceOnce(json, "\"heads_up\":true", "\"heads_up\":1"));
    FAIL() << "a number was taken for a boolean";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("timeline.spans[1].heads_up"));
  }
}

TEST(SnapshotJson, AcceptsNullCommitment) {
  std::string json = snapshotToJson(Snapshot{});
  json = replaceOnce(json, "\"ended_at\"", "\"commitment\":null,\"ended_at\"");
  EXPECT_FALSE(snapshotFromJson(json).commitment.has_value());
}

TEST(SnapshotJson, InvalidUtf8IsReplacedSoTheSnapshotStillLoads) {
  Snapshot snapshot = fullSnapshot();
  snapshot.commitment->nextAction =
      "a\xff"
      "b";
  snapshot.commitment->allowedApps = {"caf\xe9"};  // Latin-1, as an X11 class may be
  snapshot.stats.bucketsMs = {{"caf\xe9", 10}, {"caf\xe8", 5}, {"code", 1}};
  snapshot.lastCarryForward = "\xe6\x97";  // cut multi-byte sequence

  const Snapshot parsed = snapshotFromJson(snapshotToJson(snapshot));
  const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD
  EXPECT_EQ(parsed.commitment->nextAction, "a" + replacement + "b");
  EXPECT_THAT(parsed.commitment->allowedApps, ElementsAre("caf" + replacement));
  const std::map<std::string, std::int64_t> expectedBuckets = {{"caf" + replacement, 15},
                                                               {"code", 1}};
  EXPECT_EQ(parsed.stats.bucketsMs, expectedBuckets);
  EXPECT_EQ(parsed.lastCarryForward, replacement);
}

TEST(SnapshotJson, AlwaysWritesTheCurrentVersion) {
  Snapshot snapshot;
  snapshot.version = 0;
  EXPECT_EQ(snapshotFromJson(snapshotToJson(snapshot)).version, kSnapshotVersion);
}

struct StateCase {
  RuntimeState runtime;
  Outcome outcome;
};

class SnapshotStateRoundTrip : public ::testing::TestWithParam<StateCase> {};

TEST_P(SnapshotStateRoundTrip, KeepsRuntimeAndOutcome) {
  Snapshot snapshot;
  snapshot.runtime = GetParam().runtime;
  snapshot.outcome = GetParam().outcome;
  const Snapshot parsed = snapshotFromJson(snapshotToJson(snapshot));
  EXPECT_EQ(parsed.runtime, GetParam().runtime);
  EXPECT_EQ(parsed.outcome, GetParam().outcome);
}

INSTANTIATE_TEST_SUITE_P(AllStates, SnapshotStateRoundTrip,
                         ::testing::Values(StateCase{RuntimeState::Locked, Outcome::None},
                                           StateCase{RuntimeState::Planning, Outcome::None},
                                           StateCase{RuntimeState::Active, Outcome::None},
                                           StateCase{RuntimeState::Review, Outcome::Completed},
                                           StateCase{RuntimeState::Review, Outcome::Expired},
                                           StateCase{RuntimeState::Review, Outcome::Abandoned}));

TEST(SnapshotJson, RefusesNewerVersion) {
  const std::string json = replaceOnce(snapshotToJson(fullSnapshot()), "\"version\":1",
                                       "\"version\":" + std::to_string(kSnapshotVersion + 1));
  try {
    snapshotFromJson(json);
    FAIL() << "a newer snapshot version was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("version 2"));
    EXPECT_THAT(error.what(), HasSubstr("newer"));
  }
}

struct BadJsonCase {
  const char* name;
  const char* from;  ///< text replaced in a valid snapshot's JSON ("" = whole text)
  const char* to;
  const char* expectedInMessage;
};

class SnapshotBadJson : public ::testing::TestWithParam<BadJsonCase> {};

TEST_P(SnapshotBadJson, ThrowsNamingTheProblem) {
  const BadJsonCase& bad = GetParam();
  const std::string valid = snapshotToJson(fullSnapshot());
  const std::string json =
      std::string(bad.from).empty() ? std::string(bad.to) : replaceOnce(valid, bad.from, bad.to);
  try {
    snapshotFromJson(json);
    FAIL() << "accepted: " << json;
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(bad.expectedInMessage));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SnapshotBadJson,
    ::testing::Values(
        BadJsonCase{"Empty", "", "", "malformed JSON"},
        BadJsonCase{"Truncated", "", "{\"version\":1,\"runtime\":\"lo", "malformed JSON"},
        BadJsonCase{"NotAnObject", "", "[1,2]", "not an object"},
        BadJsonCase{"MissingVersion", ",\"version\":1", "", "\"version\" is missing"},
        BadJsonCase{"VersionZero", "\"version\":1", "\"version\":0", "version"},
        BadJsonCase{"VersionString", "\"version\":1", "\"version\":\"1\"", "\"version\""},
        BadJsonCase{"UnknownRuntime", "\"runtime\":\"review\"", "\"runtime\":\"asleep\"",
                    "\"runtime\""},
        BadJsonCase{"UnknownOutcome", "\"outcome\":\"completed\"", "\"outcome\":\"won\"",
                    "\"outcome\""},
        BadJsonCase{"FractionalTime", "\"ended_at\":1780001400456", "\"ended_at\":1.5",
                    "\"ended_at\" must be an integer"},
        BadJsonCase{"BooleanCount", "\"switches\":5", "\"switches\":true",
                    "\"stats.switches\" must be an integer"},
        BadJsonCase{"HugeNumber", "\"switches\":5", "\"switches\":18446744073709551615",
                    "\"stats.switches\""},
        BadJsonCase{"CommitmentNotObject", "\"commitment\":{", "\"commitment\":3,\"x\":{",
                    "\"commitment\" must be an object"},
        BadJsonCase{"AppNotString", "\"allowed_apps\":[\"code\"", "\"allowed_apps\":[7",
                    "commitment.allowed_apps[0]"},
        BadJsonCase{"BucketNotInteger", "\"code\":120000", "\"code\":\"long\"",
                    "stats.buckets_ms.code"},
        BadJsonCase{"UnknownReflection", "\"status\":\"ready\"", "\"status\":\"maybe\"",
                    "reflection.status"},
        BadJsonCase{"MissingStats", "\"stats\":", "\"statz\":", "\"stats\" is missing"}),
    [](const ::testing::TestParamInfo<BadJsonCase>& info) { return info.param.name; });

// --- FileSnapshotStore ---------------------------------------------------------

TEST(FileSnapshotStore, PathIsSnapshotJsonInTheDirectory) {
  FileSnapshotStore store("/some/dir");
  EXPECT_EQ(store.path(), "/some/dir/snapshot.json");
}

TEST(FileSnapshotStore, MissingFileLoadsAsNullopt) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  EXPECT_EQ(store.load(), std::nullopt);
}

TEST(FileSnapshotStore, MissingDirectoryLoadsAsNulloptAndIsNotCreated) {
  TempDirectory temp;
  const std::string directory = temp.file("not-there");
  FileSnapshotStore store(directory);
  EXPECT_EQ(store.load(), std::nullopt);
  EXPECT_FALSE(Poco::File(directory).exists());
}

TEST(FileSnapshotStore, SaveThenLoadRoundTripsAndCreatesPrivateDirectory) {
  TempDirectory temp;
  const std::string directory = temp.file("a/b/antidrift");
  FileSnapshotStore store(directory);
  store.save(fullSnapshot());

  EXPECT_EQ(permissionsOf(directory), 0700u);
  EXPECT_EQ(permissionsOf(store.path()), 0600u);
  const std::optional<Snapshot> loaded = store.load();
  ASSERT_TRUE(loaded.has_value());
  expectSameSnapshot(*loaded, fullSnapshot());
  // A second store on the same directory (a restart) sees the same data.
  const std::optional<Snapshot> reloaded = FileSnapshotStore(directory).load();
  ASSERT_TRUE(reloaded.has_value());
  expectSameSnapshot(*reloaded, fullSnapshot());
}

TEST(FileSnapshotStore, ReplaceLeavesOldFileIntactAndNoTempFiles) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  Snapshot first = fullSnapshot();
  first.lastCarryForward = "first";
  store.save(first);
  const std::string firstContent = readWholeFile(store.path());
  struct stat firstInfo {};
  ASSERT_EQ(::stat(store.path().c_str(), &firstInfo), 0);

  // A reader that opened the old file before the replace keeps reading the
  // complete old content: the new one arrives by rename, not by rewriting.
  Poco::FileInputStream oldReader(store.path(), std::ios::in | std::ios::binary);
  Snapshot second = fullSnapshot();
  second.runtime = RuntimeState::Locked;
  second.commitment.reset();
  second.lastCarryForward = "second";
  store.save(second);

  std::string seenByOldReader;
  Poco::StreamCopier::copyToString(oldReader, seenByOldReader);
  EXPECT_EQ(seenByOldReader, firstContent);
  struct stat secondInfo {};
  ASSERT_EQ(::stat(store.path().c_str(), &secondInfo), 0);
  EXPECT_NE(secondInfo.st_ino, firstInfo.st_ino);

  const std::optional<Snapshot> loaded = store.load();
  ASSERT_TRUE(loaded.has_value());
  expectSameSnapshot(*loaded, second);
  EXPECT_THAT(listDirectory(temp.path()), ElementsAre("snapshot.json"));
}

TEST(FileSnapshotStore, FailedSaveKeepsOldSnapshotAndLeavesNoTempFile) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  store.save(fullSnapshot());
  const std::string before = readWholeFile(store.path());

  Snapshot huge = fullSnapshot();
  huge.lastCarryForward = std::string(64 * 1024, 'x');
  {
    FileSizeLimit limit(4096);  // the temp file cannot grow past 4 KiB
    EXPECT_THROW(store.save(huge), std::runtime_error);
  }
  EXPECT_EQ(readWholeFile(store.path()), before);
  EXPECT_THAT(listDirectory(temp.path()), ElementsAre("snapshot.json"));
}

TEST(FileSnapshotStore, SaveIntoUncreatableDirectoryThrowsNamingIt) {
  TempDirectory temp;
  writeWholeFile(temp.file("plain-file"), "x");
  FileSnapshotStore store(temp.file("plain-file/sub"));
  try {
    store.save(fullSnapshot());
    FAIL() << "save succeeded under a regular file";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("plain-file"));
  }
}

TEST(FileSnapshotStore, CorruptFileThrowsNamingThePath) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  writeWholeFile(store.path(), "{\"version\":1,\"runtime\":\"act");
  try {
    store.load();
    FAIL() << "corrupt snapshot was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(store.path()));
    EXPECT_THAT(error.what(), HasSubstr("malformed JSON"));
  }
  // Nothing is lost: the corrupt file is left for a person to inspect.
  EXPECT_EQ(readWholeFile(store.path()), "{\"version\":1,\"runtime\":\"act");
}

TEST(FileSnapshotStore, UnreadableFileThrowsNamingThePath) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  Poco::File(store.path()).createDirectories();  // a directory where the file should be
  try {
    store.load();
    FAIL() << "a directory was read as a snapshot";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(store.path()));
  }
}

TEST(FileSnapshotStore, NewerVersionFileThrowsNamingThePath) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  writeWholeFile(store.path(),
                 replaceOnce(snapshotToJson(fullSnapshot()), "\"version\":1", "\"version\":99"));
  try {
    store.load();
    FAIL() << "newer snapshot was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(store.path()));
    EXPECT_THAT(error.what(), HasSubstr("version 99"));
  }
}

TEST(FileSnapshotStore, LoadRemovesTempFilesLeftByACrash) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  store.save(fullSnapshot());
  writeWholeFile(temp.file("snapshot.json.tmp-12345-0"), "{\"half");
  writeWholeFile(temp.file("unrelated.txt"), "keep me");

  EXPECT_TRUE(store.load().has_value());
  EXPECT_THAT(listDirectory(temp.path()), ElementsAre("snapshot.json", "unrelated.txt"));
}

// --- invariants on restore (issue 19 item 6, review L6) -------------------------------

/// Saves `snapshot` (as JSON, so no invariant is checked on the way in),
/// loads it back and returns what load() gave, with the directory listing.
std::optional<Snapshot> loadAfterWriting(const TempDirectory& temp, const Snapshot& snapshot) {
  FileSnapshotStore store(temp.path());
  writeWholeFile(store.path(), snapshotToJson(snapshot));
  return store.load();
}

TEST(FileSnapshotStore, ASoundSnapshotHasNoInvariantProblem) {
  EXPECT_EQ(snapshotInvariantProblem(fullSnapshot()), std::nullopt);
  TempDirectory temp;
  EXPECT_TRUE(loadAfterWriting(temp, fullSnapshot()).has_value());
}

TEST(FileSnapshotStore, ARestoredCommitmentBeyondTwelveHoursIsRefusedAndKeptAside) {
  TempDirectory temp;
  Snapshot snapshot = fullSnapshot();
  snapshot.runtime = RuntimeState::Active;
  snapshot.commitment->timeboxSecs = kMaxTimeboxSecs + 1;
  snapshot.commitment->deadlineMs =
      snapshot.commitment->startedAtMs + snapshot.commitment->timeboxSecs * 1000;
  const std::string json = snapshotToJson(snapshot);
  EXPECT_EQ(loadAfterWriting(temp, snapshot), std::nullopt);  // the daemon starts locked
  const std::vector<std::string> files = listDirectory(temp.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], ::testing::StartsWith("snapshot.json.invalid-"));
  EXPECT_EQ(readWholeFile(temp.file(files[0])), json);  // kept for a person to look at
}

TEST(FileSnapshotStore, EveryBrokenInvariantIsNamed) {
  struct Case {
    const char* what;
    std::function<void(Snapshot&)> breakIt;
    const char* named;
  };
  const std::vector<Case> cases = {
      {"deadline before start",
       [](Snapshot& s) { s.commitment->deadlineMs = s.commitment->startedAtMs - 1; }, "deadline"},
      {"huge deadline (overflow on restore)",
       [](Snapshot& s) { s.commitment->deadlineMs = std::numeric_limits<std::int64_t>::max(); },
       "deadline"},
      {"negative extension", [](Snapshot& s) { s.commitment->extendedSecs = -60; },
       "extended_secs"},
      {"overflowing extension",
       [](Snapshot& s) {
         s.commitment->extendedSecs = std::numeric_limits<std::int64_t>::max() / 2;
       },
       "extended_secs"},
      {"negative timebox", [](Snapshot& s) { s.commitment->timeboxSecs = -1; }, "timebox_secs"},
      {"start at year 300000",
       [](Snapshot& s) {
         s.commitment->startedAtMs = 9000000000000000;
         s.commitment->deadlineMs = s.commitment->startedAtMs + 1500000;
       },
       "started_at"},
      {"oversized next action",
       [](Snapshot& s) { s.commitment->nextAction = std::string(kMaxFieldChars + 1, 'x'); },
       "next_action"},
      {"too many allowed apps",
       [](Snapshot& s) { s.commitment->allowedApps.assign(kMaxAllowedApps + 1, "app"); },
       "allowed_apps"},
      {"oversized confirmed title",
       [](Snapshot& s) {
         s.commitment->allowedTitles.push_back({"firefox", std::string(600, 't')});
       },
       "title"},
      {"oversized lesson",
       [](Snapshot& s) { s.lastCarryForward = std::string(kMaxSnapshotTextChars + 1, 'l'); },
       "last_carry_forward"},
      {"oversized drift stay reason",
       [](Snapshot& s) { s.driftStay->reason = std::string(kMaxSnapshotTextChars + 1, 'r'); },
       "drift_stay.reason"},
  };
  for (const Case& c : cases) {
    Snapshot snapshot = fullSnapshot();
    c.breakIt(snapshot);
    const std::optional<std::string> problem = snapshotInvariantProblem(snapshot);
    ASSERT_TRUE(problem.has_value()) << c.what;
    EXPECT_THAT(*problem, HasSubstr(c.named)) << c.what;
    TempDirectory temp;
    EXPECT_EQ(loadAfterWriting(temp, snapshot), std::nullopt) << c.what;
    EXPECT_FALSE(Poco::File(temp.file("snapshot.json")).exists()) << c.what;
  }
}

TEST(FileSnapshotStore, ASymlinkedSnapshotIsRefused) {
  TempDirectory temp;
  FileSnapshotStore store(temp.path());
  writeWholeFile(temp.file("elsewhere.json"), snapshotToJson(fullSnapshot()));
  ASSERT_EQ(::symlink(temp.file("elsewhere.json").c_str(), store.path().c_str()), 0);
  try {
    store.load();
    FAIL() << "load() followed the symbolic link";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("symbolic link"));
  }
}

}  // namespace
}  // namespace antidrift
