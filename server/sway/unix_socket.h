/// @file unix_socket.h
/// A connected UNIX stream socket with one owner (RAII). Plain POSIX rather than
/// Poco::Net::StreamSocket: the IPC source waits on this socket and on an eventfd in one
/// poll(2), which needs the raw descriptor, and Poco::Net cannot poll a non-socket descriptor.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace antidrift::sway {

/// Owns one connected AF_UNIX SOCK_STREAM descriptor (close-on-exec); closes it on destruction.
/// Movable, not copyable. Not thread-safe: one thread uses it.
class UnixSocket {
 public:
  /// Connects to the socket at `path`. Throws std::system_error (ENOENT, ECONNREFUSED for a
  /// stale socket file, EACCES, …) or std::length_error when the path does not fit sun_path.
  static UnixSocket connect(const std::string& path);
  /// Two connected ends (socketpair(2)), for tests. Throws std::system_error.
  static std::pair<UnixSocket, UnixSocket> pairForTest();

  UnixSocket() = default;
  ~UnixSocket();
  UnixSocket(UnixSocket&& other) noexcept;
  UnixSocket& operator=(UnixSocket&& other) noexcept;
  UnixSocket(const UnixSocket&) = delete;
  UnixSocket& operator=(const UnixSocket&) = delete;

  /// The descriptor, -1 when empty (for poll(2)).
  int descriptor() const { return descriptor_; }
  /// Writes all of `bytes`, blocking; retries on EINTR. Throws std::system_error (EPIPE when
  /// the peer closed; the daemon ignores SIGPIPE and MSG_NOSIGNAL is used anyway).
  void sendAll(const std::string& bytes);
  /// Reads what is there, at most `capacity` bytes into `buffer`; 0 means the peer closed.
  /// Blocks when nothing is there (poll first). Throws std::system_error on errors.
  std::size_t receiveSome(char* buffer, std::size_t capacity);
  /// Closes the descriptor now. Idempotent.
  void close();

 private:
  explicit UnixSocket(int descriptor) : descriptor_(descriptor) {}
  int descriptor_ = -1;
};

}  // namespace antidrift::sway
