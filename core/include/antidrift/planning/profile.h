/// @file profile.h
/// The person's profile, a small private Markdown file that grounds the coach
/// (docs/DESIGN.md §6 "Grounding", `knowledge.profile`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "antidrift/planning/load_status.h"

namespace antidrift::planning {

/// The profile text kept, in bytes (docs/DESIGN.md §6: 4 KiB).
inline constexpr std::size_t kMaxProfileBytes = 4096;
/// At most this many bytes of the file are read before cleaning and capping.
inline constexpr std::size_t kMaxProfileReadBytes = 64 * 1024;

/// A loaded profile. Only `status` and `bytes` may leave the machine's
/// prompt path (docs/DESIGN.md §6: the browser sees status and size, never the text).
struct Profile {
  LoadStatus status = LoadStatus::None;
  std::string text;       ///< valid UTF-8, ≤ kMaxProfileBytes, cut on a character boundary
  std::size_t bytes = 0;  ///< text.size(): the size of what was kept
};

/// The profile kept from a file's raw bytes: invalid UTF-8 → U+FFFD, control
/// characters other than newline/tab dropped, "\r\n" → "\n", then cut to at
/// most kMaxProfileBytes on a UTF-8 character boundary; text that is only
/// whitespace → status None (empty text, 0 bytes). The cleaning rules of
/// docs/DESIGN.md §6 "Grounding", shared by loadProfile and the fuzz target
/// tests/fuzz/planning_fuzz.cpp. Pure; thread-safe; never throws (bar
/// std::bad_alloc).
Profile parseProfile(std::string_view bytes);

/// Reads the regular file at `path`: invalid UTF-8 → U+FFFD, control
/// characters other than newline/tab dropped, "\r\n" → "\n", then cut to at
/// most kMaxProfileBytes on a UTF-8 character boundary. An empty path, a
/// missing file, a directory, a read error or a file with only whitespace →
/// status None (empty text, 0 bytes). Blocking file I/O: call it off the
/// controller's lock. Thread-safe; never throws.
Profile loadProfile(const std::string& path);

}  // namespace antidrift::planning
