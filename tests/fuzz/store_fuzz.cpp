// Fuzz target: the on-disk formats read back at start (docs/DESIGN.md §9):
// snapshotFromJson (snapshot.json) and summaryFromJsonLine (one audit.jsonl
// line). Properties: bad input throws std::runtime_error and nothing else (the
// daemon turns it into a clear start-up error); what parses serialises and
// parses again to the same text (a restart never changes what was restored),
// and an audit record re-serialised keeps its canonical form. verdicts.jsonl
// (drift::VerdictMemory::parse, issue 16 item 3): refused with
// std::runtime_error or read with bad lines skipped, never more entries than
// its bound, and what it read writes and reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "antidrift/drift/verdict_memory.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::asText(data, size));

  std::optional<Snapshot> snapshot;
  try {
    snapshot = snapshotFromJson(text);
  } catch (const std::runtime_error&) {
    // Refused with a message naming the field: the documented answer.
  }
  if (snapshot) {
    const std::string written = snapshotToJson(*snapshot);
    std::optional<Snapshot> again;
    try {
      again = snapshotFromJson(written);
    } catch (const std::runtime_error&) {
      fuzz::check(false, "snapshotToJson output always parses back (snapshot.h)");
    }
    fuzz::check(snapshotToJson(*again) == written,
                "a restored snapshot saves and restores unchanged (snapshot.h)");
  }

  std::optional<SessionSummary> summary;
  try {
    summary = summaryFromJsonLine(text);
  } catch (const std::runtime_error&) {
    // "malformed JSON" or the field at fault: the documented answer.
  }
  if (summary) {
    const std::string line = toJsonLine(*summary);
    std::optional<SessionSummary> again;
    try {
      again = summaryFromJsonLine(line);
    } catch (const std::runtime_error&) {
      fuzz::check(false, "toJsonLine output always parses back (audit_log.h)");
    }
    fuzz::check(canonicalJson(*again) == canonicalJson(*summary),
                "an audit record keeps its canonical form through a re-write (audit_log.h)");
  }
  for (const std::string& candidate :
       {text, std::string(drift::VerdictMemory::kHeader) + "\n" + text}) {
    std::optional<drift::VerdictMemory::Parsed> parsed;
    try {
      parsed.emplace(drift::VerdictMemory::parse(candidate, 8));
    } catch (const std::runtime_error&) {
      // Not a verdicts file: set aside by the daemon.
    }
    if (!parsed) continue;
    fuzz::check(parsed->memory.size() <= 8, "the memory keeps its bound (verdict_memory.h)");
    const std::string written = parsed->memory.serialize();
    std::optional<drift::VerdictMemory::Parsed> again;
    try {
      again.emplace(drift::VerdictMemory::parse(written, 8));
    } catch (const std::runtime_error&) {
      fuzz::check(false, "serialize() output always parses back (verdict_memory.h)");
    }
    fuzz::check(again->skippedLines == 0 && again->memory.serialize() == written,
                "remembered verdicts write and read back unchanged (verdict_memory.h)");
  }
  return 0;
}
