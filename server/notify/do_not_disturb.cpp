#include "server/notify/do_not_disturb.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include "antidrift/thread_name.h"

namespace antidrift::notify {
namespace {

/// Poco's child exits with this when exec fails (docs/TECH-NOTES.md §3.1).
constexpr int kExecFailedExitCode = 72;
constexpr std::chrono::milliseconds kPollInterval{10};
/// A command that is stopped is given this long to finish its first line.
constexpr std::chrono::milliseconds kFirstLineGrace{2000};

/// Reads from `fd` until a newline has arrived, EOF, or `grace` passed.
std::string readFirstLine(int fd, std::chrono::milliseconds grace) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd one{fd, POLLIN, 0};
    if (::poll(&one, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[256];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string recordPath(const std::string& storeDir) {
  return storeDir + "/" + DoNotDisturb::kStateFileName;
}

std::string joined(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& part : argv) {
    if (!text.empty()) text += ' ';
    text += part;
  }
  return text;
}

/// The first `string "…"` of dbus-send --print-reply output; "" if none.
std::string firstReplyString(const std::string& reply) {
  const std::string marker = "string \"";
  const auto at = reply.find(marker);
  if (at == std::string::npos) return "";
  const auto begin = at + marker.size();
  const auto end = reply.find('"', begin);
  return end == std::string::npos ? "" : reply.substr(begin, end - begin);
}

}  // namespace

std::optional<DndBackend> dndBackendNamed(const std::string& name) {
  if (name == "dunst") {
    return DndBackend{"dunst",
                      {"dunstctl", "set-paused", "true"},
                      {"dunstctl", "set-paused", "false"},
                      {"dunstctl", "is-paused"},
                      "true",
                      true};
  }
  if (name == "mako") {
    // Hides notifications only if the person's mako config has a
    // [mode=do-not-disturb] section with invisible=1 (docs/TECH-NOTES.md §8).
    return DndBackend{"mako",
                      {"makoctl", "mode", "-a", "do-not-disturb"},
                      {"makoctl", "mode", "-r", "do-not-disturb"},
                      {"makoctl", "mode"},
                      "do-not-disturb",
                      false};
  }
  if (name == "swaync") {
    return DndBackend{"swaync",
                      {"swaync-client", "-dn"},
                      {"swaync-client", "-df"},
                      {"swaync-client", "-D"},
                      "true",
                      false};
  }
  if (name == "gnome") {
    const std::vector<std::string> key = {"gsettings", "set", "org.gnome.desktop.notifications",
                                          "show-banners"};
    std::vector<std::string> hold = key;
    hold.push_back("false");
    std::vector<std::string> release = key;
    release.push_back("true");
    return DndBackend{
        "gnome", hold,
        release, {"gsettings", "get", "org.gnome.desktop.notifications", "show-banners"},
        "false", false};
  }
  if (name == "xfce") {
    const std::vector<std::string> key = {"xfconf-query", "-c", "xfce4-notifyd", "-p",
                                          "/do-not-disturb"};
    std::vector<std::string> hold = key;
    hold.insert(hold.end(), {"-n", "-t", "bool", "-s", "true"});
    std::vector<std::string> release = key;
    release.insert(release.end(), {"-n", "-t", "bool", "-s", "false"});
    return DndBackend{"xfce", hold, release, key, "true", false};
  }
  return std::nullopt;
}

std::string dndBackendForServer(const std::string& serverName) {
  const std::string name = lower(serverName);
  if (name == "dunst") return "dunst";
  if (name == "mako") return "mako";
  if (name.find("swaync") != std::string::npos ||
      name.find("swaynotificationcenter") != std::string::npos) {
    return "swaync";
  }
  if (name.find("gnome-shell") != std::string::npos || name == "gnome") return "gnome";
  if (name.find("xfce") != std::string::npos) return "xfce";
  return "";
}

int runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
               std::string* out, const std::function<bool()>& stop) {
  if (argv.empty()) return -1;
  Poco::Path found;
  if (argv[0].find('/') == std::string::npos &&
      !Poco::Path::find(Poco::Environment::get("PATH", ""), argv[0], found)) {
    return kExecFailedExitCode;
  }
  try {
    Poco::Pipe outPipe;
    Poco::Pipe errPipe;  // dropped: a failing dbus-send is no log noise
    Poco::ProcessHandle handle =
        Poco::Process::launch(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()),
                              nullptr, &outPipe, &errPipe);
    // The outputs read here are a few lines, far below a pipe's buffer, so
    // reading after the exit cannot deadlock.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int exitCode = handle.tryWait();
    while (exitCode == -1 && std::chrono::steady_clock::now() < deadline && !(stop && stop())) {
      std::this_thread::sleep_for(kPollInterval);
      exitCode = handle.tryWait();
    }
    std::string firstLine;
    if (exitCode == -1) {
      if (out != nullptr && stop && stop()) {
        // Stopped early: what it was about to print (notify-send -p's id) is kept.
        firstLine = readFirstLine(outPipe.readHandle(), kFirstLineGrace);
      }
      Poco::Process::kill(handle);
      handle.wait();
    }
    if (out != nullptr) {
      Poco::PipeInputStream stream(outPipe);
      std::ostringstream text;
      text << stream.rdbuf();
      *out = firstLine + text.str();
    }
    return exitCode;  // -1 when killed
  } catch (const Poco::Exception&) {
    return -1;
  }
}

std::string notificationServerName() {
  // Without an address dbus-send would try X11 autolaunch and might start a
  // bus of its own: only the bus the daemon was given counts.
  if (Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "").empty()) return "";
  constexpr std::chrono::seconds kTimeout{3};
  std::string reply;
  if (runCommand({"dbus-send", "--session", "--print-reply", "--reply-timeout=2000",
                  "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"},
                 kTimeout, &reply) != 0 ||
      reply.find("boolean true") == std::string::npos) {
    return "";
  }
  reply.clear();
  if (runCommand({"dbus-send", "--session", "--print-reply", "--reply-timeout=2000",
                  "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                  "org.freedesktop.Notifications.GetServerInformation"},
                 kTimeout, &reply) != 0) {
    return "";
  }
  return firstReplyString(reply);
}

std::vector<std::string> notificationServerCapabilities() {
  if (Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "").empty()) return {};
  std::string reply;
  if (runCommand({"dbus-send", "--session", "--print-reply", "--reply-timeout=2000",
                  "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                  "org.freedesktop.Notifications.GetCapabilities"},
                 std::chrono::seconds(3), &reply) != 0) {
    return {};
  }
  // One `string "<capability>"` line per element of the reply's array.
  std::vector<std::string> capabilities;
  std::istringstream lines(reply);
  for (std::string line; std::getline(lines, line);) {
    const std::string value = firstReplyString(line);
    if (!value.empty()) capabilities.push_back(value);
  }
  return capabilities;
}

bool notificationServerHasActions() {
  const std::vector<std::string> capabilities = notificationServerCapabilities();
  return std::find(capabilities.begin(), capabilities.end(), "actions") != capabilities.end();
}

DoNotDisturb::DoNotDisturb(DndBackend backend, std::string storeDir)
    : backend_(std::move(backend)),
      storeDir_(std::move(storeDir)),
      logger_(Poco::Logger::get("antidrift.dnd")) {
  worker_ = std::thread([this] {
    setCurrentThreadName("ad-dnd");
    work();
  });
}

DoNotDisturb::~DoNotDisturb() {
  bool abandoned = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    abandoned = abandoned_;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
  if (!abandoned) {
    std::lock_guard<std::mutex> lock(commandMutex_);
    apply(false);
  }
}

std::string DoNotDisturb::releaseLeftover(const std::string& storeDir) {
  Poco::Logger& logger = Poco::Logger::get("antidrift.dnd");
  std::ifstream in(recordPath(storeDir));
  if (!in) return "";
  std::string name;
  std::getline(in, name);
  name = trim(name);
  const std::optional<DndBackend> backend = dndBackendNamed(name);
  if (!backend) {
    logger.warning(recordPath(storeDir) + " names no known do-not-disturb switch (\"" + name +
                   "\"); removed");
    ::unlink(recordPath(storeDir).c_str());
    return "";
  }
  const int code = runCommand(backend->release, kCommandTimeout);
  if (code != 0) {
    // Kept, so the next start tries again.
    logger.warning("the last run did not end cleanly and left " + name +
                   "'s do-not-disturb on; releasing it failed (" + joined(backend->release) +
                   " exited " + std::to_string(code) + "); will try again at the next start");
    return name;
  }
  logger.warning("the last run did not end cleanly and left " + name +
                 "'s do-not-disturb on; released it");
  ::unlink(recordPath(storeDir).c_str());
  return name;
}

void DoNotDisturb::onState(const State& state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool want = state.runtime == RuntimeState::Active;
    if (want == want_ && !busy_ && applied_ == want) return;
    want_ = want;
  }
  wake_.notify_one();
}

void DoNotDisturb::aroundOwnNotification(const std::function<void()>& send) {
  std::lock_guard<std::mutex> lock(commandMutex_);
  if (!holding_ || !backend_.holdsOwnNotifications) {
    send();
    return;
  }
  const int released = runCommand(backend_.release, kCommandTimeout);
  send();
  if (released == 0) {
    const int held = runCommand(backend_.hold, kCommandTimeout);
    if (held != 0) {
      logger_.warning(joined(backend_.hold) + " exited " + std::to_string(held) +
                      " after AntiDrift's own notification");
    }
  }
}

bool DoNotDisturb::waitUntilSettledForTest(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return settled_.wait_for(lock, timeout, [this] { return !busy_ && applied_ == want_; });
}

void DoNotDisturb::abandonForTest() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    abandoned_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void DoNotDisturb::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || applied_ != want_; });
    if (stopping_) return;
    const bool want = want_;
    busy_ = true;
    lock.unlock();
    {
      std::lock_guard<std::mutex> commands(commandMutex_);
      apply(want);
    }
    lock.lock();
    applied_ = want;
    busy_ = false;
    settled_.notify_all();
  }
}

void DoNotDisturb::apply(bool hold) {
  if (!hold) {
    if (!holding_) {
      heldByPerson_ = false;  // theirs stays as it is; the next session asks again
      return;
    }
    const int code = runCommand(backend_.release, kCommandTimeout);
    holding_ = false;
    if (code != 0) {
      logger_.warning("could not release do-not-disturb: " + joined(backend_.release) + " exited " +
                      std::to_string(code) + " (left recorded; the next start tries again)");
      return;
    }
    removeRecord();
    logger_.information("do-not-disturb released (" + backend_.name + ")");
    return;
  }
  if (holding_ || heldByPerson_) return;
  if (!backend_.query.empty()) {
    std::string out;
    const int code = runCommand(backend_.query, kCommandTimeout, &out);
    if (code == kExecFailedExitCode) {
      logger_.warning("focus.do_not_disturb = " + backend_.name + " but \"" + backend_.query[0] +
                      "\" was not found; notifications are not held");
      return;
    }
    bool already = false;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      already = already || trim(line) == backend_.heldAnswer;
    }
    if (code == 0 && already) {
      heldByPerson_ = true;
      logger_.information("do-not-disturb was already on (" + backend_.name +
                          "); left as the person set it");
      return;
    }
  }
  if (!writeRecord()) return;  // never hold what a crash could not undo
  const int code = runCommand(backend_.hold, kCommandTimeout);
  if (code != 0) {
    logger_.warning("could not hold notifications: " + joined(backend_.hold) + " exited " +
                    std::to_string(code));
    // It may have taken effect before failing: release what we can.
    if (runCommand(backend_.release, kCommandTimeout) == 0) removeRecord();
    return;
  }
  holding_ = true;
  logger_.information("do-not-disturb on while the session runs (" + backend_.name + ")");
}

bool DoNotDisturb::writeRecord() {
  const std::string path = recordPath(storeDir_);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    logger_.warning("cannot write " + path + ": " + std::strerror(errno) +
                    "; notifications are not held");
    return false;
  }
  const std::string text = backend_.name + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    logger_.warning("cannot write " + path + "; notifications are not held");
    ::unlink(path.c_str());
  }
  return ok;
}

void DoNotDisturb::removeRecord() {
  ::unlink(recordPath(storeDir_).c_str());
}

}  // namespace antidrift::notify
