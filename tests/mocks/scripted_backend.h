/// @file scripted_backend.h
/// A Backend for controller tests that answers by role from a script and
/// records every prompt it was sent (docs/DESIGN.md §8 "ROLE:" line).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "antidrift/backend.h"

namespace antidrift::test {

/// A backend that answers by role ("judge", "nudge", …) from a script and
/// records every prompt it was sent. Thread-safe.
class ScriptedBackend final : public Backend {
 public:
  using Answer = std::function<std::string(const std::string& prompt)>;

  std::string name() const override { return "scripted"; }
  /// What setDestination() gave ("" by default: the plugin.json's word decides).
  std::string destination() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return destination_;
  }
  /// Where this backend says its prompts go ("local 127.0.0.1:11434", "remote …").
  void setDestination(std::string destination) {
    std::lock_guard<std::mutex> lock(mutex_);
    destination_ = std::move(destination);
  }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string& prompt, std::int64_t) override {
    const std::string role = roleOf(prompt);
    Answer answer;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      prompts_[role].push_back(prompt);
      const auto it = answers_.find(role);
      if (it == answers_.end()) throw BackendError("scripted: no answer for " + role);
      answer = it->second;
    }
    return answer(prompt);
  }

  // ABI 2's answer(Request) stays the Backend's default (complete() plus the
  // estimate); the overloads below script the answers by role.
  using Backend::answer;

  void answer(const std::string& role, std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    answers_[role] = [text](const std::string&) { return text; };
  }
  void answer(const std::string& role, Answer answer) {
    std::lock_guard<std::mutex> lock(mutex_);
    answers_[role] = std::move(answer);
  }
  void fail(const std::string& role, const std::string& message) {
    answer(role, [message](const std::string&) -> std::string { throw BackendError(message); });
  }
  std::vector<std::string> prompts(const std::string& role) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = prompts_.find(role);
    return it == prompts_.end() ? std::vector<std::string>{} : it->second;
  }
  std::size_t calls(const std::string& role) const { return prompts(role).size(); }

 private:
  static std::string roleOf(const std::string& prompt) {
    const std::string prefix = "ROLE: ";
    if (prompt.compare(0, prefix.size(), prefix) != 0) return "";
    return prompt.substr(prefix.size(), prompt.find('\n') - prefix.size());
  }

  mutable std::mutex mutex_;
  std::map<std::string, Answer> answers_;
  std::map<std::string, std::vector<std::string>> prompts_;
  std::string destination_;
};

}  // namespace antidrift::test
