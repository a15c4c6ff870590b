/// @file verdict_file.h
/// The verdict memory with its file (issue 16 item 3): the remembered
/// verdicts, the VerdictStore they are written to, and what is written
/// already. Private to core/src/session/ (the Controller owns one and guards
/// it with its mutex; not synchronised itself). The memory is lent to the
/// drift engine by address: a VerdictFile is neither copied nor moved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "antidrift/drift/verdict_memory.h"
#include "antidrift/store/verdict_store.h"

namespace antidrift::session {

class VerdictFile {
 public:
  /// An empty memory of at most `maxEntries` (≥ 1) verdicts, no file.
  explicit VerdictFile(std::size_t maxEntries) : memory_(maxEntries) {}
  VerdictFile(const VerdictFile&) = delete;
  VerdictFile& operator=(const VerdictFile&) = delete;

  /// The memory (what the drift engine is lent).
  drift::VerdictMemory& memory() { return memory_; }
  const drift::VerdictMemory& memory() const { return memory_; }

  /// Connects `store` (nullptr: memory only) and loads it. A file that
  /// cannot be read, is oversized or is not a verdicts file is set aside
  /// (VerdictStore::setAside) with a log line and the memory starts empty;
  /// bad lines are skipped and counted in the log. Never throws.
  void connect(VerdictStore* store);
  /// Whether the memory has changes its file does not have yet.
  bool unsaved() const;
  /// Writes the memory if unsaved (a failure is logged; the next write tries
  /// again) and clears the deferred write.
  void saveIfUnsaved();
  /// When unsaved and no write is scheduled, schedules one at `dueMono`
  /// (monotonic ms): write-behind, coalescing every change until then.
  void scheduleIfUnsaved(std::int64_t dueMono);
  /// Monotonic ms of the deferred write; nullopt: none.
  const std::optional<std::int64_t>& dueMono() const { return dueMono_; }

  /// What forget() did.
  enum class Forgot { Done, NotFound, WriteFailed };
  /// Forgets the verdict of `key` (or every one when nullopt) and writes the
  /// file at once; a failed write puts the memory back as it was.
  Forgot forget(const std::optional<std::string>& key);

 private:
  drift::VerdictMemory memory_;
  VerdictStore* store_ = nullptr;        ///< the file; nullptr: not persisted
  std::uint64_t savedVersion_ = 0;       ///< memory_.version() last written
  std::optional<std::int64_t> dueMono_;  ///< monotonic ms of the deferred write
};

}  // namespace antidrift::session
