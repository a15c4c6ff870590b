/// @file cli_settings.h
/// The settings every CLI backend plugin understands (DESIGN §8, §12):
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

/// The warning a CLI backend logs once at configure() when `settings.command`
/// cannot be run (resolveExecutable finds nothing), e.g. "claude not found on
/// PATH; the coach will report it when asked (install the CLI or set
/// ai.claude.command)"; "" when the command is found. `backendName` is the
/// plugin's name ("claude", "codex"). Configure still succeeds: each
/// complete() then fails with "<command> not found", which the coach line
/// shows. Thread-safe; throws only std::bad_alloc.
std::string missingCommandWarning(const CliSettings& settings, const std::string& backendName);

}  // namespace antidrift::runner
