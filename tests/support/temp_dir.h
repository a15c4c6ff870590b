/// @file temp_dir.h
/// Test helpers shared by the unit, integration and end-to-end tests: a
/// temporary directory removed with everything in it, and whole-file reads and
/// writes, all on Poco (TemporaryFile, FileStream, StreamCopier).
#pragma once

#include <Poco/FileStream.h>
#include <Poco/Path.h>
#include <Poco/StreamCopier.h>
#include <Poco/TemporaryFile.h>

#include <sstream>
#include <string>
#include <vector>

namespace antidrift::test {

/// A fresh directory under Poco::Path::temp(), removed recursively (by
/// Poco::TemporaryFile, errors ignored) when the object is destroyed.
/// Not copyable. Throws Poco::FileException if it cannot be created.
class TempDirectory {
 public:
  TempDirectory() { directory_.createDirectories(); }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  /// The directory's path, no trailing slash.
  std::string path() const { return directory_.path(); }
  /// `path()/name`.
  std::string file(const std::string& name) const {
    return Poco::Path(Poco::Path::forDirectory(path()), name).toString();
  }

 private:
  Poco::TemporaryFile directory_;
};

/// Whole content of `path` (binary). Throws Poco::FileException if it cannot be opened.
inline std::string readWholeFile(const std::string& path) {
  Poco::FileInputStream stream(path, std::ios::in | std::ios::binary);
  std::string content;
  Poco::StreamCopier::copyToString(stream, content);
  return content;
}

/// The lines of `path` without their '\n' (std::getline: a final '\n' ends the last line
/// rather than starting an empty one). Throws Poco::FileException if it cannot be opened.
inline std::vector<std::string> readLines(const std::string& path) {
  std::istringstream in(readWholeFile(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

/// Replaces `path` with exactly `content` (binary). Throws Poco::FileException
/// if it cannot be opened.
inline void writeWholeFile(const std::string& path, const std::string& content) {
  Poco::FileOutputStream stream(path, std::ios::out | std::ios::binary | std::ios::trunc);
  stream << content;
  stream.close();
}

/// Appends `content` to `path` as is. Throws Poco::FileException if it cannot be opened.
inline void appendToFile(const std::string& path, const std::string& content) {
  Poco::FileOutputStream stream(path, std::ios::out | std::ios::binary | std::ios::app);
  stream << content;
  stream.close();
}

}  // namespace antidrift::test
