// drift::VerdictMemory (issue 16 item 3, the verdict memory): reuse only for a
// commitment that shares a word, the person's corrections win over the judge,
// the LRU bound, the serialised form and corrupt input; then the drift::Engine
// lent a memory: a remembered verdict answers in a new session without a judge
// call, and the judge's answers and the person's corrections are written to it.
#include "antidrift/drift/verdict_memory.h"

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/drift/engine.h"
#include "antidrift/drift/relevance.h"
#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::int64_t kT0 = 1'780'000'000'000;

const std::set<std::string> kGatsby = {"gatsby", "transitions", "pages"};
const std::set<std::string> kTaxes = {"taxes", "invoice", "spreadsheet"};

// ---- VerdictMemory on its own ------------------------------------------------------------------

TEST(VerdictMemoryTest, AVerdictIsReusedOnlyForACommitmentSharingAWord) {
  VerdictMemory memory;
  ASSERT_TRUE(memory.remember("firefox\nbarba js - youtube", true, "About page transitions.",
                              VerdictSource::Judge, kGatsby, kT0));
  const auto shared =
      memory.lookup("firefox\nbarba js - youtube", {"transitions", "blog"}, kT0 + 5);
  ASSERT_TRUE(shared);
  EXPECT_TRUE(shared->onTask);
  EXPECT_EQ(shared->reason, "About page transitions.");
  EXPECT_EQ(shared->lastUsedMs, kT0 + 5);
  EXPECT_FALSE(memory.lookup("firefox\nbarba js - youtube", kTaxes, kT0 + 6));
  EXPECT_FALSE(memory.lookup("firefox\nbarba js - youtube", {}, kT0 + 6));
  EXPECT_FALSE(memory.lookup("firefox\nsomething else", kGatsby, kT0 + 6));
}

TEST(VerdictMemoryTest, ALookupMissChangesNothingAndAHitMovesTheVersion) {
  VerdictMemory memory;
  memory.remember("steam", false, "Games.", VerdictSource::Judge, kGatsby, kT0);
  const std::uint64_t before = memory.version();
  EXPECT_FALSE(memory.lookup("steam", kTaxes, kT0 + 1));
  EXPECT_EQ(memory.version(), before);
  EXPECT_TRUE(memory.lookup("steam", kGatsby, kT0 + 1));
  EXPECT_GT(memory.version(), before);
}

TEST(VerdictMemoryTest, ThePersonsCorrectionWinsOverTheJudge) {
  VerdictMemory memory;
  memory.remember("firefox\nsite:youtube.com", true, "you said this is on task", VerdictSource::You,
                  kGatsby, kT0);
  EXPECT_FALSE(memory.remember("firefox\nsite:youtube.com", false, "Videos are drift.",
                               VerdictSource::Judge, {"gatsby"}, kT0 + 1));
  const auto kept = memory.lookup("firefox\nsite:youtube.com", kGatsby, kT0 + 2);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->onTask);
  EXPECT_EQ(kept->source, VerdictSource::You);

  // The person may change their mind, and the judge may speak for other work.
  EXPECT_TRUE(memory.remember("firefox\nsite:youtube.com", false, "you went back to the task",
                              VerdictSource::You, kGatsby, kT0 + 3));
  EXPECT_FALSE(memory.lookup("firefox\nsite:youtube.com", kGatsby, kT0 + 4)->onTask);
  EXPECT_TRUE(memory.remember("firefox\nsite:youtube.com", true, "Tax videos.",
                              VerdictSource::Judge, kTaxes, kT0 + 5));
  EXPECT_EQ(memory.lookup("firefox\nsite:youtube.com", kTaxes, kT0 + 6)->source,
            VerdictSource::Judge);
}

TEST(VerdictMemoryTest, TheSameVerdictForOtherWorkMergesItsWords) {
  VerdictMemory memory;
  memory.remember("firefox\nmdn", true, "Docs.", VerdictSource::Judge, {"gatsby", "css"}, kT0);
  memory.remember("firefox\nmdn", true, "Docs.", VerdictSource::Judge, {"css", "grid"}, kT0 + 1);
  EXPECT_TRUE(memory.lookup("firefox\nmdn", {"gatsby"}, kT0 + 2));
  EXPECT_TRUE(memory.lookup("firefox\nmdn", {"grid"}, kT0 + 3));
  // A different verdict replaces the words.
  memory.remember("firefox\nmdn", false, "Not now.", VerdictSource::Judge, {"grid"}, kT0 + 4);
  EXPECT_FALSE(memory.lookup("firefox\nmdn", {"gatsby"}, kT0 + 5));
}

TEST(VerdictMemoryTest, TheLeastRecentlyUsedGoFirstPastTheBound) {
  VerdictMemory memory(3);
  memory.remember("a", false, "A.", VerdictSource::Judge, kGatsby, kT0);
  memory.remember("b", false, "B.", VerdictSource::Judge, kGatsby, kT0 + 1);
  memory.remember("c", false, "C.", VerdictSource::Judge, kGatsby, kT0 + 2);
  ASSERT_TRUE(memory.lookup("a", kGatsby, kT0 + 3));  // a is used again: b is now the oldest
  memory.remember("d", false, "D.", VerdictSource::Judge, kGatsby, kT0 + 4);
  EXPECT_EQ(memory.size(), 3u);
  std::vector<std::string> keys;
  for (const RememberedEntry& entry : memory.entries()) keys.push_back(entry.key);
  EXPECT_THAT(keys, ElementsAre("d", "a", "c"));
}

TEST(VerdictMemoryTest, NothingUnboundedIsStored) {
  VerdictMemory memory;
  EXPECT_FALSE(memory.remember("", true, "x", VerdictSource::Judge, kGatsby, kT0));
  EXPECT_FALSE(memory.remember(std::string(VerdictMemory::kMaxKeyBytes + 1, 'k'), true, "x",
                               VerdictSource::Judge, kGatsby, kT0));
  EXPECT_FALSE(memory.remember("k", true, "x", VerdictSource::Judge, {}, kT0));
  std::set<std::string> many;
  for (int i = 0; i < 200; ++i) many.insert("word" + std::to_string(i));
  ASSERT_TRUE(
      memory.remember("k", false, std::string(5000, 'r') + "é", VerdictSource::Judge, many, kT0));
  const RememberedEntry entry = memory.entries().front();
  EXPECT_EQ(entry.verdict.words.size(), VerdictMemory::kMaxWords);
  EXPECT_LE(entry.verdict.reason.size(), VerdictMemory::kMaxReasonBytes);
}

TEST(VerdictMemoryTest, EraseAndClearForget) {
  VerdictMemory memory;
  memory.remember("a", false, "A.", VerdictSource::Judge, kGatsby, kT0);
  memory.remember("b", true, "B.", VerdictSource::You, kGatsby, kT0);
  EXPECT_TRUE(memory.erase("a"));
  EXPECT_FALSE(memory.erase("a"));
  EXPECT_FALSE(memory.lookup("a", kGatsby, kT0));
  EXPECT_EQ(memory.size(), 1u);
  memory.clear();
  EXPECT_EQ(memory.size(), 0u);
  EXPECT_FALSE(memory.lookup("b", kGatsby, kT0));
}

TEST(VerdictMemoryTest, SerializeAndParseRoundTrip) {
  VerdictMemory memory;
  memory.remember("firefox\nsite:youtube.com", false, "Videos \"quoted\"\nand a newline.",
                  VerdictSource::Judge, kGatsby, kT0);
  memory.remember("code", true, "you said this is on task", VerdictSource::You, kTaxes, kT0 + 7);
  memory.remember("firefox\nbad \xff bytes", true, "Ok.", VerdictSource::Judge, {"pages"}, kT0 + 9);
  const std::string text = memory.serialize();
  EXPECT_THAT(text, StartsWith(std::string(VerdictMemory::kHeader) + "\n"));

  VerdictMemory::Parsed parsed = VerdictMemory::parse(text);
  EXPECT_EQ(parsed.skippedLines, 0u);
  const std::vector<RememberedEntry> original = memory.entries();
  const std::vector<RememberedEntry> read = parsed.memory.entries();
  ASSERT_EQ(read.size(), original.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE(original[i].key);
    if (i == 0) {
      EXPECT_EQ(read[i].key, "firefox\nbad \xEF\xBF\xBD bytes");  // U+FFFD, valid UTF-8
    } else {
      EXPECT_EQ(read[i].key, original[i].key);
    }
    EXPECT_EQ(read[i].verdict.onTask, original[i].verdict.onTask);
    EXPECT_EQ(read[i].verdict.reason, original[i].verdict.reason);
    EXPECT_EQ(read[i].verdict.source, original[i].verdict.source);
    EXPECT_EQ(read[i].verdict.words, original[i].verdict.words);
    EXPECT_EQ(read[i].verdict.lastUsedMs, original[i].verdict.lastUsedMs);
  }
}

TEST(VerdictMemoryTest, ParseKeepsTheMostRecentlyUsedWithinItsBound) {
  VerdictMemory memory;
  for (int i = 0; i < 10; ++i) {
    memory.remember("k" + std::to_string(i), false, "R.", VerdictSource::Judge, kGatsby, kT0 + i);
  }
  VerdictMemory::Parsed parsed = VerdictMemory::parse(memory.serialize(), 4);
  std::vector<std::string> keys;
  for (const RememberedEntry& entry : parsed.memory.entries()) keys.push_back(entry.key);
  EXPECT_THAT(keys, ElementsAre("k9", "k8", "k7", "k6"));
}

TEST(VerdictMemoryTest, BadLinesAreSkippedAndCounted) {
  VerdictMemory memory;
  memory.remember("good", false, "Good.", VerdictSource::Judge, kGatsby, kT0);
  std::string text = memory.serialize();
  text += "{not json\n";
  text +=
      "{\"key\":\"k\",\"on_task\":\"yes\",\"reason\":\"\",\"source\":\"judge\",\"words\":[\"a\"],"
      "\"last_used\":1}\n";
  text +=
      "{\"key\":\"k\",\"on_task\":true,\"reason\":\"\",\"source\":\"robot\",\"words\":[\"a\"],"
      "\"last_used\":1}\n";
  text +=
      "{\"key\":\"k\",\"on_task\":true,\"reason\":\"\",\"source\":\"you\",\"words\":[],"
      "\"last_used\":1}\n";
  text += "[1,2]\n";
  text += "{\"key\":\"torn\",\"on_ta";  // a torn last line
  VerdictMemory::Parsed parsed = VerdictMemory::parse(text);
  EXPECT_EQ(parsed.skippedLines, 6u);
  ASSERT_EQ(parsed.memory.size(), 1u);
  EXPECT_EQ(parsed.memory.entries().front().key, "good");
}

TEST(VerdictMemoryTest, TextThatIsNotAVerdictsFileIsRefused) {
  EXPECT_THROW(VerdictMemory::parse(""), std::runtime_error);
  EXPECT_THROW(VerdictMemory::parse("{\"version\":1,\"runtime\":\"locked\"}\n"),
               std::runtime_error);
  EXPECT_THROW(VerdictMemory::parse("{\"antidrift_verdicts\":2}\n"), std::runtime_error);
  EXPECT_THROW(VerdictMemory::parse(std::string("\0\0\0", 3)), std::runtime_error);
  EXPECT_EQ(VerdictMemory::parse(std::string(VerdictMemory::kHeader)).memory.size(), 0u);
}

TEST(VerdictMemoryTest, KeysAreDescribedAsAppPageOrSite) {
  const VerdictKeyView app = describeVerdictKey("steam");
  EXPECT_EQ(app.kind, "app");
  EXPECT_EQ(app.label, "steam");
  const VerdictKeyView page = describeVerdictKey("firefox\nbarba js - youtube");
  EXPECT_EQ(page.kind, "page");
  EXPECT_EQ(page.app, "firefox");
  EXPECT_EQ(page.label, "barba js - youtube");
  const VerdictKeyView site = describeVerdictKey("firefox\nsite:youtube.com");
  EXPECT_EQ(site.kind, "site");
  EXPECT_EQ(site.label, "youtube.com");
  const VerdictKeyView domain = describeVerdictKey("firefox\ndomain:m.youtube.com");
  EXPECT_EQ(domain.kind, "site");
  EXPECT_EQ(domain.label, "m.youtube.com");
}

TEST(VerdictMemoryTest, MemoryWordsAreTheCommitmentsDistinctiveWords) {
  Commitment commitment;
  commitment.nextAction = "Add page transitions to the chango.dev Gatsby site";
  commitment.successCondition = "Transitions work between blog pages";
  const std::set<std::string> words = memoryWords(commitment);
  EXPECT_EQ(words, distinctiveWords(commitment));
  EXPECT_EQ(words.count("gatsby"), 1u);
  EXPECT_EQ(words.count("the"), 0u);
}

// ---- The engine with a memory ------------------------------------------------------------------

class EngineMemoryTest : public ::testing::Test {
 protected:
  EngineMemoryTest() {
    settings_.judgeDwellSecs = 0;
    commitment_.id = "c1";
    commitment_.nextAction = "Add page transitions to the Gatsby site";
    commitment_.successCondition = "Transitions work between blog pages";
    commitment_.allowedApps = {"code"};
  }

  /// A new engine (a new session, or the daemon restarted) lent `memory_`.
  Engine& newEngine() {
    engine_.emplace(settings_);
    engine_->setMemory(&memory_);
    return *engine_;
  }

  Decision see(const std::string& app, const std::string& title,
               Engine::Advisors advisors = Engine::Advisors::JudgeAndNudge) {
    utc_ += 1000;
    mono_ += 1000;
    return engine_->observe(Observation{utc_, normalizeApp(app), sanitizeTitle(title), "test"},
                            commitment_, mono_, advisors);
  }

  Settings settings_;
  Commitment commitment_;
  VerdictMemory memory_;
  std::optional<Engine> engine_;
  std::int64_t utc_ = kT0;
  std::int64_t mono_ = 1'000'000;
};

TEST_F(EngineMemoryTest, ARememberedSiteVerdictAnswersANewSessionWithoutTheJudge) {
  // A site verdict needs URL evidence and two agreeing pages (issue 19 item 4).
  newEngine();
  const auto onYouTube = [&](const std::string& title) {
    utc_ += 1000;
    mono_ += 1000;
    return engine_->observe(
        Observation{utc_, "firefox", sanitizeTitle(title), "test", "youtube.com"}, commitment_,
        mono_, Engine::Advisors::JudgeAndNudge);
  };
  ai::Verdict offTask{false, "A cat video is not the Gatsby site.", ai::VerdictScope::Site};
  const Decision first = onYouTube("Cats - YouTube — Mozilla Firefox");
  ASSERT_TRUE(first.judge);
  (void)engine_->applyVerdict(first.judge->key, offTask, "", utc_);
  EXPECT_EQ(memory_.size(), 1u);  // the page only: one page's say is not its site's
  const Decision second = onYouTube("More cats - YouTube — Mozilla Firefox");
  ASSERT_TRUE(second.judge);
  (void)engine_->applyVerdict(second.judge->key, offTask, "", utc_);
  EXPECT_EQ(memory_.size(), 3u);  // two pages and their site

  newEngine();  // a restart: the session cache is gone, the memory is not
  const Decision again = onYouTube("Dogs - YouTube — Mozilla Firefox");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine_->view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine_->view().reason,
            "remembered: AI judge: \"A cat video is not the Gatsby site.\"");
  EXPECT_TRUE(again.episodeStarted);
  EXPECT_EQ(engine_->view().memoryKey,
            "firefox\ndomain:youtube.com");  // the site's, not the page's
}

TEST_F(EngineMemoryTest, ACommitmentWithoutASharedWordAsksTheJudgeAgain) {
  newEngine();
  const Decision first = see("firefox", "Cats - YouTube — Mozilla Firefox");
  (void)engine_->applyVerdict(first.judge->key, ai::Verdict{false, "Cats.", ai::VerdictScope::Site},
                              "", utc_);
  commitment_.id = "c2";
  commitment_.nextAction = "File the quarterly taxes";
  commitment_.successCondition = "Invoice spreadsheet submitted";
  newEngine();
  EXPECT_TRUE(see("firefox", "Cats - YouTube — Mozilla Firefox").judge);
  EXPECT_EQ(engine_->view().status, DriftStatus::Judging);
}

TEST_F(EngineMemoryTest, ThisIsOnTaskIsRememberedAndWinsOverTheJudge) {
  newEngine();
  const Decision first = see("firefox", "Tailwind tips - Dev Blog — Mozilla Firefox");
  (void)engine_->applyVerdict(first.judge->key, ai::Verdict{false, "A video."}, "", utc_);
  ASSERT_EQ(engine_->view().status, DriftStatus::Drifting);
  Decision marked;
  ASSERT_TRUE(engine_->markOnTask(commitment_, utc_, marked));
  commitment_.allowedTitles.clear();  // the next session's commitment starts without it

  newEngine();
  const Decision again = see("firefox", "Tailwind tips - Dev Blog — Mozilla Firefox");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine_->view().status, DriftStatus::OnTask);
  EXPECT_EQ(engine_->view().reason, "remembered: you said this is on task");
  ASSERT_EQ(memory_.entries().front().verdict.source, VerdictSource::You);
  // The view names the remembered verdict that decided, so the page can offer
  // Forget (issue 17, re-walk A); the same from the session's cache.
  EXPECT_EQ(engine_->view().memoryKey, memory_.entries().front().key);
  EXPECT_EQ(engine_->view().memoryKey, "firefox\ntailwind tips - dev blog");
  (void)see("code", "notes.md - code");
  EXPECT_EQ(engine_->view().memoryKey, "");
  (void)see("firefox", "Tailwind tips - Dev Blog — Mozilla Firefox");
  EXPECT_EQ(engine_->view().memoryKey, memory_.entries().front().key);
}

TEST_F(EngineMemoryTest, BackToTaskOnADriftingWindowConfirmsItAsTheirs) {
  newEngine();
  const Decision first = see("firefox", "News - Example — Mozilla Firefox");
  (void)engine_->applyVerdict(first.judge->key, ai::Verdict{false, "News."}, "", utc_);
  (void)engine_->refocus(utc_);
  const std::vector<RememberedEntry> entries = memory_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_FALSE(entries.front().verdict.onTask);
  EXPECT_EQ(entries.front().verdict.source, VerdictSource::You);

  // Back to task when nothing drifts remembers nothing.
  VerdictMemory untouched;
  newEngine().setMemory(&untouched);
  (void)see("code", "main.cpp");
  (void)engine_->refocus(utc_);
  EXPECT_EQ(untouched.size(), 0u);
}

// The re-walk of issue 17 item 4: the reason shown is the verdict that
// decided. Back to task on a known distraction confirmed it; the next
// session the distraction decides again and says why.
TEST_F(EngineMemoryTest, BackToTaskOnAKnownDistractionLeavesTheDistractionsReason) {
  settings_.distractionSites = {DistractionSite{"video", {"youtube.com"}, {"YouTube"}}};
  newEngine();
  (void)see("firefox", "Cats - YouTube — Mozilla Firefox");
  ASSERT_EQ(engine_->view().reason, "YouTube is a known distraction (video)");
  (void)engine_->refocus(utc_);
  ASSERT_EQ(memory_.size(), 1u);  // remembered as theirs

  newEngine();
  const Decision again = see("firefox", "Cats - YouTube — Mozilla Firefox");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine_->view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine_->view().reason, "YouTube is a known distraction (video)");
}

// The person's marks still overrule the local tier where they disagree with it.
TEST_F(EngineMemoryTest, YourMarksOverruleTheLocalTierWhereTheyDisagree) {
  settings_.distractionSites = {DistractionSite{"video", {"youtube.com"}, {"YouTube"}}};
  const Rules rules(settings_);
  const std::set<std::string> words = memoryWords(commitment_);
  // On task once said of a known distraction: on task, the mark's reason.
  const Observation talk{0, "firefox", "Conference talk - YouTube — Mozilla Firefox", "test"};
  memory_.remember(verdictKey(rules, talk), true, "you said this is on task", VerdictSource::You,
                   words, kT0);
  // Back to task once on a page whose title shares the commitment's words:
  // drifting, though relevance alone would call it on task.
  const Observation relevant{0, "firefox",
                             "Gatsby page transitions gossip - Forum — Mozilla Firefox", "test"};
  memory_.remember(verdictKey(rules, relevant), false, "you went back to the task from this",
                   VerdictSource::You, words, kT0);

  newEngine();
  (void)see(talk.app, talk.title);
  EXPECT_EQ(engine_->view().status, DriftStatus::OnTask);
  EXPECT_EQ(engine_->view().reason, "remembered: you said this is on task");
  const Decision drift = see(relevant.app, relevant.title);
  EXPECT_TRUE(drift.episodeStarted);
  EXPECT_EQ(engine_->view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine_->view().reason, "remembered: you went back to the task from this");
}

TEST_F(EngineMemoryTest, AFailedJudgeCallAndAPrivateWindowAreNotRemembered) {
  newEngine();
  const Decision first = see("firefox", "Something - Example — Mozilla Firefox");
  (void)engine_->applyVerdict(first.judge->key, std::nullopt, "timeout", utc_);
  EXPECT_EQ(memory_.size(), 0u);
  (void)see("firefox", std::string(kPrivateWindowTitle));
  Decision marked;
  ASSERT_TRUE(engine_->markOnTask(commitment_, utc_, marked));
  EXPECT_EQ(memory_.size(), 0u);
}

TEST_F(EngineMemoryTest, WithoutAMemoryTheEngineForgetsAtReset) {
  engine_.emplace(settings_);
  const Decision first = see("firefox", "Cats - YouTube — Mozilla Firefox");
  (void)engine_->applyVerdict(first.judge->key, ai::Verdict{false, "Cats."}, "", utc_);
  engine_->reset();
  EXPECT_TRUE(see("firefox", "Cats - YouTube — Mozilla Firefox").judge);
  EXPECT_EQ(memory_.size(), 0u);
}

}  // namespace
}  // namespace antidrift::drift
