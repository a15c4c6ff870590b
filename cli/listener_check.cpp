#include "cli/listener_check.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

namespace antidrift::cli {
std::string describeSocketEnd(const SocketEnd& end) {
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(end.family, end.bytes, text, sizeof text) == nullptr) {
    return "?:" + std::to_string(end.port);
  }
  return end.family == AF_INET6 ? "[" + std::string(text) + "]:" + std::to_string(end.port)
                                : std::string(text) + ":" + std::to_string(end.port);
}

std::optional<std::string> foreignListener(int fd) {
  const std::optional<SocketEnd> server = SocketEnd::ofSocket(fd, true);
  const std::optional<SocketEnd> client = SocketEnd::ofSocket(fd, false);
  if (!server || !client) {
    return std::string("the connection to antidriftd has no address, so nothing was sent");
  }
  const std::string where = describeSocketEnd(*server);
  const std::optional<uid_t> owner = serverEndOwnerOf(*server, *client, &readSocketTable);
  if (!owner) {
    return "cannot tell which user listens on " + where +
           ", so nothing was sent (neither sock_diag nor /proc/net/tcp answered; "
           "docs/SECURITY.md M2)";
  }
  if (*owner != ::geteuid()) {
    return where + " is held by another user (uid " + std::to_string(*owner) +
           "), not by your antidriftd: nothing was sent, not even the token. "
           "Use http://127.0.0.1 rather than localhost, and see docs/SECURITY.md M2";
  }
  return std::nullopt;
}

}  // namespace antidrift::cli
