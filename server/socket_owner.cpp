#include "server/socket_owner.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace antidrift {
namespace {

/// TCP_TIME_WAIT in the `st` column: such rows are no longer owned (uid 0).
constexpr std::string_view kTimeWaitState = "06";

/// The prefix of an IPv4-mapped IPv6 address (::ffff:0:0/96).
constexpr unsigned char kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/// Every spelling of `end`'s address a socket may have: its own, and for
/// IPv4 the IPv4-mapped IPv6 one (or the reverse). The port is kept.
std::vector<SocketEnd> addressForms(const SocketEnd& end) {
  std::vector<SocketEnd> forms{end};
  if (end.family == AF_INET) {
    SocketEnd mapped = end;
    mapped.family = AF_INET6;
    std::memset(mapped.bytes, 0, sizeof mapped.bytes);
    std::memcpy(mapped.bytes, kMappedPrefix, sizeof kMappedPrefix);
    std::memcpy(mapped.bytes + 12, end.bytes, 4);
    forms.push_back(mapped);
  } else if (std::memcmp(end.bytes, kMappedPrefix, sizeof kMappedPrefix) == 0) {
    SocketEnd plain = end;
    plain.family = AF_INET;
    std::memset(plain.bytes, 0, sizeof plain.bytes);
    std::memcpy(plain.bytes, end.bytes + 12, 4);
    forms.push_back(plain);
  }
  return forms;
}

/// `bytes` (network order) as the kernel prints them: each 32-bit word as
/// the host-order integer it is in memory, %08X.
std::string kernelHex(const unsigned char* bytes, std::size_t length) {
  std::string text;
  for (std::size_t offset = 0; offset + 4 <= length; offset += 4) {
    std::uint32_t word = 0;
    std::memcpy(&word, bytes + offset, sizeof word);
    char buffer[9];
    std::snprintf(buffer, sizeof buffer, "%08X", static_cast<unsigned>(word));
    text += buffer;
  }
  return text;
}

/// Every "ADDRESS:PORT" spelling of `end` a table row may use.
std::vector<std::string> tableForms(const SocketEnd& end) {
  char port[6];
  std::snprintf(port, sizeof port, "%04X", static_cast<unsigned>(end.port));
  std::vector<std::string> forms;
  for (const SocketEnd& form : addressForms(end)) {
    forms.push_back(kernelHex(form.bytes, form.family == AF_INET ? 4 : 16) + ":" + port);
  }
  return forms;
}

/// The whitespace-separated fields of one line.
std::vector<std::string_view> fieldsOf(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t position = 0;
  while (position < line.size()) {
    while (position < line.size() && (line[position] == ' ' || line[position] == '\t')) {
      ++position;
    }
    const std::size_t start = position;
    while (position < line.size() && line[position] != ' ' && line[position] != '\t') {
      ++position;
    }
    if (position > start) {
      fields.push_back(line.substr(start, position - start));
    }
  }
  return fields;
}

/// A decimal uid; nullopt unless the field is 1 to 10 digits within uid_t.
std::optional<uid_t> parseUid(std::string_view field) {
  if (field.empty() || field.size() > 10) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (char c : field) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > static_cast<std::uint64_t>(static_cast<uid_t>(-1))) {
    return std::nullopt;
  }
  return static_cast<uid_t>(value);
}

/// A netlink socket closed on scope exit.
class NetlinkSocket {
 public:
  NetlinkSocket() : fd_(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {}
  ~NetlinkSocket() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

/// The result of one exact sock_diag request.
enum class DiagResult { Found, NotFound, Failed };

/// Asks for the socket with local end `local` and remote end `remote`, both
/// of `local.family`. Found sets `owner`. `unaccepted` also counts a socket
/// with inode 0 (the server end of a connection still in its listener's
/// accept queue carries the listener's uid).
DiagResult askOnce(int fd, const SocketEnd& local, const SocketEnd& remote, bool unaccepted,
                   uid_t& owner) {
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, no dump
  message.header.nlmsg_seq = 1;
  message.request.sdiag_family = static_cast<__u8>(local.family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  message.request.id.idiag_sport = htons(local.port);
  message.request.id.idiag_dport = htons(remote.port);
  std::memcpy(message.request.id.idiag_src, local.bytes, 16);
  std::memcpy(message.request.id.idiag_dst, remote.bytes, 16);
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd, &message, sizeof message, 0, reinterpret_cast<const sockaddr*>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
    return DiagResult::Failed;
  }
  alignas(nlmsghdr) unsigned char buffer[8192];
  ssize_t length = 0;
  do {
    length = ::recv(fd, buffer, sizeof buffer, 0);
  } while (length < 0 && errno == EINTR);
  if (length < static_cast<ssize_t>(sizeof(nlmsghdr))) {
    return DiagResult::Failed;
  }
  const auto* reply = reinterpret_cast<const nlmsghdr*>(buffer);
  if (!NLMSG_OK(reply, static_cast<unsigned>(length))) {
    return DiagResult::Failed;
  }
  if (reply->nlmsg_type == NLMSG_ERROR) {
    const auto* error = static_cast<const nlmsgerr*>(NLMSG_DATA(reply));
    return error->error == -ENOENT ? DiagResult::NotFound : DiagResult::Failed;
  }
  if (reply->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
      reply->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
    return DiagResult::Failed;
  }
  const auto* socket = static_cast<const inet_diag_msg*>(NLMSG_DATA(reply));
  // The kernel's exact lookup falls back to a listener on the local port;
  // and a TIME_WAIT entry (or an orphan, inode 0) is held by no process.
  if (socket->idiag_state == TCP_LISTEN || socket->idiag_state == TCP_TIME_WAIT ||
      (socket->idiag_inode == 0 && !unaccepted) || socket->id.idiag_sport != htons(local.port) ||
      socket->id.idiag_dport != htons(remote.port) ||
      std::memcmp(socket->id.idiag_dst, remote.bytes, 16) != 0) {
    return DiagResult::NotFound;
  }
  owner = static_cast<uid_t>(socket->idiag_uid);
  return DiagResult::Found;
}

}  // namespace

std::optional<SocketEnd> SocketEnd::ofSocket(int fd, bool remote) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if ((remote ? ::getpeername(fd, generic, &length) : ::getsockname(fd, generic, &length)) != 0) {
    return std::nullopt;
  }
  return from(generic, length);
}

std::optional<SocketEnd> SocketEnd::from(const sockaddr* address, socklen_t length) {
  SocketEnd end;
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* ipv4 = reinterpret_cast<const sockaddr_in*>(address);
    end.family = AF_INET;
    std::memcpy(end.bytes, &ipv4->sin_addr, 4);
    end.port = ntohs(ipv4->sin_port);
    return end;
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* ipv6 = reinterpret_cast<const sockaddr_in6*>(address);
    end.family = AF_INET6;
    std::memcpy(end.bytes, &ipv6->sin6_addr, 16);
    end.port = ntohs(ipv6->sin6_port);
    return end;
  }
  return std::nullopt;
}

SocketOwnerAnswer askKernelForSocket(const SocketEnd& local, const SocketEnd& remote,
                                     bool unaccepted) {
  SocketOwnerAnswer answer;
  NetlinkSocket netlink;
  if (netlink.fd() < 0) {
    return answer;
  }
  const std::vector<SocketEnd> remoteForms = addressForms(remote);
  for (const SocketEnd& localForm : addressForms(local)) {
    for (const SocketEnd& remoteForm : remoteForms) {
      if (remoteForm.family != localForm.family) {
        continue;
      }
      uid_t owner = 0;
      switch (askOnce(netlink.fd(), localForm, remoteForm, unaccepted, owner)) {
        case DiagResult::Found:
          answer.answered = true;
          answer.owner = owner;
          return answer;
        case DiagResult::NotFound:
          answer.answered = true;
          break;
        case DiagResult::Failed:
          return SocketOwnerAnswer{};  // unusable: the caller reads the tables
      }
    }
  }
  return answer;
}

std::optional<uid_t> findSocketOwnerInTable(std::string_view table, const SocketEnd& local,
                                            const SocketEnd& remote, bool unaccepted) {
  const std::vector<std::string> localForms = tableForms(local);
  const std::vector<std::string> remoteForms = tableForms(remote);
  // Columns: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
  constexpr std::size_t kLocal = 1, kRemote = 2, kState = 3, kUid = 7, kInode = 9;
  // The table may hold tens of thousands of rows (TIME_WAIT under load):
  // search for "LOCAL REMOTE" as the kernel prints it (upper-case hex, one
  // space) and split only the rows where it occurs.
  for (const std::string& localForm : localForms) {
    for (const std::string& remoteForm : remoteForms) {
      const std::string pair = localForm + " " + remoteForm;
      for (std::size_t found = table.find(pair); found != std::string_view::npos;
           found = table.find(pair, found + pair.size())) {
        const std::size_t newline = table.rfind('\n', found);
        const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
        const std::size_t end = std::min(table.find('\n', found), table.size());
        const std::vector<std::string_view> fields = fieldsOf(table.substr(start, end - start));
        if (fields.size() <= kInode || fields[kLocal] != localForm ||
            fields[kRemote] != remoteForm) {
          continue;
        }
        if (fields[kState] == kTimeWaitState || (fields[kInode] == "0" && !unaccepted)) {
          continue;  // not held by any process; the kernel shows uid 0
        }
        return parseUid(fields[kUid]);
      }
    }
  }
  return std::nullopt;
}

std::optional<uid_t> findSocketOwnerInTables(const SocketTableReader& reader,
                                             const SocketEnd& local, const SocketEnd& remote,
                                             bool unaccepted) {
  for (const char* path : {kTcpTablePath, kTcp6TablePath}) {
    const std::optional<std::string> table = reader(path);
    if (!table) {
      continue;
    }
    if (const auto owner = findSocketOwnerInTable(*table, local, remote, unaccepted)) {
      return owner;
    }
  }
  return std::nullopt;
}

std::optional<uid_t> serverEndOwnerOf(const SocketEnd& server, const SocketEnd& client,
                                      const SocketTableReader& reader) {
  const SocketOwnerAnswer answer = askKernelForSocket(server, client, true);
  if (answer.answered) {
    return answer.owner;
  }
  return findSocketOwnerInTables(reader, server, client, true);
}

std::string describeSocketLookup() {
  const NetlinkSocket netlink;
  if (netlink.fd() >= 0) {
    return "sock_diag";
  }
  return std::string("/proc/net/tcp (sock_diag unavailable: ") + std::strerror(errno) + ")";
}

std::optional<std::string> readSocketTable(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    return std::nullopt;
  }
  return text;
}

}  // namespace antidrift
