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
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "antidrift/store/ai_cost_json.h"
#include "antidrift/text/utf8.h"
#include "store/file_io.h"
#include "store/json_fields.h"

namespace antidrift {

const std::string kGenesisHash(64, '0');

namespace {

using jsonfields::requireArray;
using jsonfields::requireInt;
using jsonfields::requireObject;
using jsonfields::requireObjectAt;
using jsonfields::requireString;
using jsonfields::validUtf8;

constexpr const char* kFileName = "audit.jsonl";
/// verify()'s problem for a last line that open() would move aside (docs/DESIGN.md §9).
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
  object.set("outcome", std::string(toString(summary.outcome)));
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
  if (summary.aiCost.calls > 0) object.set("ai_cost", *aiCostToJson(summary.aiCost));
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
  if (summary.driftBySite) {  // issue 17 item 5
    Poco::JSON::Array sites;
    for (const SiteDrift& site : *summary.driftBySite) {
      Poco::JSON::Object item;
      item.set("where", validUtf8(site.where));
      item.set("drift_secs", Poco::Int64(site.driftMs / 1000));
      item.set("visits", Poco::Int64(site.visits));
      sites.add(item);
    }
    object.set("drift_by_site", sites);
  }
  if (summary.longestStretch) {
    Poco::JSON::Object longest;
    longest.set("secs", Poco::Int64(summary.longestStretch->onTaskMs / 1000));
    longest.set("start", Poco::Int64(summary.longestStretch->startMs));
    longest.set("end", Poco::Int64(summary.longestStretch->endMs));
    object.set("longest_on_task", longest);
  }
  return object;
}

/// Valid UTF-8 `text` cut to at most `maxChars` code points.
std::string capText(const std::string& text, std::size_t maxChars) {
  return text::cutCodePoints(validUtf8(text), maxChars);
}

std::optional<SessionSummary> tryParse(const std::string& line) {
  try {
    return summaryFromJsonLine(line);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

/// Reads exactly `length` bytes of `fd` at `offset` into `out` (resized).
/// Throws std::runtime_error naming `path` on a read error or a short file.
void preadExactly(int fd, off_t offset, std::size_t length, std::string& out,
                  const std::string& path) {
  out.resize(length);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t count = ::pread(fd, &out[done], length - done, offset + static_cast<off_t>(done));
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      if (count == 0) errno = EIO;
      throw std::runtime_error(fileio::systemError("read", path));
    }
    done += static_cast<std::size_t>(count);
  }
}

/// Offset just after the last '\n' before `end` in `fd` (0 when none),
/// reading backwards in kBackwardBlockBytes blocks and at most `limit`
/// bytes; std::nullopt when no '\n' lies within `limit` bytes of `end`.
std::optional<off_t> lineStartBefore(int fd, off_t end, std::size_t limit,
                                     const std::string& path) {
  std::string block;
  off_t position = end;
  std::size_t scanned = 0;
  while (position > 0) {
    if (scanned >= limit) return std::nullopt;
    const std::size_t length = static_cast<std::size_t>(
        std::min<off_t>(position, static_cast<off_t>(kBackwardBlockBytes)));
    position -= static_cast<off_t>(length);
    preadExactly(fd, position, length, block, path);
    if (const void* found = ::memrchr(block.data(), '\n', length)) {
      return position + (static_cast<const char*>(found) - block.data()) + 1;
    }
    scanned += length;
  }
  return 0;
}

/// Calls `onLine(line, complete)` for every line of the open file `fd`
/// from its start, reading kBackwardBlockBytes at a time, so memory stays
/// bounded by kMaxAuditLineBytes whatever the file's size (issue 19 item 6).
/// `complete` is false for a last line with no '\n'. A line over
/// kMaxAuditLineBytes is passed as std::nullopt (it cannot be a record).
template <typename OnLine>
void forEachLine(int fd, const std::string& path, OnLine onLine) {
  std::string block(kBackwardBlockBytes, '\0');
  std::string line;
  bool oversize = false;
  for (;;) {
    const ssize_t count = ::read(fd, &block[0], block.size());
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) throw std::runtime_error(fileio::systemError("read", path));
    if (count == 0) break;
    std::size_t start = 0;
    const std::size_t length = static_cast<std::size_t>(count);
    while (start < length) {
      const void* found = std::memchr(block.data() + start, '\n', length - start);
      const std::size_t end =
          found ? static_cast<std::size_t>(static_cast<const char*>(found) - block.data()) : length;
      if (!oversize) {
        if (line.size() + (end - start) > kMaxAuditLineBytes) {
          oversize = true;
          line.clear();
          line.shrink_to_fit();
        } else {
          line.append(block, start, end - start);
        }
      }
      if (!found) break;
      onLine(oversize ? std::nullopt : std::optional<std::string>(std::move(line)), true);
      line.clear();
      oversize = false;
      start = end + 1;
    }
  }
  if (oversize || !line.empty()) {
    onLine(oversize ? std::nullopt : std::optional<std::string>(std::move(line)), false);
  }
}

/// The `hash` field of a complete line that is a JSON object but not a
/// record this version knows (a newer version's record), when it is 64
/// lowercase hex characters; std::nullopt otherwise.
std::optional<std::string> foreignRecordHash(const std::string& line) {
  try {
    const Poco::JSON::Object::Ptr object = jsonfields::parseObject(line);
    if (!object->has("hash") || !object->get("hash").isString()) return std::nullopt;
    const std::string hash = object->getValue<std::string>("hash");
    if (hash.size() != 64 || hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return std::nullopt;
    }
    return hash;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Copies bytes [from, end) of `fd` into the new file `target` (O_EXCL,
/// 0600) in bounded blocks, then fsyncs it. Throws std::runtime_error.
void copyTailDurably(int fd, off_t from, off_t end, const std::string& path,
                     const std::string& target) {
  const int out =
      ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (out < 0) throw std::runtime_error(fileio::systemError("create", target));
  try {
    std::string block;
    for (off_t position = from; position < end;) {
      const std::size_t length = static_cast<std::size_t>(
          std::min<off_t>(end - position, static_cast<off_t>(kBackwardBlockBytes)));
      preadExactly(fd, position, length, block, path);
      fileio::writeAll(out, block, target);
      position += static_cast<off_t>(length);
    }
    if (::fsync(out) != 0) throw std::runtime_error(fileio::systemError("fsync", target));
  } catch (...) {
    ::close(out);
    ::unlink(target.c_str());
    throw;
  }
  ::close(out);
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
    if (object->has("ai_cost")) {
      summary.aiCost = aiCostFromJson(*jsonfields::requireObject(*object, "ai_cost", context));
    }
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
    if (object->has("drift_by_site")) {  // issue 17 item 5; absent before it
      const Poco::JSON::Array::Ptr sites = requireArray(*object, "drift_by_site", context);
      summary.driftBySite.emplace();
      for (std::size_t index = 0; index < sites->size(); ++index) {
        const std::string field = "drift_by_site[" + std::to_string(index) + "].";
        const Poco::JSON::Object::Ptr item = requireObjectAt(*sites, index, "drift_by_site");
        summary.driftBySite->push_back(SiteDrift{requireString(*item, "where", field),
                                                 requireInt(*item, "drift_secs", field) * 1000,
                                                 requireInt(*item, "visits", field)});
      }
    }
    if (object->has("longest_on_task")) {
      const Poco::JSON::Object::Ptr longest = requireObject(*object, "longest_on_task", context);
      const std::string field = "longest_on_task.";
      summary.longestStretch =
          OnTaskStretch{requireInt(*longest, "secs", field) * 1000,
                        requireInt(*longest, "start", field), requireInt(*longest, "end", field)};
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
  if (summary.driftBySite) {
    if (summary.driftBySite->size() > kMaxSummarySites)
      summary.driftBySite->resize(kMaxSummarySites);
    for (SiteDrift& site : *summary.driftBySite) {
      site.where = capText(site.where, kMaxSummaryAppChars);
    }
  }
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
  // Issue 19 item 6 (review L4): only the tail is read at start, so a log of
  // any size opens in bounded time and memory; verify() checks the chain.
  AuditOpenReport report;
  fileio::ensureDirectory(directory_);
  lastHash_ = kGenesisHash;
  lastHashKnown_ = false;
  if (!fileio::existsNoFollow(path_)) {
    lastHashKnown_ = true;
    return report;
  }
  const int fd = fileio::openStoreFile(path_, O_RDWR);
  try {
    struct stat info {};
    if (::fstat(fd, &info) != 0) throw std::runtime_error(fileio::systemError("stat", path_));
    off_t size = info.st_size;
    std::string last;
    if (size > 0) preadExactly(fd, size - 1, 1, last, path_);
    if (size > 0 && last[0] != '\n') {
      // A torn tail (no '\n': a crash mid-append). Keep its bytes first, then
      // cut them off: nothing is lost even if we crash in between.
      const off_t tornStart = *lineStartBefore(fd, size, SIZE_MAX, path_);
      const std::string base = path_ + ".torn-" + std::to_string(fileio::nowUtcMs());
      std::string tornPath = base;
      for (int attempt = 2; fileio::existsNoFollow(tornPath); ++attempt) {
        tornPath = base + "-" + std::to_string(attempt);
      }
      copyTailDurably(fd, tornStart, size, path_, tornPath);
      if (::ftruncate(fd, tornStart) != 0 || ::fsync(fd) != 0) {
        throw std::runtime_error(fileio::systemError("truncate", path_));
      }
      fileio::syncDirectory(directory_);
      report.tornLineMovedTo = tornPath;
      size = tornStart;
    }
    if (size > 0) {
      // The last complete line: the chain head the next record links to.
      const std::optional<off_t> lineStart =
          lineStartBefore(fd, size - 1, kMaxAuditLineBytes + 1, path_);
      std::string line;
      if (lineStart) {
        preadExactly(fd, *lineStart, static_cast<std::size_t>(size - 1 - *lineStart), line, path_);
      }
      const std::optional<SessionSummary> summary =
          lineStart ? tryParse(line) : std::optional<SessionSummary>();
      if (summary) {
        lastHash_ = summary->hash;
        report.lastRecordChecked = true;
        if (computeHash(*summary) != summary->hash) {
          report.lastLineProblem = "the last record's hash does not match its content (altered)";
        }
      } else {
        // Complete (it ends in '\n'), so not a torn write: corruption or a
        // newer version's record. Never truncated; reported (review L4).
        const std::optional<std::string> foreign =
            lineStart ? foreignRecordHash(line) : std::nullopt;
        if (foreign) {
          lastHash_ = *foreign;
          report.lastLineProblem =
              "the last line is a record this version does not know (a newer antidriftd?); "
              "left in place and chained after";
        } else {
          report.lastLineProblem =
              lineStart ? "the last line is complete but does not parse: corruption, left in place"
                        : "the last line is over " + std::to_string(kMaxAuditLineBytes) +
                              " bytes: corruption, left in place";
          const std::vector<SessionSummary> recent = recentSessions(path_, 1);
          if (!recent.empty()) lastHash_ = recent.front().hash;
        }
      }
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
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

  const bool existed = fileio::existsNoFollow(path_);
  // POSIX instead of Poco::FileOutputStream: the descriptor is needed for
  // fsync; never through a symbolic link, tightened to 0600 (review L1).
  const int fd = fileio::openStoreFile(path_, O_WRONLY | O_APPEND | O_CREAT, 0600);
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
  if (!fileio::existsNoFollow(path)) return result;
  const int fd = fileio::openStoreFile(path, O_RDONLY);
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

namespace {

/// verify() and readVerifiedHistory() in one streaming pass: memory bounded
/// by kMaxAuditLineBytes (plus `sessions` when given). Never throws.
AuditVerification scanChain(const std::string& path, std::vector<SessionSummary>* sessions,
                            const std::atomic<bool>* cancel = nullptr) {
  AuditVerification result;
  int fd = -1;
  try {
    if (!fileio::existsNoFollow(path)) return result;
    fd = fileio::openStoreFile(path, O_RDONLY);
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
  std::optional<std::string> previousHash = kGenesisHash;  // nullopt after a malformed line
  std::size_t lineNumber = 0;
  try {
    forEachLine(fd, path, [&](std::optional<std::string> line, bool complete) {
      ++lineNumber;
      if (cancel && *cancel) throw std::runtime_error("the check was cancelled");
      if (!complete) {
        // Only a line without its '\n' is a torn write (review L4).
        fail(lineNumber, kTornLineProblem);
        return;
      }
      SessionSummary summary;
      try {
        if (!line) {
          throw std::runtime_error("line over " + std::to_string(kMaxAuditLineBytes) + " bytes");
        }
        summary = summaryFromJsonLine(*line);
      } catch (const std::runtime_error& error) {
        const std::string what = error.what();
        fail(lineNumber, what.rfind("malformed JSON", 0) == 0 ? what : "malformed record: " + what);
        previousHash.reset();
        return;
      }
      ++result.records;
      std::string problem;
      if (computeHash(summary) != summary.hash) {
        problem = "hash mismatch (record altered)";
      }
      if (previousHash && summary.prev != *previousHash) {
        if (!problem.empty()) problem += "; ";
        problem += lineNumber == 1
                       ? "prev is not the genesis hash (64 zeros)"
                       : "prev does not match line " + std::to_string(lineNumber - 1) + "'s hash";
      }
      if (!problem.empty()) fail(lineNumber, problem);
      previousHash = summary.hash;
      if (sessions && result.ok) sessions->push_back(std::move(summary));
    });
  } catch (const std::exception& error) {
    ::close(fd);
    result.ok = false;
    result.firstBadLine.reset();
    result.problem = error.what();
    if (sessions) sessions->clear();
    return result;
  }
  ::close(fd);
  return result;
}

}  // namespace

VerifiedHistory readVerifiedHistory(const std::string& path) {
  VerifiedHistory history;
  history.verification = scanChain(path, &history.sessions);
  return history;
}

AuditVerification AuditLog::verify(const std::string& path, const std::atomic<bool>* cancel) {
  return scanChain(path, nullptr, cancel);
}

}  // namespace antidrift
