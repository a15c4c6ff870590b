#include "antidrift/store/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Poco/DigestEngine.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/Path.h>
#include <Poco/SHA2Engine.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "store/file_io.h"
#include "store/json_fields.h"

namespace antidrift {

const std::string kGenesisHash(64, '0');

namespace {

using jsonfields::requireArray;
using jsonfields::requireInt;
using jsonfields::requireObjectAt;
using jsonfields::requireString;
using jsonfields::validUtf8;

constexpr const char* kFileName = "audit.jsonl";
/// verify()'s problem for a last line that open() would move aside (DESIGN §9).
constexpr const char* kTornLineProblem =
    "torn last line (a crash mid-append; the daemon moves it aside on its next start)";

Poco::JSON::Object summaryToObject(const SessionSummary& summary) {
  Poco::JSON::Object object;
  object.set("id", validUtf8(summary.id));
  object.set("started_at", Poco::Int64(summary.startedAtMs));
  object.set("ended_at", Poco::Int64(summary.endedAtMs));
  object.set("next_action", validUtf8(summary.nextAction));
  object.set("success_condition", validUtf8(summary.successCondition));
  object.set("timebox_secs", Poco::Int64(summary.timeboxSecs));
  object.set("outcome", toString(summary.outcome));
  object.set("switches", Poco::Int64(summary.switches));
  Poco::JSON::Array buckets;
  for (const auto& [app, secs] : summary.topBuckets) {
    Poco::JSON::Object bucket;
    bucket.set("app", validUtf8(app));
    bucket.set("secs", Poco::Int64(secs));
    buckets.add(bucket);
  }
  object.set("top_buckets", buckets);
  object.set("drift_episodes", Poco::Int64(summary.driftEpisodes));
  object.set("prev", validUtf8(summary.prev));
  if (summary.shape == SummaryShape::Basic) return object;
  object.set("planned_secs", Poco::Int64(summary.plannedSecs));
  object.set("extended_secs", Poco::Int64(summary.extendedSecs));
  object.set("drift_secs", Poco::Int64(summary.driftSecs));
  object.set("away_secs", Poco::Int64(summary.awaySecs));
  object.set("on_task_secs", Poco::Int64(summary.onTaskSecs));
  object.set("corrections", Poco::Int64(summary.corrections));
  Poco::JSON::Array reasons;
  for (const std::string& reason : summary.driftReasons) reasons.add(validUtf8(reason));
  object.set("drift_reasons", reasons);
  object.set("success", validUtf8(summary.success));
  object.set("note", validUtf8(summary.note));
  object.set("recap", validUtf8(summary.recap));
  object.set("carry_forward", validUtf8(summary.carryForward));
  Poco::JSON::Array spans;
  for (const TimelineSpan& span : summary.timeline) {
    Poco::JSON::Object item;
    item.set("start", Poco::Int64(span.startMs));
    item.set("end", Poco::Int64(span.endMs));
    item.set("app", validUtf8(span.app));
    item.set("status", std::string(toString(span.status)));
    spans.add(item);
  }
  object.set("timeline", spans);
  return object;
}

/// Valid UTF-8 `text` cut to at most `maxChars` code points.
std::string capText(const std::string& text, std::size_t maxChars) {
  const std::string valid = validUtf8(text);
  std::size_t chars = 0;
  for (std::size_t index = 0; index < valid.size(); ++index) {
    if ((static_cast<unsigned char>(valid[index]) & 0xC0) != 0x80 && chars++ == maxChars) {
      return valid.substr(0, index);
    }
  }
  return valid;
}

/// The lines of `content`: split on '\n'; a final '\n' ends the last line
/// rather than starting an empty one.
std::vector<std::string> splitLines(const std::string& content) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < content.size()) {
    const std::size_t end = content.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(content.substr(start));
      break;
    }
    lines.push_back(content.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::optional<SessionSummary> tryParse(const std::string& line) {
  try {
    return summaryFromJsonLine(line);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

/// Offset where the torn last line of `content` starts, or content.size()
/// when the last line is complete: it ends in '\n' and parses (DESIGN §9).
std::size_t tornLineStart(const std::string& content) {
  if (content.empty()) {
    return 0;
  }
  if (content.back() != '\n') {
    const std::size_t newline = content.rfind('\n');
    return newline == std::string::npos ? 0 : newline + 1;
  }
  const std::size_t lineEnd = content.size() - 1;
  const std::size_t newline = lineEnd == 0 ? std::string::npos : content.rfind('\n', lineEnd - 1);
  const std::size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
  if (tryParse(content.substr(lineStart, lineEnd - lineStart))) {
    return content.size();
  }
  return lineStart;
}

/// Hash of the last record of `content` that parses; genesis when none does.
std::string lastHashOf(const std::string& content) {
  const std::vector<std::string> lines = splitLines(content);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (const std::optional<SessionSummary> summary = tryParse(*it)) {
      return summary->hash;
    }
  }
  return kGenesisHash;
}

/// Cuts `path` to `length` bytes and fsyncs it (POSIX: Poco has no fsync).
void truncateDurably(const std::string& path, std::size_t length) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(fileio::systemError("open", path));
  }
  const bool ok = ::ftruncate(fd, static_cast<off_t>(length)) == 0 && ::fsync(fd) == 0;
  const std::string message = ok ? "" : fileio::systemError("truncate", path);
  ::close(fd);
  if (!ok) {
    throw std::runtime_error(message);
  }
}

}  // namespace

std::string canonicalJson(const SessionSummary& summary) {
  return jsonfields::stringify(summaryToObject(summary));
}

std::string computeHash(const SessionSummary& summary) {
  Poco::SHA2Engine engine(Poco::SHA2Engine::SHA_256);
  engine.update(canonicalJson(summary));
  return Poco::DigestEngine::digestToHex(engine.digest());
}

std::string toJsonLine(const SessionSummary& summary) {
  Poco::JSON::Object object = summaryToObject(summary);
  object.set("hash", validUtf8(summary.hash));
  return jsonfields::stringify(object);
}

SessionSummary summaryFromJsonLine(const std::string& line) {
  const Poco::JSON::Object::Ptr object = jsonfields::parseObject(line);
  const std::string context;
  SessionSummary summary;
  summary.id = requireString(*object, "id", context);
  summary.startedAtMs = requireInt(*object, "started_at", context);
  summary.endedAtMs = requireInt(*object, "ended_at", context);
  summary.nextAction = requireString(*object, "next_action", context);
  summary.successCondition = requireString(*object, "success_condition", context);
  summary.timeboxSecs = requireInt(*object, "timebox_secs", context);
  const std::string outcomeText = requireString(*object, "outcome", context);
  const std::optional<Outcome> outcome = parseOutcome(outcomeText);
  if (!outcome) {
    throw std::runtime_error("field \"outcome\" has unknown value \"" + outcomeText + "\"");
  }
  summary.outcome = *outcome;
  summary.switches = requireInt(*object, "switches", context);
  const Poco::JSON::Array::Ptr buckets = requireArray(*object, "top_buckets", context);
  for (std::size_t index = 0; index < buckets->size(); ++index) {
    const std::string field = "top_buckets[" + std::to_string(index) + "].";
    const Poco::JSON::Object::Ptr bucket = requireObjectAt(*buckets, index, "top_buckets");
    summary.topBuckets.emplace_back(requireString(*bucket, "app", field),
                                    requireInt(*bucket, "secs", field));
  }
  summary.driftEpisodes = requireInt(*object, "drift_episodes", context);
  summary.shape = object->has("planned_secs") ? SummaryShape::Detailed : SummaryShape::Basic;
  if (summary.shape == SummaryShape::Detailed) {
    summary.plannedSecs = requireInt(*object, "planned_secs", context);
    summary.extendedSecs = requireInt(*object, "extended_secs", context);
    summary.driftSecs = requireInt(*object, "drift_secs", context);
    summary.awaySecs = requireInt(*object, "away_secs", context);
    summary.onTaskSecs = requireInt(*object, "on_task_secs", context);
    summary.corrections = requireInt(*object, "corrections", context);
    const Poco::JSON::Array::Ptr reasons = requireArray(*object, "drift_reasons", context);
    for (std::size_t index = 0; index < reasons->size(); ++index) {
      summary.driftReasons.push_back(jsonfields::requireStringAt(*reasons, index, "drift_reasons"));
    }
    summary.success = requireString(*object, "success", context);
    summary.note = requireString(*object, "note", context);
    summary.recap = requireString(*object, "recap", context);
    summary.carryForward = requireString(*object, "carry_forward", context);
    const Poco::JSON::Array::Ptr spans = requireArray(*object, "timeline", context);
    for (std::size_t index = 0; index < spans->size(); ++index) {
      const std::string field = "timeline[" + std::to_string(index) + "].";
      const Poco::JSON::Object::Ptr item = requireObjectAt(*spans, index, "timeline");
      TimelineSpan span;
      span.startMs = requireInt(*item, "start", field);
      span.endMs = requireInt(*item, "end", field);
      span.app = requireString(*item, "app", field);
      const std::string status = requireString(*item, "status", field);
      const std::optional<SpanStatus> parsed = parseSpanStatus(status);
      if (!parsed) {
        throw std::runtime_error("field \"" + field + "status\" has unknown value \"" + status +
                                 "\"");
      }
      span.status = *parsed;
      summary.timeline.push_back(std::move(span));
    }
  }
  summary.prev = requireString(*object, "prev", context);
  summary.hash = requireString(*object, "hash", context);
  return summary;
}

SessionSummary capSummary(SessionSummary summary) {
  if (summary.driftReasons.size() > kMaxSummaryDriftReasons) {
    summary.driftReasons.resize(kMaxSummaryDriftReasons);
  }
  for (std::string& reason : summary.driftReasons) {
    reason = capText(reason, kMaxSummaryReasonChars);
  }
  if (summary.timeline.size() > kMaxSummarySpans) {
    // Keep the whole session covered: the last span ends where the session did.
    const std::int64_t end = summary.timeline.back().endMs;
    summary.timeline.resize(kMaxSummarySpans);
    summary.timeline.back().endMs = end;
  }
  for (TimelineSpan& span : summary.timeline) span.app = capText(span.app, kMaxSummaryAppChars);
  summary.note = capText(summary.note, kMaxSummaryTextChars);
  summary.recap = capText(summary.recap, kMaxSummaryTextChars);
  summary.carryForward = capText(summary.carryForward, kMaxSummaryTextChars);
  return summary;
}

std::string describeVerification(const AuditVerification& verification) {
  const std::string records =
      std::to_string(verification.records) + " record" + (verification.records == 1 ? "" : "s");
  if (verification.ok) {
    return "ok: " + records + ", chain intact";
  }
  std::string text = "broken";
  if (verification.firstBadLine) {
    text += " at line " + std::to_string(*verification.firstBadLine);
  }
  return text + ": " + verification.problem + " (" + records + " well-formed)";
}

AuditLog::AuditLog(std::string directory)
    : directory_(std::move(directory)),
      path_(Poco::Path(Poco::Path::forDirectory(directory_), kFileName).toString()) {}

AuditOpenReport AuditLog::open() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recoverLocked();
}

AuditOpenReport AuditLog::recoverLocked() {
  AuditOpenReport report;
  fileio::ensureDirectory(directory_);
  if (!fileio::exists(path_)) {
    lastHash_ = kGenesisHash;
    lastHashKnown_ = true;
    return report;
  }

  std::string content = fileio::readFile(path_);
  const std::size_t goodLength = tornLineStart(content);
  if (goodLength < content.size()) {
    // Keep the torn bytes first, then cut them off: nothing is lost even if
    // we crash in between (the next start finds the same torn line again).
    const std::string torn = content.substr(goodLength);
    const std::string base = path_ + ".torn-" + std::to_string(fileio::nowUtcMs());
    std::string tornPath = base;
    for (int attempt = 2; fileio::exists(tornPath); ++attempt) {
      tornPath = base + "-" + std::to_string(attempt);
    }
    fileio::writeNewFileDurably(tornPath, torn, 0600);
    truncateDurably(path_, goodLength);
    fileio::syncDirectory(directory_);
    content.resize(goodLength);
    report.tornLineMovedTo = tornPath;
  }

  report.verification = verify(path_);
  lastHash_ = lastHashOf(content);
  lastHashKnown_ = true;
  return report;
}

SessionSummary AuditLog::append(const SessionSummary& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lastHashKnown_) {
    recoverLocked();
  }
  SessionSummary stored = summary;
  stored.prev = lastHash_;
  stored.hash = computeHash(stored);
  const std::string json = toJsonLine(stored);
  // Return exactly what a reader will get back (text made valid UTF-8).
  stored = summaryFromJsonLine(json);
  const std::string line = json + "\n";

  const bool existed = fileio::exists(path_);
  // POSIX instead of Poco::FileOutputStream: the descriptor is needed for fsync.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw std::runtime_error(fileio::systemError("open", path_));
  }
  struct stat before {};
  if (::fstat(fd, &before) != 0) {
    const std::string message = fileio::systemError("stat", path_);
    ::close(fd);
    throw std::runtime_error(message);
  }
  try {
    fileio::writeAll(fd, line, path_);
    if (::fsync(fd) != 0) {
      throw std::runtime_error(fileio::systemError("fsync", path_));
    }
  } catch (...) {
    // Undo a partial line so the chain stays clean. Best effort: if this
    // fails too, the next open() moves the torn line aside.
    if (::ftruncate(fd, before.st_size) != 0) {
      // The write error being rethrown is the one to report.
    }
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!existed) {
    fileio::syncDirectory(directory_);
  }
  lastHash_ = stored.hash;
  return stored;
}

std::vector<SessionSummary> AuditLog::recent(std::size_t n) {
  // No lock: appends only add whole lines at the end, and a line being
  // appended has no '\n' yet, so it is skipped as a torn tail.
  return recentSessions(path_, n);
}

std::vector<SessionSummary> recentSessions(const std::string& path, std::size_t n) {
  std::vector<SessionSummary> result;
  if (n == 0) return result;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return result;
    throw std::runtime_error(fileio::systemError("open", path));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const std::string message = fileio::systemError("stat", path);
    ::close(fd);
    throw std::runtime_error(message);
  }
  off_t position = info.st_size;
  // The bytes after the last '\n' seen so far, i.e. the start of a line whose
  // beginning is in an earlier block. At the end of the file it is the torn tail.
  std::string pending;
  bool tail = true;       // `pending` is still the file's last, unterminated part
  bool skipping = false;  // the current line is over kMaxAuditLineBytes
  std::string block(kBackwardBlockBytes, '\0');
  const auto take = [&](std::string line) {
    if (skipping) {
      skipping = false;
      return;
    }
    if (std::optional<SessionSummary> summary = tryParse(line)) {
      result.push_back(std::move(*summary));
    }
  };
  while (position > 0 && result.size() < n) {
    const std::size_t length =
        static_cast<std::size_t>(std::min<off_t>(position, static_cast<off_t>(block.size())));
    position -= static_cast<off_t>(length);
    std::size_t done = 0;
    while (done < length) {
      const ssize_t count =
          ::pread(fd, &block[done], length - done, position + static_cast<off_t>(done));
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) {
        const std::string message = fileio::systemError("read", path);
        ::close(fd);
        throw std::runtime_error(message);
      }
      done += static_cast<std::size_t>(count);
    }
    // Lines in this block, from its end backwards.
    std::size_t end = length;
    while (end > 0 && result.size() < n) {
      const void* found = ::memrchr(block.data(), '\n', end);
      if (found == nullptr) break;
      const std::size_t newline =
          static_cast<std::size_t>(static_cast<const char*>(found) - block.data());
      std::string line = block.substr(newline + 1, end - newline - 1) + pending;
      pending.clear();
      if (tail) {
        tail = false;  // the part after the file's last '\n' is a torn tail
        skipping = false;
      } else {
        take(std::move(line));
      }
      end = newline;
    }
    if (result.size() >= n) break;
    if (pending.size() + end > kMaxAuditLineBytes) {
      skipping = true;  // too long to be a record: drop what we hold of it
      pending.clear();
    } else {
      pending.insert(0, block.data(), end);
    }
  }
  if (position == 0 && result.size() < n && !tail) {
    take(std::move(pending));  // the file's first line
  }
  ::close(fd);
  return result;
}

VerifiedHistory readVerifiedHistory(const std::string& path) {
  VerifiedHistory history;
  history.verification = AuditLog::verify(path);
  const AuditVerification& verification = history.verification;
  if (!verification.ok && !verification.firstBadLine) return history;  // unreadable
  std::string content;
  try {
    if (!fileio::exists(path)) return history;
    content = fileio::readFile(path);
  } catch (const std::exception& error) {
    history.verification.ok = false;
    history.verification.firstBadLine.reset();
    history.verification.problem = error.what();
    return history;
  }
  const std::vector<std::string> lines = splitLines(content.substr(0, tornLineStart(content)));
  const std::size_t sound = verification.firstBadLine
                                ? std::min(lines.size(), *verification.firstBadLine - 1)
                                : lines.size();
  for (std::size_t index = 0; index < sound; ++index) {
    if (std::optional<SessionSummary> summary = tryParse(lines[index])) {
      history.sessions.push_back(std::move(*summary));
    }
  }
  return history;
}

AuditVerification AuditLog::verify(const std::string& path) {
  AuditVerification result;
  std::string content;
  try {
    if (!fileio::exists(path)) {
      return result;
    }
    content = fileio::readFile(path);
  } catch (const std::exception& error) {
    result.ok = false;
    result.problem = error.what();
    return result;
  }

  auto fail = [&result](std::size_t lineNumber, std::string problem) {
    if (result.ok) {
      result.ok = false;
      result.firstBadLine = lineNumber;
      result.problem = std::move(problem);
    }
  };

  // A torn last line (no '\n', or it does not parse) is checked apart: it is
  // named as such only when everything before it is sound.
  const std::size_t goodLength = tornLineStart(content);
  const std::vector<std::string> lines = splitLines(content.substr(0, goodLength));
  std::optional<std::string> previousHash = kGenesisHash;  // nullopt after a malformed line
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::size_t lineNumber = index + 1;
    SessionSummary summary;
    try {
      summary = summaryFromJsonLine(lines[index]);
    } catch (const std::runtime_error& error) {
      const std::string what = error.what();
      fail(lineNumber, what.rfind("malformed JSON", 0) == 0 ? what : "malformed record: " + what);
      previousHash.reset();
      continue;
    }
    ++result.records;
    std::string problem;
    if (computeHash(summary) != summary.hash) {
      problem = "hash mismatch (record altered)";
    }
    if (previousHash && summary.prev != *previousHash) {
      if (!problem.empty()) {
        problem += "; ";
      }
      problem += lineNumber == 1
                     ? "prev is not the genesis hash (64 zeros)"
                     : "prev does not match line " + std::to_string(lineNumber - 1) + "'s hash";
    }
    if (!problem.empty()) {
      fail(lineNumber, problem);
    }
    previousHash = summary.hash;
  }
  if (goodLength < content.size()) {
    fail(lines.size() + 1, kTornLineProblem);
  }
  return result;
}

}  // namespace antidrift
