/// @file memory_stores.h
/// In-memory SnapshotStore and AuditSink for Controller tests, plus
/// GoogleMock mocks of both ports.
#pragma once

#include <optional>
#include <stdexcept>
#include <vector>

#include <gmock/gmock.h>

#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"

namespace antidrift::test {

/// Keeps the last snapshot in memory, round-tripped through JSON so tests
/// also exercise serialisation. `failSaves` makes save() throw.
class MemorySnapshotStore final : public SnapshotStore {
 public:
  void save(const Snapshot& snapshot) override {
    if (failSaves) throw std::runtime_error("disk full (test)");
    json = snapshotToJson(snapshot);
    ++saves;
  }
  std::optional<Snapshot> load() override {
    if (!json) return std::nullopt;
    return snapshotFromJson(*json);
  }
  /// The last saved snapshot, parsed.
  Snapshot last() const { return snapshotFromJson(json.value()); }

  std::optional<std::string> json;
  int saves = 0;
  bool failSaves = false;
};

/// Appends to a vector, chaining hashes like the real AuditLog.
/// `failAppends` makes append() throw, `failReads` recent().
class MemoryAuditSink final : public AuditSink {
 public:
  SessionSummary append(const SessionSummary& summary) override {
    if (failAppends) throw std::runtime_error("read-only file system (test)");
    SessionSummary stored = summary;
    stored.prev = records.empty() ? kGenesisHash : records.back().hash;
    stored.hash = computeHash(stored);
    records.push_back(stored);
    return stored;
  }
  std::vector<SessionSummary> recent(std::size_t n) override {
    if (failReads) throw std::runtime_error("input/output error (test)");
    std::vector<SessionSummary> out(records.rbegin(), records.rend());
    if (out.size() > n) out.resize(n);
    return out;
  }

  std::vector<SessionSummary> records;
  bool failAppends = false;
  bool failReads = false;
};

/// GoogleMock mock of the AuditSink port.
class MockAuditSink : public AuditSink {
 public:
  MOCK_METHOD(SessionSummary, append, (const SessionSummary& summary), (override));
  MOCK_METHOD(std::vector<SessionSummary>, recent, (std::size_t n), (override));
};

}  // namespace antidrift::test
