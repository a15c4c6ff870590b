#include "server/peer_user_check.h"

#include <unistd.h>

#include <Poco/Net/IPAddress.h>
#include <Poco/Net/SocketAddress.h>

namespace antidrift {
namespace {

/// `address` as socket_owner.h's SocketEnd.
SocketEnd endOf(const Poco::Net::SocketAddress& address) {
  const std::optional<SocketEnd> end = SocketEnd::from(address.addr(), address.length());
  return end ? *end : SocketEnd{};
}

}  // namespace

PeerUserCheck::PeerUserCheck(uid_t owner, TableReader reader, Lookup lookup)
    : owner_(owner), reader_(std::move(reader)), lookup_(lookup) {}

PeerUserCheck::PeerUserCheck()
    : PeerUserCheck(::geteuid(), &PeerUserCheck::readTableFile, Lookup::SocketDiagFirst) {}

std::string PeerUserCheck::lookupDescription() {
  return describeSocketLookup();
}

PeerUserCheck::KernelAnswer PeerUserCheck::askKernel(const Poco::Net::SocketAddress& local,
                                                     const Poco::Net::SocketAddress& remote,
                                                     bool unaccepted) {
  return askKernelForSocket(endOf(local), endOf(remote), unaccepted);
}

std::optional<uid_t> PeerUserCheck::findSocketOwner(std::string_view table,
                                                    const Poco::Net::SocketAddress& local,
                                                    const Poco::Net::SocketAddress& remote,
                                                    bool unaccepted) {
  return findSocketOwnerInTable(table, endOf(local), endOf(remote), unaccepted);
}

std::optional<uid_t> PeerUserCheck::peerOwner(const Poco::Net::SocketAddress& client,
                                              const Poco::Net::SocketAddress& server) const {
  if (lookup_ == Lookup::SocketDiagFirst) {
    const KernelAnswer answer = askKernel(client, server);
    if (answer.answered) {
      return answer.owner;
    }
  }
  return findSocketOwnerInTables(reader_, endOf(client), endOf(server));
}

std::optional<GuardRejection> PeerUserCheck::check(const Poco::Net::SocketAddress& client,
                                                   const Poco::Net::SocketAddress& server) const {
  const std::optional<uid_t> peer = peerOwner(client, server);
  if (!peer) {
    return GuardRejection{403,
                          "only the user running antidriftd may use it, and the user of this "
                          "connection could not be determined"};
  }
  if (*peer != owner_) {
    return GuardRejection{403, "only the user running antidriftd may use it"};
  }
  return std::nullopt;
}

std::optional<uid_t> PeerUserCheck::serverEndOwner(const Poco::Net::SocketAddress& server,
                                                   const Poco::Net::SocketAddress& client,
                                                   const TableReader& reader) {
  return serverEndOwnerOf(endOf(server), endOf(client), reader);
}

std::optional<uid_t> PeerUserCheck::listenerOwner(const Poco::Net::SocketAddress& address,
                                                  const TableReader& reader) {
  // A listener's row has the remote end 0:0 (in its own family).
  const Poco::Net::SocketAddress anyRemote(
      Poco::Net::IPAddress(address.family() == Poco::Net::SocketAddress::IPv6
                               ? Poco::Net::IPAddress::IPv6
                               : Poco::Net::IPAddress::IPv4),
      0);
  return findSocketOwnerInTables(reader, endOf(address), endOf(anyRemote));
}

std::optional<std::string> PeerUserCheck::readTableFile(const std::string& path) {
  return readSocketTable(path);
}

}  // namespace antidrift
