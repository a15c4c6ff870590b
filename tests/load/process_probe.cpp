#include "load/process_probe.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace antidrift::load {
namespace {

/// Names in `path` other than "." and "..". Throws when it cannot be opened.
std::vector<std::string> listDirectory(const std::string& path) {
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) {
    throw std::runtime_error("cannot read " + path + " (has the process exited?)");
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(directory)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") {
      names.push_back(name);
    }
  }
  ::closedir(directory);
  return names;
}

/// One row of /proc/PID/net/tcp{,6}: the remote address ("0100007F:9C40"),
/// the state in hex ("08" is CLOSE_WAIT) and the socket's inode.
struct SocketRow {
  std::string remote;
  std::string state;
  std::uint64_t inode = 0;
};

/// The rows of one socket table; none when it cannot be read.
std::vector<SocketRow> readSocketTable(const std::string& path) {
  std::vector<SocketRow> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    std::istringstream fields(line);
    std::string slot, local, queues, timer, retransmits, uid, timeout;
    SocketRow row;
    if (fields >> slot >> local >> row.remote >> row.state >> queues >> timer >> retransmits >>
        uid >> timeout >> row.inode) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

ProcessProbe::ProcessProbe(pid_t pid) : directory_("/proc/" + std::to_string(pid)) {}

ProcessSample ProcessProbe::sample() const {
  ProcessSample result;
  result.rssKib = residentKib();
  result.threads = threadCount();
  result.descriptors = descriptorCount();
  result.closeWait = closeWaitCount();
  return result;
}

double ProcessProbe::cpuMs() const {
  std::ifstream stat(directory_ + "/stat");
  std::string line;
  if (!std::getline(stat, line)) {
    throw std::runtime_error("cannot read " + directory_ + "/stat (has the process exited?)");
  }
  // The command name (field 2) may hold spaces: count fields after its ')'.
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  unsigned long long user = 0;
  unsigned long long system = 0;
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number == 14) user = std::stoull(field);
    if (number == 15) system = std::stoull(field);
  }
  return static_cast<double>(user + system) * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::int64_t ProcessProbe::residentKib() const {
  std::ifstream status(directory_ + "/status");
  if (!status) {
    throw std::runtime_error("cannot read " + directory_ + "/status (has the process exited?)");
  }
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::stoll(line.substr(6));  // "VmRSS:\t  12345 kB"
    }
  }
  throw std::runtime_error(directory_ + "/status has no VmRSS line");
}

std::size_t ProcessProbe::threadCount() const {
  return listDirectory(directory_ + "/task").size();
}

std::size_t ProcessProbe::descriptorCount() const {
  return listDirectory(directory_ + "/fd").size();
}

std::set<std::uint64_t> ProcessProbe::socketInodes() const {
  std::set<std::uint64_t> inodes;
  const std::string prefix = "socket:[";
  for (const std::string& name : listDirectory(directory_ + "/fd")) {
    char target[128] = {};
    const std::string link = directory_ + "/fd/" + name;
    const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
    if (length <= 0) {
      continue;  // closed since the listing
    }
    const std::string text(target, static_cast<std::size_t>(length));
    if (text.rfind(prefix, 0) == 0) {
      inodes.insert(std::stoull(text.substr(prefix.size())));
    }
  }
  return inodes;
}

std::size_t ProcessProbe::closeWaitCount() const {
  const std::set<std::uint64_t> inodes = socketInodes();
  std::size_t count = 0;
  for (const char* table : {"/net/tcp", "/net/tcp6"}) {
    for (const SocketRow& row : readSocketTable(directory_ + table)) {
      if (row.state == "08" && inodes.count(row.inode) != 0) {
        ++count;
      }
    }
  }
  return count;
}

bool ProcessProbe::holdsConnectionFrom(std::uint16_t peerPort) const {
  const std::set<std::uint64_t> inodes = socketInodes();
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, ":%04X", static_cast<unsigned>(peerPort));
  for (const SocketRow& row : readSocketTable(directory_ + "/net/tcp")) {
    if (row.remote.size() > 5 && row.remote.compare(row.remote.size() - 5, 5, suffix) == 0 &&
        inodes.count(row.inode) != 0) {
      return true;
    }
  }
  return false;
}

}  // namespace antidrift::load
