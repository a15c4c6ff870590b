#include "store/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Timestamp.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace antidrift::fileio {

std::string systemError(const std::string& operation, const std::string& path) {
  return "cannot " + operation + " " + path + ": " + std::strerror(errno);
}

void ensureDirectory(const std::string& directory) {
  try {
    Poco::File dir(directory);
    if (dir.exists()) {
      if (!dir.isDirectory()) {
        throw std::runtime_error("data directory " + directory + " exists but is not a directory");
      }
      return;
    }
    Poco::Path parent(directory);
    parent.makeDirectory();
    parent.popDirectory();
    if (parent.depth() > 0) {
      Poco::File(parent).createDirectories();
    }
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot create data directory " + directory + ": " +
                             error.displayText());
  }
  // Poco::File::createDirectory has no mode argument; the data directory must
  // be 0700, so the last component is made with POSIX mkdir.
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error(systemError("create directory", directory));
  }
}

int openStoreFile(const std::string& path, int flags, unsigned mode) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) {
    if (errno == ELOOP) {
      throw std::runtime_error(path + " is a symbolic link; store files are never followed");
    }
    throw std::runtime_error(systemError("open", path));
  }
  struct stat info {};
  std::string problem;
  if (::fstat(fd, &info) != 0) {
    problem = systemError("stat", path);
  } else if (!S_ISREG(info.st_mode)) {
    problem = path + " is not a regular file";
  } else if (info.st_uid != ::geteuid()) {
    problem = path + " belongs to uid " + std::to_string(info.st_uid) + ", not to this user (uid " +
              std::to_string(::geteuid()) + "): refusing to use it";
  } else if ((info.st_mode & 077) != 0 && ::fchmod(fd, 0600) != 0) {
    problem = systemError("set mode 0600 on", path);
  }
  if (!problem.empty()) {
    const int savedErrno = errno;
    ::close(fd);
    errno = savedErrno;
    throw std::runtime_error(problem);
  }
  return fd;
}

bool existsNoFollow(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    return true;
  }
  if (errno == ENOENT || errno == ENOTDIR) {
    return false;
  }
  throw std::runtime_error(systemError("stat", path));
}

bool exists(const std::string& path) {
  try {
    return Poco::File(path).exists();
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot access " + path + ": " + error.displayText());
  }
}

void syncDirectory(const std::string& directory) {
  // Poco has no fsync; a directory fsync needs a POSIX descriptor.
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(systemError("open directory", directory));
  }
  const int result = ::fsync(fd);
  const int savedErrno = errno;
  ::close(fd);
  if (result != 0) {
    errno = savedErrno;
    throw std::runtime_error(systemError("fsync directory", directory));
  }
}

void writeAll(int fd, const std::string& data, const std::string& path) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t result = ::write(fd, data.data() + written, data.size() - written);
    if (result < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw std::runtime_error(systemError("write", path));
    }
    written += static_cast<std::size_t>(result);
  }
}

void replaceFileDurably(const std::string& directory, const std::string& path,
                        const std::string& tempInfix, const std::string& data, unsigned mode) {
  static std::atomic<unsigned> tempCounter{0};
  ensureDirectory(directory);
  // The temp file lives in the same directory so the rename is atomic.
  const std::string tempPath = path + tempInfix + std::to_string(::getpid()) + "-" +
                               std::to_string(tempCounter.fetch_add(1));
  writeNewFileDurably(tempPath, data, mode);
  try {
    Poco::File(tempPath).renameTo(path);
  } catch (const Poco::Exception& error) {
    try {
      Poco::File(tempPath).remove();
    } catch (const Poco::Exception&) {
      // Best effort: the rename error below is the one to report.
    }
    throw std::runtime_error("cannot replace " + path + ": " + error.displayText());
  }
  syncDirectory(directory);
}

void writeNewFileDurably(const std::string& path, const std::string& data, unsigned mode) {
  // POSIX instead of Poco::FileOutputStream: the descriptor is needed for fsync.
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) {
    throw std::runtime_error(systemError("create", path));
  }
  try {
    writeAll(fd, data, path);
    if (::fsync(fd) != 0) {
      throw std::runtime_error(systemError("fsync", path));
    }
  } catch (...) {
    ::close(fd);
    ::unlink(path.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const std::string message = systemError("close", path);
    ::unlink(path.c_str());
    throw std::runtime_error(message);
  }
}

std::string readFile(const std::string& path) {
  // POSIX instead of Poco::FileInputStream: O_NOFOLLOW and fstat (review L1).
  const int fd = openStoreFile(path, O_RDONLY);
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      const std::string message = systemError("read", path);
      ::close(fd);
      throw std::runtime_error(message);
    }
    if (count == 0) break;
    content.append(buffer, static_cast<std::size_t>(count));
  }
  ::close(fd);
  return content;
}

std::int64_t nowUtcMs() {
  return Poco::Timestamp().epochMicroseconds() / 1000;
}

}  // namespace antidrift::fileio
