/// @file process_runner.h
/// Runs one CLI child process for an AI backend plugin: prompt on stdin,
/// stdout and stderr drained concurrently, a hard deadline that kills the
/// whole process tree (docs/DESIGN.md §8, docs/TECH-NOTES.md §3).
///
/// Part of the static library `antidrift_runner` (PIC, hidden visibility) that
/// plugins link PRIVATE; it depends on Poco::Foundation only, never on the core.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace antidrift::runner {

/// Where scratch directories may go, best first (issue 17 item 1): `$TMPDIR`,
/// then systemd's runtime directory of the service (`$RUNTIME_DIRECTORY`, the
/// first of its colon-separated list; `RuntimeDirectory=` in the unit), then
/// the session's runtime directory `$XDG_RUNTIME_DIR` (`%t`), and only last
/// the C library's `P_tmpdir` (/tmp) for a process that has none of these.
/// Under the unit's `ProtectSystem=strict`, /tmp is read-only and only the
/// runtime directories are writable. Empty and relative values are skipped,
/// duplicates dropped. `environment` reads one variable ("" when unset).
/// Pure; thread-safe.
std::vector<std::string> scratchParents(
    const std::function<std::string(const std::string&)>& environment);

/// A fresh, empty directory `antidrift-XXXXXX` (random, mode 0700, made by
/// mkdtemp) in the first of `scratchParents()` where one can be made,
/// created by this object (never an existing one taken over) and removed
/// with its content when the object is destroyed.
///
/// Throws Poco::CreateFileException when no directory can be made in any of
/// them; its message names every place tried and why each failed.
class ScratchDirectory {
 public:
  /// Creates the directory (mode 0700) under the first usable place of
  /// `scratchParents()` read from this process's environment.
  ScratchDirectory();
  /// Creates the directory (mode 0700) under the first of `parents` where
  /// mkdtemp succeeds. Throws Poco::CreateFileException.
  explicit ScratchDirectory(const std::vector<std::string>& parents);
  /// Removes the directory and everything in it; errors are ignored.
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  /// The directory's absolute path, without a trailing '/'.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// What to run. Plain values; copy freely.
struct RunRequest {
  /// The program: a bare name looked up on $PATH before launch (Poco::Path::find),
  /// or a path containing '/'.
  std::string executable;
  /// Arguments after the program name, passed verbatim (empty strings too).
  std::vector<std::string> arguments;
  /// Bytes written to the child's stdin, which is then closed (EOF).
  std::string input;
  /// Hard limit for the whole run, milliseconds. At the deadline the child's
  /// process group gets SIGTERM, then SIGKILL after `kTerminateGraceMs`.
  std::int64_t timeoutMs = 30000;
  /// Variables added to (or overriding) the inherited environment.
  std::map<std::string, std::string> extraEnvironment;
  /// Name used in error sentences; empty = the executable's file name.
  std::string displayName;
  /// Each of stdout and stderr keeps at most this many bytes; the rest is
  /// still drained (so the child never blocks) but dropped.
  std::size_t maxOutputBytes = 16 * 1024 * 1024;
};

/// How a run ended.
enum class RunStatus {
  Exited,         ///< the child exited (any code) or died of a signal
  NotFound,       ///< the executable (or `setsid`) is not on $PATH
  TimedOut,       ///< the deadline passed; the process group was killed
  FailedToStart,  ///< the launch itself failed (e.g. out of file descriptors)
};

/// The outcome of `run`. `error` is empty exactly when the child exited with
/// code 0; otherwise it is a short sentence for the UI (see `run`).
struct RunResult {
  RunStatus status = RunStatus::FailedToStart;
  /// The child's exit code when it exited normally; -1 otherwise.
  int exitCode = -1;
  /// The signal that ended the child (e.g. 9 after a timeout); 0 if none.
  int signal = 0;
  /// Everything the child wrote to stdout, made valid UTF-8 (invalid
  /// sequences become U+FFFD).
  std::string standardOutput;
  /// Everything the child wrote to stderr, made valid UTF-8.
  std::string standardError;
  /// Empty on exit code 0; else "<name> not found", "<name> timed out after N s",
  /// "<name> exited with code N: <last stderr line>", "<name> was killed by
  /// signal N", or "<name> could not start: <reason>".
  std::string error;
  /// The child's pid, which is also its process-group id (it runs under
  /// `setsid`); 0 if it never started. Every process of that group is dead
  /// (or a zombie awaiting its new parent) when `run` returns.
  int processGroupId = 0;

  /// True when the child exited with code 0.
  bool succeeded() const { return status == RunStatus::Exited && exitCode == 0; }
};

/// Grace period between SIGTERM and SIGKILL at the deadline, milliseconds.
constexpr std::int64_t kTerminateGraceMs = 500;

/// After the child exits, how long its stdout/stderr may stay open (held by
/// a process that left its group) before the runner stops reading, ms.
constexpr std::int64_t kDrainAfterExitMs = 500;

/// The absolute path of `executable` when it names an executable file: a bare
/// name is looked up on $PATH (Poco::Path::find), a name containing '/' is
/// taken as a path (relative to the working directory). "" when it is empty,
/// not found, or not an executable file. This is the lookup `run` does before
/// launching. Thread-safe; throws only std::bad_alloc.
std::string resolveExecutable(const std::string& executable);

/// Runs `request` to completion and returns what happened; never throws for
/// anything the child does.
///
/// The child runs through `setsid`, so it leads its own process group, in a
/// fresh empty `ScratchDirectory` removed afterwards, with the inherited
/// environment plus `extraEnvironment`. One poll loop on the calling thread
/// writes stdin and reads stdout and stderr (non-blocking pipes), so a child
/// that fills one pipe before reading the other never deadlocks. When the
/// child exits, the rest of its process group is SIGKILLed and it is reaped;
/// at the deadline the group gets SIGTERM, then SIGKILL, and `run` returns
/// within about `timeoutMs + kTerminateGraceMs` even if a grandchild holds the
/// pipes. No zombie and no file descriptor outlives the call. SIGPIPE is
/// blocked on the calling thread while it writes stdin.
///
/// Thread-safe: concurrent calls from different threads are independent.
/// Throws only std::bad_alloc.
RunResult run(const RunRequest& request);

/// Returns `text` with every invalid UTF-8 sequence replaced by U+FFFD.
///
/// This and lastLine/shorten below are the plugins' own copy of the UTF-8
/// helpers: the rest of AntiDrift uses the one text module
/// core/include/antidrift/text/utf8.h (issue 15 item 4), but a plugin must not
/// link the core, only include the Backend ABI header (docs/ARCHITECTURE.md
/// "The arrows", rule 5), so plugins/common keeps this small copy.
std::string sanitizeUtf8(const std::string& text);

/// The last non-empty line of `text`, trimmed, cut to at most `maxBytes`
/// bytes on a UTF-8 boundary (with "…" appended when cut); "" if none.
std::string lastLine(const std::string& text, std::size_t maxBytes = 200);

/// `text` trimmed and cut to at most `maxBytes` bytes on a UTF-8 boundary,
/// with "…" appended when cut. For short error messages shown in the UI.
std::string shorten(const std::string& text, std::size_t maxBytes = 200);

/// Formats a duration in milliseconds as seconds for messages: "30 s", "1.5 s".
std::string formatSeconds(std::int64_t milliseconds);

}  // namespace antidrift::runner
