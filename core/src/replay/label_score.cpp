#include "antidrift/replay/label_score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/String.h>

#include "antidrift/replay/replay.h"
#include "replay/json_input.h"

namespace antidrift::replay {
namespace {

using Poco::JSON::Object;

std::string windowKey(const std::string& app, const std::string& title) {
  std::string key = app;
  key += '\n';
  key += title;
  return key;
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

/// Nearest-rank percentile of sorted `values` (non-empty), p in (0, 1].
std::int64_t nearestRank(const std::vector<std::int64_t>& values, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

std::vector<CostlyWindow> costliest(std::map<std::string, CostlyWindow>& byWindow) {
  std::vector<CostlyWindow> list;
  for (auto& [key, window] : byWindow) {
    if (window.costMs > 0) list.push_back(std::move(window));
  }
  std::stable_sort(list.begin(), list.end(), [](const CostlyWindow& a, const CostlyWindow& b) {
    return a.costMs > b.costMs;
  });
  if (list.size() > kCostliest) list.resize(kCostliest);
  return list;
}

}  // namespace

void Labels::set(const std::string& app, const std::string& title, Label label) {
  labels_[windowKey(app, title)] = label;
}

std::optional<Label> Labels::find(const std::string& app, const std::string& title) const {
  const auto found = labels_.find(windowKey(app, title));
  if (found == labels_.end()) return std::nullopt;
  return found->second;
}

Labels parseLabels(std::istream& in, const std::string& name) {
  enum : std::size_t { kApp, kTitle, kLabel };
  Labels labels;
  json::JsonlReader reader(in, name);
  json::Fields fields{"app", "title", "label"};
  while (reader.next(fields)) {
    const auto text = [&](std::size_t index, const char* field) {
      if (fields[index].kind != json::Field::Kind::String) {
        json::fieldError(reader.where(), field, "must be a string");
      }
      return fields[index].text;
    };
    const std::string app = text(kApp, "app");
    const std::string title = text(kTitle, "title");
    const std::string label = text(kLabel, "label");
    if (label == "on") {
      labels.set(app, title, Label::On);
    } else if (label == "off") {
      labels.set(app, title, Label::Off);
    } else if (label == "neutral") {
      labels.set(app, title, Label::Neutral);
    } else if (Poco::trim(label).empty()) {
      // What `antidriftd label` writes for the person to fill: never scored as if filled.
      throw ReplayError(reader.where() + ": the label of (\"" + app + "\", \"" + title +
                        "\") is empty: fill it with \"on\", \"off\" or \"neutral\"");
    } else {
      throw ReplayError(reader.where() +
                        ": \"label\" must be \"on\", \"off\" or \"neutral\", got \"" + label +
                        "\"");
    }
  }
  if (labels.size() == 0) throw ReplayError(name + " holds no label");
  return labels;
}

Labels loadLabels(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReplayError("cannot read " + path + " (missing or not readable)");
  return parseLabels(in, path);
}

LabelScore scoreLabels(const ReplayReport& report, const Labels& labels) {
  LabelScore score;
  score.labels = labels.size();
  const Trace& trace = report.trace;
  score.events.reserve(trace.events.size());
  std::map<std::string, bool> unlabelled;
  for (const TraceEvent& event : trace.events) {
    ScoredEvent scored;
    scored.atMs = event.atMs;
    scored.endMs = event.endMs;
    scored.app = event.app;
    scored.title = event.title;
    scored.bannerStarts = event.bannerStarts;
    if (const auto label = labels.find(event.app, event.title)) {
      scored.label = *label;
      scored.labelled = true;
    } else {
      ++score.unlabelledEvents;
      unlabelled[windowKey(event.app, event.title)] = true;
    }
    score.events.push_back(std::move(scored));
  }
  score.unlabelledWindows = static_cast<std::int64_t>(unlabelled.size());

  // The person is told: the banner, or a heads-up inside an allowed app.
  const auto told = [&](const TraceSlice& slice) {
    return slice.active &&
           (slice.banner || (slice.headsUp && trace.events[slice.event].allowedApp));
  };
  std::map<std::string, CostlyWindow> missed;
  std::map<std::string, CostlyWindow> falseBanner;
  std::vector<std::int64_t> missedOfEvent(trace.events.size(), 0);
  std::vector<std::int64_t> falseOfEvent(trace.events.size(), 0);
  for (const TraceSlice& slice : trace.slices) {
    if (!slice.active || slice.event >= score.events.size()) continue;
    ScoredEvent& event = score.events[slice.event];
    const std::int64_t ms = slice.endMs - slice.startMs;
    event.activeMs += ms;
    if (slice.banner) event.bannerMs += ms;
    if (slice.headsUp && !slice.banner) event.headsUpMs += ms;
    switch (event.label) {
      case Label::Off:
        score.offMs += ms;
        if (slice.banner) {
          score.offBannerMs += ms;
        } else if (told(slice)) {
          score.offHeadsUpMs += ms;
        } else {
          missedOfEvent[slice.event] += ms;
        }
        break;
      case Label::On:
        score.onMs += ms;
        if (slice.banner) {
          score.onBannerMs += ms;
          falseOfEvent[slice.event] += ms;
        }
        break;
      case Label::Neutral:
        score.neutralMs += ms;
        break;
    }
  }
  for (std::size_t i = 0; i < score.events.size(); ++i) {
    const ScoredEvent& event = score.events[i];
    if (!event.labelled) score.unlabelledMs += event.activeMs;
    if (event.label == Label::On) score.falseBanners += event.bannerStarts;
    const auto add = [&](std::map<std::string, CostlyWindow>& into, std::int64_t ms) {
      if (ms <= 0) return;
      CostlyWindow& window = into[windowKey(event.app, event.title)];
      window.app = event.app;
      window.title = event.title;
      window.costMs += ms;
      ++window.events;
    };
    add(missed, missedOfEvent[i]);
    add(falseBanner, falseOfEvent[i]);
  }
  score.costliestMissed = costliest(missed);
  score.costliestFalse = costliest(falseBanner);

  score.recallBanner = share(score.offBannerMs, score.offMs);
  score.recallHeadsUp = share(score.offHeadsUpMs, score.offMs);
  score.recallTime = share(score.offBannerMs + score.offHeadsUpMs, score.offMs);
  score.falseTime = share(score.onBannerMs, score.onMs);
  score.falseBannersPerOnHour = score.onMs > 0 ? static_cast<double>(score.falseBanners) *
                                                     3'600'000.0 / static_cast<double>(score.onMs)
                                               : 0.0;

  // Visits: runs of off events, neutral ones inside, broken by an on event.
  std::vector<std::int64_t> timesToTell;
  std::size_t slice = 0;
  std::size_t i = 0;
  const std::size_t n = score.events.size();
  while (i < n) {
    if (score.events[i].label != Label::Off) {
      ++i;
      continue;
    }
    std::size_t last = i;  // the run's last off event
    std::size_t j = i;
    std::int64_t offMs = 0;
    while (j < n && score.events[j].label != Label::On) {
      if (score.events[j].label == Label::Off) {
        last = j;
        offMs += score.events[j].activeMs;
      }
      ++j;
    }
    if (offMs >= kVisitMinMs) {
      ++score.visits;
      const std::int64_t startMs = score.events[i].atMs;
      while (slice < trace.slices.size() && trace.slices[slice].event < i) ++slice;
      for (std::size_t k = slice; k < trace.slices.size() && trace.slices[k].event <= last; ++k) {
        if (told(trace.slices[k])) {
          ++score.visitsCaught;
          timesToTell.push_back(std::max<std::int64_t>(0, trace.slices[k].startMs - startMs));
          break;
        }
      }
    }
    i = j;
  }
  if (!timesToTell.empty()) {
    std::sort(timesToTell.begin(), timesToTell.end());
    score.timeToTellP50Ms = nearestRank(timesToTell, 0.5);
    score.timeToTellP90Ms = nearestRank(timesToTell, 0.9);
  }

  score.windowChanges = report.windowChanges;
  score.judgeCalls = report.judgeCalls;
  score.nudgeCalls = report.nudgeCalls;
  score.judgeCallsPer100Changes = 100.0 * share(report.judgeCalls, report.windowChanges);
  score.nudgeCallsPer100Changes = 100.0 * share(report.nudgeCalls, report.windowChanges);
  return score;
}

std::string labelScoreJson(const LabelScore& score, bool withEvents) {
  Object::Ptr root = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  root->set("labels", static_cast<std::int64_t>(score.labels));
  root->set("unlabelled_windows", score.unlabelledWindows);
  root->set("unlabelled_events", score.unlabelledEvents);
  root->set("unlabelled_ms", score.unlabelledMs);
  root->set("on_ms", score.onMs);
  root->set("off_ms", score.offMs);
  root->set("neutral_ms", score.neutralMs);
  root->set("recall_time", score.recallTime);
  root->set("recall_time_banner", score.recallBanner);
  root->set("recall_time_heads_up", score.recallHeadsUp);
  root->set("off_banner_ms", score.offBannerMs);
  root->set("off_heads_up_ms", score.offHeadsUpMs);
  root->set("false_time", score.falseTime);
  root->set("on_banner_ms", score.onBannerMs);
  root->set("false_banners", score.falseBanners);
  root->set("false_banners_per_on_hour", score.falseBannersPerOnHour);
  root->set("visits", score.visits);
  root->set("visits_caught", score.visitsCaught);
  const auto optional = [&](const char* key, const std::optional<std::int64_t>& value) {
    if (value) {
      root->set(key, *value);
    } else {
      root->set(key, Poco::Dynamic::Var());
    }
  };
  optional("time_to_tell_p50_ms", score.timeToTellP50Ms);
  optional("time_to_tell_p90_ms", score.timeToTellP90Ms);
  Object::Ptr ai = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  ai->set("window_changes", score.windowChanges);
  ai->set("judge_calls", score.judgeCalls);
  ai->set("nudge_calls", score.nudgeCalls);
  ai->set("judge_per_100_changes", score.judgeCallsPer100Changes);
  ai->set("nudge_per_100_changes", score.nudgeCallsPer100Changes);
  root->set("ai", ai);
  const auto costly = [](const std::vector<CostlyWindow>& list) {
    Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
    for (const CostlyWindow& window : list) {
      Object::Ptr entry = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
      entry->set("app", window.app);
      entry->set("title", window.title);
      entry->set("ms", window.costMs);
      entry->set("events", window.events);
      array->add(entry);
    }
    return array;
  };
  root->set("costliest_missed", costly(score.costliestMissed));
  root->set("costliest_false", costly(score.costliestFalse));
  if (withEvents) {
    Poco::JSON::Array::Ptr events = new Poco::JSON::Array;
    for (const ScoredEvent& event : score.events) {
      Object::Ptr entry = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
      entry->set("at_ms", event.atMs);
      entry->set("end_ms", event.endMs);
      entry->set("app", event.app);
      entry->set("title", event.title);
      entry->set("label", std::string(toString(event.label)));
      entry->set("labelled", event.labelled);
      entry->set("active_ms", event.activeMs);
      entry->set("banner_ms", event.bannerMs);
      entry->set("heads_up_ms", event.headsUpMs);
      entry->set("banner_starts", event.bannerStarts);
      events->add(entry);
    }
    root->set("events", events);
  }
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(root, out);
  return out.str();
}

namespace {

std::string seconds(std::int64_t ms) {
  char text[32];
  if (ms >= 3'600'000) {
    std::snprintf(text, sizeof text, "%.2f h", static_cast<double>(ms) / 3'600'000.0);
  } else if (ms >= 60'000) {
    std::snprintf(text, sizeof text, "%.1f min", static_cast<double>(ms) / 60'000.0);
  } else {
    std::snprintf(text, sizeof text, "%.0f s", static_cast<double>(ms) / 1000.0);
  }
  return text;
}

std::string fixed(double value, const char* format = "%.3f") {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::string labelScoreText(const LabelScore& score) {
  std::ostringstream out;
  out << "Against the labels (" << score.labels << " windows labelled; " << score.unlabelledWindows
      << " windows of the replay not in the file, " << score.unlabelledEvents << " events, "
      << seconds(score.unlabelledMs) << ", counted neutral):\n";
  out << "  active time: on " << seconds(score.onMs) << ", off " << seconds(score.offMs)
      << ", neutral " << seconds(score.neutralMs) << "\n";
  out << "  recall_time " << fixed(score.recallTime) << " (banner " << fixed(score.recallBanner)
      << ", heads-up " << fixed(score.recallHeadsUp) << ")\n";
  out << "  false_time " << fixed(score.falseTime) << "    false_banners_per_on_hour "
      << fixed(score.falseBannersPerOnHour, "%.2f") << " (" << score.falseBanners
      << " banners started in on-task windows)\n";
  out << "  visits " << score.visits << ", caught " << score.visitsCaught;
  if (score.timeToTellP50Ms) {
    out << "; time to banner or heads-up p50 " << seconds(*score.timeToTellP50Ms) << ", p90 "
        << seconds(*score.timeToTellP90Ms);
  }
  out << "\n";
  out << "  AI calls per 100 window changes: judge " << fixed(score.judgeCallsPer100Changes, "%.2f")
      << " (" << score.judgeCalls << "), nudge " << fixed(score.nudgeCallsPer100Changes, "%.2f")
      << " (" << score.nudgeCalls << ") of " << score.windowChanges << " window changes\n";
  const auto list = [&](const char* heading, const std::vector<CostlyWindow>& windows) {
    out << heading << "\n";
    if (windows.empty()) out << "  none\n";
    for (const CostlyWindow& window : windows) {
      char line[64];
      std::snprintf(line, sizeof line, "  %9s  %3lld× ", seconds(window.costMs).c_str(),
                    static_cast<long long>(window.events));
      out << line << window.app << "  \"" << window.title << "\"\n";
    }
  };
  list("Costliest missed windows (off task, nobody told):", score.costliestMissed);
  list("Costliest false windows (on task, banner up):", score.costliestFalse);
  return out.str();
}

}  // namespace antidrift::replay
