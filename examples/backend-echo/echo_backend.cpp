/// @file echo_backend.cpp
/// The echo backend: an example AntiDrift AI plugin built outside the tree
/// against the installed SDK (docs/PLUGINS.md). It calls no model: the coach
/// gets the person's own intent back as the next action, every other role a
/// neutral answer. One class, one `ANTIDRIFT_DECLARE_BACKEND`.
#include <cstdint>
#include <map>
#include <string>

#include "antidrift/backend.h"

namespace {

/// The text between "<<<BEGIN <label>>>>" and "<<<END <label>>>>" in a prompt:
/// how the daemon fences what a person typed (docs/PLUGINS.md "Prompts").
std::string fenced(const std::string& prompt, const std::string& label) {
  const std::string begin = "<<<BEGIN " + label + ">>>\n";
  const std::string end = "\n<<<END " + label + ">>>";
  const auto from = prompt.find(begin);
  if (from == std::string::npos) return "";
  const auto start = from + begin.size();
  const auto to = prompt.find(end, start);
  return to == std::string::npos ? "" : prompt.substr(start, to - start);
}

/// The text as a JSON string literal: quotes, backslashes and control
/// characters escaped.
std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

class EchoBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "echo"; }

  /// Settings come from ai.echo.<key> in the daemon's configuration;
  /// ai.echo.minutes sets the coach's timebox. A bad value is a BackendError:
  /// the daemon logs the sentence and runs without AI.
  void configure(const std::map<std::string, std::string>& settings) override {
    const auto minutes = settings.find("minutes");
    if (minutes == settings.end()) return;
    try {
      minutes_ = std::stoi(minutes->second);
    } catch (const std::exception&) {
      minutes_ = 0;
    }
    if (minutes_ < 1 || minutes_ > 600) {
      throw antidrift::BackendError("ai.echo.minutes must be a whole number from 1 to 600, not \"" +
                                    minutes->second + "\"");
    }
  }

  /// Answers by role (the prompt's first line "ROLE: <role>"); never blocks.
  std::string complete(const std::string& prompt, std::int64_t /*timeoutMs*/) override {
    if (prompt.rfind("ROLE: coach", 0) == 0) {
      const std::string intent = fenced(prompt, "intent");
      if (intent.empty()) throw antidrift::BackendError("echo: the coach prompt has no intent");
      return "{\"next_action\": " + jsonString("Echo: " + intent) +
             ", \"success_condition\": " + jsonString("\"" + intent + "\" is done") +
             ", \"timebox_minutes\": " + std::to_string(minutes_) + "}";
    }
    if (prompt.rfind("ROLE: judge", 0) == 0) {
      return R"({"on_task": true, "reason": "echo judges every window on task"})";
    }
    if (prompt.rfind("ROLE: nudge", 0) == 0) return R"({"on_track": true, "message": ""})";
    if (prompt.rfind("ROLE: reviewer", 0) == 0) {
      return R"({"recap": "echo: no recap", "carry_forward": "echo: nothing to carry forward"})";
    }
    throw antidrift::BackendError("echo: no answer for this prompt");
  }

  /// Prompts never leave this process.
  std::string destination() const override { return "local (echo, in-process)"; }

 private:
  int minutes_ = 25;
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(EchoBackend)
