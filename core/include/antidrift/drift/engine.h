/// @file engine.h
/// drift::Engine — decides what each observation means for drift (docs/DESIGN.md §4,
/// §5; seed 000). It walks the ordered tiers of tiers.h and applies the
/// first verdict in one place; it owns the state they read (the verdict
/// cache, the local tier's misses, the judge's attempts and dwell), the
/// nudge ring and the two epochs that guard the AI calls. It performs no
/// I/O and launches nothing: it returns requests, and the Controller
/// launches them with launchGuarded and hands the answers back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/ai/redact.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/domain/drift_stay.h"
#include "antidrift/drift/distractions.h"
#include "antidrift/drift/nudge_ring.h"
#include "antidrift/drift/relevance.h"
#include "antidrift/drift/rules.h"
#include "antidrift/drift/tiers.h"
#include "antidrift/drift/verdict_cache.h"
#include "antidrift/drift/verdict_memory.h"
#include "antidrift/epoch.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/settings.h"

namespace antidrift::drift {

/// The drift part of State (docs/DESIGN.md §10): what the page shows.
struct DriftView {
  DriftStatus status = DriftStatus::Inactive;
  std::string reason;  ///< a human sentence; for drifting, the rule's or judge's reason verbatim
  std::string nudge;   ///< the soft "Heads up" advisory (seed 000); "" = none
  std::string app;     ///< the app the status is about; "" when none
  /// Drifting because of a hard rule (drift.blocked_apps / blocked_titles):
  /// "This is on task" cannot override it (docs/DESIGN.md §4 step 1 comes first).
  bool blocked = false;
  /// Judging and waiting for the dwell (drift.judge_dwell_s): UTC ms at which the
  /// judge will be asked (issue 16 item 2: the page says when); 0 otherwise.
  std::int64_t judgeAtMs = 0;
  /// A remembered verdict (docs/API.md "Remembered verdicts") decided: its
  /// verdict-memory key, which the page's Forget deletes (issue 17, re-walk
  /// A); "" otherwise.
  std::string memoryKey;
  /// AntiDrift's own page is in front while the banner stays up (docs/DESIGN.md
  /// §4 tier 3): the drift is paused — its time is neutral, not drift — and
  /// goes on from the next window that is still off task.
  bool ownPage = false;
};

/// A DriftJudge call the Controller must launch (off the lock) with
/// launchGuarded(…, engine.judgeEpoch(), token, …), then hand the answer to
/// applyVerdict(key, …).
struct JudgeRequest {
  std::string key;       ///< the verdict-cache key being judged
  std::uint64_t token;   ///< judgeEpoch() at launch
  ai::JudgeInput input;  ///< commitment, app and the redacted title
};

/// A Nudger call to launch with launchGuarded(…, engine.nudgeEpoch(), token, …),
/// then hand the answer to applyNudge().
struct NudgeRequest {
  std::uint64_t token;   ///< nudgeEpoch() at launch
  ai::NudgeInput input;  ///< commitment and the redacted recent titles, oldest first
};

/// What one step decided. The Controller applies the stats and launches the
/// requests; `changed` says whether the DriftView changed (worth publishing).
struct Decision {
  bool changed = false;         ///< view() differs from before the step
  bool episodeStarted = false;  ///< the status became drifting: one more drift episode
  std::int64_t driftMs = 0;     ///< drifting time (ms) that this step closed; add to the stats
  std::optional<JudgeRequest> judge;
  std::optional<NudgeRequest> nudge;
};

/// What "This is on task" added to the commitment.
struct OnTaskMark {
  std::string app;    ///< the app confirmed
  std::string title;  ///< the normalised title, for a title-sensitive app's page; else ""
  std::string site;   ///< the site, when the whole site was marked (OnTaskScope::Site); else ""
};

/// How much "This is on task" covers (issue 17 item 4).
enum class OnTaskScope {
  Page,  ///< this page (its title key) in a title-sensitive app, else the whole app
  Site,  ///< every page of the site the engine derived (siteVerdictKey) for this session
};

/// The drift decision for one active session at a time. Not synchronised:
/// the Controller owns one and calls it under its mutex. Times: `atMs` are
/// UTC ms of the observation (for drift seconds, like the stats buckets);
/// `nowMono` are monotonic ms (for debounces).
class Engine {
 public:
  /// Which AI roles are there to call (drift::Advisors, tiers.h).
  using Advisors = drift::Advisors;

  /// Compiles the rules and redaction patterns of `settings`. Throws
  /// std::invalid_argument naming the config key of a pattern that does not
  /// compile (the daemon validated them already; tests may not).
  explicit Engine(const Settings& settings);

  /// True for the verdict key of a private window (a key no page has: it
  /// holds a blank line); the judge's answers and failures about one are
  /// neither kept, remembered nor quoted (docs/DESIGN.md §4 "Private
  /// windows"). Pure.
  static bool isPrivateKey(std::string_view key);

  /// A new session (or a restored one): cache, ring, nudge, debounce and
  /// subject cleared; both epochs advance so in-flight answers are discarded
  /// (docs/DESIGN.md §9 "Restart": drift and nudge state reset).
  void reset();

  /// docs/DESIGN.md §4 on one observation while active with evidence ok and the
  /// person present: hard rules → local match (+ nudge, seed 000) → cached
  /// verdict (the page's, else a site-scoped one for its site) → the
  /// person's remembered marks (setMemory; a Back to task that a known
  /// distraction agrees with leaves the distraction's reason: issue 17 item
  /// 4) → the local
  /// tier (issue 16 item 3: a known distraction is drifting at once unless the
  /// title shares the commitment's distinctive words; a title that shares them
  /// is on task) → judge (debounced, one call per key per session) → unknown. Observations that say
  /// nothing (unreadable window, lock screen) show "window unknown" and judge nothing; AntiDrift's
  /// own page changes nothing.
  [[nodiscard]] Decision observe(const Observation& obs, const Commitment& commitment,
                                 std::int64_t nowMono, Advisors advisors);

  /// The drift step of one evidence change, as the Controller and the replay
  /// (replay/replay.h) take it (docs/DESIGN.md §3, §4): with no window yet or
  /// `evidenceProblem` non-empty (e.g. "evidence is stale") → suspend(that);
  /// else with `away` → suspend("away"); else observe(*current, …). `atMs`
  /// is UTC ms (drift time), `nowMono` monotonic ms (debounces).
  [[nodiscard]] Decision evaluate(const Observation* current, const std::string& evidenceProblem,
                                  bool away, const Commitment& commitment, std::int64_t atMs,
                                  std::int64_t nowMono, Advisors advisors);

  /// Evidence is not ok or the person is away (`reason`, e.g. "away"): status
  /// unknown, nothing judged, drifting time closed at `atMs`, any pending
  /// debounce dropped.
  [[nodiscard]] Decision suspend(const std::string& reason, std::int64_t atMs);

  /// Monotonic ms at which a debounced judge call becomes due, or nullopt.
  std::optional<std::int64_t> nextDueMono() const;

  /// Launches the debounced judge call if it is due at `nowMono`.
  [[nodiscard]] Decision due(const Commitment& commitment, std::int64_t nowMono);

  /// Applies the DriftJudge's answer for `key` (nullopt: it failed or did not
  /// parse, `failure` says why): cached for the session with its reason
  /// labelled (judgeReason), and shown if `key` is still what the person is
  /// looking at. A failed key is asked once more on a visit at least 60 s
  /// after the failure (`atMs`, UTC ms), then never again this session (issue
  /// 19 item 4). A site-scoped verdict (issue 8 item 5) covers the site
  /// (siteVerdictKey: the domain of URL evidence only) once a second page of
  /// that site, under another key, got the same site-scoped answer (issue 19
  /// item 4); then every other page of it takes the verdict without a call,
  /// after the local tier (a known distraction stays one). Call only for a
  /// current token (launchGuarded checks the epoch).
  [[nodiscard]] Decision applyVerdict(const std::string& key,
                                      const std::optional<ai::Verdict>& verdict,
                                      const std::string& failure, std::int64_t atMs);

  /// Applies the Nudger's answer (seed 000): a message (possibly "", which
  /// clears the advisory) or nullopt for an error, which leaves it as it
  /// was. A message is remembered with the titles the call was about (the
  /// newest two of its trajectory): back in an allowed app on one of them,
  /// the advisory shows again at once, without a call (issue 16 item 2).
  /// Returns true when the advisory shown changed.
  bool applyNudge(const std::optional<std::string>& message);

  /// "Back to task" (docs/DESIGN.md §4): hides the banner (status unknown), forgets
  /// the subject; the next observation is evaluated afresh. In-flight judge
  /// answers are discarded (the judge epoch advances), and their keys count
  /// as never asked: the next observation of one asks the judge again.
  [[nodiscard]] Decision refocus(std::int64_t atMs);

  /// "This is on task" (docs/DESIGN.md §4): adds the subject's app — or, for a
  /// title-sensitive app, its normalised title — to `commitment`'s allowed
  /// lists, caches it on task, status ontask. nullopt when there is no subject
  /// (nothing judged off task yet); `decision` receives the closed drift time.
  /// `scope` Site (issue 17 item 4) adds the subject's site (the domain of
  /// URL evidence, else the title's site suffix: siteVerdictKey) to
  /// commitment.allowedSites instead and remembers nothing across sessions;
  /// nullopt as well when the subject has no such site.
  std::optional<OnTaskMark> markOnTask(Commitment& commitment, std::int64_t atMs,
                                       Decision& decision, OnTaskScope scope = OnTaskScope::Page);

  /// Undoes a page or site mark (issue 17 item 4): removes `app`'s page
  /// `title` (a normalizeTitle key) — or, with `isSite`, its site `title` —
  /// from `commitment`'s allowed lists, and forgets what the mark cached
  /// (the session's verdict, the judge attempt, and for a page the verdict
  /// memory's entry), so the next observation is judged afresh. Returns false
  /// when no such mark exists (nothing changes).
  bool unmarkOnTask(Commitment& commitment, const std::string& app, const std::string& title,
                    bool isSite);

  /// The site a Site-scoped mark of the current subject would cover, as the
  /// person reads it ("youtube.com" from URL evidence, else the title's site
  /// name), or "" when there is no subject or it names no site. Pure.
  std::string subjectSite() const;

  /// Why "This is on task" must be refused for the current subject (a hard
  /// rule fired: its reason), or nullopt when it may be marked.
  std::optional<std::string> onTaskRefusal() const;

  /// Closes the drifting time at `atMs` (the session leaves active) and
  /// returns it in ms; the status stays as it is.
  std::int64_t close(std::int64_t atMs);

  /// The drifting time of the open episode from where it was last credited
  /// up to `atMs` (session UTC ms), in ms (≥ 0); the episode stays open and
  /// is credited from `atMs` on. 0 when not drifting. The Controller calls it
  /// wherever it extends the timeline, so the State's drift_secs and the
  /// buckets' drifting_secs cover the same time (issue 17 item 4 of the
  /// number walk). Not thread-safe (the caller's lock).
  std::int64_t creditOpenDrift(std::int64_t atMs);

  /// The window the status is about and its verdict, for the snapshot
  /// (issue 17 item 4, the re-walk: a restart mid-stay): set while drifting,
  /// or on task by a verdict (a cached, remembered or local-tier one), about
  /// a window; nullopt otherwise (an allowed app is matched again anyway).
  std::optional<DriftStay> stay() const;

  /// After reset() on a restart (docs/DESIGN.md §9): when the first
  /// observation is of the window `stay` was about (its verdict key), it
  /// continues the stay: the verdict is kept for the session (cached, so no
  /// judge call; a hard rule decides again by itself) and a drift goes on —
  /// no episodeStarted, continuesStay() true. Any other first observation
  /// ends the stay and forgets it (all drift state reset, as before); a
  /// later return is a new visit.
  void resumeStay(const DriftStay& stay);

  /// Whether the drift shown continues the stay resumeStay() restored (the
  /// focus tally counts no new visit for it); false once the status leaves
  /// drifting.
  bool continuesStay() const { return continuing_; }

  /// Lends the engine the verdict memory (issue 16 item 3), owned by the
  /// caller and outliving the engine (and its copies); nullptr: none (the
  /// default). observe() consults it after the session cache misses and
  /// before the judge — a hit shows "remembered: <reason>" — and
  /// applyVerdict(), markOnTask() and refocus() on a drifting window write to
  /// it, keyed like the cache, with memoryWords() of the commitment. reset()
  /// leaves it alone. Not synchronised: the caller's lock guards both.
  void setMemory(VerdictMemory* memory) { memory_ = memory; }

  /// What the page shows.
  const DriftView& view() const { return view_; }
  /// The guard of judge calls: one for all keys.
  const Epoch& judgeEpoch() const { return judgeEpoch_; }
  /// The guard of nudge calls: one on-task stretch (seed 000 "nudgeEpoch").
  const Epoch& nudgeEpoch() const { return nudgeEpoch_; }
  /// The local rules (for the Controller's private-window check and tests).
  const Rules& rules() const { return rules_; }
  /// Keys whose judge call is in flight (tests).
  std::size_t judgeCallsInFlight() const { return inFlight_.size(); }

 private:
  /// The observation the status is about (the last one that was evaluated).
  struct Subject {
    Observation obs;
    std::string key;
    std::string siteKey;      ///< siteVerdictKey(); "" without URL evidence
    std::string markSiteKey;  ///< markSiteKey(): what a person's site mark names
  };

  void setView(Decision& decision, DriftStatus status, std::string reason, std::string app,
               std::int64_t atMs);
  /// observe() without the restored stay's bookkeeping: walks kTiers
  /// (tiers.h) in order and applies the first verdict (apply).
  Decision observeWindow(const Observation& obs, const Commitment& commitment, std::int64_t nowMono,
                         Advisors advisors);
  /// Makes `obs` the subject (its keys built once per window; a heartbeat
  /// keeps them) and ends the on-task stretch. Returns whether the subject's
  /// key is the one before (the judge's dwell goes on).
  bool takeSubject(const Observation& obs);
  /// Notes the editor workspace of an allowed app's window (editorWorkspace):
  /// the session's is the first seen, or a later one sharing more of the
  /// commitment's words (docs/DESIGN.md §4 "Other work inside the allowed app").
  void noteWorkspace(const Observation& obs, const Commitment& commitment);
  /// One verdict of a tier into the view, the cache, the subject and the
  /// requests (the one place a tier's decision takes effect).
  void apply(Decision& decision, const Verdict& verdict, const Observation& obs,
             const Commitment& commitment, std::int64_t nowMono, Advisors advisors,
             bool sameSubject);
  /// The judge tier's verdict: status judging, and the call launched once
  /// the key stayed in front drift.judge_dwell_s (one in flight per key).
  void judgeAfterDwell(Decision& decision, const Commitment& commitment, std::int64_t nowMono,
                       std::int64_t atMs, bool sameSubject, std::int64_t previousJudgeAtMs);
  /// The verdict memory's answer for the subject's page, else its site
  /// (nothing for a private window or without a memory).
  Remembered lookUpMemory(const Observation& obs, const Commitment& commitment);
  /// The local tier's finding for the subject's key (relevance, then the
  /// known distractions); a key it found nothing for is skipped after.
  LocalFinding findLocally(const Observation& obs, const Commitment& commitment);
  /// findLocally for a private window: on its raw title and site in memory
  /// (Observation::localTitle), nothing kept (docs/DESIGN.md §4 "Private windows").
  LocalFinding findPrivately(const Observation& obs, const Commitment& commitment);
  void maybeNudge(Decision& decision, const Observation& obs, const Commitment& commitment,
                  std::int64_t nowMono, Advisors advisors);
  void launchJudge(Decision& decision, const Commitment& commitment);
  /// A private window's verdict key: its app, kPrivateKeyMark and an ordinal
  /// per distinct raw title and site this session (privateOrdinals_), so two
  /// private windows are two subjects while no key carries a title.
  std::string privateKey(const Observation& obs);
  /// applyVerdict for a private window: the view only, while it is the
  /// subject and judging; nothing cached, remembered, or quoted from the judge.
  Decision applyPrivateVerdict(const std::string& key, const std::optional<ai::Verdict>& verdict,
                               std::int64_t atMs);
  void endStretch();
  /// memoryWords(commitment): the commitment's distinctive words, kept by
  /// relevanceOf() until its words change (issue 16 item 3).
  const std::set<std::string>& memoryWordsFor(const Commitment& commitment);
  /// The words of the last commitment seen (empty before any): what a
  /// verdict answered later is remembered with.
  const std::set<std::string>& currentWords() const;

  /// The relevance of the commitment `commitment` (computed again only when
  /// its next action, success condition or allowed apps changed).
  const Relevance& relevanceOf(const Commitment& commitment);

  Settings settings_;
  Rules rules_;
  Distractions distractions_;
  std::optional<Relevance> relevance_;
  Commitment relevanceFor_;  ///< the words relevance_ was computed from
  /// Keys the local tier found nothing for (this session, this commitment's
  /// words): a heartbeat of one skips it (≤ VerdictCache::kMaxEntries).
  std::unordered_set<std::string> localMisses_;
  ai::Redactor redactor_;
  VerdictCache cache_;
  NudgeRing ring_;
  Epoch judgeEpoch_;
  Epoch nudgeEpoch_;

  DriftView view_;
  std::optional<Subject> subject_;
  /// Keys whose judge call runs → their site key ("" when none), where a
  /// site-scoped answer is cached too.
  std::map<std::string, std::string> inFlight_;
  /// The keys the judge was asked about this session, and how their calls went.
  std::map<std::string, JudgeAttempt> attempted_;
  /// A site-scoped answer waiting for a second page of its site (issue 19
  /// item 4): the key that gave it and what it said.
  struct SiteVote {
    std::string key;
    bool onTask = false;
  };
  std::map<std::string, SiteVote> siteVotes_;  ///< by site key
  /// A judge call waiting for its key to stay in front judgeDwellSecs.
  std::optional<std::int64_t> pendingSinceMono_;
  std::optional<std::int64_t> driftingSinceMs_;  ///< UTC ms the current drift began
  /// The stay restored by resumeStay(), until the first observation.
  std::optional<DriftStay> resumed_;
  bool continuing_ = false;                    ///< the drift shown continues the restored stay
  std::optional<std::int64_t> lastNudgeMono_;  ///< monotonic ms of the last nudge call
  // The verdict memory (issue 16 item 3): not owned; the words of the last
  // commitment consulted, for the answers and corrections that follow.
  VerdictMemory* memory_ = nullptr;
  /// A new distinct title entered the ring since the last nudge call: only
  /// then is another call worth making (issue 16 item 2).
  bool ringChanged_ = false;
  std::vector<std::string> nudgeKeys_;  ///< the newest two keys of the running nudge call
  /// The last non-empty advisory and the title keys it was about.
  struct Advice {
    std::string message;
    std::vector<std::string> keys;
  };
  std::optional<Advice> advice_;
  std::string workspace_;            ///< the session's editor workspace; "" before any
  std::size_t workspaceShares_ = 0;  ///< how many of the commitment's words it shares
  bool workspaceNudge_ = false;      ///< the heads-up shown is the workspace's
  /// The private windows seen this session (raw title and site, in memory
  /// only) → their ordinal in privateKey(); cleared by reset() and when full.
  std::unordered_map<std::string, std::uint64_t> privateOrdinals_;
  std::uint64_t privateCount_ = 0;  ///< the last ordinal given
  /// What a private window's key holds between its app and its ordinal.
  static constexpr std::string_view kPrivateKeyMark = "\n\nprivate ";
};

/// Adds what `decision` means for the session's stats (docs/DESIGN.md §3 "Stats"):
/// a drift episode with `view`'s reason when one started, the drifting time it
/// closed. Shared by the Controller and the replay so both count alike. The
/// judge and nudge calls are counted where they are answered, with their
/// cost (issue 17 item 2 of the number walk), not here. Not thread-safe (the
/// caller's lock guards `stats`).
void recordDecision(const Decision& decision, const DriftView& view, StatsAccumulator& stats);

/// The timeline colour of the drift status `view`: away wins; AntiDrift's
/// own page in front is neutral, also while the banner stays up
/// (DriftView::ownPage; docs/DESIGN.md §4 tier 3); ontask and drifting map to
/// themselves; everything else is unknown. Pure.
SpanStatus spanStatusOf(const DriftView& view, bool away);

}  // namespace antidrift::drift
