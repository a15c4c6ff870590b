#include "antidrift/drift/nudge_ring.h"

#include <algorithm>

namespace antidrift::drift {

bool NudgeRing::add(const std::string& key, const std::string& displayTitle) {
  if (key.empty()) return false;
  if (!entries_.empty() && entries_.back().first == key) {
    entries_.back().second = displayTitle;  // the same title again: only refresh how it reads
    return false;
  }
  const auto found = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const auto& entry) { return entry.first == key; });
  if (found != entries_.end()) entries_.erase(found);
  entries_.emplace_back(key, displayTitle);
  if (entries_.size() > kCapacity) entries_.pop_front();
  return true;
}

std::vector<std::string> NudgeRing::titles() const {
  std::vector<std::string> titles;
  titles.reserve(entries_.size());
  for (const auto& entry : entries_) titles.push_back(entry.second);
  return titles;
}

std::vector<std::string> NudgeRing::newestKeys(std::size_t count) const {
  std::vector<std::string> keys;
  for (auto it = entries_.rbegin(); it != entries_.rend() && keys.size() < count; ++it) {
    keys.push_back(it->first);
  }
  return keys;
}

std::size_t NudgeRing::size() const {
  return entries_.size();
}

void NudgeRing::clear() {
  entries_.clear();
}

}  // namespace antidrift::drift
