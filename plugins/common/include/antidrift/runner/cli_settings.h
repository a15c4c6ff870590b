/// @file cli_settings.h
/// The settings every CLI backend plugin understands (docs/DESIGN.md §8, §12):
/// `ai.<name>.command`, `ai.<name>.args`, `ai.<name>.model`, as they arrive in
/// Backend::configure with the `ai.<name>.` prefix stripped.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace antidrift::runner {

/// A CLI backend's parsed settings. Plain value.
struct CliSettings {
  /// "command": the executable, a bare name looked up on $PATH or a path.
  std::string command;
  /// "args": extra arguments, split on spaces and tabs (no quoting), appended
  /// after the backend's own flags.
  std::vector<std::string> extraArguments;
  /// "model": passed with the CLI's model flag; "" = the CLI's default.
  std::string model;
};

/// Reads "command" (default `defaultCommand` when absent or blank), "args"
/// and "model" from `settings`; other keys are ignored. Throws
/// std::invalid_argument with a short sentence when the model contains
/// whitespace or starts with '-', so it cannot smuggle in a flag.
CliSettings readCliSettings(const std::map<std::string, std::string>& settings,
                            const std::string& defaultCommand);

/// Why `settings.command` cannot be run, and what to do, as one sentence for
/// the BackendError a CLI backend throws from configure() (the daemon then
/// runs with AI off and shows it, issue 6 item 8); "" when resolveExecutable
/// finds the command. A bare name reads e.g. "claude not found on PATH:
/// install Claude Code (npm install -g @anthropic-ai/claude-code) and restart
/// AntiDrift, or set ai.claude.command / ai.backend"; a path reads
/// "<path> not found or not executable: …" with the same advice.
/// `backendName` is the plugin's name ("claude", "codex"); `installAdvice`
/// says how to install the CLI ("install Claude Code (npm install -g …)").
/// Thread-safe; throws only std::bad_alloc.
std::string missingCommandMessage(const CliSettings& settings, const std::string& backendName,
                                  const std::string& installAdvice);

}  // namespace antidrift::runner
