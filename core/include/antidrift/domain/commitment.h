/// @file commitment.h
/// The commitment a person makes when starting a session (docs/DESIGN.md §2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace antidrift {

/// Limits of docs/DESIGN.md §2 "Validation errors".
inline constexpr std::size_t kMaxFieldChars = 500;          ///< per text field, in characters
inline constexpr std::int64_t kMaxTimeboxSecs = 12 * 3600;  ///< 12 h
inline constexpr std::size_t kMaxAllowedApps = 64;          ///< entries in allowed_apps

/// A title the person confirmed on task in a title-sensitive app (docs/DESIGN.md §4
/// "This is on task"; issue 6 item 6): one browser serves the work and the
/// distraction, so the confirmation is for this page, not the whole browser.
struct AllowedTitle {
  std::string app;    ///< normalised window class (normalizeApp)
  std::string title;  ///< the title's key form (drift::normalizeTitle)
};

/// A whole site the person confirmed on task for this session in a
/// title-sensitive app (docs/DESIGN.md §4 "This is on task"; issue 17 item 4): every
/// page of it is on task until the session ends or the mark is undone. The
/// site is the one the drift engine derived (drift::siteVerdictKey): the
/// domain of URL evidence, else the title's site suffix (drift::siteOf).
struct AllowedSite {
  std::string app;      ///< normalised window class (normalizeApp)
  std::string site;     ///< "youtube.com" (a domain) or "youtube" (a title's site name)
  bool domain = false;  ///< true: `site` is a domain from URL evidence; false: a title's site
};

/// One active commitment. Immutable once started except `allowedApps`,
/// `allowedTitles` and `allowedSites`, which grow when the person says "This
/// is on task" (and shrink when they undo a page or site mark).
struct Commitment {
  std::string id;                 ///< UUID (Poco::UUIDGenerator), lower-case text
  std::string nextAction;         ///< what the person will do
  std::string successCondition;   ///< how they will know it is done
  std::int64_t timeboxSecs = 0;   ///< length of the timebox, seconds
  std::int64_t startedAtMs = 0;   ///< UTC ms
  std::int64_t deadlineMs = 0;    ///< UTC ms = startedAtMs + (timeboxSecs + extendedSecs) * 1000
  std::int64_t extendedSecs = 0;  ///< seconds added by Extend (issue 7), 0 if none
  std::vector<std::string> allowedApps;     ///< normalised window classes (lower-case)
  std::vector<AllowedTitle> allowedTitles;  ///< titles confirmed on task (title-sensitive apps)
  std::vector<AllowedSite> allowedSites;    ///< whole sites confirmed on task this session
};

/// What `POST /commitment` asks for, already type-checked by the server.
/// Exactly one of the timebox fields should be set; if both are, seconds win.
struct CommitmentRequest {
  std::string nextAction;
  std::string successCondition;
  std::optional<std::int64_t> timeboxMinutes;
  std::optional<std::int64_t> timeboxSecs;
  /// nullopt: use the configured defaults (`drift.allowed_apps`).
  std::optional<std::vector<std::string>> allowedApps;
};

/// Validates `request` (docs/DESIGN.md §2): trimmed next action non-empty, every text
/// field ≤ kMaxFieldChars characters, timebox in (0, 12 h], allowed apps ≤
/// kMaxAllowedApps each ≤ kMaxFieldChars. Returns the first problem as a
/// human sentence, or nullopt when valid. Pure; thread-safe.
std::optional<std::string> validateCommitment(const CommitmentRequest& request);

/// The timebox of a valid request in seconds (seconds field first, else minutes×60).
std::int64_t requestedTimeboxSecs(const CommitmentRequest& request);

}  // namespace antidrift
