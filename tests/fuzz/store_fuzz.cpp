// Fuzz target: the on-disk formats read back at start (DESIGN §9):
// snapshotFromJson (snapshot.json) and summaryFromJsonLine (one audit.jsonl
// line). Properties: bad input throws std::runtime_error and nothing else (the
// daemon turns it into a clear start-up error); what parses serialises and
// parses again to the same text (a restart never changes what was restored),
// and an audit record re-serialised keeps its canonical form.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

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
  return 0;
}
