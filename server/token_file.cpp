#include "server/token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <Poco/DigestEngine.h>
#include <Poco/File.h>
#include <Poco/RandomStream.h>
#include <Poco/String.h>

namespace antidrift {
namespace {

constexpr std::size_t kRandomBytes = 32;

std::runtime_error ioError(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

bool isValidToken(const std::string& text) {
  if (text.size() < TokenFile::kMinimumHexChars) {
    return false;
  }
  for (char c : text) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) {
      return false;
    }
  }
  return true;
}

void ensureDirectory(const std::string& directory) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      throw std::runtime_error("store directory " + directory + " is not a directory");
    }
    return;
  }
  Poco::File(directory).createDirectories();
  if (::chmod(directory.c_str(), 0700) != 0) {
    throw ioError("cannot set mode 0700 on", directory);
  }
}

/// Writes `token` to `path` atomically with mode 0600.
void writeToken(const std::string& path, const std::string& token) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  ::unlink(temporary.c_str());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw ioError("cannot create", temporary);
  }
  const std::string line = token + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const bool synced = written && ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) {
    ::unlink(temporary.c_str());
    throw ioError("cannot write", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw ioError("cannot rename the token file to", path);
  }
}

}  // namespace

std::string TokenFile::generate() {
  Poco::RandomInputStream random;
  Poco::DigestEngine::Digest bytes(kRandomBytes);
  random.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (random.gcount() != static_cast<std::streamsize>(bytes.size())) {
    throw std::runtime_error("cannot read random bytes for the token");
  }
  return Poco::DigestEngine::digestToHex(bytes);
}

TokenFileResult TokenFile::loadOrCreate(const std::string& directory) {
  ensureDirectory(directory);
  const std::string path = directory + "/" + kFileName;
  TokenFileResult result;

  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    std::ifstream in(path);
    if (!in) {
      throw ioError("cannot read", path);
    }
    std::ostringstream content;
    content << in.rdbuf();
    const std::string token = Poco::trim(content.str());
    if (isValidToken(token)) {
      if ((info.st_mode & 077) != 0) {
        if (::chmod(path.c_str(), 0600) != 0) {
          throw ioError("cannot set mode 0600 on", path);
        }
        result.permissionsTightened = true;
      }
      result.token = token;
      return result;
    }
    result.replacedInvalid = true;
  } else if (errno != ENOENT) {
    throw ioError("cannot stat", path);
  }

  result.token = generate();
  writeToken(path, result.token);
  result.created = true;
  return result;
}

}  // namespace antidrift
