/// @file bounded_read.h
/// Private helper of the planning loaders: read at most N bytes of a file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace antidrift::planning::detail {

/// The first bytes of a file read by readPrefix.
struct FilePrefix {
  std::string bytes;       ///< at most the requested number of bytes
  bool truncated = false;  ///< the file had more bytes than were read
};

/// Reads at most `maxBytes` bytes of the regular file at `path`. nullopt for
/// an empty path, a missing file, a non-regular file (directory, device) or
/// any read error. Thread-safe; never throws.
std::optional<FilePrefix> readPrefix(const std::string& path, std::size_t maxBytes);

}  // namespace antidrift::planning::detail
