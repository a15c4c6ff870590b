/// @file socket_owner.h
/// Which Unix user owns a TCP socket of this machine, asked of the kernel
/// (sock_diag netlink, else the tables /proc/net/tcp and /proc/net/tcp6):
/// the daemon's check of every connection and the clients' check of the
/// listener they talk to (issue 9 item 3, issue 19 item 2, docs/SECURITY.md
/// M2). Plain POSIX and the C++ library, no Poco: PeerUserCheck
/// (peer_user_check.h) adapts it to Poco's addresses, and antidrift-watch,
/// which links no Poco (issue 20 item 2), uses it directly.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace antidrift {

/// One end of a TCP connection: an IPv4 or IPv6 address and a port.
struct SocketEnd {
  int family = AF_INET;          ///< AF_INET or AF_INET6
  unsigned char bytes[16] = {};  ///< the address in network order; IPv4 in the first 4
  std::uint16_t port = 0;        ///< host order

  /// The end named by a sockaddr_in or sockaddr_in6 (from getsockname(2) or
  /// getpeername(2)); nullopt for any other family or a short `length`. Pure.
  static std::optional<SocketEnd> from(const sockaddr* address, socklen_t length);
  /// The local (`remote` false, getsockname(2)) or the remote end
  /// (getpeername(2)) of connected socket `fd`; nullopt when it has none.
  static std::optional<SocketEnd> ofSocket(int fd, bool remote);
};

/// What askKernelForSocket() learnt.
struct SocketOwnerAnswer {
  bool answered = false;       ///< false: sock_diag unavailable (read the tables)
  std::optional<uid_t> owner;  ///< when answered: the owner, or nullopt if no live socket
};

/// Reads one kernel table by path ("/proc/net/tcp"); nullopt when it cannot
/// be read.
using SocketTableReader = std::function<std::optional<std::string>(const std::string& path)>;

/// The table paths the lookups read.
inline constexpr const char* kTcpTablePath = "/proc/net/tcp";
inline constexpr const char* kTcp6TablePath = "/proc/net/tcp6";

/// Asks the kernel (NETLINK_SOCK_DIAG, one SOCK_DIAG_BY_FAMILY request, no
/// dump) for the TCP socket whose local end is `local` and remote end
/// `remote`, in IPv4 and as IPv4-mapped IPv6 (or the reverse). Its owner
/// when such a socket is established or closing and held by a process;
/// nullopt when there is none (or only a listener or a TIME_WAIT entry).
/// `answered` is false when the netlink socket cannot be used (no sock_diag
/// in the kernel, a seccomp filter). `unaccepted` also counts a socket no
/// process holds yet (inode 0): the server end of a connection still in its
/// listener's accept queue, which carries the listener's uid. Thread-safe
/// (one netlink socket per call).
SocketOwnerAnswer askKernelForSocket(const SocketEnd& local, const SocketEnd& remote,
                                     bool unaccepted = false);

/// The uid that owns the live socket with local end `local` and remote end
/// `remote` in `table`, text in the format of /proc/net/tcp or
/// /proc/net/tcp6 (header line, then one row per socket). An IPv4 address
/// also matches its IPv4-mapped IPv6 form (::ffff:a.b.c.d) and back.
/// nullopt when no live row matches or a matching row is malformed.
/// `unaccepted`: as in askKernelForSocket(). Pure.
std::optional<uid_t> findSocketOwnerInTable(std::string_view table, const SocketEnd& local,
                                            const SocketEnd& remote, bool unaccepted = false);

/// findSocketOwnerInTable() over kTcpTablePath, then kTcp6TablePath, each
/// read through `reader` (a table that cannot be read is skipped): the first
/// owner found, else nullopt. Thread-safe if `reader` is.
std::optional<uid_t> findSocketOwnerInTables(const SocketTableReader& reader,
                                             const SocketEnd& local, const SocketEnd& remote,
                                             bool unaccepted = false);

/// For a client (issue 19 item 2, docs/SECURITY.md M2): the uid that owns the
/// server end of the client's own connection from `client` to `server` — the
/// socket the listener accepted, or still holds in its accept queue (it
/// carries the listener's uid either way): sock_diag first, the tables
/// through `reader` when netlink is unavailable. nullopt when no such socket
/// is found. Thread-safe.
std::optional<uid_t> serverEndOwnerOf(const SocketEnd& server, const SocketEnd& client,
                                      const SocketTableReader& reader);

/// How askKernelForSocket() can find sockets in this process, for a start-up
/// log: "sock_diag" when a NETLINK_SOCK_DIAG socket can be opened, else
/// "/proc/net/tcp (sock_diag unavailable: <strerror>)" — for example under a
/// unit whose RestrictAddressFamilies= lacks AF_NETLINK (issue 17 item 1).
/// Thread-safe.
std::string describeSocketLookup();

/// The whole content of the file at `path`; nullopt when it cannot be
/// opened. Files under /proc report size 0, so it reads to the end.
/// Thread-safe.
std::optional<std::string> readSocketTable(const std::string& path);

}  // namespace antidrift
