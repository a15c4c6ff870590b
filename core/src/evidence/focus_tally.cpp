#include "antidrift/evidence/focus_tally.h"

#include <algorithm>
#include <utility>

namespace antidrift {

SiteDrift& FocusTally::siteFor(const std::string& where) {
  for (SiteDrift& site : state_.sites) {
    if (site.where == where) return site;
  }
  const std::string name = state_.sites.size() < kMaxSites ? where : std::string(kOtherSite);
  if (name != where) {
    for (SiteDrift& site : state_.sites) {
      if (site.where == name) return site;
    }
  }
  state_.sites.push_back(SiteDrift{name, 0, 0});
  return state_.sites.back();
}

void FocusTally::credit(std::int64_t untilMs) {
  if (!open_) return;
  const std::int64_t until = std::max(untilMs, lastMs_);
  const std::int64_t ms = until - lastMs_;
  lastMs_ = until;
  if (ms == 0) return;
  if (status_ == SpanStatus::Drifting) {
    siteFor(where_).driftMs += ms;
  } else if (status_ == SpanStatus::OnTask) {
    OnTaskStretch& current = state_.current;
    if (current.onTaskMs == 0) current.startMs = until - ms;
    current.onTaskMs += ms;
    current.endMs = until;
    if (current.onTaskMs > state_.longest.onTaskMs) state_.longest = current;
  }
  // Neutral and unknown time pause the stretch; away time ended it on entry.
}

void FocusTally::record(std::int64_t atMs, SpanStatus status, const std::string& where,
                        bool continuing) {
  credit(atMs);
  const std::int64_t at = open_ ? std::max(atMs, lastMs_) : atMs;
  if (status == SpanStatus::Drifting || status == SpanStatus::Away) {
    state_.current = OnTaskStretch{};  // drift and absence end the stretch
  }
  const bool sameDrift = open_ && ((status_ == SpanStatus::Drifting && where_ == where) ||
                                   (status_ == SpanStatus::Neutral && pausedWhere_ == where));
  if (status == SpanStatus::Drifting && !continuing && !sameDrift) siteFor(where).visits += 1;
  if (status == SpanStatus::Neutral) {
    if (status_ == SpanStatus::Drifting) pausedWhere_ = where_;
  } else {
    pausedWhere_.clear();
  }
  open_ = true;
  lastMs_ = at;
  status_ = status;
  where_ = status == SpanStatus::Drifting ? where : std::string();
}

void FocusTally::extendTo(std::int64_t atMs) {
  credit(atMs);
}

void FocusTally::restore(FocusState state) {
  state_ = std::move(state);
  open_ = false;  // the time the daemon was down is not credited
  where_.clear();
  pausedWhere_.clear();
  status_ = SpanStatus::Unknown;
}

void FocusTally::clear() {
  state_ = FocusState{};
  open_ = false;
  lastMs_ = 0;
  status_ = SpanStatus::Unknown;
  where_.clear();
  pausedWhere_.clear();
}

std::vector<SiteDrift> FocusTally::topSites(std::size_t n) const {
  std::vector<SiteDrift> sites = state_.sites;
  std::sort(sites.begin(), sites.end(), [](const SiteDrift& a, const SiteDrift& b) {
    if (a.driftMs != b.driftMs) return a.driftMs > b.driftMs;
    if (a.visits != b.visits) return a.visits > b.visits;
    return a.where < b.where;
  });
  if (sites.size() > n) sites.resize(n);
  return sites;
}

}  // namespace antidrift
