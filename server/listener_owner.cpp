#include "server/listener_owner.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "server/socket_owner.h"

namespace antidrift {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

bool isLoopback(const SocketEnd& end) {
  if (end.family == AF_INET) return end.bytes[0] == 127;
  static const unsigned char kLoopback6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(end.bytes, kLoopback6, 16) == 0) return true;
  return std::memcmp(end.bytes, kMapped, 12) == 0 && end.bytes[12] == 127;
}

std::optional<uid_t> uidOfUser(const std::string& name) {
  passwd entry{};
  passwd* found = nullptr;
  std::string buffer(16384, '\0');
  if (::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr)
    return std::nullopt;
  return found->pw_uid;
}

}  // namespace

std::vector<std::string> parseUserList(const std::string& list) {
  std::vector<std::string> users;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    name = trim(name);
    if (!name.empty()) users.push_back(name);
  }
  return users;
}

ListenerOwner checkListenerOwner(int fd, const std::vector<std::string>& trustedUsers) {
  ListenerOwner result;
  const std::optional<SocketEnd> client = SocketEnd::ofSocket(fd, false);
  const std::optional<SocketEnd> server = SocketEnd::ofSocket(fd, true);
  if (!client || !server) {
    result.problem = "cannot tell who runs the model server (the socket has no address)";
    return result;
  }
  result.owner = serverEndOwnerOf(*server, *client, &readSocketTable);
  if (!result.owner) {
    if (isLoopback(*server)) {
      result.problem = "cannot tell who runs the model server on this machine; not using it";
      return result;
    }
    result.trusted = true;  // another machine: the configuration named it
    return result;
  }
  const uid_t owner = *result.owner;
  bool trusted = owner == ::geteuid() || owner == 0;
  for (const std::string& name : trustedUsers) {
    if (trusted) break;
    const std::optional<uid_t> uid = uidOfUser(name);
    trusted = uid && *uid == owner;
  }
  if (!trusted) {
    result.problem = "the model server is run by another user (uid " + std::to_string(owner) +
                     "), not this user, root or ai.openai.trusted_users; nothing was sent to it";
    return result;
  }
  result.trusted = true;
  result.local = true;
  return result;
}

}  // namespace antidrift
