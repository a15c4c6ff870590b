#include "antidrift/evidence/timeline.h"

#include <algorithm>
#include <limits>

namespace antidrift {

std::string_view toString(SpanStatus status) {
  switch (status) {
    case SpanStatus::OnTask:
      return "ontask";
    case SpanStatus::Drifting:
      return "drifting";
    case SpanStatus::Unknown:
      return "unknown";
    case SpanStatus::Away:
      return "away";
  }
  return "unknown";
}

std::optional<SpanStatus> parseSpanStatus(std::string_view text) {
  for (SpanStatus status :
       {SpanStatus::OnTask, SpanStatus::Drifting, SpanStatus::Unknown, SpanStatus::Away}) {
    if (toString(status) == text) return status;
  }
  return std::nullopt;
}

Timeline::Timeline(std::size_t maxSpans) : maxSpans_(std::max<std::size_t>(maxSpans, 2)) {}

void Timeline::credit(std::int64_t untilMs) {
  if (spans_.empty()) return;
  TimelineSpan& last = spans_.back();
  if (untilMs <= last.endMs) return;
  const std::int64_t gap = untilMs - last.endMs;
  if (last.status == SpanStatus::OnTask) split_[last.app].onTaskMs += gap;
  if (last.status == SpanStatus::Drifting) split_[last.app].driftingMs += gap;
  last.endMs = untilMs;
}

namespace {

/// The same app, status and heads-up: one span, not two.
bool sameKind(const TimelineSpan& a, const TimelineSpan& b) {
  return a.app == b.app && a.status == b.status && a.headsUp == b.headsUp;
}

}  // namespace

void Timeline::record(std::int64_t atMs, const std::string& app, SpanStatus status, bool headsUp) {
  if (resumed_) {
    // The daemon was down since the last span ended: that time is no span.
    resumed_ = false;
    if (!spans_.empty() && atMs > spans_.back().endMs) {
      spans_.push_back(TimelineSpan{atMs, atMs, app, status, headsUp});
      bound();
      return;
    }
  }
  if (!spans_.empty()) {
    credit(atMs);
    TimelineSpan& last = spans_.back();
    if (last.app == app && last.status == status && last.headsUp == headsUp) return;
    const std::int64_t start = last.endMs;
    if (last.startMs == last.endMs) {
      last.app = app;  // an empty span: nothing was in it, it becomes the new one
      last.status = status;
      last.headsUp = headsUp;
      if (spans_.size() >= 2 && sameKind(spans_[spans_.size() - 2], last)) spans_.pop_back();
      return;
    }
    spans_.push_back(TimelineSpan{start, start, app, status, headsUp});
  } else {
    spans_.push_back(TimelineSpan{atMs, atMs, app, status, headsUp});
  }
  bound();
}

void Timeline::extendTo(std::int64_t atMs) {
  credit(atMs);
}

void Timeline::bound() {
  while (spans_.size() > maxSpans_) {
    // The shortest adjacent pair of closed spans (the last span stays open).
    std::size_t best = 0;
    std::int64_t bestLength = std::numeric_limits<std::int64_t>::max();
    for (std::size_t index = 0; index + 2 < spans_.size(); ++index) {
      const std::int64_t length = spans_[index + 1].endMs - spans_[index].startMs;
      if (length < bestLength) {
        bestLength = length;
        best = index;
      }
    }
    TimelineSpan& first = spans_[best];
    const TimelineSpan& second = spans_[best + 1];
    if (second.endMs - second.startMs > first.endMs - first.startMs) {
      first.app = second.app;
      first.status = second.status;
      first.headsUp = second.headsUp;
    }
    first.endMs = second.endMs;
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    // The merged span may now match a neighbour (the open one too): one span, not two.
    if (best + 1 < spans_.size() && sameKind(spans_[best + 1], first)) {
      first.endMs = spans_[best + 1].endMs;
      spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    }
    if (best > 0 && sameKind(spans_[best - 1], spans_[best])) {
      spans_[best - 1].endMs = spans_[best].endMs;
      spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(best));
    }
  }
}

void Timeline::restore(std::vector<TimelineSpan> spans, std::map<std::string, AppSplit> split) {
  spans_ = std::move(spans);
  split_ = std::move(split);
  resumed_ = !spans_.empty();
  bound();
}

void Timeline::clear() {
  spans_.clear();
  split_.clear();
  resumed_ = false;
}

std::int64_t Timeline::onTaskMs() const {
  std::int64_t total = 0;
  for (const auto& entry : split_) total += entry.second.onTaskMs;
  return total;
}

}  // namespace antidrift
