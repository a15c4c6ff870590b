// The banner's actions and a restart's stay (docs/DESIGN.md §4 "Back to
// task", "This is on task"; §9 "Restart"): what the person does about a
// verdict, apart from the walk over the tiers that makes one (engine.cpp).
#include <algorithm>

#include "antidrift/drift/engine.h"
#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

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

}  // namespace antidrift::drift
