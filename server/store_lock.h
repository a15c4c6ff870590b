/// @file store_lock.h
/// <store.dir>/lock: one antidriftd per data directory (docs/DESIGN.md §9). Two
/// daemons on one store would overwrite each other's snapshot and fork the
/// audit chain.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace antidrift {

class StoreLock;

/// What StoreLock::tryAcquire found.
struct StoreLockAttempt {
  /// The held lock, or nullptr when another process holds it.
  std::unique_ptr<StoreLock> lock;
  /// When `lock` is null: the holder's pid as written in the lock file, 0
  /// when the file holds none yet (the holder is between lock and write).
  long holderPid = 0;
};

/// An exclusive flock(2) on `<directory>/lock`, held while this object lives
/// (the descriptor stays open; closing it, or the process ending, releases
/// the lock — a crash never leaves a stale lock). Poco 1.11 has no file
/// lock, hence the system calls. The file holds the holder's pid and is
/// never deleted (deleting it would let two processes lock two different
/// files). The descriptor is close-on-exec, so a child process (an AI
/// plugin's CLI) never keeps the lock alive. Not copyable; not thread-safe.
class StoreLock {
 public:
  /// The file name inside the store directory.
  static constexpr const char* kFileName = "lock";

  /// Tries once, without waiting (LOCK_EX | LOCK_NB). Creates the directory
  /// (0700) and the file (0600) when missing; tightens an existing directory
  /// of this user's with group or other bits to 0700 (logged as a warning on
  /// `antidrift.store`; issue 17 item 1). On success writes this process's
  /// pid into the file. Throws std::runtime_error naming the path when the
  /// directory belongs to another user, when the lock file is a symbolic link
  /// (never followed: O_NOFOLLOW), not a regular file or not this user's
  /// (issue 19 item 6), or when the directory or file cannot
  /// be created, opened or locked for a reason other than another holder.
  static StoreLockAttempt tryAcquire(const std::string& directory);

  /// Releases the lock (closes the descriptor).
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

  /// The lock file's path.
  const std::string& path() const { return path_; }

 private:
  StoreLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;
};

}  // namespace antidrift
