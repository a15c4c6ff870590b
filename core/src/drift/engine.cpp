// The drift floor's walk (docs/DESIGN.md §4 "The tiers, in order"): one
// observation through kTiers, the first verdict applied in one place, and
// the judge's and nudge's requests and answers.
#include "antidrift/drift/engine.h"

#include <algorithm>

#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {

namespace {

/// How long a key whose judge call failed waits before its one retry (issue
/// 19 item 4), UTC ms of observations.
constexpr std::int64_t kJudgeRetryAfterMs = 60'000;

}  // namespace

Engine::Engine(const Settings& settings)
    : settings_(settings),
      rules_(settings),
      distractions_(settings),
      redactor_(settings.redactPatterns) {}

const Relevance& Engine::relevanceOf(const Commitment& commitment) {
  const bool same = relevance_ && relevanceFor_.nextAction == commitment.nextAction &&
                    relevanceFor_.successCondition == commitment.successCondition &&
                    relevanceFor_.allowedApps == commitment.allowedApps;
  if (!same) {
    relevance_.emplace(commitment);
    relevanceFor_.nextAction = commitment.nextAction;
    relevanceFor_.successCondition = commitment.successCondition;
    relevanceFor_.allowedApps = commitment.allowedApps;
    localMisses_.clear();  // the words changed: what said nothing may say something now
  }
  return *relevance_;
}

void Engine::reset() {
  cache_.clear();
  ring_.clear();
  judgeEpoch_.advance();
  nudgeEpoch_.advance();
  view_ = DriftView{};
  subject_.reset();
  inFlight_.clear();
  attempted_.clear();
  siteVotes_.clear();
  localMisses_.clear();
  pendingSinceMono_.reset();
  driftingSinceMs_.reset();
  resumed_.reset();
  continuing_ = false;
  lastNudgeMono_.reset();
  ringChanged_ = false;
  nudgeKeys_.clear();
  advice_.reset();
  workspace_.clear();
  workspaceShares_ = 0;
  workspaceNudge_ = false;
  privateOrdinals_.clear();
}

void Engine::setView(Decision& decision, DriftStatus status, std::string reason, std::string app,
                     std::int64_t atMs) {
  const bool wasDrifting = view_.status == DriftStatus::Drifting;
  const bool isDrifting = status == DriftStatus::Drifting;
  if (view_.ownPage) {
    // Back from AntiDrift's own page: a drift that goes on resumes its time now.
    view_.ownPage = false;
    if (wasDrifting && isDrifting) driftingSinceMs_ = atMs;
  }
  if (wasDrifting && !isDrifting && driftingSinceMs_) {
    decision.driftMs += std::max<std::int64_t>(0, atMs - *driftingSinceMs_);
    driftingSinceMs_.reset();
  }
  if (!wasDrifting && isDrifting) {
    decision.episodeStarted = true;
    driftingSinceMs_ = atMs;
  }
  if (!isDrifting || decision.episodeStarted) continuing_ = false;
  if (view_.status != status || view_.reason != reason || view_.app != app) {
    decision.changed = true;
  }
  view_.status = status;
  view_.reason = std::move(reason);
  view_.app = std::move(app);
  view_.blocked = false;
  view_.judgeAtMs = 0;
  view_.memoryKey.clear();
}

const std::set<std::string>& Engine::currentWords() const {
  static const std::set<std::string> kNone;
  return relevance_ ? relevance_->words() : kNone;
}

const std::set<std::string>& Engine::memoryWordsFor(const Commitment& commitment) {
  // memoryWords() is the commitment's distinctive words: relevanceOf keeps
  // them, computed again only when the commitment's words change (a replay's
  // commitment has no id, so an id could not tell).
  return relevanceOf(commitment).words();
}

void Engine::endStretch() {
  // Seed 000: the on-task stretch ended — a running nudge is stale and the
  // advisory no longer applies.
  nudgeEpoch_.advance();
}

Decision Engine::observe(const Observation& obs, const Commitment& commitment, std::int64_t nowMono,
                         Advisors advisors) {
  // Only the first observation after a restart may continue the stay.
  const std::optional<DriftStay> resumed = std::move(resumed_);
  resumed_.reset();
  const bool same = resumed && verdictKey(rules_, obs) == resumed->key;
  if (same && !resumed->blocked) {  // a hard rule decides again by itself
    cache_.put(resumed->key, CachedVerdict{!resumed->drifting, resumed->reason});
  }
  Decision decision = observeWindow(obs, commitment, nowMono, advisors);
  if (same && resumed->drifting && decision.episodeStarted && subject_ &&
      subject_->key == resumed->key) {
    decision.episodeStarted = false;  // the drift the daemon stopped in goes on
    continuing_ = true;
  }
  return decision;
}

Decision Engine::observeWindow(const Observation& obs, const Commitment& commitment,
                               std::int64_t nowMono, Advisors advisors) {
  Decision decision;
  noteWorkspace(obs, commitment);
  const TierState state{rules_, cache_, view_.status, attempted_, inFlight_, workspace_};
  TierInput in{obs,          rules_.classify(obs), false,    obs.title == kPrivateWindowTitle,
               std::nullopt, commitment,           advisors, state};
  // What every tier after the window kind reads, worked out once.
  if (in.kind != WindowKind::Unreadable && in.kind != WindowKind::LockScreen) {
    in.blocked = rules_.blockedReason(obs);
    in.perPage = rules_.isPerPage(obs);
  }
  std::optional<std::string> title;
  std::optional<Remembered> remembered;
  std::optional<LocalFinding> local;
  in.normalizedTitle = [&]() -> const std::string& {
    if (!title) title = normalizeTitle(obs.title);
    return *title;
  };
  in.remembered = [&]() -> const Remembered& {
    if (!remembered) remembered = lookUpMemory(obs, commitment);
    return *remembered;
  };
  in.local = [&]() -> const LocalFinding& {
    if (!local) local = findLocally(obs, commitment);
    return *local;
  };
  bool subjectTaken = false;
  bool sameSubject = false;
  for (const Tier& tier : kTiers) {
    if (tier.needsSubject && !subjectTaken) {
      sameSubject = takeSubject(obs);
      subjectTaken = true;
      in.key = &subject_->key;
      in.siteKey = &subject_->siteKey;
    }
    std::optional<Verdict> verdict = tier.decide(in);
    if (!verdict) continue;
    if (verdict->subject == Verdict::Subject::This && !subjectTaken) {
      sameSubject = takeSubject(obs);
    }
    apply(decision, *verdict, obs, commitment, nowMono, advisors, sameSubject);
    return decision;
  }
  return decision;  // not reached: the judge always has an opinion
}

bool Engine::takeSubject(const Observation& obs) {
  endStretch();  // not a local match: the on-task stretch ended (seed 000)
  // A heartbeat of the window in front: its keys are the subject's (issue 16
  // item 5: building them again, and copying the observation, was a tenth of
  // a replay's time).
  const bool sameWindow =
      subject_ && subject_->obs.app == obs.app && subject_->obs.title == obs.title &&
      subject_->obs.domain == obs.domain && subject_->obs.blockedTitle == obs.blockedTitle &&
      subject_->obs.localTitle == obs.localTitle && subject_->obs.localDomain == obs.localDomain;
  if (sameWindow) {
    subject_->obs.atMs = obs.atMs;
    subject_->obs.source = obs.source;
    return true;
  }
  std::string newKey = obs.title == kPrivateWindowTitle && !obs.localTitle.empty()
                           ? privateKey(obs)
                           : verdictKey(rules_, obs);
  const bool sameSubject = subject_ && subject_->key == newKey;
  subject_ = Subject{obs, std::move(newKey), siteVerdictKey(rules_, obs), markSiteKey(rules_, obs)};
  return sameSubject;
}

void Engine::apply(Decision& decision, const Verdict& verdict, const Observation& obs,
                   const Commitment& commitment, std::int64_t nowMono, Advisors advisors,
                   bool sameSubject) {
  if (verdict.keepView) {
    // The banner stays while the person looks at AntiDrift itself (to press
    // one of its buttons), but that time is neither focus nor drift: the
    // drift so far is closed into the stats and resumes with the next window
    // that is still off task (docs/DESIGN.md §4 tier 3).
    if (!view_.ownPage) {
      view_.ownPage = true;
      if (driftingSinceMs_) {
        decision.driftMs += std::max<std::int64_t>(0, obs.atMs - *driftingSinceMs_);
        driftingSinceMs_.reset();
      }
    }
    return;
  }
  // A verdict about this window brings its own heads-up, or none: the
  // advisory of the on-task stretch before goes (seed 000).
  if (verdict.subject == Verdict::Subject::This && view_.nudge != verdict.nudge) {
    view_.nudge = verdict.nudge;
    decision.changed = true;
  }
  if (verdict.judge) {
    const std::int64_t previousJudgeAtMs = view_.judgeAtMs;
    setView(decision, verdict.status, verdict.reason, verdict.app, obs.atMs);
    judgeAfterDwell(decision, commitment, nowMono, obs.atMs, sameSubject, previousJudgeAtMs);
    return;
  }
  pendingSinceMono_.reset();
  if (verdict.subject == Verdict::Subject::Forget) subject_.reset();
  // Private windows share one key (their titles are gone): nothing of
  // theirs is cached (docs/DESIGN.md §4 "Private windows").
  if (verdict.cache && subject_ && obs.title != kPrivateWindowTitle) {
    cache_.put(subject_->key, CachedVerdict{verdict.status == DriftStatus::OnTask, verdict.reason,
                                            verdict.memoryKey});
  }
  setView(decision, verdict.status, verdict.reason, verdict.app, obs.atMs);
  view_.blocked = verdict.blocked;
  view_.memoryKey = verdict.memoryKey;
  // The on-task stretch of the commitment's own lists is the only place the
  // nudge runs (seed 000); another workspace in an allowed editor says so
  // itself, with the AI on or off.
  if (verdict.subject == Verdict::Subject::Forget) {
    if (!verdict.nudge.empty()) {
      if (view_.nudge != verdict.nudge) {
        view_.nudge = verdict.nudge;
        decision.changed = true;
      }
      workspaceNudge_ = true;
      return;
    }
    if (workspaceNudge_) {
      workspaceNudge_ = false;
      view_.nudge.clear();
      decision.changed = true;
    }
    maybeNudge(decision, obs, commitment, nowMono, advisors);
  }
}

void Engine::judgeAfterDwell(Decision& decision, const Commitment& commitment, std::int64_t nowMono,
                             std::int64_t atMs, bool sameSubject, std::int64_t previousJudgeAtMs) {
  const std::string& key = subject_->key;
  if (inFlight_.count(key) != 0) return;
  if (!sameSubject || !pendingSinceMono_) pendingSinceMono_ = nowMono;
  if (nowMono - *pendingSinceMono_ >= settings_.judgeDwellSecs * 1000) {
    launchJudge(decision, commitment);
    return;
  }
  // The page says when the judge will be asked (issue 16 item 2).
  const std::int64_t judgeAtMs =
      atMs + (*pendingSinceMono_ + settings_.judgeDwellSecs * 1000 - nowMono);
  view_.judgeAtMs = judgeAtMs;
  if (previousJudgeAtMs != judgeAtMs) decision.changed = true;
}

void Engine::launchJudge(Decision& decision, const Commitment& commitment) {
  pendingSinceMono_.reset();
  if (view_.judgeAtMs != 0) {  // asked now: no longer waiting
    view_.judgeAtMs = 0;
    decision.changed = true;
  }
  if (!subject_) return;
  const std::string& key = subject_->key;
  inFlight_.emplace(key, subject_->siteKey);
  attempted_.try_emplace(key);
  ai::JudgeInput input;
  input.nextAction = commitment.nextAction;
  input.successCondition = commitment.successCondition;
  input.app = subject_->obs.app;
  // A private window reaches a judge only when its prompts stay on this
  // machine (tiers::judgeMayRead): then with its raw title and site, which
  // are in memory only (docs/DESIGN.md §4 "Private windows").
  const bool privateWindow = isPrivateKey(key);
  input.title = redactor_.apply(privateWindow ? subject_->obs.localTitle : subject_->obs.title);
  input.site = redactor_.apply(privateWindow ? subject_->obs.localDomain
                                             : subject_->obs.domain);  // URL evidence
  if (memory_ != nullptr) memoryWordsFor(commitment);  // the words its answer is remembered with
  decision.judge = JudgeRequest{key, judgeEpoch_.current(), std::move(input)};
}

std::optional<std::int64_t> Engine::nextDueMono() const {
  if (!pendingSinceMono_) return std::nullopt;
  return *pendingSinceMono_ + settings_.judgeDwellSecs * 1000;
}

Decision Engine::due(const Commitment& commitment, std::int64_t nowMono) {
  Decision decision;
  if (pendingSinceMono_ && subject_ &&
      nowMono - *pendingSinceMono_ >= settings_.judgeDwellSecs * 1000) {
    launchJudge(decision, commitment);
  }
  return decision;
}

void Engine::maybeNudge(Decision& decision, const Observation& obs, const Commitment& commitment,
                        std::int64_t nowMono, Advisors advisors) {
  if (rules_.neverSend(obs.app)) return;  // its titles never go to the AI
  const std::string key = normalizeTitle(obs.title);
  if (ring_.add(key, obs.title)) ringChanged_ = true;
  // Back on a title the last advisory was about: it shows again at once
  // (issue 16 item 2; leaving the allowed app hid it).
  if (view_.nudge.empty() && advice_ &&
      std::find(advice_->keys.begin(), advice_->keys.end(), key) != advice_->keys.end()) {
    view_.nudge = advice_->message;
    decision.changed = true;
  }
  // A first check once two distinct titles are seen, then one per new title
  // at most every nudge.debounce_s (seed 000; issue 16 item 2).
  if (advisors == Advisors::None || ring_.size() < 2 || !ringChanged_) return;
  if (lastNudgeMono_ && nowMono - *lastNudgeMono_ < settings_.nudgeDebounceSecs * 1000) return;
  lastNudgeMono_ = nowMono;  // a failed call does not retry at once (seed 000)
  ringChanged_ = false;
  nudgeKeys_ = ring_.newestKeys(2);
  ai::NudgeInput input;
  input.nextAction = commitment.nextAction;
  input.successCondition = commitment.successCondition;
  for (const std::string& title : ring_.titles())
    input.recentTitles.push_back(redactor_.apply(title));
  decision.nudge = NudgeRequest{nudgeEpoch_.current(), std::move(input)};
}

Decision Engine::evaluate(const Observation* current, const std::string& evidenceProblem, bool away,
                          const Commitment& commitment, std::int64_t atMs, std::int64_t nowMono,
                          Advisors advisors) {
  if (current == nullptr || !evidenceProblem.empty()) return suspend(evidenceProblem, atMs);
  if (away) return suspend("away", atMs);
  return observe(*current, commitment, nowMono, advisors);
}

Decision Engine::suspend(const std::string& reason, std::int64_t atMs) {
  Decision decision;
  pendingSinceMono_.reset();
  setView(decision, DriftStatus::Unknown, reason, "", atMs);
  return decision;
}

Decision Engine::applyVerdict(const std::string& key, const std::optional<ai::Verdict>& verdict,
                              const std::string& failure, std::int64_t atMs) {
  Decision decision;
  std::string siteKey;
  if (const auto found = inFlight_.find(key); found != inFlight_.end()) {
    siteKey = found->second;
    inFlight_.erase(found);
  }
  if (!verdict) {
    // A failed call or an answer that did not parse: one retry later.
    JudgeAttempt& attempt = attempted_[key];
    ++attempt.failures;
    attempt.retryAtMs = atMs + kJudgeRetryAfterMs;
  }
  if (isPrivateKey(key)) return applyPrivateVerdict(key, verdict, atMs);
  // A site-scoped answer covers the site (the domain from URL evidence, never
  // a name in the title) only once a second page of it, under another key,
  // got the same site-scoped answer: one page's say never covers its site
  // (issue 19 item 4).
  bool siteWide = false;
  if (verdict && verdict->scope == ai::VerdictScope::Site && !siteKey.empty()) {
    const auto vote = siteVotes_.find(siteKey);
    if (vote != siteVotes_.end() && vote->second.key != key &&
        vote->second.onTask == verdict->onTask) {
      siteWide = true;
      siteVotes_.erase(vote);
    } else {
      if (siteVotes_.size() >= VerdictCache::kMaxEntries) siteVotes_.clear();
      siteVotes_[siteKey] = SiteVote{key, verdict->onTask};
    }
  }
  const std::string shown = verdict ? judgeReason(verdict->reason) : std::string();
  if (verdict) cache_.put(key, CachedVerdict{verdict->onTask, shown});
  if (siteWide) cache_.put(siteKey, CachedVerdict{verdict->onTask, shown});
  if (verdict && memory_ != nullptr) {  // issue 16 item 3
    memory_->remember(key, verdict->onTask, verdict->reason, VerdictSource::Judge, currentWords(),
                      atMs);
    if (siteWide)
      memory_->remember(siteKey, verdict->onTask, verdict->reason, VerdictSource::Judge,
                        currentWords(), atMs);
  }
  const bool aboutSubject =
      subject_ && (subject_->key == key || (siteWide && subject_->siteKey == siteKey));
  if (!aboutSubject || view_.status != DriftStatus::Judging) return decision;
  if (subject_->key != key) pendingSinceMono_.reset();  // its site's verdict answers it
  const std::string app = subject_->obs.app;
  if (!verdict) {
    setView(decision, DriftStatus::Unknown,
            "the AI judge could not say whether " + app + " fits the commitment" +
                (failure.empty() ? std::string() : ": " + failure),
            app, atMs);
  } else if (verdict->onTask) {
    setView(decision, DriftStatus::OnTask,
            verdict->reason.empty() ? app + " fits the commitment" : shown, app, atMs);
  } else {
    setView(decision, DriftStatus::Drifting, shown, app, atMs);
  }
  return decision;
}

bool Engine::applyNudge(const std::optional<std::string>& message) {
  if (!message) return false;
  if (message->empty()) {
    advice_.reset();
  } else {
    advice_ = Advice{*message, nudgeKeys_};
  }
  if (view_.status != DriftStatus::OnTask) return false;
  if (view_.nudge == *message) return false;
  view_.nudge = *message;
  return true;
}

std::int64_t Engine::close(std::int64_t atMs) {
  if (view_.status != DriftStatus::Drifting || !driftingSinceMs_) return 0;
  const std::int64_t ms = std::max<std::int64_t>(0, atMs - *driftingSinceMs_);
  driftingSinceMs_.reset();
  return ms;
}

std::int64_t Engine::creditOpenDrift(std::int64_t atMs) {
  if (view_.status != DriftStatus::Drifting || !driftingSinceMs_) return 0;
  const std::int64_t ms = std::max<std::int64_t>(0, atMs - *driftingSinceMs_);
  driftingSinceMs_ = std::max(*driftingSinceMs_, atMs);
  return ms;
}

void recordDecision(const Decision& decision, const DriftView& view, StatsAccumulator& stats) {
  if (decision.episodeStarted) {
    stats.addDriftEpisode();
    stats.addDriftReason(view.reason);
  }
  if (decision.driftMs > 0) stats.addDriftMs(decision.driftMs);
  // The judge and nudge calls are counted where they are made and answered
  // (the Controller with their cost, the replay at its call; issue 17 item 2
  // of the number walk), not at the decision to make them.
}

SpanStatus spanStatusOf(const DriftView& view, bool away) {
  if (away) return SpanStatus::Away;
  if (view.ownPage) return SpanStatus::Neutral;  // the banner stays, the time is neutral
  if (view.status == DriftStatus::OnTask) return SpanStatus::OnTask;
  if (view.status == DriftStatus::Drifting) return SpanStatus::Drifting;
  if (view.reason == kOwnPageReason) return SpanStatus::Neutral;
  return SpanStatus::Unknown;
}

}  // namespace antidrift::drift
