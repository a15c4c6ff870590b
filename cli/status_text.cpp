#include "cli/status_text.h"

#include <algorithm>
#include <sstream>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/JSON/Array.h>
#include <Poco/LocalDateTime.h>
#include <Poco/Timestamp.h>

#include "antidrift/text/duration.h"
#include "antidrift/text/utf8.h"

namespace antidrift::cli {
namespace {

using Poco::JSON::Object;

/// Characters of bar text kept of the next action.
constexpr std::size_t kBarTextCharacters = 32;

std::string stringField(const Object& object, const std::string& key) {
  return object.has(key) && object.get(key).isString() ? object.getValue<std::string>(key)
                                                       : std::string();
}

long long integerField(const Object& object, const std::string& key) {
  if (!object.has(key)) {
    return 0;
  }
  try {
    return object.getValue<Poco::Int64>(key);
  } catch (const Poco::Exception&) {
    return 0;
  }
}

/// The sub-object `key`, or null.
Object::Ptr objectField(const Object& object, const std::string& key) {
  return object.has(key) ? object.getObject(key) : nullptr;
}

/// The daemon's drift reason while AntiDrift's own page is in front
/// (docs/API.md §5 `drift.status`; core/src/drift/engine.cpp kOwnPage).
constexpr const char* kOwnPageReason = "this is AntiDrift";

/// True while the State is active with AntiDrift's own page in front: status
/// `unknown`, reason kOwnPageReason — neutral time (issue 17 item 4).
bool ownPageInFront(const Object& state) {
  if (stringField(state, "runtime") != "active") return false;
  const Object::Ptr drift = objectField(state, "drift");
  return drift && stringField(*drift, "status") == "unknown" &&
         stringField(*drift, "reason") == kOwnPageReason;
}

/// The planned length of a commitment in seconds: the timebox and every
/// extension (`POST /extend`; issue 17 item 4).
long long plannedSeconds(const Object& commitment) {
  return integerField(commitment, "timebox_secs") + integerField(commitment, "extended_secs");
}

/// "12:34 left" part of an active State, "" otherwise.
std::string remainingText(const Object& state) {
  const Object::Ptr commitment = objectField(state, "commitment");
  if (stringField(state, "runtime") != "active" || !commitment) {
    return "";
  }
  return formatDuration(integerField(*commitment, "remaining_secs"));
}

int elapsedPercent(const Object& state) {
  const std::string runtime = stringField(state, "runtime");
  if (runtime == "review") {
    return 100;
  }
  const Object::Ptr commitment = objectField(state, "commitment");
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

/// `text` on one line: each control character (a newline, a tab) becomes a
/// space, so a line-based bar protocol cannot be split by the text.
std::string oneLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = ' ';
    }
  }
  return text;
}

/// Bar text: "12:34 Write the intro" while active, else a word or two.
std::string barText(const Object& state) {
  const std::string runtime = stringField(state, "runtime");
  const Object::Ptr commitment = objectField(state, "commitment");
  if (runtime == "active" && commitment) {
    return remainingText(state) + " " +
           oneLine(antidrift::text::cutCodePoints(stringField(*commitment, "next_action"),
                                                  kBarTextCharacters, "…"));
  }
  if (runtime == "review") {
    const std::string outcome = stringField(state, "outcome");
    return outcome.empty() ? "review" : "review: " + oneLine(outcome);
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
      Object bar;
      bar.set("text", pangoEscape(text));
      bar.set("alt", className);
      bar.set("tooltip", pangoEscape(tooltip));
      bar.set("class", className);
      bar.set("percentage", percent);
      std::ostringstream out;
      bar.stringify(out);
      return out.str() + "\n";
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

std::string barClass(const Object& state) {
  const std::string runtime = stringField(state, "runtime");
  if (runtime == "active") {
    if (ownPageInFront(state)) return "neutral";  // issue 17 item 4, as the page says
    const Object::Ptr drift = objectField(state, "drift");
    const std::string status = drift ? stringField(*drift, "status") : "";
    return status.empty() ? "unknown" : status;
  }
  return runtime.empty() ? "unknown" : runtime;
}

std::string describeAi(const Object& state) {
  const Object::Ptr ai = objectField(state, "ai");
  if (!ai) return "";
  std::ostringstream out;
  const bool automatic = ai->has("auto") && ai->getValue<bool>("auto");
  const bool available = ai->has("available") && ai->getValue<bool>("available");
  const std::string found = stringField(*ai, "found");
  if (available) {
    out << "AI: " << stringField(*ai, "backend") << (found.empty() ? "" : " (" + found + ")")
        << (automatic ? " — auto" : "") << "\n";
    const std::string destination = stringField(*ai, "destination");
    const std::string prompts = stringField(*ai, "prompts");
    out << "titles go: "
        << (prompts == "local"    ? "stay on this machine"
            : prompts == "remote" ? "off this machine"
                                  : "where the plugin sends them")
        << (destination.empty() || destination == prompts ? "" : " (" + destination + ")") << "\n";
  } else {
    out << "AI: off — " << stringField(*ai, "detail") << "\n";
    out << "titles go: nowhere (AI off)\n";
  }
  const Object::Ptr cost = objectField(*ai, "cost");
  if (cost && integerField(*cost, "calls") > 0) {
    const bool estimated = cost->has("estimated") && cost->getValue<bool>("estimated");
    const long long calls = integerField(*cost, "calls");
    out << "AI cost: " << calls << (calls == 1 ? " call, " : " calls, ")
        << integerField(*cost, "input_tokens") << " tokens in, "
        << integerField(*cost, "output_tokens") << " out" << (estimated ? " (estimated)" : "")
        << ", " << formatDuration(integerField(*cost, "wall_ms") / 1000) << " waiting\n";
  }
  return out.str();
}

std::string describeState(const Object& state) {
  std::ostringstream out;
  const std::string runtime = stringField(state, "runtime");
  out << "runtime: " << (runtime.empty() ? "unknown" : runtime) << "\n";
  const Object::Ptr commitment = objectField(state, "commitment");
  if (commitment) {
    out << "next action: " << stringField(*commitment, "next_action") << "\n";
    out << "done when: " << stringField(*commitment, "success_condition") << "\n";
    if (runtime == "active") {
      out << "remaining: " << remainingText(state) << " of "
          << formatDuration(plannedSeconds(*commitment)) << "\n";
    }
  }
  if (runtime == "active") {
    const Object::Ptr drift = objectField(state, "drift");
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
  const Object::Ptr evidence = objectField(state, "evidence");
  if (evidence && (runtime == "active" || runtime == "planning")) {
    const Object::Ptr current = objectField(*evidence, "current");
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

std::string summaryKey(const Object& state) {
  const std::string runtime = stringField(state, "runtime");
  const Object::Ptr commitment = objectField(state, "commitment");
  if (runtime == "active" && commitment) {
    std::string line = "active " + barClass(state) + ": " + stringField(*commitment, "next_action");
    const Object::Ptr drift = objectField(state, "drift");
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

std::string summaryLine(const Object& state) {
  const std::string key = summaryKey(state);
  const std::string remaining = remainingText(state);
  return remaining.empty() ? key : key + " (" + remaining + " left)";
}

std::string barOutput(const Object& state, BarFormat format) {
  std::string tooltip = describeState(state);
  if (!tooltip.empty() && tooltip.back() == '\n') {
    tooltip.pop_back();
  }
  return formatBar(barText(state), tooltip, barClass(state), elapsedPercent(state), format, false);
}

std::string offlineBarOutput(BarFormat format) {
  return formatBar("AntiDrift off", "antidriftd is not running", "offline", 0, format, false);
}

std::string barLine(const Object& state, BarFormat format) {
  std::string tooltip = describeState(state);
  if (!tooltip.empty() && tooltip.back() == '\n') {
    tooltip.pop_back();
  }
  return formatBar(barText(state), tooltip, barClass(state), elapsedPercent(state), format, true);
}

std::string offlineBarLine(BarFormat format) {
  return formatBar("AntiDrift off", "antidriftd is not running", "offline", 0, format, true);
}

std::string historyLine(const Object& summary) {
  const Poco::Timestamp started(
      static_cast<Poco::Timestamp::TimeVal>(integerField(summary, "started_at")) * 1000);
  const Poco::LocalDateTime local{Poco::DateTime(started)};
  const std::string answer = stringField(summary, "success");
  return Poco::DateTimeFormatter::format(local, "%Y-%m-%d %H:%M") + "  " +
         stringField(summary, "outcome") + "  " + "planned " +
         antidrift::text::minutesText(integerField(summary, "planned_secs")) + " · actual " +
         antidrift::text::minutesText(integerField(summary, "actual_secs")) + "  " +
         antidrift::text::countText(integerField(summary, "drift_episodes"), "drift") + "  " +
         (answer.empty() ? std::string("met: not answered") : "met: " + oneLine(answer)) + "  " +
         stringField(summary, "next_action");
}

std::string historyNoteLine(const Object& summary) {
  const std::string note = stringField(summary, "note");
  return note.empty() ? std::string() : "    note: " + oneLine(note);
}

std::string historyDetailLine(const Object& summary) {
  std::string where = "drift went to: unknown";
  if (summary.has("drift_by_site") && !summary.isNull("drift_by_site")) {
    const Poco::JSON::Array::Ptr sites = summary.getArray("drift_by_site");
    if (!sites || sites->size() == 0) {
      where = "no drift";
    } else {
      where = "drift went to: ";
      for (std::size_t i = 0; i < sites->size(); ++i) {
        const Poco::JSON::Object::Ptr site = sites->getObject(static_cast<unsigned>(i));
        if (!site) continue;
        const long long visits = integerField(*site, "visits");
        where += (i == 0 ? "" : ", ") + stringField(*site, "where") + " " +
                 antidrift::text::shortDurationText(integerField(*site, "drift_secs")) + " over " +
                 antidrift::text::countText(visits, "visit");
      }
    }
  }
  std::string longest = "longest on-task stretch: unknown";
  if (summary.has("longest_on_task") && !summary.isNull("longest_on_task")) {
    const Poco::JSON::Object::Ptr stretch = summary.getObject("longest_on_task");
    if (stretch)
      longest = "longest on-task stretch: " +
                antidrift::text::shortDurationText(integerField(*stretch, "secs"));
  }
  return "    " + where + " · " + longest;
}

std::string weekLine(const Object& history) {
  const Poco::JSON::Object::Ptr week = history.getObject("week");
  if (!week) return "";
  const auto part = [&](const std::string& key, const std::string& name) {
    const Poco::JSON::Object::Ptr totals = week->getObject(key);
    if (!totals) return name + ": unknown";
    std::string share = "—";
    if (totals->has("drift_share") && !totals->isNull("drift_share")) {
      share =
          std::to_string(static_cast<int>(totals->getValue<double>("drift_share") * 100 + 0.5)) +
          "%";
    }
    return name + ": " + antidrift::text::minutesText(integerField(*totals, "focused_secs")) +
           " focused, drift " + share + ", " + std::to_string(integerField(*totals, "kept")) +
           " of " + std::to_string(integerField(*totals, "sessions")) + " kept";
  };
  return part("this_week", "this week") + " · " + part("last_week", "last week");
}

std::string terminalSafe(const std::string& text) {
  std::string safe;
  safe.reserve(text.size());
  for (std::size_t index = 0; index < text.size(); ++index) {
    const unsigned char c = static_cast<unsigned char>(text[index]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) continue;
    if (c == 0xC2 && index + 1 < text.size()) {
      const unsigned char next = static_cast<unsigned char>(text[index + 1]);
      if (next >= 0x80 && next <= 0x9F) {
        ++index;  // a C1 control
        continue;
      }
    }
    safe += static_cast<char>(c);
  }
  return safe;
}

std::string escapeVerdictKey(const std::string& key) {
  std::string text;
  for (char c : key) {
    if (c == '\\') {
      text += "\\\\";
    } else if (c == '\n') {
      text += "\\n";
    } else {
      text += c;
    }
  }
  return text;
}

std::string unescapeVerdictKey(const std::string& text) {
  std::string key;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'n' || text[i + 1] == '\\')) {
      key += text[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      key += text[i];
    }
  }
  return key;
}

std::string verdictLine(const Object& verdict) {
  const std::string kind = stringField(verdict, "kind");
  const std::string app = stringField(verdict, "app");
  const std::string label = stringField(verdict, "label");
  const bool onTask = verdict.has("on_task") && verdict.get("on_task").isBoolean() &&
                      verdict.getValue<bool>("on_task");
  std::string line = std::string(onTask ? "on " : "off") + "  " + stringField(verdict, "source") +
                     "  " + kind + " " + (kind == "app" ? label : app + ": " + label);
  const std::string reason = stringField(verdict, "reason");
  if (!reason.empty()) line += " — " + reason;
  return line + "  [key " + escapeVerdictKey(stringField(verdict, "key")) + "]";
}

}  // namespace antidrift::cli
