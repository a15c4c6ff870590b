/// @file window_join.cpp
/// The daemon's join of aw-watcher-web tabs to window observations (issue 16 item 4).

#include "server/window_join.h"

#include <string_view>
#include <utility>

#include <Poco/String.h>

#include "antidrift/evidence/web_join.h"

namespace antidrift {

WindowJoin::WindowJoin(Controller& controller, const Clock& clock)
    : controller_(controller),
      clock_(clock),
      rules_(controller.rules()),
      pageTag_(rules_.ownPageTag()) {}

void WindowJoin::setEarlierPageTags(std::vector<std::string> tags) {
  earlierTags_ = std::move(tags);
}

std::string WindowJoin::withCurrentPageTag(std::string title) const {
  if (pageTag_.empty() || earlierTags_.empty()) return title;
  static constexpr std::string_view kName = "antidrift ";
  const std::string folded = Poco::toLower(title);
  for (const std::string& tag : earlierTags_) {
    const std::string key = std::string(kName) + tag;
    const std::size_t at = folded.rfind(key);
    if (at == std::string::npos) continue;
    title.replace(at + kName.size(), tag.size(), pageTag_);
    return title;
  }
  return title;
}

WindowJoin::Joined WindowJoin::joinLocked(const Observation& window, std::int64_t nowMono) const {
  Joined joined;
  if (!window.domain.empty() || window.privateWindow) {
    joined.domain = window.domain;
    joined.privateWindow = window.privateWindow;
    return joined;
  }
  if (tabs_.empty()) return joined;
  Observation probe;
  probe.app = normalizeApp(window.app);
  probe.title = sanitizeTitle(window.title);
  if (!rules_.isPerPage(probe)) return joined;
  std::optional<WebJoin> best;
  std::int64_t bestSeen = 0;
  for (const auto& [bucket, tab] : tabs_) {
    if (nowMono - tab.seenMono > kWebTabFreshMs) continue;
    const std::optional<WebJoin> match =
        joinWebTab(window.title, tab.heartbeat.title, tab.heartbeat.url, tab.heartbeat.incognito);
    if (!match) continue;
    const bool better = !best || match->matchedBytes > best->matchedBytes ||
                        (match->matchedBytes == best->matchedBytes && tab.seenMono >= bestSeen);
    if (better) {
      best = match;
      bestSeen = tab.seenMono;
    }
  }
  if (best) {
    joined.domain = best->domain;
    joined.privateWindow = best->privateWindow;
  }
  return joined;
}

void WindowJoin::deliverLocked(const Observation& window, const Joined& joined, bool now) {
  Observation observation = window;
  observation.domain = joined.domain;
  observation.privateWindow = joined.privateWindow;
  if (now) observation.atMs = 0;  // receipt time
  delivered_ = joined;
  controller_.recordWindow(std::move(observation));
}

void WindowJoin::recordWindow(Observation observation) {
  observation.title = withCurrentPageTag(std::move(observation.title));
  std::lock_guard<std::mutex> lock(mutex_);
  const Joined joined = joinLocked(observation, clock_.monotonicMs());
  window_ = observation;
  deliverLocked(observation, joined, false);
}

void WindowJoin::recordTab(const std::string& bucket, WebTabHeartbeat tab) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::int64_t nowMono = clock_.monotonicMs();
  auto found = tabs_.find(bucket);
  if (found == tabs_.end() && tabs_.size() >= kMaxBuckets) {
    auto oldest = tabs_.begin();
    for (auto it = tabs_.begin(); it != tabs_.end(); ++it) {
      if (it->second.seenMono < oldest->second.seenMono) oldest = it;
    }
    tabs_.erase(oldest);
  }
  // Nothing of a private tab but what the match and the local tiers need:
  // its title and its domain (docs/DESIGN.md §4 "Private windows").
  if (tab.incognito) tab.url = "https://" + domainOfUrl(tab.url) + "/";
  tabs_[bucket] = Tab{std::move(tab), nowMono};
  if (!window_) return;
  const Joined joined = joinLocked(*window_, nowMono);
  if (joined == delivered_) return;
  // Only a gain: a tab that moved on does not take the domain off the window
  // still in front (its next observation is joined afresh).
  if (joined.domain.empty() && !joined.privateWindow) return;
  deliverLocked(*window_, joined, true);
}

}  // namespace antidrift
