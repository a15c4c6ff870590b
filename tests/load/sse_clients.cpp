#include "load/sse_clients.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>

namespace antidrift::load {
namespace {

/// Milliseconds left until `deadline`, never negative (a poll(2) timeout).
int remainingMs(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

// ---- SseReader ------------------------------------------------------------------------------

SseReader::SseReader(std::uint16_t port, StateListener listener)
    : listener_(std::move(listener)), session_("127.0.0.1", port) {
  try {
    session_.setTimeout(Poco::Timespan(60, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/events",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    session_.sendRequest(request);
    std::istream& in = session_.receiveResponse(response_);
    status_ = static_cast<int>(response_.getStatus());
    if (status_ == 200) {
      reader_ = std::thread([this, &in] { read(in); });
    } else {
      ended_ = true;
    }
  } catch (const Poco::Exception& error) {
    error_ = error.displayText();
    ended_ = true;
  }
}

SseReader::~SseReader() {
  close();
}

std::string SseReader::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

bool SseReader::waitForVersion(std::uint64_t version, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] {
    return lastVersion_.load() == version || ended_.load();
  }) && lastVersion_.load() == version;
}

void SseReader::close() {
  if (closed_) {
    return;
  }
  closed_ = true;
  session_.abort();
  if (reader_.joinable()) {
    reader_.join();
  }
}

void SseReader::read(std::istream& in) {
  std::uint64_t id = 0;
  bool isState = false;
  std::string data;
  try {
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("id: ", 0) == 0) {
        id = std::stoull(line.substr(4));
      } else if (line == "event: state") {
        isState = true;
      } else if (listener_ && line.rfind("data: ", 0) == 0) {
        data.append(line, 6, std::string::npos);
      } else if (line.empty()) {
        if (isState) {
          if (listener_) {
            listener_(id, data);
          }
          {
            std::lock_guard<std::mutex> lock(mutex_);
            lastVersion_ = id;
            ++eventCount_;
          }
          changed_.notify_all();
        }
        isState = false;
        data.clear();
      }
    }
  } catch (const std::exception& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_) {
      error_ = error.what();
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
  }
  changed_.notify_all();
}

// ---- RawEventSocket -------------------------------------------------------------------------

RawEventSocket::RawEventSocket(std::uint16_t port, int receiveBufferBytes) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  if (receiveBufferBytes > 0) {
    // Before connect(2), so the window the server sees is small from the start.
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receiveBufferBytes, sizeof receiveBufferBytes);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("connect: " + reason);
  }
  const std::string request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                              "\r\nAccept: text/event-stream\r\n\r\n";
  if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    const std::string reason = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("send: " + reason);
  }
}

RawEventSocket::~RawEventSocket() {
  close(CloseMode::Orderly);
}

int RawEventSocket::readStatus(std::chrono::milliseconds timeout) {
  pollfd ready{fd_, POLLIN, 0};
  if (::poll(&ready, 1, static_cast<int>(timeout.count())) != 1) {
    return 0;
  }
  char buffer[64] = {};
  const ssize_t count = ::recv(fd_, buffer, sizeof buffer - 1, 0);
  const std::string head(buffer, count > 0 ? static_cast<std::size_t>(count) : 0);
  // "HTTP/1.1 200 OK"
  if (head.rfind("HTTP/1.", 0) != 0 || head.size() < 12) {
    return 0;
  }
  return std::atoi(head.substr(9, 3).c_str());
}

bool RawEventSocket::drainUntilClosed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  while (true) {
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, remainingMs(deadline));
    if (polled == 0) {
      return false;
    }
    if (polled < 0 && errno != EINTR) {
      return false;
    }
    const ssize_t count = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
    if (count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR)) {
      return true;  // EOF or reset: the server closed it
    }
  }
}

std::uint16_t RawEventSocket::localPort() const {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (fd_ < 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return 0;
  }
  return ntohs(address.sin_port);
}

void RawEventSocket::close(CloseMode mode) {
  if (fd_ < 0) {
    return;
  }
  if (mode == CloseMode::Reset) {
    const linger reset{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace antidrift::load
