/// @file child_processes.h
/// Prompt shutdown with child processes in flight (issue 9 item 7): the
/// daemon's direct children (the AI CLIs the plugins launch under `setsid`,
/// notify-send) are found in /proc and their process groups ended, so an AI
/// call never holds the exit for up to `ai.timeout_s` (docs/TECH-NOTES.md §3.3).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace antidrift {

/// One process as /proc/<pid>/stat describes it.
struct ProcessStat {
  pid_t pid = 0;           ///< field 1
  pid_t parentPid = 0;     ///< field 4 (ppid)
  pid_t processGroup = 0;  ///< field 5 (pgrp)
  char state = '?';        ///< field 3: R, S, D, Z (zombie), …
};

/// Parses the text of /proc/<pid>/stat ("pid (comm) state ppid pgrp …"; the
/// command name may hold spaces and parentheses, so it is skipped up to the
/// last ')'). nullopt when the text is malformed. Pure.
std::optional<ProcessStat> parseProcessStat(std::string_view text);

/// The live (not zombie) direct children of `parent`, read from
/// /proc/<pid>/stat of every process. A process that exits while the list
/// is read is left out. Thread-safe; never throws but std::bad_alloc.
std::vector<ProcessStat> listChildren(pid_t parent);

/// Sends `signal` to `child`: to its whole process group when it leads one
/// (pgrp == pid, as under `setsid`), so its helpers get it too; to the
/// child alone otherwise (never to the daemon's own group). Thread-safe.
void signalChild(const ProcessStat& child, int signal);

/// Runs `work` (the executor's shutdown, which waits for running tasks) on
/// another thread and, until it returns, ends this process's children: each
/// child seen gets SIGTERM (to its group), and SIGKILL once `grace` has
/// passed since. Children started meanwhile (a queued AI call) are ended
/// the same way. Looks every `interval`. Returns when `work` has returned;
/// rethrows what `work` threw. Call from one thread (the main thread at
/// shutdown).
void runWhileEndingChildren(const std::function<void()>& work, std::chrono::milliseconds grace,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(20));

}  // namespace antidrift
