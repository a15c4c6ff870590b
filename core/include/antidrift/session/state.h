/// @file state.h
/// The State every view renders from (docs/DESIGN.md §10 "State JSON"), as a value.
/// Its JSON is built in one place, the wire module (antidrift/wire/json.h,
/// issue 15 item 5); this header includes nothing of Poco.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "antidrift/ai/coach.h"
#include "antidrift/domain/ai_cost.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/domain/runtime.h"
#include "antidrift/drift/engine.h"
#include "antidrift/evidence/focus_tally.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/planning/todo_txt.h"
#include "antidrift/session/async_slot.h"
#include "antidrift/store/snapshot.h"

namespace antidrift {

/// Evidence health (docs/DESIGN.md §3): "ok" | "stale" | "unavailable".
enum class Health { Ok, Stale, Unavailable };

/// Where a grounding file (todo.txt, the profile; docs/DESIGN.md §6) stands in
/// Planning: not asked yet, being read, loaded, or nothing to show (no path,
/// missing, empty or unreadable).
enum class GroundingStatus { Idle, Pending, Ready, None };
/// "idle" | "pending" | "ready" | "none" (the wire names, issue 15 item 5).
std::string_view toString(GroundingStatus status);
/// "ok" | "stale" | "unavailable" (the wire names, issue 15 item 5). Pure;
/// thread-safe.
constexpr std::string_view toString(Health health) {
  switch (health) {
    case Health::Ok:
      return "ok";
    case Health::Stale:
      return "stale";
    case Health::Unavailable:
      return "unavailable";
  }
  return "unavailable";
}

/// The evidence part of State.
struct EvidenceView {
  Health health = Health::Unavailable;
  std::string source;                  ///< source of the last observation, "" if none
  std::optional<Observation> current;  ///< the last observation, if any
  bool away = false;                   ///< the person is idle past evidence.idle_after_s
};

/// The drift part of State (docs/DESIGN.md §4, §5): what the drift engine decided,
/// shown as it is (the State builder decides nothing).
struct DriftView {
  /// What the drift engine says; Inactive when no session is active (on the
  /// wire "" | "ontask" | "judging" | "drifting" | "unknown", drift::toString).
  drift::DriftStatus status = drift::DriftStatus::Inactive;
  std::string reason;    ///< human sentence, may be ""; for drifting, the rule's or judge's reason
  std::string nudge;     ///< the soft "Heads up" advisory (seed 000); "" = none
  std::string app;       ///< the app the status is about; "" when none
  bool blocked = false;  ///< drifting by a hard rule: "This is on task" is refused
  /// judging, waiting for the dwell (drift.judge_dwell_s): UTC ms the judge will be
  /// asked (issue 16 item 2); 0 otherwise.
  std::int64_t judgeAtMs = 0;
  /// drifting (not blocked): the site "all of <site> this session" would
  /// mark (issue 17 item 4) — the domain of URL evidence, else the title's
  /// site suffix; "" when the window names none.
  std::string site;
  /// A remembered verdict decided (docs/API.md "Remembered verdicts"): its
  /// key, for the page's Forget (DELETE /verdicts?key=); "" otherwise
  /// (issue 17, re-walk A).
  std::string memoryKey = {};
};

/// Where the drift went and the longest on-task stretch (issue 17 item 5).
struct FocusView {
  std::vector<SiteDrift> driftBySite;  ///< most drifting time first
  OnTaskStretch longest;               ///< the longest on-task stretch
};

/// How the backend in use was chosen and where it sends prompts (issue 18
/// items 2 and 3), fixed at start by the daemon (Controller::setAiOrigin).
struct AiOrigin {
  /// True when ai.backend = auto chose the backend (or chose none).
  bool automatic = false;
  /// What auto found, for the page ("Ollama at 127.0.0.1:11434, model qwen3"); "" otherwise.
  std::string found;
  /// Where prompts (and the titles in them) go for the backend in use: "local",
  /// "remote", or "" when AI is off (the plugin's plugin.json "prompts").
  std::string prompts;
  /// The backend's own words on it (Backend::destination(), e.g. "local
  /// 127.0.0.1:11434"), else `prompts`; "" when AI is off.
  std::string destination;
};

/// The AI part of State.
struct AiView {
  std::string backend;     ///< the ai.backend in use (auto's choice; "none" when off)
  bool available = false;  ///< a backend plugin is loaded and configured
  std::string detail;      ///< when not available: why, and what to do; else ""
  AiOrigin origin{};       ///< how it was chosen, where titles go
  /// What the AI cost so far (issue 18 item 4): in Planning, the coach's calls
  /// (counted with the session they plan); active and review, stats.ai_cost.
  AiCost cost{};
};

/// The daemon's notification sinks (issue 17 items 2 and 3), fixed at start.
struct NotifyView {
  /// The daemon raises desktop notifications (notify.desktop on, or auto with
  /// a server on the session bus): the page's own Web Notification steps aside.
  bool desktop = false;
  /// The do-not-disturb switch held during a session ("dunst", "mako",
  /// "swaync", "gnome", "xfce"); "" = none.
  std::string doNotDisturb;
};

/// The planning coach (seed 003).
struct CoachView {
  AsyncStatus status = AsyncStatus::Idle;  ///< on the wire "idle" | "pending" | "ready" | "error"
  std::optional<ai::Proposal> proposal;    ///< when ready
  std::string error;                       ///< when error: a short sentence for the browser
};

/// Open tasks from todo.txt (docs/DESIGN.md §6).
struct TasksView {
  GroundingStatus status = GroundingStatus::Idle;
  std::vector<planning::Task> items;
};

/// The person's profile (docs/DESIGN.md §6). Private: only status and size are shown.
struct ProfileView {
  GroundingStatus status = GroundingStatus::Idle;
  std::size_t bytes = 0;
};

/// A whole, self-contained snapshot of what the person sees.
struct State {
  std::uint64_t version = 0;  ///< increases on every change; the SSE event id
  std::int64_t nowMs = 0;     ///< UTC ms when the State was taken (lets a page sync its countdown)
  RuntimeState runtime = RuntimeState::Locked;
  std::optional<Commitment> commitment;  ///< active and review
  std::int64_t remainingSecs = 0;        ///< active: seconds to the deadline (≥ 0)
  Outcome outcome = Outcome::None;       ///< review
  std::int64_t endedAtMs = 0;            ///< review: UTC ms the session left active
  EvidenceView evidence;
  DriftView drift;
  SessionStats stats;  ///< active and review
  /// review only: the session's spans, oldest first, ≤ Timeline::kMaxSpans (issue 7). Not
  /// copied while active (every window change builds a State: issue 8 item 2);
  /// Controller::timeline() reads them then.
  std::vector<TimelineSpan> timeline;
  /// active and review: app → on-task and drifting ms (the review's split bars).
  std::map<std::string, AppSplit> appSplit;
  /// review only, when known (a session restored from an older snapshot has
  /// none): where the drift went, the longest stretch (issue 17 item 5).
  std::optional<FocusView> focus;
  ReflectionRecord reflection;
  ReviewAnswer review;  ///< review only: what the person said (issue 7)
  std::string lastCarryForward;
  AiView ai;
  NotifyView notify;  ///< every runtime
  /// Every runtime: the tag the served page ends its title with
  /// (Settings::ownPageTag). An open page that carries another tag (served
  /// before a restart with a rotated token) reloads itself to take this one.
  std::string pageTag;
  std::vector<std::string> defaultAllowedApps;  ///< planning only: drift.allowed_apps, normalised
  /// planning only: apps seen in the last minutes, then apps of recent
  /// sessions, most recent first, no duplicates (issue 6 item 8).
  std::vector<std::string> appChoices;
  /// planning only: the allowed apps of the last session started.
  std::vector<std::string> lastAllowedApps;
  CoachView coach;      ///< planning only
  TasksView tasks;      ///< planning only
  ProfileView profile;  ///< planning only
  /// Not on the wire: the monotonic ms at which the Controller next has
  /// something to do (Controller::nextWakeMonotonicMs, taken under the same
  /// lock as the rest of this State), nullopt when nothing is scheduled. Set
  /// on the States the Controller announces and returns from state(), so a
  /// sink that schedules the ticker needs no call back into the Controller
  /// (issue 15 item 3).
  std::optional<std::int64_t> nextWakeMonotonicMs;
};

}  // namespace antidrift
