/// @file listener_owner.h
/// Whether the listener behind a connected TCP socket is run by a user the
/// daemon trusts with its prompts and its API key: the check every
/// connection to a model server makes before a byte is sent, the `auto`
/// probe's and the openai plugin's alike (docs/SECURITY.md N1,
/// docs/DESIGN.md §8 "Choosing a backend"). Plain POSIX and the C++
/// library, no Poco, in the same static library as socket_owner.h, so the
/// daemon and a plugin (which must not link the daemon) both link it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace antidrift {

/// The accounts trusted by default to run a model server besides the
/// daemon's own user and root: "ollama", the user Ollama's Linux installer
/// runs it as (the default of `ai.openai.trusted_users`).
inline constexpr const char* kDefaultTrustedModelServerUsers = "ollama";

/// What checkListenerOwner() found.
struct ListenerOwner {
  bool trusted = false;        ///< true: the connection may be used
  bool local = false;          ///< true: the listener is on this machine and its owner passed
  std::optional<uid_t> owner;  ///< the listener's uid, when the kernel said
  std::string problem;         ///< when not trusted: one sentence naming the uid
};

/// The user names of a comma-separated list ("ollama, llm"), trimmed, empty
/// entries dropped. Pure.
std::vector<std::string> parseUserList(const std::string& list);

/// Checks the owner of the server end of the connected TCP socket `fd`
/// (getsockname/getpeername, then sock_diag, else /proc/net/tcp*): trusted
/// when it is this process's effective uid, root (uid 0), or the uid of one of
/// `trustedUsers` (names looked up with getpwnam_r; an unknown name trusts
/// nobody). A loopback peer whose owner cannot be found is refused (the check
/// must pass before the listener is called local); a peer on another machine
/// (no local socket found, not loopback) is trusted and not local, since
/// privacy.local_only and the configured URL decide about those.
/// Blocking for one netlink round trip; thread-safe; never throws.
ListenerOwner checkListenerOwner(int fd, const std::vector<std::string>& trustedUsers);

}  // namespace antidrift
