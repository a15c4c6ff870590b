#include "antidrift/store/snapshot.h"

#include <stdio.h>
#include <unistd.h>

#include <Poco/DirectoryIterator.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/Logger.h>
#include <Poco/Path.h>

#include <map>
#include <stdexcept>
#include <utility>

#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/store/ai_cost_json.h"
#include "antidrift/text/utf8.h"
#include "store/file_io.h"
#include "store/json_fields.h"

namespace antidrift {
namespace {

using jsonfields::requireArray;
using jsonfields::requireInt;
using jsonfields::requireObject;
using jsonfields::requireObjectAt;
using jsonfields::requireString;
using jsonfields::requireStringAt;
using jsonfields::validUtf8;

constexpr const char* kFileName = "snapshot.json";
constexpr const char* kTempInfix = ".tmp-";

Poco::JSON::Object commitmentToJson(const Commitment& commitment) {
  Poco::JSON::Object object;
  object.set("id", validUtf8(commitment.id));
  object.set("next_action", validUtf8(commitment.nextAction));
  object.set("success_condition", validUtf8(commitment.successCondition));
  object.set("timebox_secs", Poco::Int64(commitment.timeboxSecs));
  object.set("started_at", Poco::Int64(commitment.startedAtMs));
  object.set("deadline", Poco::Int64(commitment.deadlineMs));
  Poco::JSON::Array apps;
  for (const std::string& app : commitment.allowedApps) {
    apps.add(validUtf8(app));
  }
  object.set("allowed_apps", apps);
  Poco::JSON::Array titles;
  for (const AllowedTitle& allowed : commitment.allowedTitles) {
    Poco::JSON::Object title;
    title.set("app", validUtf8(allowed.app));
    title.set("title", validUtf8(allowed.title));
    titles.add(title);
  }
  object.set("allowed_titles", titles);
  Poco::JSON::Array sites;  // issue 17 item 4
  for (const AllowedSite& allowed : commitment.allowedSites) {
    Poco::JSON::Object site;
    site.set("app", validUtf8(allowed.app));
    site.set("site", validUtf8(allowed.site));
    site.set("domain", allowed.domain);
    sites.add(site);
  }
  object.set("allowed_sites", sites);
  object.set("extended_secs", Poco::Int64(commitment.extendedSecs));
  return object;
}

Commitment commitmentFromJson(const Poco::JSON::Object& object) {
  const std::string context = "commitment.";
  Commitment commitment;
  commitment.id = requireString(object, "id", context);
  commitment.nextAction = requireString(object, "next_action", context);
  commitment.successCondition = requireString(object, "success_condition", context);
  commitment.timeboxSecs = requireInt(object, "timebox_secs", context);
  commitment.startedAtMs = requireInt(object, "started_at", context);
  commitment.deadlineMs = requireInt(object, "deadline", context);
  const Poco::JSON::Array::Ptr apps = requireArray(object, "allowed_apps", context);
  for (std::size_t index = 0; index < apps->size(); ++index) {
    commitment.allowedApps.push_back(requireStringAt(*apps, index, "commitment.allowed_apps"));
  }
  if (object.has("allowed_titles")) {
    const Poco::JSON::Array::Ptr titles = requireArray(object, "allowed_titles", context);
    for (std::size_t index = 0; index < titles->size(); ++index) {
      const Poco::JSON::Object::Ptr title =
          requireObjectAt(*titles, index, "commitment.allowed_titles");
      const std::string where = "commitment.allowed_titles[" + std::to_string(index) + "].";
      commitment.allowedTitles.push_back(
          AllowedTitle{requireString(*title, "app", where), requireString(*title, "title", where)});
    }
  }
  if (object.has("allowed_sites")) {  // absent in a snapshot written before issue 17 item 4
    const Poco::JSON::Array::Ptr sites = requireArray(object, "allowed_sites", context);
    for (std::size_t index = 0; index < sites->size(); ++index) {
      const Poco::JSON::Object::Ptr site =
          requireObjectAt(*sites, index, "commitment.allowed_sites");
      const std::string where = "commitment.allowed_sites[" + std::to_string(index) + "].";
      const Poco::Dynamic::Var domain = site->get("domain");
      if (!domain.isBoolean()) throw std::runtime_error(where + "domain must be a boolean");
      commitment.allowedSites.push_back(AllowedSite{requireString(*site, "app", where),
                                                    requireString(*site, "site", where),
                                                    domain.extract<bool>()});
    }
  }
  if (object.has("extended_secs")) {
    commitment.extendedSecs = requireInt(object, "extended_secs", context);
  }
  return commitment;
}

Poco::JSON::Object statsToJson(const SessionStats& stats) {
  Poco::JSON::Object object;
  // Two names that differ only in invalid bytes become one key; add them up.
  std::map<std::string, std::int64_t> validBuckets;
  for (const auto& [app, ms] : stats.bucketsMs) {
    validBuckets[validUtf8(app)] += ms;
  }
  Poco::JSON::Object buckets;
  for (const auto& [app, ms] : validBuckets) {
    buckets.set(app, Poco::Int64(ms));
  }
  object.set("buckets_ms", buckets);
  object.set("switches", Poco::Int64(stats.switches));
  object.set("drift_episodes", Poco::Int64(stats.driftEpisodes));
  object.set("drift_ms", Poco::Int64(stats.driftMs));
  object.set("away_ms", Poco::Int64(stats.awayMs));
  object.set("suspended_ms", Poco::Int64(stats.suspendedMs));
  object.set("corrections", Poco::Int64(stats.corrections));
  Poco::JSON::Array reasons;
  for (const std::string& reason : stats.driftReasons) reasons.add(validUtf8(reason));
  object.set("drift_reasons", reasons);
  Poco::JSON::Object aiCalls;
  for (const auto& [role, count] : stats.aiCalls) aiCalls.set(validUtf8(role), Poco::Int64(count));
  object.set("ai_calls", aiCalls);
  object.set("ai_cost", *aiCostToJson(stats.aiCost));
  return object;
}

SessionStats statsFromJson(const Poco::JSON::Object& object) {
  const std::string context = "stats.";
  SessionStats stats;
  const Poco::JSON::Object::Ptr buckets = requireObject(object, "buckets_ms", context);
  for (const std::string& app : buckets->getNames()) {
    stats.bucketsMs[app] = requireInt(*buckets, app, "stats.buckets_ms.");
  }
  stats.switches = requireInt(object, "switches", context);
  stats.driftEpisodes = requireInt(object, "drift_episodes", context);
  stats.driftMs = requireInt(object, "drift_ms", context);
  stats.awayMs = requireInt(object, "away_ms", context);
  if (object.has("suspended_ms")) {
    stats.suspendedMs = requireInt(object, "suspended_ms", context);
  }
  if (object.has("corrections")) stats.corrections = requireInt(object, "corrections", context);
  if (object.has("drift_reasons")) {
    const Poco::JSON::Array::Ptr reasons = requireArray(object, "drift_reasons", context);
    for (std::size_t index = 0; index < reasons->size(); ++index) {
      stats.driftReasons.push_back(requireStringAt(*reasons, index, "stats.drift_reasons"));
    }
  }
  if (object.has("ai_calls")) {
    const Poco::JSON::Object::Ptr aiCalls = requireObject(object, "ai_calls", context);
    for (const std::string& role : aiCalls->getNames()) {
      stats.aiCalls[role] = requireInt(*aiCalls, role, "stats.ai_calls.");
    }
  }
  if (object.has("ai_cost")) {
    stats.aiCost = aiCostFromJson(*requireObject(object, "ai_cost", context));
  }
  return stats;
}

Poco::JSON::Object timelineToJson(const std::vector<TimelineSpan>& spans,
                                  const std::map<std::string, AppSplit>& split) {
  Poco::JSON::Object object;
  Poco::JSON::Array array;
  for (const TimelineSpan& span : spans) {
    Poco::JSON::Object item;
    item.set("start", Poco::Int64(span.startMs));
    item.set("end", Poco::Int64(span.endMs));
    item.set("app", validUtf8(span.app));
    item.set("status", std::string(toString(span.status)));
    // Only when shown (absent = false, as before issue 16): most spans have none, and the
    // snapshot is written on every persisted change.
    if (span.headsUp) item.set("heads_up", true);
    array.add(item);
  }
  object.set("spans", array);
  Poco::JSON::Object apps;
  for (const auto& [app, times] : split) {
    Poco::JSON::Object item;
    item.set("ontask_ms", Poco::Int64(times.onTaskMs));
    item.set("drifting_ms", Poco::Int64(times.driftingMs));
    apps.set(validUtf8(app), item);
  }
  object.set("split", apps);
  return object;
}

void timelineFromJson(const Poco::JSON::Object& object, Snapshot& snapshot) {
  const std::string context = "timeline.";
  const Poco::JSON::Array::Ptr spans = requireArray(object, "spans", context);
  for (std::size_t index = 0; index < spans->size(); ++index) {
    const Poco::JSON::Object::Ptr item = requireObjectAt(*spans, index, "timeline.spans");
    const std::string where = "timeline.spans[" + std::to_string(index) + "].";
    TimelineSpan span;
    span.startMs = requireInt(*item, "start", where);
    span.endMs = requireInt(*item, "end", where);
    span.app = requireString(*item, "app", where);
    const std::string status = requireString(*item, "status", where);
    const std::optional<SpanStatus> parsed = parseSpanStatus(status);
    if (!parsed) {
      throw std::runtime_error("field \"" + where + "status\" has unknown value \"" + status +
                               "\"");
    }
    span.status = *parsed;
    // Issue 16 item 1; a snapshot written before it has none: no heads-up.
    if (item->has("heads_up")) {
      const Poco::Dynamic::Var headsUp = item->get("heads_up");
      if (!headsUp.isBoolean()) {
        throw std::runtime_error("field \"" + where + "heads_up\" must be a boolean");
      }
      span.headsUp = headsUp.convert<bool>();
    }
    snapshot.timeline.push_back(std::move(span));
  }
  const Poco::JSON::Object::Ptr split = requireObject(object, "split", context);
  for (const std::string& app : split->getNames()) {
    const Poco::JSON::Object::Ptr item = requireObject(*split, app, "timeline.split.");
    const std::string where = "timeline.split." + app + ".";
    snapshot.timelineSplit[app] =
        AppSplit{requireInt(*item, "ontask_ms", where), requireInt(*item, "drifting_ms", where)};
  }
}

Poco::JSON::Object stretchToJson(const OnTaskStretch& stretch) {
  Poco::JSON::Object object;
  object.set("ontask_ms", Poco::Int64(stretch.onTaskMs));
  object.set("start", Poco::Int64(stretch.startMs));
  object.set("end", Poco::Int64(stretch.endMs));
  return object;
}

OnTaskStretch stretchFromJson(const Poco::JSON::Object& object, const std::string& where) {
  return OnTaskStretch{requireInt(object, "ontask_ms", where), requireInt(object, "start", where),
                       requireInt(object, "end", where)};
}

Poco::JSON::Object focusToJson(const FocusState& focus) {
  Poco::JSON::Object object;
  Poco::JSON::Array sites;
  for (const SiteDrift& site : focus.sites) {
    Poco::JSON::Object item;
    item.set("where", validUtf8(site.where));
    item.set("drift_ms", Poco::Int64(site.driftMs));
    item.set("visits", Poco::Int64(site.visits));
    sites.add(item);
  }
  object.set("sites", sites);
  object.set("longest", stretchToJson(focus.longest));
  object.set("current", stretchToJson(focus.current));
  object.set("complete", focus.complete);
  return object;
}

FocusState focusFromJson(const Poco::JSON::Object& object) {
  const std::string context = "focus.";
  FocusState focus;
  const Poco::JSON::Array::Ptr sites = requireArray(object, "sites", context);
  if (sites->size() > FocusTally::kMaxSites + 1) throw std::runtime_error("focus.sites: too many");
  for (std::size_t index = 0; index < sites->size(); ++index) {
    const Poco::JSON::Object::Ptr item = requireObjectAt(*sites, index, "focus.sites");
    const std::string where = "focus.sites[" + std::to_string(index) + "].";
    focus.sites.push_back(SiteDrift{requireString(*item, "where", where),
                                    requireInt(*item, "drift_ms", where),
                                    requireInt(*item, "visits", where)});
  }
  focus.longest = stretchFromJson(*requireObject(object, "longest", context), "focus.longest.");
  focus.current = stretchFromJson(*requireObject(object, "current", context), "focus.current.");
  const Poco::Dynamic::Var complete = object.get("complete");
  if (!complete.isBoolean()) throw std::runtime_error("field \"focus.complete\" must be a boolean");
  focus.complete = complete.extract<bool>();
  return focus;
}

bool requireBool(const Poco::JSON::Object& object, const std::string& key,
                 const std::string& context) {
  const Poco::Dynamic::Var value = object.get(key);
  if (!value.isBoolean()) {
    throw std::runtime_error("field \"" + context + key + "\" must be a boolean");
  }
  return value.extract<bool>();
}

Poco::JSON::Object reflectionToJson(const ReflectionRecord& reflection) {
  Poco::JSON::Object object;
  object.set("status", std::string(toString(reflection.status)));
  object.set("recap", validUtf8(reflection.recap));
  object.set("carry_forward", validUtf8(reflection.carryForward));
  return object;
}

ReflectionRecord reflectionFromJson(const Poco::JSON::Object& object) {
  const std::string context = "reflection.";
  ReflectionRecord reflection;
  const std::string status = requireString(object, "status", context);
  const std::optional<ReflectionStatus> parsed = parseReflectionStatus(status);
  if (!parsed) {
    throw std::runtime_error("field \"reflection.status\" has unknown value \"" + status + "\"");
  }
  reflection.status = *parsed;
  reflection.recap = requireString(object, "recap", context);
  reflection.carryForward = requireString(object, "carry_forward", context);
  return reflection;
}

}  // namespace

std::optional<ReflectionStatus> parseReflectionStatus(std::string_view text) {
  for (auto status : {ReflectionStatus::Idle, ReflectionStatus::Pending, ReflectionStatus::Ready,
                      ReflectionStatus::Absent}) {
    if (text == toString(status)) return status;
  }
  return std::nullopt;
}

std::string snapshotToJson(const Snapshot& snapshot) {
  Poco::JSON::Object object;
  object.set("version", kSnapshotVersion);  // the format written is always the current one
  object.set("runtime", std::string(toString(snapshot.runtime)));
  if (snapshot.commitment) {
    object.set("commitment", commitmentToJson(*snapshot.commitment));
  }
  object.set("outcome", std::string(toString(snapshot.outcome)));
  object.set("ended_at", Poco::Int64(snapshot.endedAtMs));
  object.set("stats", statsToJson(snapshot.stats));
  object.set("timeline", timelineToJson(snapshot.timeline, snapshot.timelineSplit));
  object.set("focus", focusToJson(snapshot.focus));
  if (snapshot.driftStay) {  // issue 17 item 4
    Poco::JSON::Object stay;
    stay.set("key", validUtf8(snapshot.driftStay->key));
    stay.set("drifting", snapshot.driftStay->drifting);
    stay.set("reason", validUtf8(snapshot.driftStay->reason));
    stay.set("blocked", snapshot.driftStay->blocked);
    object.set("drift_stay", stay);
  }
  object.set("reflection", reflectionToJson(snapshot.reflection));
  object.set("last_carry_forward", validUtf8(snapshot.lastCarryForward));
  Poco::JSON::Object review;
  review.set("success", validUtf8(snapshot.review.success));
  review.set("note", validUtf8(snapshot.review.note));
  object.set("review", review);
  Poco::JSON::Array lastApps;
  for (const std::string& app : snapshot.lastAllowedApps) lastApps.add(validUtf8(app));
  object.set("last_allowed_apps", lastApps);
  object.set("saved_at", Poco::Int64(snapshot.savedAtMs));
  return jsonfields::stringify(object);
}

Snapshot snapshotFromJson(const std::string& json) {
  const Poco::JSON::Object::Ptr object = jsonfields::parseObject(json);
  const std::string context;
  Snapshot snapshot;

  const std::int64_t version = requireInt(*object, "version", context);
  if (version > kSnapshotVersion) {
    throw std::runtime_error("snapshot version " + std::to_string(version) +
                             " is newer than the supported version " +
                             std::to_string(kSnapshotVersion) + "; upgrade antidrift");
  }
  if (version < 1) {
    throw std::runtime_error("field \"version\" must be at least 1, got " +
                             std::to_string(version));
  }
  snapshot.version = static_cast<int>(version);

  const std::string runtime = requireString(*object, "runtime", context);
  const std::optional<RuntimeState> state = parseRuntimeState(runtime);
  if (!state) {
    throw std::runtime_error("field \"runtime\" has unknown value \"" + runtime + "\"");
  }
  snapshot.runtime = *state;

  if (object->has("commitment") && !object->isNull("commitment")) {
    snapshot.commitment = commitmentFromJson(*requireObject(*object, "commitment", context));
  }

  const std::string outcomeText = requireString(*object, "outcome", context);
  const std::optional<Outcome> outcome = parseOutcome(outcomeText);
  if (!outcome) {
    throw std::runtime_error("field \"outcome\" has unknown value \"" + outcomeText + "\"");
  }
  snapshot.outcome = *outcome;

  snapshot.endedAtMs = requireInt(*object, "ended_at", context);
  snapshot.stats = statsFromJson(*requireObject(*object, "stats", context));
  if (object->has("timeline")) {
    timelineFromJson(*requireObject(*object, "timeline", context), snapshot);
  }
  if (object->has("focus")) {  // issue 17 item 5
    snapshot.focus = focusFromJson(*requireObject(*object, "focus", context));
  } else {
    snapshot.focus.complete = false;  // written before it: the figures are unknown
  }
  if (object->has("drift_stay") && !object->isNull("drift_stay")) {  // issue 17 item 4
    const Poco::JSON::Object::Ptr stay = requireObject(*object, "drift_stay", context);
    DriftStay value;
    value.key = requireString(*stay, "key", "drift_stay.");
    value.drifting = requireBool(*stay, "drifting", "drift_stay.");
    value.reason = requireString(*stay, "reason", "drift_stay.");
    value.blocked = requireBool(*stay, "blocked", "drift_stay.");
    snapshot.driftStay = std::move(value);
  }
  snapshot.reflection = reflectionFromJson(*requireObject(*object, "reflection", context));
  snapshot.lastCarryForward = requireString(*object, "last_carry_forward", context);
  if (object->has("review")) {
    const Poco::JSON::Object::Ptr review = requireObject(*object, "review", context);
    snapshot.review.success = requireString(*review, "success", "review.");
    snapshot.review.note = requireString(*review, "note", "review.");
  }
  if (object->has("last_allowed_apps")) {
    const Poco::JSON::Array::Ptr apps = requireArray(*object, "last_allowed_apps", context);
    for (std::size_t index = 0; index < apps->size(); ++index) {
      snapshot.lastAllowedApps.push_back(requireStringAt(*apps, index, "last_allowed_apps"));
    }
  }
  snapshot.savedAtMs = requireInt(*object, "saved_at", context);
  return snapshot;
}

namespace {

/// Latest UTC ms accepted anywhere in a snapshot (year 9999): far from int64
/// overflow once 12 h are added.
constexpr std::int64_t kLatestUtcMs = 253402300799999;

}  // namespace

std::optional<std::string> snapshotInvariantProblem(const Snapshot& snapshot) {
  const auto text = [](const std::string& value, std::size_t maxChars,
                       const char* name) -> std::optional<std::string> {
    if (text::countCodePoints(value) > maxChars) {
      return std::string(name) + " is over " + std::to_string(maxChars) + " characters";
    }
    return std::nullopt;
  };
  if (snapshot.endedAtMs < 0 || snapshot.endedAtMs > kLatestUtcMs) {
    return "ended_at is out of range";
  }
  if (snapshot.commitment) {
    const Commitment& c = *snapshot.commitment;
    if (c.timeboxSecs <= 0 || c.timeboxSecs > kMaxTimeboxSecs) {
      return "timebox_secs is not in (0, 12 h]";
    }
    if (c.extendedSecs < 0 || c.extendedSecs > kMaxTimeboxSecs - c.timeboxSecs) {
      return "extended_secs is negative or takes the session over 12 h";
    }
    if (c.startedAtMs <= 0 || c.startedAtMs > kLatestUtcMs) {
      return "started_at is out of range";
    }
    if (c.deadlineMs != c.startedAtMs + (c.timeboxSecs + c.extendedSecs) * 1000) {
      return "deadline is not started_at + (timebox_secs + extended_secs) s";
    }
    for (const auto& problem :
         {text(c.nextAction, kMaxFieldChars, "next_action"),
          text(c.successCondition, kMaxFieldChars, "success_condition"), text(c.id, 64, "id")}) {
      if (problem) return problem;
    }
    if (c.allowedApps.size() > kMaxAllowedApps) return "allowed_apps has too many entries";
    for (const std::string& app : c.allowedApps) {
      if (auto problem = text(app, kMaxFieldChars, "an allowed app")) return problem;
    }
    if (c.allowedTitles.size() > kMaxSnapshotAllowedTitles) {
      return "allowed_titles has too many entries";
    }
    for (const AllowedTitle& title : c.allowedTitles) {
      if (auto problem = text(title.app, kMaxFieldChars, "an allowed title's app")) return problem;
      if (title.title.size() > kMaxTitleBytes) return "an allowed title is over 512 bytes";
    }
    if (c.allowedSites.size() > kMaxSnapshotAllowedTitles) {
      return "allowed_sites has too many entries";
    }
    for (const AllowedSite& site : c.allowedSites) {
      if (auto problem = text(site.app, kMaxFieldChars, "an allowed site's app")) return problem;
      if (site.site.size() > kMaxTitleBytes) return "an allowed site is over 512 bytes";
    }
  }
  if (snapshot.lastAllowedApps.size() > kMaxAllowedApps) {
    return "last_allowed_apps has too many entries";
  }
  for (const std::string& app : snapshot.lastAllowedApps) {
    if (auto problem = text(app, kMaxFieldChars, "a last allowed app")) return problem;
  }
  for (const auto& problem :
       {text(snapshot.review.note, kMaxFieldChars, "review.note"),
        text(snapshot.reflection.recap, kMaxSnapshotTextChars, "reflection.recap"),
        text(snapshot.reflection.carryForward, kMaxSnapshotTextChars, "reflection.carry_forward"),
        text(snapshot.lastCarryForward, kMaxSnapshotTextChars, "last_carry_forward")}) {
    if (problem) return problem;
  }
  if (snapshot.timeline.size() > Timeline::kMaxSpans) return "timeline has too many spans";
  if (snapshot.driftStay) {  // issue 17 item 4: a key is an app and a page, a reason one line
    for (const auto& problem :
         {text(snapshot.driftStay->key, kMaxSnapshotTextChars, "drift_stay.key"),
          text(snapshot.driftStay->reason, kMaxSnapshotTextChars, "drift_stay.reason")}) {
      if (problem) return problem;
    }
  }
  return std::nullopt;
}

FileSnapshotStore::FileSnapshotStore(std::string directory)
    : directory_(std::move(directory)),
      path_(Poco::Path(Poco::Path::forDirectory(directory_), kFileName).toString()) {}

void FileSnapshotStore::save(const Snapshot& snapshot) {
  const std::string json = snapshotToJson(snapshot);
  fileio::replaceFileDurably(directory_, path_, kTempInfix, json + "\n", 0600);
}

void FileSnapshotStore::removeStaleTempFiles() {
  // A crash between creating and renaming a temp file leaves it behind; it
  // holds nothing the real snapshot lacks. Best effort: a failure here must
  // not stop the load, so errors are ignored.
  const std::string prefix = std::string(kFileName) + kTempInfix;
  try {
    if (!Poco::File(directory_).exists()) {
      return;
    }
    for (Poco::DirectoryIterator it(directory_), end; it != end; ++it) {
      if (it.name().compare(0, prefix.size(), prefix) == 0 && it->isFile()) {
        it->remove();
      }
    }
  } catch (const Poco::Exception&) {
    return;
  }
}

std::optional<Snapshot> FileSnapshotStore::load() {
  removeStaleTempFiles();
  if (!fileio::existsNoFollow(path_)) {
    return std::nullopt;
  }
  const std::string content = fileio::readFile(path_);
  Snapshot snapshot;
  try {
    snapshot = snapshotFromJson(content);
  } catch (const std::exception& error) {
    throw std::runtime_error("snapshot " + path_ + " is unusable: " + error.what());
  }
  const std::optional<std::string> problem = snapshotInvariantProblem(snapshot);
  if (!problem) return snapshot;
  // Issue 19 item 6 (review L6): it parses but cannot be trusted (an edit, a
  // corruption): keep it aside for a person to look at, start locked.
  const std::string aside = path_ + ".invalid-" + std::to_string(fileio::nowUtcMs());
  if (::rename(path_.c_str(), aside.c_str()) != 0) {
    throw std::runtime_error("snapshot " + path_ + " breaks an invariant (" + *problem + ") and " +
                             fileio::systemError("move it to", aside));
  }
  fileio::syncDirectory(directory_);
  Poco::Logger::get("antidrift.store")
      .error("snapshot " + path_ + " refused: " + *problem + "; moved to " + aside +
             "; starting locked");
  return std::nullopt;
}

}  // namespace antidrift
