#include "server/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Format.h>
#include <Poco/Logger.h>
#include <Poco/NumberParser.h>
#include <Poco/String.h>

namespace antidrift {
namespace {

std::runtime_error ioError(const std::string& what, const std::string& path, int error) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(error));
}

void ensureDirectory(const std::string& directory) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      throw std::runtime_error("store directory " + directory + " is not a directory");
    }
    // docs/SECURITY.md: the store is the person's alone. One that belongs to
    // another user could be swapped or read under us: refuse it. One of ours
    // made looser (the unit's mkdir, a hand-made folder) is tightened.
    if (info.st_uid != ::geteuid()) {
      throw std::runtime_error("store directory " + directory + " belongs to uid " +
                               std::to_string(info.st_uid) + ", not to this user (uid " +
                               std::to_string(::geteuid()) + "): refusing to use it");
    }
    if ((info.st_mode & 077) != 0) {
      if (::chmod(directory.c_str(), 0700) != 0) {
        throw ioError("cannot set mode 0700 on", directory, errno);
      }
      Poco::Logger::get("antidrift.store")
          .warning(Poco::format("store directory %s was mode %04o; tightened to 0700", directory,
                                static_cast<unsigned>(info.st_mode & 07777)));
    }
    return;
  }
  try {
    Poco::File(directory).createDirectories();
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot create the store directory " + directory + ": " +
                             error.displayText());
  }
  if (::chmod(directory.c_str(), 0700) != 0) {
    throw ioError("cannot set mode 0700 on", directory, errno);
  }
}

/// The pid written in the lock file `fd`, 0 when there is none.
long readPid(int fd) {
  char buffer[32] = {};
  const ssize_t count = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (count <= 0) {
    return 0;
  }
  int pid = 0;
  if (!Poco::NumberParser::tryParse(
          Poco::trim(std::string(buffer, static_cast<std::size_t>(count))), pid) ||
      pid < 0) {
    return 0;
  }
  return pid;
}

/// The program name of process `pid` (`/proc/<pid>/comm` without its
/// newline), "" when there is none or it cannot be read.
std::string programName(long pid) {
  if (pid <= 0) return "";
  char buffer[64] = {};
  const std::string path = "/proc/" + std::to_string(pid) + "/comm";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const ssize_t count = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (count <= 0) return "";
  return Poco::trim(std::string(buffer, static_cast<std::size_t>(count)));
}

}  // namespace

bool StoreLockAttempt::heldByDaemon() const {
  return !lock && holderName == StoreLock::kDaemonName;
}

StoreLockAttempt StoreLock::acquireWithin(
    const std::string& directory, std::chrono::milliseconds wait,
    const std::function<bool(std::chrono::milliseconds)>& pause) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  StoreLockAttempt attempt = tryAcquire(directory);
  while (!attempt.lock && !attempt.heldByDaemon()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !pause(std::min(left, kRetryInterval))) break;
    attempt = tryAcquire(directory);
  }
  return attempt;
}

StoreLockAttempt StoreLock::tryAcquire(const std::string& directory) {
  ensureDirectory(directory);
  const std::string path = directory + "/" + kFileName;
  // Never through a symbolic link: a planted `lock -> ~/.bashrc` would be
  // truncated and overwritten with our pid (issue 19 item 6, review L1).
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == ELOOP) {
      throw std::runtime_error("lock file " + path +
                               " is a symbolic link: refusing to follow it (store files are "
                               "never followed)");
    }
    throw ioError("cannot open", path, errno);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid()) {
    ::close(fd);
    throw std::runtime_error("lock file " + path +
                             " is not a regular file of this user: refusing to use it");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    StoreLockAttempt busy;
    if (error == EWOULDBLOCK) {
      busy.holderPid = readPid(fd);
      busy.holderName = programName(busy.holderPid);
      ::close(fd);
      return busy;
    }
    ::close(fd);
    throw ioError("cannot lock", path, error);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd);
    throw ioError("cannot write the pid into", path, error);
  }
  StoreLockAttempt held;
  held.lock.reset(new StoreLock(path, fd));
  return held;
}

StoreLock::~StoreLock() {
  ::close(fd_);
}

}  // namespace antidrift
