/// @file tiers.h
/// The drift floor as an ordered list of tiers (docs/DESIGN.md §4 "The
/// tiers"): each tier is one function with one contract — a prepared
/// observation, the commitment and a read-only view of the engine's state
/// in; a Verdict or "no opinion" (nullopt) out. drift::Engine walks kTiers
/// in order and applies the first verdict in one place; no tier changes the
/// engine's state itself.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "antidrift/domain/commitment.h"
#include "antidrift/drift/distractions.h"
#include "antidrift/drift/relevance.h"
#include "antidrift/drift/rules.h"
#include "antidrift/drift/verdict_cache.h"
#include "antidrift/drift/verdict_memory.h"
#include "antidrift/evidence/observation.h"

namespace antidrift::drift {

/// Where the active session stands on drift (docs/DESIGN.md §4 "Statuses").
enum class DriftStatus {
  Inactive,  ///< no active session
  OnTask,    ///< an allowed app (or a title or app confirmed on task)
  Judging,   ///< the DriftJudge is asked (or about to be, after the debounce)
  Drifting,  ///< a hard rule or the judge says this is not the work: the banner
  Unknown,   ///< nothing can be said (no judge, judge failed, evidence not ok, away, unreadable)
};

/// "" (inactive) | "ontask" | "judging" | "drifting" | "unknown". Pure.
std::string_view toString(DriftStatus status);

/// Which AI roles are there to call, and whether their prompts stay on this
/// machine (docs/DESIGN.md §4 step "cannot send" and "Private windows").
enum class Advisors {
  None,           ///< AI off: no judge, no nudge
  JudgeAndNudge,  ///< a judge and a nudger whose prompts may leave the machine
  /// A judge and a nudger whose prompts stay on this machine (a local model
  /// that passed the listener check, or a backend that declares "local"):
  /// a local tier, so the judge may read a private window's raw title.
  LocalJudgeAndNudge,
};

/// True when the judge may be asked about the window of `obs`: some AI is
/// there, the app is not privacy.never_send_apps, and a private window only
/// with a local judge and its raw title kept in memory (docs/DESIGN.md §4
/// "Private windows"). Pure.
bool judgeMayRead(Advisors advisors, const Rules& rules, const Observation& obs);

/// The reason shown while AntiDrift's own page is in front (docs/DESIGN.md
/// §4 "own page"); spanStatusOf() maps it to neutral time.
inline constexpr std::string_view kOwnPageReason = "this is AntiDrift";

/// The reason shown for a window that says nothing (unreadable, lock screen).
inline constexpr std::string_view kWindowUnknownReason = "window unknown";

/// A key the judge was asked about this session, and how its calls went
/// (docs/DESIGN.md §4 step "judge": one retry after a failure).
struct JudgeAttempt {
  int failures = 0;            ///< calls that failed or did not parse
  std::int64_t retryAtMs = 0;  ///< UTC ms from which the one retry may run
};

/// What the local tier (relevance, then the known distractions) finds for
/// an observation's key: computed at most once per observation, and skipped
/// for a key it found nothing for earlier in the session.
struct LocalFinding {
  enum class Kind {
    Nothing,      ///< neither relevant nor a known distraction (or skipped: a known miss)
    Relevant,     ///< the title shares the commitment's distinctive words
    Distraction,  ///< a known distraction (data/distractions.txt)
    /// A known distraction whose title shares a distinctive word of the
    /// commitment (a tutorial on the very task): ambiguous, not drift — the
    /// judge decides it, or with no judge to ask the heads-up says so
    /// (docs/DESIGN.md §4 "The tiers, in order").
    TaskDistraction,
  };
  Kind kind = Kind::Nothing;
  std::vector<std::string> shared;  ///< Relevant: the shared words, title order
  /// (Task)Distraction: what matched; Relevant: the known distraction the
  /// page is of too, if any (with a judge to ask, it decides such a page).
  std::optional<DistractionMatch> distraction;
};

/// A verdict of the verdict memory (docs/API.md "Remembered verdicts") for
/// the observation: the page's, else its site's.
struct Remembered {
  std::optional<RememberedVerdict> verdict;  ///< nullopt: nothing remembered (or no memory)
  std::string key;                           ///< the memory key that answered
};

/// The engine's state a tier may read (never write). References into the
/// engine, valid for one walk.
struct TierState {
  const Rules& rules;
  const VerdictCache& cache;
  DriftStatus viewStatus = DriftStatus::Inactive;  ///< the status shown before this observation
  const std::map<std::string, JudgeAttempt>& attempted;  ///< keys asked this session
  const std::map<std::string, std::string>& inFlight;    ///< keys whose judge call runs
  /// The editor workspace this session works in (editorWorkspace() of an
  /// allowed app's title: the one that shares most of the commitment's
  /// words, else the first seen); "" before any.
  const std::string& workspace;
};

/// One observation prepared once for every tier: what the rules say of it
/// and its verdict keys, plus lazily derived findings the engine computes on
/// first use (so a tier that decides early costs no later tier's work).
struct TierInput {
  const Observation& obs;
  WindowKind kind = WindowKind::Normal;  ///< Rules::classify
  bool perPage = false;                  ///< Rules::isPerPage: a title-sensitive app
  bool privateWindow = false;            ///< the title is kPrivateWindowTitle
  std::optional<std::string> blocked;    ///< Rules::blockedReason: a hard rule's reason
  const Commitment& commitment;
  Advisors advisors = Advisors::None;
  const TierState& state;
  /// The subject's keys (verdictKey, siteVerdictKey): set before the first
  /// tier that needs a subject; empty before.
  const std::string* key = nullptr;
  const std::string* siteKey = nullptr;
  /// normalizeTitle(obs.title), computed once on first call.
  std::function<const std::string&()> normalizedTitle = {};
  /// The verdict memory's answer for key, then siteKey (once, on first call).
  std::function<const Remembered&()> remembered = {};
  /// The local tier's finding for key (once, on first call).
  std::function<const LocalFinding&()> local = {};
};

/// What a tier decided. The engine applies it in one place (Engine::apply):
/// the pending judge debounce dropped, the view set, and the extras below.
struct Verdict {
  DriftStatus status = DriftStatus::Unknown;
  std::string reason;  ///< shown verbatim
  std::string app;     ///< the app the status is about; "" for none
  /// How the verdict treats the subject (the window the status is about).
  enum class Subject {
    Keep,    ///< unchanged; the on-task stretch goes on (windows that say nothing, own page)
    Forget,  ///< forgotten; on task by the commitment's own lists, where the nudge runs
    This,    ///< this observation; the on-task stretch ends and the advisory goes
  };
  Subject subject = Subject::This;
  bool blocked = false;   ///< a hard rule: "This is on task" is refused
  bool keepView = false;  ///< nothing changes at all (own page while the banner is up)
  bool cache = false;     ///< cached for the session under the subject's key
  /// The heads-up it shows (DriftView::nudge) for a verdict about this
  /// window (Subject::This); "" clears the one before.
  std::string nudge = {};
  bool judge = false;     ///< ask the judge (debounced): status Judging
  std::string memoryKey;  ///< a remembered verdict's key (the page's Forget); "" otherwise
};

/// One tier of the list: its name (docs/DESIGN.md §4) and its decision.
struct Tier {
  std::string_view name;
  /// Whether it reads the subject's keys (the engine prepares them first,
  /// which ends the on-task stretch).
  bool needsSubject;
  std::optional<Verdict> (*decide)(const TierInput& in);
};

/// Each tier's decision (docs/DESIGN.md §4 "The tiers", in list order).
/// Pure functions of their input; thread-safe for distinct inputs.
namespace tiers {
/// A window that says nothing (unreadable, lock screen): unknown.
std::optional<Verdict> unreadable(const TierInput& in);
/// drift.blocked_apps / blocked_titles: drifting, blocked.
std::optional<Verdict> hardRules(const TierInput& in);
/// AntiDrift's own page: neutral, and the banner stays where it is.
std::optional<Verdict> ownPage(const TierInput& in);
/// An allowed app, a marked page or a marked site: on task — with the
/// heads-up when an allowed editor shows another workspace than the
/// session's (docs/DESIGN.md §4 "Other work inside the allowed app").
std::optional<Verdict> localMatch(const TierInput& in);
/// The session's cached verdict for the page's key.
std::optional<Verdict> sessionCache(const TierInput& in);
/// The person's remembered marks: an on-mark always; an off-mark unless a
/// known distraction agrees (then the distraction decides, with its reason).
std::optional<Verdict> yourMarks(const TierInput& in);
/// A title that shares the commitment's distinctive words: on task, cached —
/// except a page of a known distraction while a judge can be asked about it
/// (no opinion: the judge decides; docs/DESIGN.md §4 "The tiers, in order").
std::optional<Verdict> relevance(const TierInput& in);
/// A known distraction: drifting, cached.
std::optional<Verdict> knownDistractions(const TierInput& in);
/// A known distraction whose title shares the commitment's words
/// (LocalFinding::Kind::TaskDistraction): no opinion when the judge can be
/// asked about it (it decides; "Checking…" meanwhile), else unknown with the
/// heads-up asking whether it is for the next action — never the banner.
std::optional<Verdict> taskDistraction(const TierInput& in);
/// A site-wide verdict of the judge for the page's domain.
std::optional<Verdict> siteVerdict(const TierInput& in);
/// A judge's verdict remembered from an earlier session.
std::optional<Verdict> rememberedJudge(const TierInput& in);
/// Nothing may be sent or nobody to ask: private window, never-send app,
/// AI off, or a key whose judge call failed (and may not retry yet).
std::optional<Verdict> cannotSend(const TierInput& in);
/// The judge: always an opinion (judging).
std::optional<Verdict> judge(const TierInput& in);
}  // namespace tiers

/// The tiers in the order the engine asks them (docs/DESIGN.md §4 "The
/// tiers" gives the reason for each place). The first with an opinion decides.
inline constexpr std::array<Tier, 13> kTiers = {{
    {"unreadable", false, &tiers::unreadable},
    {"hard rules", false, &tiers::hardRules},
    {"own page", false, &tiers::ownPage},
    {"local match", false, &tiers::localMatch},
    {"session cache", true, &tiers::sessionCache},
    {"your marks", true, &tiers::yourMarks},
    {"relevance", true, &tiers::relevance},
    {"known distractions", true, &tiers::knownDistractions},
    {"site verdict", true, &tiers::siteVerdict},
    {"remembered judge verdict", true, &tiers::rememberedJudge},
    {"task's own page of a known distraction", true, &tiers::taskDistraction},
    {"cannot send", true, &tiers::cannotSend},
    {"judge", true, &tiers::judge},
}};

/// The reason a remembered verdict is shown with: "remembered: " and the
/// judge's label (judgeReason) or the person's words; an empty reason
/// becomes "<app> fits the commitment". Pure.
std::string rememberedReason(const RememberedVerdict& known, const std::string& app);

/// The judge's `reason` as the page shows it (docs/DESIGN.md §4 step 4): the
/// model's words under a label, kJudgeLabel + '"' + reason + '"', with the
/// reason made one line of valid UTF-8 (text::normalizeUnicode; control
/// characters become spaces, '"' becomes '\''), cut to 160 code points with
/// "…". Pure; thread-safe; never throws (bar std::bad_alloc).
std::string judgeReason(std::string_view reason);

/// The label before a reason the AI judge wrote (docs/DESIGN.md §4 step 4).
inline constexpr std::string_view kJudgeLabel = "AI judge: ";

}  // namespace antidrift::drift
