/// @file web_events.cpp
/// The replay's join of aw-watcher-web events to window events (issue 16 item 4): the
/// daemon's rule (server/window_join.h) over recorded time.

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "antidrift/drift/rules.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/web_join.h"
#include "antidrift/replay/replay.h"

namespace antidrift::replay {

std::vector<WindowWeb> joinWebEvents(const Activity& activity, const drift::Rules& rules) {
  std::vector<WindowWeb> joined;
  if (activity.web.empty()) return joined;
  joined.resize(activity.windows.size());

  // Web events by their title as the join compares it, each list in time order.
  std::unordered_map<std::string, std::vector<std::size_t>> byTitle;
  std::int64_t longestMs = 0;
  for (std::size_t i = 0; i < activity.web.size(); ++i) {
    const WebEvent& web = activity.web[i];
    const std::vector<std::string> own = webTabTitleCandidates(web.title);
    if (own.empty()) continue;  // a blank title describes nothing
    byTitle[own.front()].push_back(i);
    longestMs = std::max(longestMs, web.durationMs);
  }
  for (auto& [title, indices] : byTitle) {
    std::stable_sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
      return activity.web[a].atMs < activity.web[b].atMs;
    });
  }

  for (std::size_t w = 0; w < activity.windows.size(); ++w) {
    const WindowEvent& window = activity.windows[w];
    Observation probe;
    probe.app = normalizeApp(window.app);
    probe.title = sanitizeTitle(window.title);
    if (!rules.isPerPage(probe)) continue;
    const std::int64_t startMs = window.atMs;
    const std::int64_t endMs = window.atMs + std::max<std::int64_t>(window.durationMs, 0);
    for (const std::string& candidate : webTabTitleCandidates(window.title)) {
      const auto found = byTitle.find(candidate);
      if (found == byTitle.end()) continue;
      const std::vector<std::size_t>& indices = found->second;
      // The web events that started by the window's end, latest first, back to those that
      // cannot reach its start any more.
      auto upper = std::upper_bound(
          indices.begin(), indices.end(), endMs,
          [&](std::int64_t at, std::size_t index) { return at < activity.web[index].atMs; });
      const WebEvent* best = nullptr;
      std::int64_t bestOverlap = 0;
      for (auto it = upper; it != indices.begin();) {
        const WebEvent& web = activity.web[*--it];
        if (web.atMs + longestMs + kWebTabFreshMs < startMs) break;
        const std::int64_t webEndMs = web.atMs + std::max<std::int64_t>(web.durationMs, 0);
        if (webEndMs + kWebTabFreshMs < startMs) continue;
        const std::int64_t overlap = std::min(endMs, webEndMs) - std::max(startMs, web.atMs);
        if (!best || overlap > bestOverlap) {
          best = &web;
          bestOverlap = overlap;
        }
      }
      if (!best) continue;
      if (const auto join = joinWebTab(window.title, best->title, best->url, best->incognito)) {
        joined[w].domain = join->domain;
        joined[w].privateWindow = join->privateWindow;
      }
      break;  // the longest title that a web event describes wins
    }
  }
  return joined;
}

}  // namespace antidrift::replay
