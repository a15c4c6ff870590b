/// @file peer_user_check.h
/// Only the daemon's own Unix user is served: the owner of the peer socket of
/// every connection is looked up in the kernel's TCP tables (/proc/net/tcp
/// and /proc/net/tcp6) and any other user is refused (issue 9 item 3,
/// docs/SECURITY.md "Other local users", docs/API.md §1). The lookups
/// themselves are Poco-free in socket_owner.h; this class takes Poco's
/// addresses.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "server/request_guard.h"
#include "server/socket_owner.h"

namespace Poco::Net {
class SocketAddress;
}

namespace antidrift {

/// Checks that the other end of a TCP connection the daemon accepted is a
/// socket owned by the daemon's own Unix user.
///
/// Linux lists every TCP socket of the network namespace in /proc/net/tcp
/// (IPv4) and /proc/net/tcp6 (IPv6), with its local and remote address and
/// the uid that created it. For a connection from this machine, the peer's
/// socket is the row whose local end is the client's address and whose
/// remote end is the daemon's. The daemon asks the kernel for that one
/// socket through the sock_diag netlink interface (what ss(8) uses: a hash
/// lookup, about as cheap as a system call); only where that is unavailable
/// does it read the tables, which costs a walk of the kernel's whole TCP
/// hash (about a millisecond, whatever the number of sockets: the load test
/// found it capping the daemon near 400 requests/s). Nothing is cached, so
/// nothing can be stale; sockets in TIME_WAIT or with inode 0 (no longer
/// held by any process) are ignored, because the kernel shows them with
/// uid 0. A peer that is not found — a connection from another machine, or
/// one already closed — is refused too.
///
/// Immutable after construction: every method is thread-safe (if the
/// reader is).
class PeerUserCheck {
 public:
  /// Reads one kernel table by path ("/proc/net/tcp"); nullopt when it
  /// cannot be read.
  using TableReader = SocketTableReader;

  /// The table paths read by peerOwner().
  static constexpr const char* kTcpTable = kTcpTablePath;
  static constexpr const char* kTcp6Table = kTcp6TablePath;

  /// How peerOwner() finds the peer socket.
  enum class Lookup {
    SocketDiagFirst,  ///< askKernel(); the tables only when netlink is unavailable
    TablesOnly,       ///< the tables through the TableReader
  };

  /// What askKernel() learnt (socket_owner.h).
  using KernelAnswer = SocketOwnerAnswer;

  /// Serves `owner` only (default: the daemon's effective uid). `reader`
  /// reads the tables (default: readTableFile); tests pass sample text.
  /// `lookup` chooses how sockets are found (tests of the table format use
  /// TablesOnly).
  explicit PeerUserCheck(uid_t owner, TableReader reader = &PeerUserCheck::readTableFile,
                         Lookup lookup = Lookup::TablesOnly);
  /// Serves the effective uid of this process: sock_diag first, the real
  /// tables when netlink is unavailable.
  PeerUserCheck();

  /// How peerOwner() will find sockets in this process, for the start-up
  /// log: "sock_diag" when a NETLINK_SOCK_DIAG socket can be opened, else
  /// "/proc/net/tcp (sock_diag unavailable: <strerror>)" — for example under
  /// a unit whose RestrictAddressFamilies= lacks AF_NETLINK (issue 17 item 1).
  /// Thread-safe.
  static std::string lookupDescription();

  /// Asks the kernel (NETLINK_SOCK_DIAG, one SOCK_DIAG_BY_FAMILY request,
  /// no dump) for the TCP socket whose local end is `local` and remote end
  /// `remote`, in IPv4 and as IPv4-mapped IPv6 (or the reverse). Its owner
  /// when such a socket is established or closing and held by a process;
  /// nullopt when there is none (or only a listener or a TIME_WAIT entry).
  /// `answered` is false when the netlink socket cannot be used (no
  /// sock_diag in the kernel, a seccomp filter). `unaccepted` also counts a
  /// socket no process holds yet (inode 0): the server end of a connection
  /// still in its listener's accept queue, which carries the listener's uid
  /// (serverEndOwner). Thread-safe (one netlink socket per call).
  static KernelAnswer askKernel(const Poco::Net::SocketAddress& local,
                                const Poco::Net::SocketAddress& remote, bool unaccepted = false);

  /// The uid that owns the live socket with local end `local` and remote
  /// end `remote` in `table`, text in the format of /proc/net/tcp or
  /// /proc/net/tcp6 (header line, then one row per socket). An IPv4
  /// address also matches its IPv4-mapped IPv6 form (::ffff:a.b.c.d) and
  /// back. nullopt when no live row matches or a matching row is malformed.
  /// `unaccepted`: as in askKernel(). Pure.
  static std::optional<uid_t> findSocketOwner(std::string_view table,
                                              const Poco::Net::SocketAddress& local,
                                              const Poco::Net::SocketAddress& remote,
                                              bool unaccepted = false);

  /// For a client (the CLI, issue 19 item 2, docs/SECURITY.md M2): the uid
  /// that owns the server end of the client's own connection from `client`
  /// to `server` — the socket the listener accepted, or still holds in its
  /// accept queue (it carries the listener's uid either way): sock_diag
  /// first, the tables through `reader` when netlink is unavailable.
  /// nullopt when no such socket is found. Thread-safe.
  static std::optional<uid_t> serverEndOwner(const Poco::Net::SocketAddress& server,
                                             const Poco::Net::SocketAddress& client,
                                             const TableReader& reader = &readTableFile);

  /// The uid of the socket listening on exactly `address` (an IP address
  /// and port), read from the tables through `reader`: who holds the port
  /// when the daemon cannot bind it (issue 19 item 2). nullopt when none is
  /// found (e.g. it listens on the wildcard address). Thread-safe.
  static std::optional<uid_t> listenerOwner(const Poco::Net::SocketAddress& address,
                                            const TableReader& reader = &readTableFile);

  /// The uid owning the peer socket of the connection from `client` to
  /// `server` (the daemon's end): askKernel() under SocketDiagFirst, else
  /// (or when it did not answer) looked up in kTcpTable, then kTcp6Table.
  /// nullopt when there is no such live socket.
  std::optional<uid_t> peerOwner(const Poco::Net::SocketAddress& client,
                                 const Poco::Net::SocketAddress& server) const;

  /// nullopt when the peer of the connection from `client` to `server`
  /// belongs to the owner; otherwise a 403 rejection that names neither
  /// user.
  std::optional<GuardRejection> check(const Poco::Net::SocketAddress& client,
                                      const Poco::Net::SocketAddress& server) const;

  /// The whole content of the file at `path`; nullopt when it cannot be
  /// opened. Files under /proc report size 0, so it reads to the end.
  static std::optional<std::string> readTableFile(const std::string& path);

  /// The uid this check serves.
  uid_t owner() const { return owner_; }

 private:
  uid_t owner_;
  TableReader reader_;
  Lookup lookup_;
};

}  // namespace antidrift
