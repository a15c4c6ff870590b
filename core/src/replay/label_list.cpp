#include "antidrift/replay/label_list.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Stringifier.h>

#include "antidrift/drift/rules.h"
#include "antidrift/evidence/observation.h"

namespace antidrift::replay {
namespace {

std::string jsonString(const std::string& text) {
  std::ostringstream out;
  Poco::JSON::Stringifier::formatString(text, out);
  return out.str();
}

}  // namespace

std::vector<WindowToLabel> windowsToLabel(const Activity& activity, const Settings& settings) {
  const drift::Rules rules(settings);
  std::vector<WindowToLabel> windows;
  std::unordered_map<std::string, std::size_t> index;  ///< app + '\n' + title → windows[i]
  const std::vector<WindowEvent>& events = activity.windows;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const WindowEvent& event = events[i];
    std::int64_t ms = std::max<std::int64_t>(0, event.durationMs);
    if (i + 1 < events.size())
      ms = std::min(ms, std::max<std::int64_t>(0, events[i + 1].atMs - event.atMs));
    std::string key = event.app;
    key += '\n';
    key += event.title;
    const auto [found, added] = index.emplace(std::move(key), windows.size());
    if (added) {
      WindowToLabel window;
      window.app = event.app;
      window.title = event.title;
      Observation obs;
      obs.app = normalizeApp(event.app);
      obs.title = sanitizeTitle(event.title);
      switch (rules.classify(obs)) {
        case drift::WindowKind::LockScreen:
          window.prefilled = Label::Neutral;
          window.why = "lock screen";
          break;
        case drift::WindowKind::Unreadable:
          window.prefilled = Label::Neutral;
          window.why = "unreadable window";
          break;
        case drift::WindowKind::OwnPage:
          window.prefilled = Label::Neutral;
          window.why = "AntiDrift's own page";
          break;
        case drift::WindowKind::Normal:
          break;
      }
      windows.push_back(std::move(window));
    }
    windows[found->second].ms += ms;
  }
  std::stable_sort(windows.begin(), windows.end(),
                   [](const WindowToLabel& a, const WindowToLabel& b) {
                     if (a.ms != b.ms) return a.ms > b.ms;
                     if (a.app != b.app) return a.app < b.app;
                     return a.title < b.title;
                   });
  return windows;
}

std::string labelsTemplate(const std::vector<WindowToLabel>& windows,
                           const CommitmentRange& commitment) {
  std::ostringstream out;
  out << "# antidriftd label: " << windows.size() << " windows to label for the commitment\n"
      << "#   next action: " << jsonString(commitment.nextAction) << "\n"
      << "#   success condition: " << jsonString(commitment.successCondition) << "\n"
      << "#   allowed apps: ";
  for (std::size_t i = 0; i < commitment.allowedApps.size(); ++i) {
    out << (i ? ", " : "") << jsonString(commitment.allowedApps[i]);
  }
  out << (commitment.allowedApps.empty() ? "none\n" : "\n")
      << "# Fill every \"label\" with \"on\" (serves the next action now), \"off\" (does not:\n"
      << "# entertainment, errands, other work, even in an allowed app) or \"neutral\" (cannot be\n"
      << "# judged or does not count). See the README, \"How good is AntiDrift on my day?\".\n";
  for (const WindowToLabel& window : windows) {
    out << "{\"app\": " << jsonString(window.app) << ", \"title\": " << jsonString(window.title)
        << ", \"label\": \"" << (window.prefilled ? toString(*window.prefilled) : "")
        << "\", \"seconds\": " << (window.ms + 500) / 1000;
    if (!window.why.empty()) out << ", \"why\": " << jsonString(window.why);
    out << "}\n";
  }
  return out.str();
}

}  // namespace antidrift::replay
