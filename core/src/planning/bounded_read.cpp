#include "planning/bounded_read.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace antidrift::planning::detail {

std::optional<FilePrefix> readPrefix(const std::string& path, std::size_t maxBytes) {
  if (path.empty()) return std::nullopt;
  try {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error) || error) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    FilePrefix prefix;
    prefix.bytes.resize(maxBytes + 1);
    in.read(prefix.bytes.data(), static_cast<std::streamsize>(prefix.bytes.size()));
    if (in.bad()) return std::nullopt;
    const auto got = static_cast<std::size_t>(in.gcount());
    prefix.truncated = got > maxBytes;
    prefix.bytes.resize(prefix.truncated ? maxBytes : got);
    return prefix;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace antidrift::planning::detail
