#include "antidrift/store/verdict_store.h"

#include <unistd.h>

#include <Poco/DirectoryIterator.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>

#include <stdexcept>
#include <utility>

#include "store/file_io.h"

namespace antidrift {
namespace {

constexpr const char* kFileName = "verdicts.jsonl";
constexpr const char* kTempInfix = ".tmp-";

}  // namespace

FileVerdictStore::FileVerdictStore(std::string directory)
    : directory_(std::move(directory)),
      path_(Poco::Path(Poco::Path::forDirectory(directory_), kFileName).toString()) {}

void FileVerdictStore::save(const std::string& text) {
  fileio::replaceFileDurably(directory_, path_, kTempInfix, text, 0600);
}

std::optional<std::string> FileVerdictStore::load() {
  const std::string prefix = std::string(kFileName) + kTempInfix;
  try {
    if (Poco::File(directory_).exists()) {
      for (Poco::DirectoryIterator it(directory_), end; it != end; ++it) {
        if (it.name().compare(0, prefix.size(), prefix) == 0 && it->isFile()) it->remove();
      }
    }
  } catch (const Poco::Exception&) {
    // Best effort: a stale temp file holds nothing the real file lacks.
  }
  if (!fileio::exists(path_)) return std::nullopt;
  std::int64_t size = 0;
  try {
    size = static_cast<std::int64_t>(Poco::File(path_).getSize());
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot read " + path_ + ": " + error.displayText());
  }
  if (size > kMaxFileBytes) {
    throw std::runtime_error(path_ + " is " + std::to_string(size) + " bytes, more than " +
                             std::to_string(kMaxFileBytes));
  }
  return fileio::readFile(path_);
}

std::string FileVerdictStore::setAside(const std::string& /*why*/) {
  if (!fileio::exists(path_)) return "";
  const std::string target = path_ + ".bad-" + std::to_string(fileio::nowUtcMs());
  try {
    Poco::File(path_).renameTo(target);
  } catch (const Poco::Exception& error) {
    throw std::runtime_error("cannot move " + path_ + " aside: " + error.displayText());
  }
  fileio::syncDirectory(directory_);
  return target;
}

}  // namespace antidrift
