#include "server/child_processes.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <string>

#include "antidrift/thread_name.h"

namespace antidrift {
namespace {

/// A positive decimal pid; nullopt otherwise.
std::optional<pid_t> parsePid(std::string_view text) {
  if (text.empty() || text.size() > 9) {
    return std::nullopt;
  }
  pid_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  return value > 0 ? std::optional<pid_t>(value) : std::nullopt;
}

/// The next space-separated field of `text` from `position`, advancing it.
std::string_view nextField(std::string_view text, std::size_t& position) {
  while (position < text.size() && text[position] == ' ') {
    ++position;
  }
  const std::size_t start = position;
  while (position < text.size() && text[position] != ' ' && text[position] != '\n') {
    ++position;
  }
  return text.substr(start, position - start);
}

}  // namespace

std::optional<ProcessStat> parseProcessStat(std::string_view text) {
  const std::size_t open = text.find(" (");
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcessStat stat;
  const auto pid = parsePid(text.substr(0, open));
  std::size_t position = close + 1;
  const std::string_view state = nextField(text, position);
  const auto parent = parsePid(nextField(text, position));
  const std::string_view groupText = nextField(text, position);
  const auto group = parsePid(groupText);
  // ppid is 0 for processes started by the kernel; pgrp is never 0 for ours.
  if (!pid || state.size() != 1 || !group) {
    return std::nullopt;
  }
  stat.pid = *pid;
  stat.state = state.front();
  stat.parentPid = parent.value_or(0);
  stat.processGroup = *group;
  return stat;
}

std::vector<ProcessStat> listChildren(pid_t parent) {
  std::vector<ProcessStat> children;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return children;
  }
  while (const dirent* entry = ::readdir(proc)) {
    if (!parsePid(entry->d_name)) {
      continue;
    }
    std::ifstream file(std::string("/proc/") + entry->d_name + "/stat");
    if (!file) {
      continue;  // exited meanwhile
    }
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    const auto stat = parseProcessStat(text);
    if (stat && stat->parentPid == parent && stat->state != 'Z') {
      children.push_back(*stat);
    }
  }
  ::closedir(proc);
  return children;
}

void signalChild(const ProcessStat& child, int signal) {
  if (child.pid == child.processGroup && child.processGroup != ::getpgrp()) {
    ::kill(-child.processGroup, signal);
  } else {
    ::kill(child.pid, signal);
  }
}

void runWhileEndingChildren(const std::function<void()>& work, std::chrono::milliseconds grace,
                            std::chrono::milliseconds interval) {
  using Clock = std::chrono::steady_clock;
  std::future<void> done = std::async(std::launch::async, [&work] {
    setCurrentThreadName("ad-stopping");
    work();
  });
  const pid_t self = ::getpid();
  std::map<pid_t, Clock::time_point> terminatedAt;
  do {
    const Clock::time_point now = Clock::now();
    for (const ProcessStat& child : listChildren(self)) {
      const auto seen = terminatedAt.find(child.pid);
      if (seen == terminatedAt.end()) {
        signalChild(child, SIGTERM);
        terminatedAt.emplace(child.pid, now);
      } else if (now - seen->second >= grace) {
        signalChild(child, SIGKILL);
      }
    }
  } while (done.wait_for(interval) != std::future_status::ready);
  done.get();
}

}  // namespace antidrift
