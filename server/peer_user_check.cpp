#include "server/peer_user_check.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <Poco/Net/IPAddress.h>
#include <Poco/Net/SocketAddress.h>

namespace antidrift {
namespace {

/// TCP_TIME_WAIT in the `st` column: such rows are no longer owned (uid 0).
constexpr std::string_view kTimeWaitState = "06";

/// The prefix of an IPv4-mapped IPv6 address (::ffff:0:0/96).
constexpr unsigned char kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

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

/// Every "ADDRESS:PORT" spelling of `address` a table row may use: its own,
/// and for IPv4 the IPv4-mapped IPv6 one (or the reverse).
std::vector<std::string> tableForms(const Poco::Net::SocketAddress& address) {
  const Poco::Net::IPAddress host = address.host();
  const auto* bytes = static_cast<const unsigned char*>(host.addr());
  char port[6];
  std::snprintf(port, sizeof port, "%04X", static_cast<unsigned>(address.port()));
  std::vector<std::string> forms;
  if (host.family() == Poco::Net::IPAddress::IPv4) {
    unsigned char mapped[16];
    std::memcpy(mapped, kMappedPrefix, sizeof kMappedPrefix);
    std::memcpy(mapped + 12, bytes, 4);
    forms.push_back(kernelHex(bytes, 4) + ":" + port);
    forms.push_back(kernelHex(mapped, 16) + ":" + port);
  } else {
    forms.push_back(kernelHex(bytes, 16) + ":" + port);
    if (std::memcmp(bytes, kMappedPrefix, sizeof kMappedPrefix) == 0) {
      forms.push_back(kernelHex(bytes + 12, 4) + ":" + port);
    }
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

}  // namespace

PeerUserCheck::PeerUserCheck(uid_t owner, TableReader reader)
    : owner_(owner), reader_(std::move(reader)) {}

PeerUserCheck::PeerUserCheck() : PeerUserCheck(::geteuid()) {}

std::optional<uid_t> PeerUserCheck::findSocketOwner(std::string_view table,
                                                    const Poco::Net::SocketAddress& local,
                                                    const Poco::Net::SocketAddress& remote) {
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
        if (fields[kState] == kTimeWaitState || fields[kInode] == "0") {
          continue;  // not held by any process; the kernel shows uid 0
        }
        return parseUid(fields[kUid]);
      }
    }
  }
  return std::nullopt;
}

std::optional<uid_t> PeerUserCheck::peerOwner(const Poco::Net::SocketAddress& client,
                                              const Poco::Net::SocketAddress& server) const {
  for (const char* path : {kTcpTable, kTcp6Table}) {
    const std::optional<std::string> table = reader_(path);
    if (!table) {
      continue;
    }
    if (const auto owner = findSocketOwner(*table, client, server)) {
      return owner;
    }
  }
  return std::nullopt;
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

std::optional<std::string> PeerUserCheck::readTableFile(const std::string& path) {
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
