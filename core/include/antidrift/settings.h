/// @file settings.h
/// The core's view of the configuration (docs/DESIGN.md §12). The daemon reads the
/// properties file through Poco::Util and fills this plain struct, so the core
/// never links Poco::Util.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace antidrift {

/// One known distraction (issue 16 item 3; data/distractions.txt, docs/API.md
/// "Known distractions"): a site or app of a category, as its URL and its
/// titles or window class name it.
struct DistractionSite {
  std::string category;  ///< "video", "social", "news", "adult", "shopping", "games", "chat", …
  std::vector<std::string> domains;  ///< hosts, lower-case ("youtube.com"); subdomains match too
  std::vector<std::string> names;    ///< as titles and window classes name it ("YouTube")
};

/// Settings the core uses. Defaults are the built-in defaults of docs/DESIGN.md §12.
struct Settings {
  /// evidence.heartbeat_s: a source re-emits the current window this often,
  /// seconds; health is "ok" while the last observation is < 3 × this old.
  std::int64_t heartbeatSecs = 10;
  /// evidence.idle_after_s: seconds without input before the person is away;
  /// also the largest gap between observations credited to a bucket.
  std::int64_t idleAfterSecs = 180;
  /// drift.allowed_apps: default allowed window classes for a new commitment.
  std::vector<std::string> defaultAllowedApps;
  /// ai.timeout_s: how long one AI call may take, seconds.
  std::int64_t aiTimeoutSecs = 30;
  /// knowledge.profile: path of the person's Markdown profile; "" = none.
  std::string profilePath;
  /// tasks.todo_txt: path of a todo.txt file; "" = none.
  std::string todoTxtPath;

  // ---- Drift interceptor (docs/DESIGN.md §4) ----

  /// drift.blocked_apps: window classes that are drift whenever they are in
  /// front during a session, judged by no AI ("<app> is blocked during focus").
  std::vector<std::string> blockedApps;
  /// drift.blocked_titles.<name> = <regex>: titles that are drift in any app.
  /// Name → pattern (Poco::RegularExpression, PCRE, matched case-insensitively
  /// against the sanitised title). Empty pattern = rule off.
  std::map<std::string, std::string> blockedTitles;
  /// drift.title_sensitive_apps: apps judged per normalised title rather than
  /// per app, because one window of them serves the work and the next the
  /// distraction: the browsers, and the apps whose every window is one
  /// document, mail or file (office suites, mail clients, PDF readers; a
  /// verdict on "Checkout test plan - Word" says nothing of "Letter to
  /// landlord - Word"). Firefox Developer Edition reports the class "Firefox
  /// Developer Edition" (the real ActivityWatch export, docs/TECH-NOTES.md §9)
  /// or "firefoxdeveloperedition".
  std::vector<std::string> titleSensitiveApps = {
      "firefox", "firefox-esr", "firefox developer edition", "firefoxdeveloperedition", "navigator",
      "librewolf", "chromium", "chromium-browser", "google-chrome", "brave-browser",
      "microsoft-edge", "vivaldi-stable", "opera", "epiphany", "org.gnome.epiphany", "qutebrowser",
      "tor browser",
      // One document, mail or file a window.
      "winword.exe", "excel.exe", "powerpnt.exe", "outlook.exe", "onenote.exe", "acrord32.exe",
      "acrobat.exe", "libreoffice", "soffice", "libreoffice-writer", "libreoffice-calc",
      "libreoffice-impress", "thunderbird", "evince", "org.gnome.evince", "okular", "zathura"};
  /// drift.lock_screen_apps: lock screens and screensavers (X11 and Windows
  /// classes): an observation of one says nothing about focus or drift.
  std::vector<std::string> lockScreenApps = {"xscreensaver",
                                             "i3lock",
                                             "slock",
                                             "xsecurelock",
                                             "light-locker",
                                             "gnome-screensaver",
                                             "cinnamon-screensaver",
                                             "mate-screensaver",
                                             "xfce4-screensaver",
                                             "xtrlock",
                                             "xlock",
                                             "swaylock",
                                             "kscreenlocker_greet",
                                             "lockapp.exe",
                                             "lockapp",
                                             "logonui.exe"};
  /// Not a config key: the tag that marks AntiDrift's own page (issue 19
  /// item 3), drift::ownPageTag() of the daemon's token, set by the daemon at
  /// start and put into the served page, which ends its document.title with
  /// "AntiDrift <tag>". Empty (tests, replays): no window is the own page.
  std::string ownPageTag;
  /// drift.judge_dwell_s (older name drift.judge_debounce_s): how long
  /// (seconds) a window must stay in front, unchanged, before the DriftJudge
  /// is asked about it; 0 = at once. 3: a page still in front after a short
  /// look is asked about then, so the time to tell stays near the dwell
  /// (docs/DESIGN.md §4 step 4), while flicker shorter than it costs no call.
  std::int64_t judgeDwellSecs = 3;
  /// drift.private_windows: how a private (incognito) window is judged
  /// (docs/DESIGN.md §4 "Private windows"). Its title and site are never
  /// stored, shown, logged, exported or sent, whichever is chosen.
  enum class PrivateWindows {
    Ask,    ///< the local tiers on its raw title in memory; undecided: the heads-up asks
    Local,  ///< the local tiers on its raw title in memory; undecided: unknown, nothing asked
    Ignore  ///< only the hard rules see its raw title; the rest never does
  };
  PrivateWindows privateWindows = PrivateWindows::Ask;
  /// drift.memory: remember the judge's verdicts and the person's corrections
  /// across sessions and reuse them for work that shares the commitment's
  /// words (issue 16 item 3). Off: the remembered verdicts are neither
  /// consulted nor added to (they can still be listed and cleared).
  bool driftMemory = true;
  /// drift.memory_max_entries: how many remembered verdicts are kept, 1–50000;
  /// the least recently used go first.
  std::int64_t driftMemoryMaxEntries = 5000;
  /// drift.categories_file and drift.categories.<category>: the known
  /// distractions (issue 16 item 3), read by the daemon from the shipped
  /// data/distractions.txt and the config. Empty: none known.
  std::vector<DistractionSite> distractionSites;
  /// drift.distraction_categories: the categories whose sites raise the
  /// banner at once, AI on or off (issue 16 item 3). Case as written.
  std::vector<std::string> distractionCategories = {"video",    "social", "news", "adult",
                                                    "shopping", "games",  "chat"};

  // ---- Nudge (docs/DESIGN.md §5, seed 000) ----

  /// nudge.debounce_s: at most one Nudger call per this many seconds.
  std::int64_t nudgeDebounceSecs = 300;

  // ---- Privacy (docs/DESIGN.md §8) ----

  /// privacy.redact.<name> = <regex>: applied to every title before it goes
  /// into a prompt; each match becomes "[redacted]". Name → pattern (PCRE).
  /// Empty pattern = rule off (so a default can be switched off).
  std::map<std::string, std::string> redactPatterns = {
      {"email", R"([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})"}, {"digits", R"(\d{6,})"}};
  /// privacy.never_send_apps: apps whose titles never go to the AI; they are
  /// judged by the local rules only.
  std::vector<std::string> neverSendApps = {"keepassxc", "keepass2", "1password", "bitwarden"};
};

}  // namespace antidrift
