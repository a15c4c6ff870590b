/// @file store_test_support.h
/// Helpers shared by the store tests: a directory listing and a file-size
/// limit guard, plus the temp directory and whole-file helpers of
/// support/temp_dir.h under their store-test names.
#pragma once

#include <signal.h>
#include <sys/resource.h>

#include <Poco/DirectoryIterator.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace antidrift::storetest {

using test::appendToFile;
using test::readLines;
using test::readWholeFile;
using test::TempDirectory;
using test::writeWholeFile;

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
