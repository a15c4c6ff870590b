/// @file backend_abi.h
/// The Backend ABI's declarations without Poco (docs/DESIGN.md §8): the ABI
/// version, `BackendError`, `Request`, `Usage`, `Completion` and the
/// `Backend` class. Core's AI roles (`ai/*.h`) include this one, so the State
/// (`session/state.h`) reaches no Poco header (issue 15 item 5; checked by
/// rule 7 of tests/layers/check_layers.sh).
///
/// A plugin does not include it directly: `antidrift/backend.h` includes it and
/// adds `ANTIDRIFT_DECLARE_BACKEND` (Poco's manifest), so a plugin still needs
/// that one header alone (docs/PLUGINS.md). What crosses the boundary is
/// declared here and only here; the bump rule below covers both headers.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

/// The ABI version these declarations describe.
///
/// Bump rule: increment on ANY change that alters what crosses the boundary —
/// adding, removing or reordering a virtual method of `Backend`, changing a
/// parameter or return type, changing `BackendError`, or changing the entry
/// points emitted by `ANTIDRIFT_DECLARE_BACKEND`. When you bump it, rename the
/// inline namespace below to `abi_v<N>` too, so a stale plugin also fails
/// Poco's manifest check ("Manifest class mismatch").
#define ANTIDRIFT_BACKEND_ABI_VERSION 2

/// Marks a type that crosses the plugin boundary so it has one canonical
/// typeinfo even when the rest of a plugin is built with hidden visibility.
#define ANTIDRIFT_ABI_EXPORT __attribute__((visibility("default")))

namespace antidrift {
inline namespace abi_v2 {

/// The one error a backend may let out of `complete()`. Its `what()` is a short
/// human sentence safe to show in the browser (e.g. "claude not found",
/// "codex exited with code 1: not logged in", "timed out after 30 s"); raw CLI
/// output belongs in the plugin's log, never in this message.
class ANTIDRIFT_ABI_EXPORT BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One call of a role to the model (ABI 2; issue 18 item 4). Plain data.
struct ANTIDRIFT_ABI_EXPORT Request {
  std::string prompt;          ///< UTF-8; starts with the role's "ROLE: <role>" line
  std::int64_t timeoutMs = 0;  ///< return or throw within about this many milliseconds
  std::string role;            ///< "coach", "judge", "nudge" or "reviewer"
  /// A JSON Schema (a JSON object as text) of the one JSON object the role
  /// expects as its answer, for backends that can constrain their output
  /// (an OpenAI-compatible server's `response_format`); "" when the role has
  /// none. A backend that cannot use it ignores it: the roles still extract
  /// and validate the JSON from whatever text comes back.
  std::string answerSchema;
};

/// What one call used (issue 18 item 4). Token counts are -1 when unknown.
struct ANTIDRIFT_ABI_EXPORT Usage {
  std::int64_t inputTokens = -1;   ///< prompt tokens
  std::int64_t outputTokens = -1;  ///< answer tokens (thinking included when the server counts it)
  /// True when the counts are an estimate (characters / 4, the documented
  /// rule for the CLIs, which do not report usage), false when the model's
  /// server reported them.
  bool estimated = false;
};

/// A model's answer to one Request: the raw text and what it used.
struct ANTIDRIFT_ABI_EXPORT Completion {
  std::string text;  ///< UTF-8, as `complete()` returns it
  Usage usage;
};

/// The documented estimate for a backend that reports no usage: one token per
/// four bytes of prompt and of answer, rounded up (docs/PLUGINS.md "What a
/// call costs"). Pure.
inline Usage estimateUsage(const std::string& prompt, const std::string& answer) {
  Usage usage;
  usage.inputTokens = static_cast<std::int64_t>((prompt.size() + 3) / 4);
  usage.outputTokens = static_cast<std::int64_t>((answer.size() + 3) / 4);
  usage.estimated = true;
  return usage;
}

/// One way to reach a language model (a CLI, an API, canned answers).
///
/// Instances are created by the daemon's loader, configured once, then used
/// from the daemon's executor threads. The daemon never calls `complete()` on
/// one instance from two threads at once unless the plugin documents that it is
/// safe; plugins shipped here are safe for concurrent calls.
///
/// Nothing but `BackendError` may escape a method: a plugin catches everything
/// else inside and converts it.
class ANTIDRIFT_ABI_EXPORT Backend {
 public:
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  virtual ~Backend() = default;

  /// The backend's short name, equal to the `<name>` in `antidrift-<name>.so`
  /// and in the config key `ai.backend` (e.g. "claude", "codex", "fake").
  virtual std::string name() const = 0;

  /// Receives the config section `ai.<name>.*` with the prefix stripped
  /// (`ai.fake.responses=/x.json` arrives as {"responses": "/x.json"}), plus
  /// the daemon-wide key "timeout_s". Called once, before any `complete()`.
  /// Throws BackendError when a setting is unusable (the daemon then runs
  /// with AI off and logs the message).
  virtual void configure(const std::map<std::string, std::string>& settings) = 0;

  /// Sends `prompt` (UTF-8) to the model and returns its raw answer text
  /// (UTF-8; prose and code fences around JSON are fine, the roles extract it).
  /// Must return or throw within about `timeoutMs` milliseconds.
  /// Throws BackendError on any failure: missing CLI, non-zero exit, timeout,
  /// an error envelope, empty output.
  virtual std::string complete(const std::string& prompt, std::int64_t timeoutMs) = 0;

  /// What the daemon's roles call (ABI 2): answers `request` and reports what
  /// the call used. The default forwards to `complete(request.prompt,
  /// request.timeoutMs)` and estimates the usage (estimateUsage); a backend
  /// that knows its usage or can use `request.answerSchema` overrides it.
  /// Same errors and thread-safety as `complete()`.
  virtual Completion answer(const Request& request) {
    Completion completion;
    completion.text = complete(request.prompt, request.timeoutMs);
    completion.usage = estimateUsage(request.prompt, completion.text);
    return completion;
  }

  /// Where this backend sends prompts, valid after `configure()`: "local"
  /// (they never leave the machine) or "remote" (a CLI or server elsewhere),
  /// optionally followed by a space and what a person would recognise
  /// ("local 127.0.0.1:11434", "remote api.openai.com"). The default, "",
  /// means what the plugin's `plugin.json` declares in `"prompts"`
  /// (issue 18 item 3). Thread-safe; never throws.
  virtual std::string destination() const { return {}; }
};

}  // namespace abi_v2
}  // namespace antidrift
