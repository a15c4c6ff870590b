#include "cli/state_text.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "antidrift/text/utf8.h"

namespace antidrift::cli {
namespace {

using nlohmann::json;

/// Characters of bar text kept of the next action.
constexpr std::size_t kBarTextCharacters = 32;

/// The member `key` of `object`, or null (also when `object` is no object).
const json* member(const json& object, const char* key) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::string stringField(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_string() ? value->get_ref<const std::string&>() : std::string();
}

long long integerField(const json& object, const char* key) {
  const json* value = member(object, key);
  if (!value) {
    return 0;
  }
  if (value->is_number_integer()) {
    return value->get<long long>();
  }
  if (value->is_number_float()) {
    const double number = value->get<double>();
    return std::isfinite(number) && std::fabs(number) < 9.0e18 ? static_cast<long long>(number) : 0;
  }
  return 0;
}

bool booleanField(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_boolean() && value->get<bool>();
}

/// The sub-object `key`, or null.
const json* objectField(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_object() ? value : nullptr;
}

/// The daemon's drift reason while AntiDrift's own page is in front
/// (docs/API.md §5 `drift.status`; core/src/drift/engine.cpp kOwnPage).
constexpr const char* kOwnPageReason = "this is AntiDrift";

/// True while the State is active with AntiDrift's own page in front: status
/// `unknown`, reason kOwnPageReason — neutral time (issue 17 item 4).
bool ownPageInFront(const json& state) {
  if (stringField(state, "runtime") != "active") return false;
  const json* drift = objectField(state, "drift");
  return drift && stringField(*drift, "status") == "unknown" &&
         stringField(*drift, "reason") == kOwnPageReason;
}

/// The planned length of a commitment in seconds: the timebox and every
/// extension (`POST /extend`; issue 17 item 4).
long long plannedSeconds(const json& commitment) {
  return integerField(commitment, "timebox_secs") + integerField(commitment, "extended_secs");
}

/// "12:34 left" part of an active State, "" otherwise.
std::string remainingText(const json& state) {
  const json* commitment = objectField(state, "commitment");
  if (stringField(state, "runtime") != "active" || !commitment) {
    return "";
  }
  return formatDuration(integerField(*commitment, "remaining_secs"));
}

int elapsedPercent(const json& state) {
  const std::string runtime = stringField(state, "runtime");
  if (runtime == "review") {
    return 100;
  }
  const json* commitment = objectField(state, "commitment");
  if (runtime != "active" || !commitment) {
    return 0;
  }
  const long long total = plannedSeconds(*commitment);
  const long long remaining = integerField(*commitment, "remaining_secs");
  if (total <= 0) {
    return 0;
  }
  const long long percent = (total - std::clamp(remaining, 0LL, total)) * 100 / total;
  return static_cast<int>(percent);
}

/// Bar text: "12:34 Write the intro" while active, else a word or two.
std::string barText(const json& state) {
  const std::string runtime = stringField(state, "runtime");
  const json* commitment = objectField(state, "commitment");
  if (runtime == "active" && commitment) {
    return remainingText(state) + " " +
           singleLine(antidrift::text::cutCodePoints(stringField(*commitment, "next_action"),
                                                     kBarTextCharacters, "…"));
  }
  if (runtime == "review") {
    const std::string outcome = stringField(state, "outcome");
    return outcome.empty() ? "review" : "review: " + singleLine(outcome);
  }
  if (runtime == "planning") {
    return "planning";
  }
  return "no focus session";
}

/// The colour of a class for i3blocks and polybar.
std::string classColor(const std::string& barClassName) {
  if (barClassName == "ontask") return "#50fa7b";
  if (barClassName == "drifting") return "#ff5555";
  if (barClassName == "judging") return "#f1fa8c";
  if (barClassName == "planning") return "#8be9fd";
  if (barClassName == "review") return "#bd93f9";
  return "#aaaaaa";  // neutral, unknown, locked, offline
}

std::string formatBar(const std::string& text, const std::string& tooltip,
                      const std::string& className, int percent, BarFormat format, bool stream) {
  switch (format) {
    case BarFormat::Waybar: {
      // waybar reads text and tooltip as Pango markup (issue 19 item 7).
      const json bar = {{"text", pangoEscape(text)},
                        {"alt", className},
                        {"tooltip", pangoEscape(tooltip)},
                        {"class", className},
                        {"percentage", percent}};
      return bar.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
    case BarFormat::I3blocks:
      if (stream) {
        // interval=persist: every line is a new full_text; markup=pango
        // carries the colour in the same line.
        return "<span foreground=\"" + classColor(className) + "\">" + pangoEscape(text) +
               "</span>\n";
      }
      return text + "\n" + className + "\n" + classColor(className) + "\n";
    case BarFormat::Polybar:
      return "%{F" + classColor(className) + "}" + polybarEscape(text) + "%{F-}\n";
  }
  return text + "\n";
}

/// The bar's parts of `state`, formatted for `format`.
std::string stateBar(const json& state, BarFormat format, bool stream) {
  std::string tooltip = describeState(state);
  if (!tooltip.empty() && tooltip.back() == '\n') {
    tooltip.pop_back();
  }
  return formatBar(barText(state), tooltip, barClass(state), elapsedPercent(state), format, stream);
}

}  // namespace

std::string pangoEscape(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&apos;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string polybarEscape(const std::string& text) {
  // A zero-width space after every '%': no "%{" tag and no "%%" remain, and
  // a '%' at the end cannot join the closing %{F-}. Doubling '%' is not
  // enough: polybar before 3.7 prints "%%" as it is, and its "%%{" then
  // opens a tag.
  static const std::string kZeroWidthSpace = "\xe2\x80\x8b";  // U+200B
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    escaped += c;
    if (c == '%') {
      escaped += kZeroWidthSpace;
    }
  }
  return escaped;
}

std::optional<BarFormat> parseBarFormat(const std::string& name) {
  if (name == "waybar") return BarFormat::Waybar;
  if (name == "i3blocks") return BarFormat::I3blocks;
  if (name == "polybar") return BarFormat::Polybar;
  return std::nullopt;
}

std::string singleLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = ' ';
    }
  }
  return text;
}

std::string formatDuration(long long seconds) {
  seconds = std::max(seconds, 0LL);
  const long long hours = seconds / 3600;
  const long long minutes = seconds % 3600 / 60;
  const long long rest = seconds % 60;
  auto twoDigits = [](long long value) { return (value < 10 ? "0" : "") + std::to_string(value); };
  if (hours > 0) {
    return std::to_string(hours) + ":" + twoDigits(minutes) + ":" + twoDigits(rest);
  }
  return twoDigits(minutes) + ":" + twoDigits(rest);
}

std::string barClass(const json& state) {
  const std::string runtime = stringField(state, "runtime");
  if (runtime == "active") {
    if (ownPageInFront(state)) return "neutral";  // issue 17 item 4, as the page says
    const json* drift = objectField(state, "drift");
    const std::string status = drift ? stringField(*drift, "status") : "";
    return status.empty() ? "unknown" : status;
  }
  return runtime.empty() ? "unknown" : runtime;
}

std::string describeAi(const json& state) {
  const json* ai = objectField(state, "ai");
  if (!ai) return "";
  std::ostringstream out;
  const bool automatic = booleanField(*ai, "auto");
  const bool available = booleanField(*ai, "available");
  const std::string found = stringField(*ai, "found");
  if (available) {
    out << "AI: " << stringField(*ai, "backend") << (found.empty() ? "" : " (" + found + ")")
        << (automatic ? " — auto" : "") << "\n";
    const std::string destination = stringField(*ai, "destination");
    const std::string prompts = stringField(*ai, "prompts");
    out << "window titles: "
        << (prompts == "local"    ? "stay on this machine"
            : prompts == "remote" ? "leave this machine"
                                  : "go where the plugin sends them")
        << (destination.empty() || destination == prompts ? "" : " (" + destination + ")") << "\n";
  } else {
    out << "AI: off — " << stringField(*ai, "detail") << "\n";
    out << "window titles: go nowhere (AI off)\n";
  }
  const json* cost = objectField(*ai, "cost");
  if (cost && integerField(*cost, "calls") > 0) {
    const bool estimated = booleanField(*cost, "estimated");
    const long long calls = integerField(*cost, "calls");
    out << "AI cost: " << calls << (calls == 1 ? " call, " : " calls, ")
        << integerField(*cost, "input_tokens") << " tokens in, "
        << integerField(*cost, "output_tokens") << " out" << (estimated ? " (estimated)" : "")
        << ", " << formatDuration(integerField(*cost, "wall_ms") / 1000) << " waiting\n";
  }
  return out.str();
}

std::string describeState(const json& state) {
  std::ostringstream out;
  const std::string runtime = stringField(state, "runtime");
  out << "runtime: " << (runtime.empty() ? "unknown" : runtime) << "\n";
  const json* commitment = objectField(state, "commitment");
  if (commitment) {
    out << "next action: " << stringField(*commitment, "next_action") << "\n";
    out << "done when: " << stringField(*commitment, "success_condition") << "\n";
    if (runtime == "active") {
      out << "remaining: " << remainingText(state) << " of "
          << formatDuration(plannedSeconds(*commitment)) << "\n";
    }
  }
  if (runtime == "active") {
    const json* drift = objectField(state, "drift");
    if (drift) {
      // The page's words for AntiDrift's own page (www/js/active.js: "Neutral
      // · this is AntiDrift, not counted either way"; issue 17 item 4).
      const std::string reason = ownPageInFront(state)
                                     ? std::string(kOwnPageReason) + ", not counted either way"
                                     : stringField(*drift, "reason");
      out << "drift: " << barClass(state) << (reason.empty() ? "" : " (" + reason + ")") << "\n";
      const std::string nudge = stringField(*drift, "nudge");
      if (!nudge.empty()) {
        out << "heads up: " << nudge << "\n";
      }
    }
  }
  const json* evidence = objectField(state, "evidence");
  if (evidence && (runtime == "active" || runtime == "planning")) {
    const json* current = objectField(*evidence, "current");
    const std::string health = stringField(*evidence, "health");
    if (current) {
      out << "window: " << stringField(*current, "app") << " — " << stringField(*current, "title")
          << " (evidence " << health << ")\n";
    } else {
      out << "window: none seen (evidence " << health << ")\n";
    }
  }
  if (runtime == "review") {
    out << "outcome: " << stringField(state, "outcome") << "\n";
  }
  const std::string lesson = stringField(state, "last_carry_forward");
  if (!lesson.empty() && (runtime == "locked" || runtime == "planning")) {
    out << "last lesson: " << lesson << "\n";
  }
  out << describeAi(state);  // issue 18 items 2–4
  return out.str();
}

std::string summaryKey(const json& state) {
  const std::string runtime = stringField(state, "runtime");
  const json* commitment = objectField(state, "commitment");
  if (runtime == "active" && commitment) {
    std::string line = "active " + barClass(state) + ": " + stringField(*commitment, "next_action");
    const json* drift = objectField(state, "drift");
    if (barClass(state) == "drifting" && drift) {
      line += " — " + stringField(*drift, "reason");
    }
    return line;
  }
  if (runtime == "review") {
    return "review " + stringField(state, "outcome") +
           (commitment ? ": " + stringField(*commitment, "next_action") : "");
  }
  return runtime.empty() ? "unknown" : runtime;
}

std::string summaryLine(const json& state) {
  const std::string key = summaryKey(state);
  const std::string remaining = remainingText(state);
  return remaining.empty() ? key : key + " (" + remaining + " left)";
}

std::string barOutput(const json& state, BarFormat format) {
  return stateBar(state, format, false);
}

std::string offlineBarOutput(BarFormat format) {
  return formatBar("AntiDrift off", "antidriftd is not running", "offline", 0, format, false);
}

std::string barLine(const json& state, BarFormat format) {
  return stateBar(state, format, true);
}

std::string offlineBarLine(BarFormat format) {
  return formatBar("AntiDrift off", "antidriftd is not running", "offline", 0, format, true);
}

}  // namespace antidrift::cli
