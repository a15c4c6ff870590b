#include "store/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/Path.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timestamp.h>

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
  try {
    Poco::FileInputStream stream(path, std::ios::in | std::ios::binary);
    std::string content;
    Poco::StreamCopier::copyToString(stream, content);
    if (stream.bad()) {
      throw std::runtime_error("cannot read " + path);
    }
    return content;
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot read " + path + ": " + error.displayText());
  }
}

std::int64_t nowUtcMs() {
  return Poco::Timestamp().epochMicroseconds() / 1000;
}

}  // namespace antidrift::fileio
