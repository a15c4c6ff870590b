/// @file process_probe.h
/// What a running process holds, read from /proc/PID (Linux): resident memory,
/// threads, file descriptors and TCP sockets in CLOSE_WAIT (issue 9 item 6).
/// Used by the load tool to watch the real antidriftd from outside.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace antidrift::load {

/// One reading of a process's resources.
struct ProcessSample {
  std::int64_t rssKib = 0;      ///< VmRSS of /proc/PID/status, KiB
  std::size_t threads = 0;      ///< entries of /proc/PID/task
  std::size_t descriptors = 0;  ///< entries of /proc/PID/fd
  std::size_t closeWait = 0;    ///< the process's TCP sockets in CLOSE_WAIT (state 08)
};

/// Reads the resources of one process by pid. Every call reads /proc afresh;
/// stateless, so any thread may call it. Throws std::runtime_error when the
/// process is gone (its /proc directory cannot be read).
class ProcessProbe {
 public:
  /// Watches process `pid`.
  explicit ProcessProbe(pid_t pid);

  /// All four figures at once.
  ProcessSample sample() const;

  /// VmRSS in KiB.
  std::int64_t residentKib() const;
  /// CPU time the process used so far, user plus system, in ms (fields 14
  /// and 15 of /proc/PID/stat; resolution one clock tick, usually 10 ms).
  double cpuMs() const;
  /// Number of threads.
  std::size_t threadCount() const;
  /// Number of open file descriptors.
  std::size_t descriptorCount() const;
  /// Inodes of the sockets among the process's descriptors.
  std::set<std::uint64_t> socketInodes() const;
  /// How many of the process's TCP sockets (IPv4 and IPv6) are in
  /// CLOSE_WAIT: the peer has closed, the process has not — a leak when it
  /// lasts. Read from /proc/PID/net/tcp{,6}, state 08, matched by inode.
  std::size_t closeWaitCount() const;
  /// True while one of the process's TCP sockets (IPv4) is connected to
  /// a peer on local port `peerPort` of 127.0.0.1, e.g. the daemon's end of
  /// a client's connection.
  bool holdsConnectionFrom(std::uint16_t peerPort) const;

 private:
  std::string directory_;  ///< "/proc/<pid>"
};

}  // namespace antidrift::load
