#include "server/http/peer_hangup.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/StreamSocket.h>

namespace antidrift::http {

bool peerHasHungUp(int fd) {
  pollfd state{fd, POLLIN | POLLRDHUP, 0};
  int ready = 0;
  do {
    ready = ::poll(&state, 1, 0);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    return false;
  }
  if ((state.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
    return true;
  }
  char byte = 0;
  const ssize_t count = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int peerSocket(Poco::Net::HTTPServerRequest& request) {
  auto* real = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  return real == nullptr ? -1 : real->socket().impl()->sockfd();
}

std::function<bool()> hangupProbe(Poco::Net::HTTPServerRequest& request) {
  auto* real = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (real == nullptr) {
    return {};
  }
  const int fd = real->socket().impl()->sockfd();
  return [fd] { return peerHasHungUp(fd); };
}

void limitSendBuffer(Poco::Net::HTTPServerRequest& request, int bytes) {
  auto* real = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (real != nullptr) {
    real->socket().setSendBufferSize(bytes);
  }
}

void limitSendTime(Poco::Net::HTTPServerRequest& request, std::chrono::milliseconds timeout) {
  auto* real = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (real != nullptr) {
    real->socket().setSendTimeout(Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(
        std::chrono::duration_cast<std::chrono::microseconds>(timeout).count())));
  }
}

}  // namespace antidrift::http
