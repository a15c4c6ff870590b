/// @file replay.h
/// "What would AntiDrift have said about my day?" (issue 8 item 1): recorded
/// activity — an ActivityWatch export or a JSONL of observations — run
/// through the real drift engine, stats and timeline (the code the
/// Controller runs) on a virtual clock, with AI calls made synchronously at
/// the virtual instant they would have been launched. No persistence, no
/// State JSON, no threads.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "antidrift/backend.h"
#include "antidrift/domain/ai_cost.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/drift/rules.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/replay/activity_reader.h"
#include "antidrift/settings.h"

namespace antidrift::replay {

/// What the web events add to one window event: the site of the page (or the private mark)
/// of the tab it showed (issue 16 item 4).
struct WindowWeb {
  std::string domain;          ///< domainOfUrl of the joined tab; "" when none or private
  bool privateWindow = false;  ///< an incognito tab was joined: a private window
};

/// The daemon's join (server/window_join.h) over recorded time, for runReplay: for each of
/// `activity.windows`, in order, the web event that describes it — a window of a browser
/// (`rules`.isPerPage: the replay's engine's rules, compiled once) whose title one of the web
/// events' titles describes (joinWebTab; the longest title first), among the web events that
/// started before the window event ended and ended at most kWebTabFreshMs before it started; of
/// several, the one overlapping it longest. Windows without one get an empty WindowWeb. Pure; the
/// result has activity.windows.size() entries, or none at all when activity.web is empty (a day
/// without aw-watcher-web costs no memory). Never throws (bar std::bad_alloc).
std::vector<WindowWeb> joinWebEvents(const Activity& activity, const drift::Rules& rules);

class Labels;

/// How to replay.
struct ReplayOptions {
  Settings settings;                         ///< heartbeat, idle, drift.*, privacy.*
  std::vector<CommitmentRange> commitments;  ///< ≥ 1, sorted, not overlapping
  /// The AI backend, or nullptr for AI off (judge and nudge never called). Called on the
  /// replaying thread; not owned.
  Backend* backend = nullptr;
  /// The label oracle (oracle.h; issue 16 item 1, `--oracle`), or nullptr: when set, the judge
  /// and the nudge are answered from these labels in place of `backend` (which is then not
  /// called), from the windows as recorded: the judge from the raw app and title of the window in
  /// front when its request is launched (the replay answers at that very instant), the nudge from
  /// the recorded windows behind the nudge input's titles (matched by their redacted, sanitised
  /// text; a title matched to none counts as unlabelled). Oracle calls count as judge and nudge
  /// calls like a backend's. Not owned; outlives the replay.
  const Labels* oracle = nullptr;
  /// The baseline of issue 8 item 5, "judge every stable title": each title that stays in front
  /// for drift.judge_dwell_s is judged on its own — the verdict's scope is ignored, so a
  /// site-scoped verdict covers only its page.
  bool judgeEveryStableTitle = false;
  /// The judge (backend or oracle) keeps its prompts on this machine, as a local model server
  /// that passed the owner check does (`--local-judge`; drift::Advisors::LocalJudgeAndNudge):
  /// a private window no local tier decides is judged on its raw title (docs/DESIGN.md §4
  /// "Private windows"). false: the judge is treated as remote, and never sees one.
  bool localJudge = false;
  bool keepTimeline = true;  ///< false: no timeline (the throughput benchmark)
  /// true: the report keeps its trace (ReplayReport::trace), what the label scorer reads
  /// (label_score.h; issue 16 item 1).
  bool keepTrace = false;
};

/// One window event of a traced replay, as recorded.
struct TraceEvent {
  std::int64_t atMs = 0;          ///< UTC ms it came to the front (or its range began)
  std::int64_t endMs = 0;         ///< UTC ms it left, ≥ atMs (its duration, up to the next event)
  std::string app;                ///< window class as recorded
  std::string title;              ///< window title as recorded
  bool allowedApp = false;        ///< its normalised app is one of the commitment's allowed apps
  std::int64_t bannerStarts = 0;  ///< drift episodes that started while it was in front
};

/// A stretch [startMs, endMs) of one window event in one state, inside the event's own time.
struct TraceSlice {
  std::size_t event = 0;     ///< index into Trace::events
  std::int64_t startMs = 0;  ///< UTC ms
  std::int64_t endMs = 0;    ///< UTC ms, > startMs
  bool active = false;       ///< the person present and the evidence fresh
  bool banner = false;       ///< drift status drifting: the banner up
  bool headsUp = false;      ///< a heads-up (the Nudger's advisory) shown
};

/// What a replay showed, moment by moment, for the label scorer. Slices are oldest first and do
/// not overlap; time between events (no window recorded) is in no slice.
struct Trace {
  std::vector<TraceEvent> events;  ///< every window event replayed, oldest first
  std::vector<TraceSlice> slices;  ///< oldest first
};

/// One drift episode: the banner went up.
struct DriftEpisode {
  std::int64_t atMs = 0;        ///< UTC ms it started
  std::int64_t durationMs = 0;  ///< how long it lasted (until the status left drifting), ms
  std::string app;              ///< normalised window class
  std::string title;            ///< sanitised title
  std::string reason;           ///< the rule's or judge's reason, verbatim
};

/// What the replay found, summed over every commitment range.
struct ReplayReport {
  std::int64_t fromMs = 0;         ///< UTC ms of the first window event
  std::int64_t toMs = 0;           ///< UTC ms the last window event ended
  std::int64_t observations = 0;   ///< observations fed to the engine (events + heartbeats)
  std::int64_t windowEvents = 0;   ///< window events inside a commitment range
  std::int64_t windowChanges = 0;  ///< events whose app or title differs from the one before
  std::int64_t sessions = 0;       ///< commitment ranges that saw a window
  std::int64_t judgeCalls = 0;     ///< DriftJudge calls made
  std::int64_t judgeFailures = 0;  ///< of which failed (no verdict)
  std::int64_t siteVerdicts = 0;   ///< of which came back scoped to the whole site
  std::int64_t nudgeCalls = 0;     ///< Nudger calls made
  /// What the backend's judge and nudge calls cost, summed (issue 18 item
  /// 4): tokens as the backend reported or estimated them, wall time. Oracle
  /// runs call no backend: zero.
  AiCost aiCost;
  /// Wall time of each judge call through the backend, ms, in call order.
  std::vector<std::int64_t> judgeLatenciesMs;
  /// Window events during which the banner was up at some point: the drifts
  /// found, comparable across settings (an episode count is not: a page
  /// change inside one drift that waits for the judge splits it in two).
  std::int64_t driftedVisits = 0;
  std::int64_t onTaskMs = 0;           ///< time with status ontask, ms (timeline)
  std::int64_t activeMs = 0;           ///< time credited to an app (evidence fresh, not away), ms
  std::int64_t trackedMs = 0;          ///< time covered by the timeline, ms
  SessionStats stats;                  ///< buckets, switches, drift, away, AI calls, summed
  std::vector<DriftEpisode> episodes;  ///< oldest first
  std::vector<TimelineSpan> timeline;  ///< every range's spans (≤ Timeline::kMaxSpans each)
  Trace trace;                         ///< with ReplayOptions::keepTrace only; else empty
};

/// Replays `activity` under `options` (docs/DESIGN.md §3, §4; issue 8 item 1). For each commitment
/// range a session starts at the range's first window event: the engine is reset and each
/// observation — every window event at its time, then heartbeats every evidence.heartbeat_s
/// while it lasts — goes through the Controller's steps (normalizeApp, sanitizeTitle, private
/// windows, StatsAccumulator::observe, drift::Engine::evaluate, drift::recordDecision, the
/// timeline). Between observations the virtual clock stops at each due judge debounce
/// (Engine::due) and where the evidence would turn stale (3 heartbeats after the last one) or
/// the person leaves or comes back. AI calls run synchronously on this thread. Throws
/// ReplayError when `options.commitments` is empty. Not thread-safe (one replay per thread).
ReplayReport runReplay(const Activity& activity, const ReplayOptions& options);

struct LabelScore;

/// The report as JSON (docs/API.md "Replay"): the shape `antidriftd replay --json` prints.
/// `baseline`, when given, is the judge-every-stable-title run shown beside it; `score`, when
/// given, the report scored against labels (label_score.h), under "labels" with its events. Pure.
std::string reportJson(const ReplayReport& report, const ReplayReport* baseline,
                       const LabelScore* score = nullptr);

/// The report as text for a person (issue 17 item 4; docs/API.md §7): the range in local time
/// (and UTC), time per app, switches, away, on-task share, drift by site or app (one line each),
/// judge and nudge calls, the timeline in local time with "nothing recorded" where the trace
/// shows a gap of 10 min or more. Developer figures and `baseline` are for reportJson only
/// (`baseline` is ignored here). Reads the process's time zone ($TZ); otherwise pure.
std::string reportText(const ReplayReport& report, const ReplayReport* baseline);

}  // namespace antidrift::replay
