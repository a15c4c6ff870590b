/// @file listener_check.h
/// A client's check, before it sends a byte, that what it connected to is
/// held by its own Unix user (issue 19 item 2, docs/SECURITY.md M2): the
/// kernel is asked for the owner of the server end of the very connection
/// (server/socket_owner.h). Plain POSIX, no Poco: the `antidrift` command
/// (DaemonClient) and antidrift-watch (issue 20 item 2) both use it.
#pragma once

#include <optional>
#include <string>

#include "server/socket_owner.h"

namespace antidrift::cli {

/// `end` as people write it: "127.0.0.1:7717", "[::1]:7717". Pure.
std::string describeSocketEnd(const SocketEnd& end);

/// Why nothing may be sent on the connected TCP socket `fd`, or nullopt when
/// the server end of the connection belongs to this process's effective
/// user. The sentence names the address and, for another user, its uid,
/// e.g. "[::1]:7717 is held by another user (uid 1001), not by your
/// antidriftd: nothing was sent, not even the token. Use http://127.0.0.1
/// rather than localhost, and see docs/SECURITY.md M2"; it says so too when
/// the owner cannot be determined (neither sock_diag nor /proc/net/tcp
/// answered) or `fd` is no connected TCP socket. Thread-safe.
std::optional<std::string> foreignListener(int fd);

}  // namespace antidrift::cli
