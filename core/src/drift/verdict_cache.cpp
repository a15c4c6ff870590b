#include "antidrift/drift/verdict_cache.h"

#include <algorithm>
#include <utility>

#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {

std::string verdictKey(const Rules& rules, const Observation& obs) {
  if (!rules.isPerPage(obs)) return obs.app;
  return obs.app + '\n' + normalizeTitle(obs.title);
}

std::string siteVerdictKey(const Rules& rules, const Observation& obs) {
  if (!rules.isPerPage(obs)) return {};
  // URL evidence names the site exactly (issue 16 item 4); its own prefix, as a
  // domain ("youtube.com") is not a title's site name ("youtube").
  // Only a site the engine derived itself: a title names whatever site its
  // author likes ("… - GitHub"), so a title alone gives no site key (issue 19
  // item 4).
  if (!obs.domain.empty()) return obs.app + "\ndomain:" + obs.domain;
  return {};
}

std::string markSiteKey(const Rules& rules, const Observation& obs) {
  std::string key = siteVerdictKey(rules, obs);
  if (!key.empty() || !rules.isPerPage(obs)) return key;
  const std::string site = siteOf(normalizeTitle(obs.title));
  return site.empty() ? std::string() : obs.app + "\nsite:" + site;
}

const CachedVerdict* VerdictCache::find(const std::string& key) const {
  const auto found = verdicts_.find(key);
  return found == verdicts_.end() ? nullptr : &found->second;
}

void VerdictCache::put(const std::string& key, CachedVerdict verdict) {
  const auto found = verdicts_.find(key);
  if (found != verdicts_.end()) {
    found->second = std::move(verdict);
    return;
  }
  if (verdicts_.size() >= kMaxEntries) {
    verdicts_.erase(insertionOrder_.front());
    insertionOrder_.pop_front();
  }
  verdicts_.emplace(key, std::move(verdict));
  insertionOrder_.push_back(key);
}

bool VerdictCache::erase(const std::string& key) {
  if (verdicts_.erase(key) == 0) return false;
  insertionOrder_.erase(std::find(insertionOrder_.begin(), insertionOrder_.end(), key));
  return true;
}

void VerdictCache::clear() {
  verdicts_.clear();
  insertionOrder_.clear();
}

std::size_t VerdictCache::size() const {
  return verdicts_.size();
}

}  // namespace antidrift::drift
