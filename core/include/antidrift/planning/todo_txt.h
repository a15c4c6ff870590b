/// @file todo_txt.h
/// Open tasks from a todo.txt file (docs/DESIGN.md §6 "Tasks", seed 003 grounding;
/// format: https://github.com/todotxt/todo.txt).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "antidrift/planning/load_status.h"

namespace antidrift::planning {

/// At most this many tasks are returned (the highest ranked).
inline constexpr std::size_t kMaxTasks = 50;
/// At most this many bytes of a todo.txt file are read.
inline constexpr std::size_t kMaxTodoTxtBytes = 1 << 20;

/// One open task.
struct Task {
  /// The readable description: the "(A) " priority, the creation date and a
  /// "due:YYYY-MM-DD" tag are removed; +project, @context and other words are
  /// kept as written. Valid UTF-8, no control characters, words separated by
  /// one space, ≤ kMaxFieldChars characters.
  std::string text;
  std::optional<char> priority;       ///< 'A'..'Z' from a leading "(A) "; none otherwise
  std::vector<std::string> projects;  ///< "+Report" → "Report", in order, no duplicates
  std::vector<std::string> contexts;  ///< "@desk" → "desk", in order, no duplicates
  std::string due;                    ///< "YYYY-MM-DD" from a valid due: tag, "" if none
};

/// Parses todo.txt text (docs/DESIGN.md §6): one task per line; "\n" or "\r\n" line
/// ends; blank lines, completed tasks (a line starting "x ") and lines with
/// no description left are skipped; invalid UTF-8 becomes U+FFFD. Sorted by
/// priority (A first, no priority last), then due date (earliest first, none
/// last), then file order; at most kMaxTasks. Pure; thread-safe; never throws.
std::vector<Task> parseTodoTxt(std::string_view text);

/// The result of loading a todo.txt file.
struct TaskList {
  LoadStatus status = LoadStatus::None;  ///< None: no path, missing or unreadable
  std::vector<Task> tasks;               ///< parseTodoTxt of the file; may be empty when Ready
};

/// Reads the regular file at `path` (at most kMaxTodoTxtBytes; a line cut by
/// that limit is dropped) and parses it. An empty path, a missing file, a
/// directory or a read error → status None and no tasks. Blocking file I/O:
/// call it off the controller's lock. Thread-safe; never throws.
TaskList loadTodoTxt(const std::string& path);

}  // namespace antidrift::planning
