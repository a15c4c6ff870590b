/// @file thread_name.h
/// Names the calling OS thread, so `top -H`, `ps -L` and
/// /proc/PID/task/TID/comm say which of the daemon's threads works or wakes
/// (issue 8: idle wake-ups must be attributable). Every thread antidriftd
/// starts carries an "ad-" name; the main thread keeps the process's name.
#pragma once

#include <cstddef>
#include <string>
#include <thread>

namespace antidrift {

/// The longest name Linux keeps (TASK_COMM_LEN 16, with the terminating NUL).
inline constexpr std::size_t kMaxThreadNameBytes = 15;

/// Sets the calling thread's OS name to `name`, cut to kMaxThreadNameBytes
/// bytes. Names are for people and tools only; a failure is ignored. Any
/// thread may call it, about itself only.
void setCurrentThreadName(const std::string& name);

/// Sets the OS name of `thread` (running, not joined) from another thread, so
/// the name is there as soon as the call returns. Same rules as above.
void setThreadName(std::thread& thread, const std::string& name);

/// The calling thread's OS name ("" when it cannot be read).
std::string currentThreadName();

}  // namespace antidrift
