/// @file unix_socket.cpp
/// RAII UNIX stream socket (see unix_socket.h for why not Poco::Net).

#include "server/sway/unix_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace antidrift::sway {

namespace {

std::system_error systemError(const std::string& what) {
  return std::system_error(errno, std::generic_category(), what);
}

}  // namespace

UnixSocket UnixSocket::connect(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path) {
    throw std::length_error("the socket path \"" + path + "\" is empty or longer than " +
                            std::to_string(sizeof address.sun_path - 1) + " bytes");
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  UnixSocket socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (socket.descriptor_ < 0) {
    throw systemError("cannot create a UNIX socket");
  }
  int result = 0;
  do {
    result =
        ::connect(socket.descriptor_, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    throw systemError("cannot connect to " + path);
  }
  return socket;
}

std::pair<UnixSocket, UnixSocket> UnixSocket::pairForTest() {
  int descriptors[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, descriptors) != 0) {
    throw systemError("cannot create a socket pair");
  }
  return {UnixSocket(descriptors[0]), UnixSocket(descriptors[1])};
}

UnixSocket::~UnixSocket() {
  close();
}

UnixSocket::UnixSocket(UnixSocket&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)) {}

UnixSocket& UnixSocket::operator=(UnixSocket&& other) noexcept {
  if (this != &other) {
    close();
    descriptor_ = std::exchange(other.descriptor_, -1);
  }
  return *this;
}

void UnixSocket::sendAll(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t count =
        ::send(descriptor_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (count < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw systemError("cannot write to the IPC socket");
    }
    sent += static_cast<std::size_t>(count);
  }
}

std::size_t UnixSocket::receiveSome(char* buffer, std::size_t capacity) {
  for (;;) {
    const ssize_t count = ::recv(descriptor_, buffer, capacity, 0);
    if (count >= 0) {
      return static_cast<std::size_t>(count);
    }
    if (errno != EINTR) {
      throw systemError("cannot read from the IPC socket");
    }
  }
}

void UnixSocket::close() {
  if (descriptor_ >= 0) {
    ::close(descriptor_);
    descriptor_ = -1;
  }
}

}  // namespace antidrift::sway
