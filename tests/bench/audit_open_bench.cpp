// Writes a large, properly chained audit.jsonl for tests/bench/audit_open.sh
// (issue 19 item 6): the daemon must start on a 1 GB log in under a second
// and under 50 MB, because AuditLog::open reads only the tail.
//   build/tests/bench/bench_audit_open_write <store dir> <megabytes>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include <Poco/DigestEngine.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/SHA2Engine.h>

#include "antidrift/store/audit_log.h"

namespace {

using namespace antidrift;

/// A realistic detailed record: 200 timeline spans, as a long session has.
SessionSummary sampleSummary(std::int64_t index) {
  SessionSummary summary;
  summary.id = "0f8e6c1a-3b7d-4e0f-9a2b-" + std::to_string(100000000000 + index);
  summary.startedAtMs = 1700000000000 + index * 3'600'000;
  summary.endedAtMs = summary.startedAtMs + 1'800'000;
  summary.nextAction = "Add page transitions to the chango.dev Gatsby site";
  summary.successCondition = "Transitions work between blog pages";
  summary.timeboxSecs = 1500;
  summary.outcome = Outcome::Completed;
  summary.switches = 12;
  summary.topBuckets = {{"code", 1200}, {"firefox", 300}, {"qterminal", 200}};
  summary.shape = SummaryShape::Detailed;
  summary.plannedSecs = 1800;
  summary.driftReasons = {"YouTube is not the Gatsby site"};
  summary.recap = "Mostly on task, one detour to YouTube.";
  summary.carryForward = "Close the browser before starting.";
  for (int span = 0; span < 200; ++span) {
    summary.timeline.push_back(
        {summary.startedAtMs + span * 9'000, summary.startedAtMs + (span + 1) * 9'000,
         span % 3 ? "code" : "firefox", span % 3 ? SpanStatus::OnTask : SpanStatus::Drifting});
  }
  return summary;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: bench_audit_open_write <store dir> <megabytes>\n";
    return 64;
  }
  const std::string directory = argv[1];
  const std::int64_t bytes = std::atoll(argv[2]) * 1024 * 1024;
  Poco::File(directory).createDirectories();
  // One record's text with placeholders for prev and hash: each record is
  // then string substitution plus one SHA-256, not a JSON build (the chain
  // is real: every prev is the previous record's hash).
  const std::string prevMark(64, 'p');
  const std::string hashMark(64, 'q');
  SessionSummary summary = sampleSummary(0);
  summary.prev = prevMark;
  const std::string canonical = canonicalJson(summary);
  summary.hash = hashMark;
  const std::string line = toJsonLine(summary) + "\n";
  const std::size_t canonicalPrev = canonical.find(prevMark);
  const std::size_t linePrev = line.find(prevMark);
  const std::size_t lineHash = line.find(hashMark);
  Poco::FileOutputStream out(directory + "/audit.jsonl");
  std::string prev = kGenesisHash;
  std::int64_t written = 0;
  std::int64_t records = 0;
  std::string text = canonical;
  std::string record = line;
  while (written < bytes) {
    text.replace(canonicalPrev, 64, prev);
    Poco::SHA2Engine engine(Poco::SHA2Engine::SHA_256);
    engine.update(text);
    const std::string hash = Poco::DigestEngine::digestToHex(engine.digest());
    record.replace(linePrev, 64, prev);
    record.replace(lineHash, 64, hash);
    out << record;
    written += static_cast<std::int64_t>(record.size());
    ++records;
    prev = hash;
  }
  out.close();
  std::cout << "wrote " << records << " chained records, " << written << " bytes, to " << directory
            << "/audit.jsonl" << std::endl;
  return 0;
}
