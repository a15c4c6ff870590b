/// @file store_test_support.h
/// Helpers shared by the store tests: a temp directory removed on exit, whole
/// file reads/writes, a directory listing and a file-size limit guard.
#pragma once

#include <signal.h>
#include <sys/resource.h>

#include <Poco/DirectoryIterator.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/Path.h>
#include <Poco/StreamCopier.h>
#include <Poco/TemporaryFile.h>

#include <algorithm>
#include <string>
#include <vector>

namespace antidrift::storetest {

/// A fresh directory under Poco::Path::temp(), removed recursively (by
/// Poco::TemporaryFile) when the object is destroyed.
class TempDirectory {
 public:
  TempDirectory() { directory_.createDirectories(); }
  /// The directory's path, no trailing slash.
  std::string path() const { return directory_.path(); }
  /// `path()/name`.
  std::string file(const std::string& name) const {
    return Poco::Path(Poco::Path::forDirectory(path()), name).toString();
  }

 private:
  Poco::TemporaryFile directory_;
};

/// Whole content of `path` (binary).
inline std::string readWholeFile(const std::string& path) {
  Poco::FileInputStream stream(path, std::ios::in | std::ios::binary);
  std::string content;
  Poco::StreamCopier::copyToString(stream, content);
  return content;
}

/// Replaces `path` with exactly `content`.
inline void writeWholeFile(const std::string& path, const std::string& content) {
  Poco::FileOutputStream stream(path, std::ios::out | std::ios::binary | std::ios::trunc);
  stream << content;
  stream.close();
}

/// Appends `content` to `path` as is.
inline void appendToFile(const std::string& path, const std::string& content) {
  Poco::FileOutputStream stream(path, std::ios::out | std::ios::binary | std::ios::app);
  stream << content;
  stream.close();
}

/// Sorted names of the entries of `directory`.
inline std::vector<std::string> listDirectory(const std::string& directory) {
  std::vector<std::string> names;
  for (Poco::DirectoryIterator it(directory), end; it != end; ++it) {
    names.push_back(it.name());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// While alive, writes past `bytes` in any file fail with EFBIG (RLIMIT_FSIZE;
/// works for root too). SIGXFSZ is ignored meanwhile so the process survives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    previousHandler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limited);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, previousHandler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  void (*previousHandler_)(int) = nullptr;
};

}  // namespace antidrift::storetest
