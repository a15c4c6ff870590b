#include "antidrift/drift/engine.h"

#include <algorithm>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/text/normalize.h"

namespace antidrift::drift {

std::string_view toString(DriftStatus status) {
  switch (status) {
    case DriftStatus::Inactive:
      return "";
    case DriftStatus::OnTask:
      return "ontask";
    case DriftStatus::Judging:
      return "judging";
    case DriftStatus::Drifting:
      return "drifting";
    case DriftStatus::Unknown:
      return "unknown";
  }
  return "";
}

namespace {

constexpr std::string_view kWindowUnknown = "window unknown";
/// The reason while AntiDrift's own page is in front (issue 17 item 4).
constexpr std::string_view kOwnPage = "this is AntiDrift";

/// How long a key whose judge call failed waits before its one retry (issue
/// 19 item 4), UTC ms of observations.
constexpr std::int64_t kJudgeRetryAfterMs = 60'000;
/// The longest judge reason shown, in code points (issue 19 item 4).
constexpr std::size_t kShownReasonChars = 160;

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::string judgeReason(std::string_view reason) {
  // One line of valid UTF-8 without zero-width or bidi characters, cut at a
  // code point, with no '"' that could close the label's quotes.
  std::string clean = text::normalizeUnicode(reason);
  for (char& c : clean) {
    if (c == '"') c = '\'';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  std::size_t points = 0;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    if ((static_cast<unsigned char>(clean[i]) & 0xC0) == 0x80) continue;
    if (++points > kShownReasonChars) {
      clean.resize(i);
      clean += "\xE2\x80\xA6";  // …
      break;
    }
  }
  return std::string(kJudgeLabel) + "\"" + clean + "\"";
}

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
}

void Engine::setView(Decision& decision, DriftStatus status, std::string reason, std::string app,
                     std::int64_t atMs) {
  const bool wasDrifting = view_.status == DriftStatus::Drifting;
  const bool isDrifting = status == DriftStatus::Drifting;
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

std::optional<std::string> Engine::localMatch(const Observation& obs,
                                              const Commitment& commitment) const {
  if (contains(commitment.allowedApps, obs.app)) return obs.app + " is an allowed app";
  if (!rules_.isPerPage(obs)) return std::nullopt;
  if (!commitment.allowedTitles.empty()) {
    const std::string title = normalizeTitle(obs.title);
    if (std::any_of(commitment.allowedTitles.begin(), commitment.allowedTitles.end(),
                    [&](const AllowedTitle& allowed) {
                      return allowed.app == obs.app && allowed.title == title;
                    })) {
      return std::string("you marked this page on task");  // issue 17 item 4
    }
  }
  if (!commitment.allowedSites.empty()) {
    const VerdictKeyView site = describeVerdictKey(markSiteKey(rules_, obs));
    if (site.kind == "site") {
      const bool domain = !obs.domain.empty();
      for (const AllowedSite& allowed : commitment.allowedSites) {
        if (allowed.app == obs.app && allowed.domain == domain && allowed.site == site.label) {
          return "you marked all of " + allowed.site + " on task this session";
        }
      }
    }
  }
  return std::nullopt;
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

std::optional<DriftStay> Engine::stay() const {
  if (!subject_) return std::nullopt;
  if (view_.status == DriftStatus::Drifting) {
    return DriftStay{subject_->key, true, view_.reason, view_.blocked};
  }
  if (view_.status == DriftStatus::OnTask) return DriftStay{subject_->key, false, view_.reason};
  return std::nullopt;
}

void Engine::resumeStay(const DriftStay& stay) {
  if (stay.key.empty()) return;
  resumed_ = stay;
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
  const WindowKind kind = rules_.classify(obs);
  if (kind == WindowKind::Unreadable || kind == WindowKind::LockScreen) {
    pendingSinceMono_.reset();
    setView(decision, DriftStatus::Unknown, std::string(kWindowUnknown), "", obs.atMs);
    return decision;
  }

  // 1. Hard rules: no AI, and before the own-page exemption (issue 19 item 3).
  std::optional<std::string> blocked = rules_.blockedReason(obs);
  if (!blocked && kind == WindowKind::OwnPage) {
    // The person looks at AntiDrift itself (e.g. to press a banner button),
    // recognised by the tag only the served page knows: neither focus nor
    // drift. The banner stays where it is; any other verdict was the previous
    // window's, so the view says where they are and the time is neutral,
    // never on task (issue 17 item 4; issue 19 item 3).
    if (view_.status == DriftStatus::Drifting) return decision;
    pendingSinceMono_.reset();
    setView(decision, DriftStatus::Unknown, std::string(kOwnPage), "", obs.atMs);
    return decision;
  }
  if (blocked) {
    endStretch();
    pendingSinceMono_.reset();
    subject_ = Subject{obs, verdictKey(rules_, obs), siteVerdictKey(rules_, obs),
                       markSiteKey(rules_, obs)};
    if (!view_.nudge.empty()) {
      view_.nudge.clear();
      decision.changed = true;
    }
    setView(decision, DriftStatus::Drifting, std::move(*blocked), obs.app, obs.atMs);
    view_.blocked = true;
    return decision;
  }

  // 2. Local match: authoritative, and the only branch where the nudge runs.
  if (std::optional<std::string> why = localMatch(obs, commitment)) {
    pendingSinceMono_.reset();
    subject_.reset();
    setView(decision, DriftStatus::OnTask, std::move(*why), obs.app, obs.atMs);
    maybeNudge(decision, obs, commitment, nowMono, advisors);
    return decision;
  }

  // Not a local match: the on-task stretch ended (seed 000).
  endStretch();
  if (!view_.nudge.empty()) {
    view_.nudge.clear();
    decision.changed = true;
  }
  // A heartbeat of the window in front: its keys are the subject's (issue 16
  // item 5: building them again, and copying the observation, was a tenth of
  // a replay's time).
  const bool sameWindow = subject_ && subject_->obs.app == obs.app &&
                          subject_->obs.title == obs.title && subject_->obs.domain == obs.domain &&
                          subject_->obs.blockedTitle == obs.blockedTitle;
  bool sameSubject = sameWindow;
  if (sameWindow) {
    subject_->obs.atMs = obs.atMs;
    subject_->obs.source = obs.source;
  } else {
    std::string newKey = verdictKey(rules_, obs);
    sameSubject = subject_ && subject_->key == newKey;
    subject_ =
        Subject{obs, std::move(newKey), siteVerdictKey(rules_, obs), markSiteKey(rules_, obs)};
  }
  const std::string& key = subject_->key;

  // 3. Cached verdict: the page's (a site's comes after the local tier, which
  // it never overrules: issue 19 item 4).
  const CachedVerdict* cached = cache_.find(key);
  if (cached) {
    pendingSinceMono_.reset();
    setView(decision, cached->onTask ? DriftStatus::OnTask : DriftStatus::Drifting, cached->reason,
            obs.app, obs.atMs);
    view_.memoryKey = cached->memoryKey;
    return decision;
  }

  // 3b. The verdict memory (issue 16 item 3): a verdict from an earlier session
  // for work that shares the commitment's words, the page's before its site's.
  // The person's own corrections come before the local tier (they win over
  // heuristics as over the judge); the judge's verdicts after it.
  std::optional<RememberedVerdict> remembered;
  std::string rememberedKey;  // which of the two keys answered
  if (memory_ != nullptr && obs.title != kPrivateWindowTitle) {
    const std::set<std::string>& words = memoryWordsFor(commitment);
    remembered = memory_->lookup(key, words, obs.atMs);
    rememberedKey = key;
    if (!remembered && !subject_->siteKey.empty()) {
      remembered = memory_->lookup(subject_->siteKey, words, obs.atMs);
      rememberedKey = subject_->siteKey;
    }
  }
  const auto recall = [&](const RememberedVerdict& known) {
    const std::string said = known.reason.empty() ? obs.app + " fits the commitment"
                             : known.source == VerdictSource::Judge ? judgeReason(known.reason)
                                                                    : known.reason;
    cache_.put(key, CachedVerdict{known.onTask, "remembered: " + said, rememberedKey});
    pendingSinceMono_.reset();
    setView(decision, known.onTask ? DriftStatus::OnTask : DriftStatus::Drifting,
            "remembered: " + said, obs.app, obs.atMs);
    view_.memoryKey = rememberedKey;
    return decision;
  };
  // The person's own marks come before the local tier and overrule it: an
  // on-mark beats a known distraction, an off-mark (Back to task) beats
  // relevance. An off-mark that a known distraction agrees with corrected
  // nothing — the person confirmed the drift the distraction found — so the
  // distraction decides and its reason, which says why, is shown (issue 17
  // item 4, the re-walk: the reason shown is the verdict that decided).
  const bool yourMark = remembered && remembered->source == VerdictSource::You;
  if (yourMark && remembered->onTask) return recall(*remembered);

  // The local tier (issue 16 item 3), before anything is sent: what it
  // decides is cached for the session like a verdict, so a heartbeat of the
  // same page costs one lookup and "This is on task" overrides it.
  const Relevance& relevant = relevanceOf(commitment);  // first: it may clear the misses
  // URL evidence may come after the title (a re-sent window): a miss is per domain too.
  const std::string missKey = obs.domain.empty() ? key : key + "\ndomain:" + obs.domain;
  if (localMisses_.count(missKey) == 0) {
    const RelevanceResult relevance = relevant.score(obs.title);
    if (yourMark && relevance.relevant) return recall(*remembered);  // your off-mark beats it
    if (relevance.relevant && obs.title != kPrivateWindowTitle) {
      std::string reason = "its title shares your commitment's words: ";
      for (std::size_t i = 0; i < relevance.shared.size() && i < 4; ++i) {
        reason += (i == 0 ? "" : ", ") + relevance.shared[i];
      }
      cache_.put(key, CachedVerdict{true, reason});
      pendingSinceMono_.reset();
      setView(decision, DriftStatus::OnTask, std::move(reason), obs.app, obs.atMs);
      return decision;
    }
    if (!relevance.relevant) {
      if (auto distraction = distractions_.match(obs, rules_.isPerPage(obs))) {
        std::string reason =
            distraction->site + " is a known distraction (" + distraction->category + ")";
        if (distraction->how.find(distraction->site) == std::string::npos) {
          reason += ": " + distraction->how;
        }
        cache_.put(key, CachedVerdict{false, reason});
        pendingSinceMono_.reset();
        setView(decision, DriftStatus::Drifting, std::move(reason), obs.app, obs.atMs);
        return decision;
      }
    }
    // The local tier says nothing of this key: a heartbeat of it skips it.
    if (localMisses_.size() >= VerdictCache::kMaxEntries) localMisses_.clear();
    localMisses_.insert(missKey);
  }
  if (yourMark) return recall(*remembered);  // your off-mark, no known distraction agreeing
  // 3c. A site-wide verdict of the judge for the page's domain, confirmed by
  // two of its pages (issue 19 item 4), after the local tier.
  if (!subject_->siteKey.empty()) {
    if (const CachedVerdict* site = cache_.find(subject_->siteKey)) {
      pendingSinceMono_.reset();
      setView(decision, site->onTask ? DriftStatus::OnTask : DriftStatus::Drifting, site->reason,
              obs.app, obs.atMs);
      return decision;
    }
  }
  if (remembered) return recall(*remembered);  // 3b, the judge's (issue 16 item 3)

  // 5 (early). Nothing may be sent, or nobody to ask: unknown, never fabricated.
  if (obs.title == kPrivateWindowTitle) {
    // Its real title was dropped on entry: nothing to judge, nothing to send.
    pendingSinceMono_.reset();
    setView(decision, DriftStatus::Unknown, "a private window is judged by local rules only",
            obs.app, obs.atMs);
    return decision;
  }
  if (rules_.neverSend(obs.app)) {
    pendingSinceMono_.reset();
    setView(decision, DriftStatus::Unknown,
            obs.app + " is judged by local rules only (privacy.never_send_apps)", obs.app,
            obs.atMs);
    return decision;
  }
  if (advisors == Advisors::None) {
    pendingSinceMono_.reset();
    setView(decision, DriftStatus::Unknown, obs.app + " is not in the allowed apps (AI is off)",
            obs.app, obs.atMs);
    return decision;
  }
  if (const auto asked = attempted_.find(key);
      asked != attempted_.end() && inFlight_.count(key) == 0) {
    // Asked this session and it failed: once more on a visit after
    // kJudgeRetryAfterMs (issue 19 item 4), then never again this session.
    const Attempt& attempt = asked->second;
    const bool retry = attempt.failures == 1 && obs.atMs >= attempt.retryAtMs;
    if (!retry) {
      pendingSinceMono_.reset();
      setView(decision, DriftStatus::Unknown,
              "the AI judge could not say whether " + obs.app + " fits the commitment" +
                  (attempt.failures == 1 ? " (it asks once more later)" : ""),
              obs.app, obs.atMs);
      return decision;
    }
  }

  // 4. Judge: one call in flight per key, after the key stayed in front for
  // the dwell, drift.judge_dwell_s.
  const std::int64_t previousJudgeAtMs = view_.judgeAtMs;
  setView(decision, DriftStatus::Judging, "checking whether " + obs.app + " fits the commitment",
          obs.app, obs.atMs);
  if (inFlight_.count(key) != 0) return decision;
  if (!sameSubject || !pendingSinceMono_) pendingSinceMono_ = nowMono;
  if (nowMono - *pendingSinceMono_ >= settings_.judgeDwellSecs * 1000) {
    launchJudge(decision, commitment);
  } else {
    // The page says when the judge will be asked (issue 16 item 2).
    const std::int64_t judgeAtMs =
        obs.atMs + (*pendingSinceMono_ + settings_.judgeDwellSecs * 1000 - nowMono);
    view_.judgeAtMs = judgeAtMs;
    if (previousJudgeAtMs != judgeAtMs) decision.changed = true;
  }
  return decision;
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
  input.title = redactor_.apply(subject_->obs.title);
  input.site = redactor_.apply(subject_->obs.domain);  // URL evidence (issue 16 item 4)
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
    Attempt& attempt = attempted_[key];
    ++attempt.failures;
    attempt.retryAtMs = atMs + kJudgeRetryAfterMs;
  }
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

Decision Engine::refocus(std::int64_t atMs) {
  Decision decision;
  judgeEpoch_.advance();
  // The running calls' answers are now discarded, so their keys were never
  // answered: the next observation of one is judged afresh, not "failed".
  for (const auto& running : inFlight_) {
    const auto asked = attempted_.find(running.first);
    if (asked != attempted_.end() && asked->second.failures == 0) attempted_.erase(asked);
  }
  inFlight_.clear();
  pendingSinceMono_.reset();
  if (memory_ != nullptr && subject_ && view_.status == DriftStatus::Drifting && !view_.blocked &&
      subject_->obs.title != kPrivateWindowTitle) {
    // The person confirms the drift (issue 16 item 3): remembered as theirs.
    memory_->remember(subject_->key, false, "you went back to the task from this",
                      VerdictSource::You, currentWords(), atMs);
  }
  subject_.reset();
  setView(decision, DriftStatus::Unknown, "back to the task", "", atMs);
  return decision;
}

std::optional<OnTaskMark> Engine::markOnTask(Commitment& commitment, std::int64_t atMs,
                                             Decision& decision, OnTaskScope scope) {
  if (!subject_) return std::nullopt;
  const Observation& obs = subject_->obs;
  OnTaskMark mark;
  mark.app = obs.app;
  if (scope == OnTaskScope::Site) {
    // Issue 17 item 4: the site the engine derived, never one the title merely mentions.
    const VerdictKeyView site = describeVerdictKey(subject_->markSiteKey);
    if (subject_->markSiteKey.empty() || site.kind != "site") return std::nullopt;
    mark.site = site.label;
    const bool domain = !obs.domain.empty();
    const bool known = std::any_of(commitment.allowedSites.begin(), commitment.allowedSites.end(),
                                   [&](const AllowedSite& allowed) {
                                     return allowed.app == mark.app && allowed.site == mark.site &&
                                            allowed.domain == domain;
                                   });
    if (!known) commitment.allowedSites.push_back(AllowedSite{mark.app, mark.site, domain});
    // This session only: nothing goes to the verdict memory.
    inFlight_.erase(subject_->key);
    pendingSinceMono_.reset();
    const std::string app = obs.app;
    subject_.reset();
    setView(decision, DriftStatus::OnTask,
            "you marked all of " + mark.site + " on task this session", app, atMs);
    return mark;
  }
  if (rules_.isPerPage(obs)) {
    mark.title = normalizeTitle(obs.title);
    const bool known = std::any_of(commitment.allowedTitles.begin(), commitment.allowedTitles.end(),
                                   [&](const AllowedTitle& allowed) {
                                     return allowed.app == mark.app && allowed.title == mark.title;
                                   });
    if (!known) commitment.allowedTitles.push_back(AllowedTitle{mark.app, mark.title});
  } else if (!contains(commitment.allowedApps, obs.app)) {
    commitment.allowedApps.push_back(obs.app);
  }
  cache_.put(subject_->key, CachedVerdict{true, "you said this is on task"});
  if (memory_ != nullptr && obs.title != kPrivateWindowTitle) {  // issue 16 item 3
    memory_->remember(subject_->key, true, "you said this is on task", VerdictSource::You,
                      memoryWordsFor(commitment), atMs);
  }
  inFlight_.erase(subject_->key);
  pendingSinceMono_.reset();
  const std::string app = obs.app;
  subject_.reset();
  setView(decision, DriftStatus::OnTask,
          mark.title.empty() ? "you said " + app + " is on task"
                             : "you said this " + app + " page is on task",
          app, atMs);
  return mark;
}

bool Engine::unmarkOnTask(Commitment& commitment, const std::string& app, const std::string& title,
                          bool isSite) {
  if (isSite) {
    const auto found = std::find_if(
        commitment.allowedSites.begin(), commitment.allowedSites.end(),
        [&](const AllowedSite& allowed) { return allowed.app == app && allowed.site == title; });
    if (found == commitment.allowedSites.end()) return false;
    const std::string key = app + (found->domain ? "\ndomain:" : "\nsite:") + title;
    commitment.allowedSites.erase(found);
    cache_.erase(key);
    return true;
  }
  const auto found = std::find_if(
      commitment.allowedTitles.begin(), commitment.allowedTitles.end(),
      [&](const AllowedTitle& allowed) { return allowed.app == app && allowed.title == title; });
  if (found == commitment.allowedTitles.end()) return false;
  commitment.allowedTitles.erase(found);
  const std::string key = app + '\n' + title;  // verdictKey of the page
  cache_.erase(key);
  attempted_.erase(key);  // the judge may be asked again
  localMisses_.clear();   // the local tier too
  if (memory_ != nullptr) memory_->erase(key);
  return true;
}

std::string Engine::subjectSite() const {
  if (!subject_ || subject_->markSiteKey.empty()) return {};
  const VerdictKeyView site = describeVerdictKey(subject_->markSiteKey);
  return site.kind == "site" ? site.label : std::string();
}

std::optional<std::string> Engine::onTaskRefusal() const {
  if (!subject_) return std::nullopt;
  if (auto blocked = rules_.blockedReason(subject_->obs)) {
    return *blocked +
           " (a hard rule: remove it from drift.blocked_apps or drift.blocked_titles "
           "to allow it)";
  }
  return std::nullopt;
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
  if (view.status == DriftStatus::OnTask) return SpanStatus::OnTask;
  if (view.status == DriftStatus::Drifting) return SpanStatus::Drifting;
  if (view.reason == kOwnPage) return SpanStatus::Neutral;
  return SpanStatus::Unknown;
}

}  // namespace antidrift::drift
