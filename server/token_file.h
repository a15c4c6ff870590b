/// @file token_file.h
/// <store.dir>/token: the secret the served page carries and every mutating
/// request must send (docs/DESIGN.md §10).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

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
  /// after trimming) is replaced by generate(), written to a temporary file
  /// with mode 0600, fsynced, renamed into place and the directory fsynced.
  /// An existing file with group/other permissions is tightened to 0600.
  /// The file is never read through a symbolic link (O_NOFOLLOW) and must be
  /// a regular file of this user (issue 19 item 6). Throws
  /// std::runtime_error naming the path on I/O failure, a symbolic link,
  /// another user's file, or no kernel randomness.
  static TokenFileResult loadOrCreate(const std::string& directory);

  /// Replaces `<directory>/token` with a fresh token and returns it (`antidrift
  /// token --rotate`, POST /token/rotate; issue 19 item 7): generate() (fail
  /// closed, never a weaker fallback), written like a new token (a temporary
  /// file created O_EXCL with mode 0600, fsynced, renamed into place, the
  /// directory fsynced), so a reader sees the old token or the new one, never
  /// a mix. rename(2) replaces the name itself: a symbolic link at the path is
  /// never followed. The directory must exist. Throws std::runtime_error
  /// naming the cause (no kernel randomness, I/O) with the old file left as
  /// it was. Safe against concurrent readers; two concurrent rotations are
  /// the caller's to serialise (the daemon holds a mutex, the CLI the store
  /// lock).
  static std::string rotate(const std::string& directory);

  /// Fills `buffer` with up to `length` random bytes; returns how many, or
  /// -1 with errno set (the shape of getrandom(2)).
  using EntropySource = std::function<long(unsigned char* buffer, std::size_t length)>;

  /// A fresh random token: 32 bytes of getrandom(2) as 64 lower-case hex
  /// characters. Throws std::runtime_error when the kernel gives none: never
  /// a weaker fallback (issue 19 item 7, review L10). Thread-safe.
  static std::string generate();
  /// generate() from `source` (tests inject a failing one). Short reads are
  /// retried; 0 bytes or an error other than EINTR throws. Thread-safe when
  /// `source` is.
  static std::string generate(const EntropySource& source);
  /// rotate() with the token drawn from `source` (tests inject a failing one).
  static std::string rotate(const std::string& directory, const EntropySource& source);

  /// The file, inside the store directory, of the own-page tags this store
  /// has served (drift::ownPageTag of each token a daemon started with),
  /// oldest first, one a line.
  static constexpr const char* kPageTagsFileName = "page-tags";
  /// Tags kept in kPageTagsFileName, the current one included.
  static constexpr std::size_t kMaxPageTags = 4;

  /// Records `tag` (the tag the daemon now serves) as the newest line of
  /// `<directory>/page-tags` and returns the earlier tags found there, oldest
  /// first, without `tag`: a tab opened before a token rotation and a restart
  /// still carries one of them, and is still AntiDrift's own page until it
  /// reloads. Keeps the last kMaxPageTags; lines that are not 8 lower-case hex
  /// digits are dropped. Written like the token (0600, atomic, never through a
  /// symbolic link, only a regular file of this user is read; anything else
  /// is ignored and replaced). Throws std::runtime_error naming the path on
  /// I/O failure. Called once at start, before the server listens.
  static std::vector<std::string> recordPageTag(const std::string& directory,
                                                const std::string& tag);
};

}  // namespace antidrift
