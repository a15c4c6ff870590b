/// @file store_lock.h
/// <store.dir>/lock: one antidriftd per data directory (docs/DESIGN.md §9). Two
/// daemons on one store would overwrite each other's snapshot and fork the
/// audit chain.
#pragma once

#include <chrono>
#include <functional>
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
  /// When `lock` is null: the holder's program name (`/proc/<pid>/comm`,
  /// e.g. "antidriftd", or "antidrift" for the CLI's offline token
  /// rotation), "" when there is no pid or the process is gone.
  std::string holderName;

  /// Whether the holder is a running antidriftd (holderName is
  /// StoreLock::kDaemonName): a daemon holds the lock for its whole life,
  /// so waiting for it is pointless. Pure.
  bool heldByDaemon() const;
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

  /// The daemon's program name, as `/proc/<pid>/comm` shows it.
  static constexpr const char* kDaemonName = "antidriftd";
  /// How long acquireWithin() waits between two tries.
  static constexpr std::chrono::milliseconds kRetryInterval{50};

  /// tryAcquire(), retried every kRetryInterval while another process that is
  /// not a running antidriftd holds the lock — a short holder such as the
  /// CLI's offline `antidrift token --rotate` (docs/SECURITY.md "N5") — for
  /// at most `wait` (monotonic). Returns at once when the lock is taken or
  /// the holder is an antidriftd (StoreLockAttempt::heldByDaemon()); else
  /// the last attempt once `wait` is over or `pause` returned false.
  /// `pause(interval)` is called between tries and must return within about
  /// `interval`; returning false gives up (a termination signal). Throws as
  /// tryAcquire(). Not thread-safe.
  static StoreLockAttempt acquireWithin(
      const std::string& directory, std::chrono::milliseconds wait,
      const std::function<bool(std::chrono::milliseconds)>& pause);

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
