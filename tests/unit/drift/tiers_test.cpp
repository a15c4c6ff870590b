// The tiers of the drift floor one at a time (docs/DESIGN.md §4 "The tiers,
// in order"): each is a pure function of a prepared observation, the
// commitment and a read-only view of the engine's state, and says a verdict
// or nothing. The engine's walk over them is engine_test.cpp's; here each
// tier's own contract, and the list's order.
#include "antidrift/drift/tiers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {
namespace {

using ::testing::HasSubstr;

class TiersTest : public ::testing::Test {
 protected:
  TiersTest() : rules_(settings()) {
    commitment_.nextAction = "Build the blog of the Gatsby site";
    commitment_.successCondition = "The blog lists markdown posts";
    commitment_.allowedApps = {"code - insiders"};
  }

  static Settings settings() {
    Settings settings;
    settings.blockedApps = {"steam"};
    settings.ownPageTag = "0a1b2c3d";
    return settings;
  }

  /// The input the engine prepares for `app` / `title` (keys set).
  TierInput input(const std::string& app, const std::string& title,
                  Advisors advisors = Advisors::JudgeAndNudge) {
    obs_ = Observation{1'000, normalizeApp(app), sanitizeTitle(title), "test", ""};
    key_ = verdictKey(rules_, obs_);
    siteKey_ = siteVerdictKey(rules_, obs_);
    TierInput in{obs_,
                 rules_.classify(obs_),
                 rules_.isPerPage(obs_),
                 obs_.title == kPrivateWindowTitle,
                 rules_.blockedReason(obs_),
                 commitment_,
                 advisors,
                 state_};
    in.key = &key_;
    in.siteKey = &siteKey_;
    in.normalizedTitle = [this]() -> const std::string& {
      normalized_ = normalizeTitle(obs_.title);
      return normalized_;
    };
    in.remembered = [this]() -> const Remembered& { return remembered_; };
    in.local = [this]() -> const LocalFinding& { return local_; };
    return in;
  }

  Settings settings_ = settings();
  Rules rules_;
  VerdictCache cache_;
  std::map<std::string, JudgeAttempt> attempted_;
  std::map<std::string, std::string> inFlight_;
  std::string workspace_;
  TierState state_{rules_, cache_, DriftStatus::Inactive, attempted_, inFlight_, workspace_};
  Commitment commitment_;
  Observation obs_;
  std::string key_, siteKey_, normalized_;
  Remembered remembered_;
  LocalFinding local_;
};

TEST_F(TiersTest, TheListRunsInTheOrderDesignWritesDown) {
  std::vector<std::string> names;
  for (const Tier& tier : kTiers) names.emplace_back(tier.name);
  EXPECT_THAT(names, ::testing::ElementsAre(
                         "unreadable", "hard rules", "own page", "local match", "session cache",
                         "your marks", "relevance", "known distractions", "site verdict",
                         "remembered judge verdict", "task's own page of a known distraction",
                         "cannot send", "judge"));
  // Only the tiers after the local match read the subject's keys.
  for (const Tier& tier : kTiers) {
    const bool early = tier.name == "unreadable" || tier.name == "hard rules" ||
                       tier.name == "own page" || tier.name == "local match";
    EXPECT_EQ(tier.needsSubject, !early) << tier.name;
  }
}

TEST_F(TiersTest, AWindowThatSaysNothingIsUnknownAndKeepsTheSubject) {
  const std::optional<Verdict> verdict = tiers::unreadable(input("unknown", ""));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Unknown);
  EXPECT_EQ(verdict->subject, Verdict::Subject::Keep);
  EXPECT_FALSE(tiers::unreadable(input("firefox", "Gatsby docs")));
}

TEST_F(TiersTest, AHardRuleIsDriftingAndBlocked) {
  const std::optional<Verdict> verdict = tiers::hardRules(input("steam", "Store"));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Drifting);
  EXPECT_TRUE(verdict->blocked);
  EXPECT_FALSE(tiers::hardRules(input("firefox", "Store")));
}

TEST_F(TiersTest, TheOwnPageKeepsABannerThatIsUpAndIsNeutralOtherwise) {
  const std::string own = "Focus — AntiDrift 0a1b2c3d";
  std::optional<Verdict> verdict = tiers::ownPage(input("firefox", own));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->reason, kOwnPageReason);
  EXPECT_FALSE(verdict->keepView);
  state_.viewStatus = DriftStatus::Drifting;
  verdict = tiers::ownPage(input("firefox", own));
  ASSERT_TRUE(verdict);
  EXPECT_TRUE(verdict->keepView);
}

TEST_F(TiersTest, AnAllowedAppAndAMarkedPageAreOnTaskAndForgetTheSubject) {
  std::optional<Verdict> verdict = tiers::localMatch(input("code - insiders", "blog.js"));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::OnTask);
  EXPECT_EQ(verdict->subject, Verdict::Subject::Forget);
  EXPECT_FALSE(tiers::localMatch(input("firefox", "Some page - Mozilla Firefox")));
  commitment_.allowedTitles.push_back(
      AllowedTitle{"firefox", normalizeTitle("Some page - Mozilla Firefox")});
  verdict = tiers::localMatch(input("firefox", "Some page - Mozilla Firefox"));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->reason, "you marked this page on task");
}

TEST_F(TiersTest, AnAllowedEditorInAnotherWorkspaceIsOnTaskWithAHeadsUp) {
  EXPECT_EQ(tiers::localMatch(input("code - insiders", "a.js - blog - Visual Studio Code"))->nudge,
            "")
      << "no workspace of the session yet";
  workspace_ = "blog";
  EXPECT_EQ(tiers::localMatch(input("code - insiders", "a.js - blog - Visual Studio Code"))->nudge,
            "");
  const std::optional<Verdict> other =
      tiers::localMatch(input("code - insiders", "a.js - shop - Visual Studio Code"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, DriftStatus::OnTask);
  EXPECT_THAT(other->nudge, HasSubstr("Another project: shop (this session works in blog)"));
}

TEST_F(TiersTest, TheSessionCacheAnswersWithItsReasonAndMemoryKey) {
  TierInput in = input("firefox", "Some page - Mozilla Firefox");
  EXPECT_FALSE(tiers::sessionCache(in));
  cache_.put(key_, CachedVerdict{false, "AI judge: \"off\"", "mem-key"});
  const std::optional<Verdict> verdict = tiers::sessionCache(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Drifting);
  EXPECT_EQ(verdict->memoryKey, "mem-key");
  EXPECT_FALSE(verdict->cache);  // it is the cache
}

TEST_F(TiersTest, YourOnMarkBeatsTheListAndAnOffMarkTheListAgreesWithLetsTheListDecide) {
  TierInput in = input("firefox", "Some page - Mozilla Firefox");
  EXPECT_FALSE(tiers::yourMarks(in));  // nothing remembered
  remembered_.verdict =
      RememberedVerdict{true, "you said this is on task", VerdictSource::You, {}, 0};
  remembered_.key = key_;
  local_.kind = LocalFinding::Kind::Distraction;
  std::optional<Verdict> verdict = tiers::yourMarks(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::OnTask);
  EXPECT_TRUE(verdict->cache);
  EXPECT_EQ(verdict->memoryKey, key_);
  EXPECT_EQ(verdict->reason, "remembered: you said this is on task");

  remembered_.verdict->onTask = false;  // Back to task, and the list agrees
  EXPECT_FALSE(tiers::yourMarks(in));
  local_.kind = LocalFinding::Kind::Relevant;  // the off-mark beats relevance
  verdict = tiers::yourMarks(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Drifting);

  remembered_.verdict->source = VerdictSource::Judge;  // the judge's is not a mark
  EXPECT_FALSE(tiers::yourMarks(in));
}

TEST_F(TiersTest, RelevanceAndTheListSayWhatTheLocalFindingSaysAndAreCached) {
  TierInput in = input("firefox", "Gatsby blog starter - Mozilla Firefox");
  EXPECT_FALSE(tiers::relevance(in));
  EXPECT_FALSE(tiers::knownDistractions(in));
  local_.kind = LocalFinding::Kind::Relevant;
  local_.shared = {"gatsby", "blog"};
  std::optional<Verdict> verdict = tiers::relevance(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::OnTask);
  EXPECT_EQ(verdict->reason, "its title shares your commitment's words: gatsby, blog");
  EXPECT_TRUE(verdict->cache);
  EXPECT_FALSE(tiers::knownDistractions(in));

  local_ = LocalFinding{};
  local_.kind = LocalFinding::Kind::Distraction;
  local_.distraction = DistractionMatch{"video", "YouTube", "the title names YouTube"};
  verdict = tiers::knownDistractions(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Drifting);
  EXPECT_EQ(verdict->reason, "YouTube is a known distraction (video)");
  EXPECT_TRUE(verdict->cache);
  EXPECT_FALSE(tiers::relevance(in));
}

TEST_F(TiersTest, ASiteVerdictNeedsURLEvidenceAndACachedSiteKey) {
  TierInput in = input("firefox", "A page - Mozilla Firefox");
  EXPECT_FALSE(tiers::siteVerdict(in));  // no site key without URL evidence
  siteKey_ = "firefox\ndomain:example.com";
  EXPECT_FALSE(tiers::siteVerdict(in));
  cache_.put(siteKey_, CachedVerdict{true, "AI judge: \"docs\""});
  const std::optional<Verdict> verdict = tiers::siteVerdict(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::OnTask);
}

TEST_F(TiersTest, TheJudgesRememberedVerdictIsShownWithItsLabel) {
  TierInput in = input("firefox", "A page - Mozilla Firefox");
  EXPECT_FALSE(tiers::rememberedJudge(in));
  remembered_.verdict = RememberedVerdict{false, "a video", VerdictSource::Judge, {}, 0};
  remembered_.key = key_;
  const std::optional<Verdict> verdict = tiers::rememberedJudge(in);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->reason, "remembered: AI judge: \"a video\"");
  EXPECT_EQ(verdict->status, DriftStatus::Drifting);
}

TEST_F(TiersTest, NothingIsSentForAPrivateWindowTheAIOffOrAFailedKey) {
  std::optional<Verdict> verdict =
      tiers::cannotSend(input("firefox", std::string(kPrivateWindowTitle)));
  ASSERT_TRUE(verdict);
  EXPECT_THAT(verdict->reason, HasSubstr("private window"));
  verdict = tiers::cannotSend(input("firefox", "A page", Advisors::None));
  ASSERT_TRUE(verdict);
  EXPECT_THAT(verdict->reason, HasSubstr("AI is off"));

  TierInput in = input("firefox", "A page");
  EXPECT_FALSE(tiers::cannotSend(in));  // never asked: the judge may be
  attempted_[key_] = JudgeAttempt{1, 60'000};
  verdict = tiers::cannotSend(in);  // failed once, the retry not yet due
  ASSERT_TRUE(verdict);
  EXPECT_THAT(verdict->reason, HasSubstr("it asks once more later"));
  obs_.atMs = 60'000;
  EXPECT_FALSE(tiers::cannotSend(in));  // the retry is due
  attempted_[key_] = JudgeAttempt{2, 0};
  verdict = tiers::cannotSend(in);
  ASSERT_TRUE(verdict);
  EXPECT_THAT(verdict->reason, ::testing::Not(HasSubstr("once more")));
}

TEST_F(TiersTest, TheJudgeAlwaysHasAnOpinion) {
  const std::optional<Verdict> verdict = tiers::judge(input("firefox", "A page"));
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, DriftStatus::Judging);
  EXPECT_TRUE(verdict->judge);
}

}  // namespace
}  // namespace antidrift::drift
