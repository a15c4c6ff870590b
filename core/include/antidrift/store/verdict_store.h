/// @file verdict_store.h
/// Where the verdict memory (drift::VerdictMemory, issue 16 item 3) is kept
/// across restarts: a port, and verdicts.jsonl in the data directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace antidrift {

/// Port: the verdict memory's file. Implementations are called with the
/// Controller's mutex held, one call at a time.
class VerdictStore {
 public:
  virtual ~VerdictStore() = default;
  /// Replaces the stored text with `text` durably. Throws std::runtime_error
  /// on I/O failure (the Controller logs it and tries again after the next change).
  virtual void save(const std::string& text) = 0;
  /// The stored text, or nullopt when none exists. Throws std::runtime_error
  /// when it cannot be read or is larger than the store accepts.
  virtual std::optional<std::string> load() = 0;
  /// Moves the stored text out of the way (it is corrupt or oversized:
  /// `why`), so the next save starts afresh and nothing is lost for good.
  /// Returns where it went ("" when nothing was there). Throws std::runtime_error on failure.
  virtual std::string setAside(const std::string& why) = 0;
};

/// verdicts.jsonl in a directory (store.dir), mode 0600, written like
/// snapshot.json: temp file in the same directory, fsync, rename over the
/// old file, fsync the directory (docs/DESIGN.md §9). Creates the directory (0700).
class FileVerdictStore final : public VerdictStore {
 public:
  /// A file larger than this is refused by load() (and then set aside):
  /// far above what kDefaultMaxEntries entries take (~3 MB).
  static constexpr std::int64_t kMaxFileBytes = 32 * 1024 * 1024;
  /// `directory`: the data directory. Touches no file.
  explicit FileVerdictStore(std::string directory);
  /// Writes verdicts.jsonl atomically and durably. Throws std::runtime_error
  /// naming the path on I/O failure; the old file is then left as it was.
  void save(const std::string& text) override;
  /// Reads verdicts.jsonl (nullopt when absent), after removing temp files a
  /// crash left. Throws std::runtime_error naming the path when it cannot be
  /// read or is larger than kMaxFileBytes.
  std::optional<std::string> load() override;
  /// Renames verdicts.jsonl to verdicts.jsonl.bad-<UTC ms>; returns that path.
  std::string setAside(const std::string& why) override;
  /// Full path of verdicts.jsonl.
  const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string path_;
};

}  // namespace antidrift
