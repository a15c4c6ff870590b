#include "server/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <Poco/Exception.h>
#include <Poco/File.h>
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

}  // namespace

StoreLockAttempt StoreLock::tryAcquire(const std::string& directory) {
  ensureDirectory(directory);
  const std::string path = directory + "/" + kFileName;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw ioError("cannot open", path, errno);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    StoreLockAttempt busy;
    if (error == EWOULDBLOCK) {
      busy.holderPid = readPid(fd);
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
