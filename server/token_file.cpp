#include "server/token_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include <Poco/DigestEngine.h>
#include <Poco/File.h>
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

/// Writes `content` and a newline to `path` atomically with mode 0600.
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
    throw ioError("cannot rename the new file to", path);
  }
  // The rename is durable only once the directory is synced (review L10).
  const std::string directory = path.substr(0, path.rfind('/'));
  const int dir =
      ::open(directory.empty() ? "/" : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    throw ioError("cannot open directory", directory);
  }
  const bool dirSynced = ::fsync(dir) == 0;
  ::close(dir);
  if (!dirSynced) {
    throw ioError("cannot fsync directory", directory);
  }
}

/// getrandom(2), not Poco::RandomInputStream: Poco falls back to a
/// time-seeded SHA-1 when /dev/urandom cannot be opened (review L10).
long kernelEntropy(unsigned char* buffer, std::size_t length) {
  return static_cast<long>(::getrandom(buffer, length, 0));
}

}  // namespace

std::string TokenFile::generate(const EntropySource& source) {
  Poco::DigestEngine::Digest bytes(kRandomBytes);
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const long count = source(bytes.data() + filled, bytes.size() - filled);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      // Fail closed (issue 19 item 7, review L10): never a weaker fallback.
      throw std::runtime_error(std::string("cannot get random bytes for the token from the kernel "
                                           "(getrandom): ") +
                               (count < 0 ? std::strerror(errno) : "no bytes"));
    }
    filled += static_cast<std::size_t>(count);
  }
  return Poco::DigestEngine::digestToHex(bytes);
}

std::string TokenFile::generate() {
  return generate(kernelEntropy);
}

std::string TokenFile::rotate(const std::string& directory, const EntropySource& source) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw std::runtime_error("store directory " + directory +
                             " does not exist: there is no token to rotate");
  }
  // Drawn before anything is written: without randomness nothing changes.
  const std::string token = generate(source);
  writeToken(directory + "/" + kFileName, token);
  return token;
}

std::string TokenFile::rotate(const std::string& directory) {
  return rotate(directory, kernelEntropy);
}

std::vector<std::string> TokenFile::recordPageTag(const std::string& directory,
                                                  const std::string& tag) {
  const std::string path = directory + "/" + kPageTagsFileName;
  std::vector<std::string> earlier;
  if (tag.empty()) return earlier;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    struct stat info {};
    std::string content;
    // Another user's file or a link is not ours to trust: it is replaced.
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid()) {
      char buffer[256];
      ssize_t count = 0;
      while (content.size() < 4096 && (count = ::read(fd, buffer, sizeof buffer)) != 0) {
        if (count < 0) {
          if (errno == EINTR) continue;
          break;
        }
        content.append(buffer, static_cast<std::size_t>(count));
      }
    }
    ::close(fd);
    std::size_t start = 0;
    while (start < content.size()) {
      std::size_t end = content.find('\n', start);
      if (end == std::string::npos) end = content.size();
      const std::string line = Poco::trim(content.substr(start, end - start));
      start = end + 1;
      const bool valid =
          line.size() == 8 && line.find_first_not_of("0123456789abcdef") == std::string::npos;
      if (!valid || line == tag) continue;
      earlier.erase(std::remove(earlier.begin(), earlier.end(), line), earlier.end());
      earlier.push_back(line);
    }
  }
  if (earlier.size() >= kMaxPageTags) {
    earlier.erase(earlier.begin(),
                  earlier.begin() + static_cast<std::ptrdiff_t>(earlier.size() - kMaxPageTags + 1));
  }
  std::string lines;
  for (const std::string& line : earlier) lines += line + "\n";
  lines += tag;
  writeToken(path, lines);
  return earlier;
}

TokenFileResult TokenFile::loadOrCreate(const std::string& directory) {
  ensureDirectory(directory);
  const std::string path = directory + "/" + kFileName;
  TokenFileResult result;

  // Never through a symbolic link, and only a regular file of ours
  // (issue 19 item 6, review L1).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    struct stat info {};
    std::string content;
    bool ok = ::fstat(fd, &info) == 0;
    if (ok && (!S_ISREG(info.st_mode) || info.st_uid != ::geteuid())) {
      ::close(fd);
      throw std::runtime_error("token file " + path +
                               " is not a regular file of this user: refusing to use it");
    }
    char buffer[256];
    for (ssize_t count = 0; ok && (count = ::read(fd, buffer, sizeof buffer)) != 0;) {
      if (count < 0) {
        ok = errno == EINTR;
        continue;
      }
      if (content.size() < 4096) content.append(buffer, static_cast<std::size_t>(count));
    }
    const std::string token = Poco::trim(content);
    if (ok && isValidToken(token)) {
      if ((info.st_mode & 077) != 0) {
        if (::fchmod(fd, 0600) != 0) {
          ::close(fd);
          throw ioError("cannot set mode 0600 on", path);
        }
        result.permissionsTightened = true;
      }
      ::close(fd);
      result.token = token;
      return result;
    }
    ::close(fd);
    if (!ok) throw ioError("cannot read", path);
    result.replacedInvalid = true;
  } else if (errno == ELOOP) {
    throw std::runtime_error("token file " + path +
                             " is a symbolic link: refusing to follow it (store files are never "
                             "followed)");
  } else if (errno != ENOENT) {
    throw ioError("cannot open", path);
  }

  result.token = generate();
  writeToken(path, result.token);
  result.created = true;
  return result;
}

}  // namespace antidrift
