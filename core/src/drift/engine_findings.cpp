// What the local tiers read, worked out for the engine (docs/DESIGN.md §4
// "The tiers, in order"): the local tier's finding (relevance, then the
// known distractions; a private window's on its raw title in memory), the
// verdict memory's answer, the session's editor workspace, and a private
// window's key and local judge's answer (docs/DESIGN.md §4 "Private windows").
#include <algorithm>
#include <string>

#include "antidrift/drift/engine.h"
#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {

void Engine::noteWorkspace(const Observation& obs, const Commitment& commitment) {
  if (std::find(commitment.allowedApps.begin(), commitment.allowedApps.end(), obs.app) ==
      commitment.allowedApps.end()) {
    return;
  }
  const std::string workspace = editorWorkspace(obs.title);
  if (workspace.empty() || workspace == workspace_) return;
  // The session's workspace is the first one seen, unless a later one
  // shares more of the commitment's words: the commitment names its project.
  const std::size_t shares = relevanceOf(commitment).score(workspace).shared.size();
  if (workspace_.empty() || shares > workspaceShares_) {
    workspace_ = workspace;
    workspaceShares_ = shares;
  }
}

Remembered Engine::lookUpMemory(const Observation& obs, const Commitment& commitment) {
  Remembered found;
  if (memory_ == nullptr || obs.title == kPrivateWindowTitle || !subject_) return found;
  // A verdict from an earlier session for work that shares the commitment's
  // words, the page's before its site's (issue 16 item 3).
  const std::set<std::string>& words = memoryWordsFor(commitment);
  found.verdict = memory_->lookup(subject_->key, words, obs.atMs);
  found.key = subject_->key;
  if (!found.verdict && !subject_->siteKey.empty()) {
    found.verdict = memory_->lookup(subject_->siteKey, words, obs.atMs);
    found.key = subject_->siteKey;
  }
  return found;
}

LocalFinding Engine::findPrivately(const Observation& obs, const Commitment& commitment) {
  // A private window: the local tiers read its raw title and site, in
  // memory, every time (its key is every private window's, so neither a miss
  // nor a verdict is kept); nothing of it goes further (docs/DESIGN.md §4
  // "Private windows").
  LocalFinding finding;
  if (obs.localTitle.empty()) return finding;
  RelevanceResult relevance = relevanceOf(commitment).score(obs.localTitle);
  if (relevance.relevant) {
    finding.kind = LocalFinding::Kind::Relevant;
    return finding;  // the words stay unsaid: they are the title's
  }
  Observation seen = obs;
  seen.title = obs.localTitle;
  seen.domain = obs.localDomain;
  if (auto distraction = distractions_.match(seen, rules_.isPerPage(seen))) {
    finding.kind = relevance.shared.empty() ? LocalFinding::Kind::Distraction
                                            : LocalFinding::Kind::TaskDistraction;
    finding.distraction = std::move(distraction);
  }
  return finding;
}

LocalFinding Engine::findLocally(const Observation& obs, const Commitment& commitment) {
  if (obs.title == kPrivateWindowTitle) return findPrivately(obs, commitment);
  LocalFinding finding;
  const Relevance& relevant = relevanceOf(commitment);  // first: it may clear the misses
  // URL evidence may come after the title (a re-sent window): a miss is per domain too.
  const std::string& key = subject_->key;
  const std::string missKey = obs.domain.empty() ? key : key + "\ndomain:" + obs.domain;
  if (localMisses_.count(missKey) != 0) return finding;
  RelevanceResult relevance = relevant.score(obs.title);
  if (relevance.relevant && obs.title != kPrivateWindowTitle) {
    finding.kind = LocalFinding::Kind::Relevant;
    finding.shared = std::move(relevance.shared);
    finding.distraction = distractions_.match(obs, rules_.isPerPage(obs));
    return finding;
  }
  if (!relevance.relevant) {
    if (auto distraction = distractions_.match(obs, rules_.isPerPage(obs))) {
      // The task's own evidence beats the list: a page of a known
      // distraction that shares a distinctive word of the commitment is
      // ambiguous, for the judge (or the heads-up) to decide.
      finding.kind = relevance.shared.empty() ? LocalFinding::Kind::Distraction
                                              : LocalFinding::Kind::TaskDistraction;
      finding.shared = std::move(relevance.shared);
      finding.distraction = std::move(distraction);
      return finding;
    }
  }
  // The local tier says nothing of this key: a heartbeat of it skips it.
  if (localMisses_.size() >= VerdictCache::kMaxEntries) localMisses_.clear();
  localMisses_.insert(missKey);
  return finding;
}

std::string Engine::privateKey(const Observation& obs) {
  // The raw title is never part of a key (keys reach the snapshot): an
  // ordinal per distinct private window of this session, in memory.
  const std::string seen = obs.localTitle + '\n' + obs.localDomain;
  auto found = privateOrdinals_.find(seen);
  if (found == privateOrdinals_.end()) {
    if (privateOrdinals_.size() >= VerdictCache::kMaxEntries) privateOrdinals_.clear();
    found = privateOrdinals_.emplace(seen, ++privateCount_).first;
  }
  return obs.app + std::string(kPrivateKeyMark) + std::to_string(found->second);
}

bool Engine::isPrivateKey(std::string_view key) {
  return key.find(kPrivateKeyMark) != std::string_view::npos;
}

Decision Engine::applyPrivateVerdict(const std::string& key,
                                     const std::optional<ai::Verdict>& verdict, std::int64_t atMs) {
  // Nothing of a private window is cached, remembered or shown in the
  // judge's words (they may quote its title): the view says which way the
  // local judge went, while the window is still in front (docs/DESIGN.md §4
  // "Private windows").
  Decision decision;
  if (!subject_ || subject_->key != key || view_.status != DriftStatus::Judging) return decision;
  const std::string app = subject_->obs.app;
  if (!verdict) {
    setView(decision, DriftStatus::Unknown,
            "the local AI judge could not say whether this private window fits the commitment", app,
            atMs);
  } else if (verdict->onTask) {
    setView(decision, DriftStatus::OnTask,
            "the local AI judge says this private window fits the commitment", app, atMs);
  } else {
    setView(decision, DriftStatus::Drifting,
            "the local AI judge says this private window does not serve the next action", app,
            atMs);
  }
  return decision;
}

}  // namespace antidrift::drift
