/// @file token_file.h
/// <store.dir>/token: the secret the served page carries and every mutating
/// request must send (DESIGN §10).
#pragma once

#include <string>

namespace antidrift {

/// What TokenFile::loadOrCreate found and did, so the daemon can log it.
struct TokenFileResult {
  std::string token;                  ///< 64 lower-case hex characters (or an existing valid token)
  bool created = false;               ///< no usable token existed; a new one was written
  bool replacedInvalid = false;       ///< an existing file was not a valid token and was replaced
  bool permissionsTightened = false;  ///< the file was readable by others and is now 0600
};

/// Reads or creates the token file. Stateless; every method is thread-safe
/// with respect to other processes only as far as rename(2) is atomic.
class TokenFile {
 public:
  /// The file name inside the store directory.
  static constexpr const char* kFileName = "token";
  /// Shortest token accepted from an existing file, in hex characters.
  static constexpr std::size_t kMinimumHexChars = 32;

  /// Returns the token of `<directory>/token`. Creates the directory (0700)
  /// when missing. A missing, empty or invalid file (not ≥ 32 hex characters
  /// after trimming) is replaced by 32 random bytes (Poco::RandomInputStream)
  /// as 64 hex characters, written to a temporary file with mode 0600,
  /// fsynced and renamed into place. An existing file with group/other
  /// permissions is chmod-ed to 0600. Throws std::runtime_error naming the
  /// path on I/O failure.
  static TokenFileResult loadOrCreate(const std::string& directory);

  /// A fresh random token: 64 lower-case hex characters. Thread-safe.
  static std::string generate();
};

}  // namespace antidrift
