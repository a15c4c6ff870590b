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

}  // namespace

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
         (answer.empty() ? std::string("met: not answered") : "met: " + singleLine(answer)) + "  " +
         stringField(summary, "next_action");
}

std::string historyNoteLine(const Object& summary) {
  const std::string note = stringField(summary, "note");
  return note.empty() ? std::string() : "    note: " + singleLine(note);
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
