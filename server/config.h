/// @file config.h
/// The daemon's configuration (docs/DESIGN.md §12): every key read from a layered
/// Poco::Util configuration, validated, with the built-in defaults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Poco/AutoPtr.h>
#include <Poco/Util/AbstractConfiguration.h>

#include "antidrift/settings.h"

namespace antidrift {

/// A configuration value that cannot be used. `what()` is one sentence naming
/// the key and the bad value; the daemon prints it and exits 78 (EX_CONFIG).
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The parts of the process environment the defaults depend on (docs/DESIGN.md §9,
/// §12). A plain value so tests can pass any environment.
struct ConfigEnvironment {
  std::string home;           ///< $HOME, "" when unset
  std::string xdgConfigHome;  ///< $XDG_CONFIG_HOME, "" when unset
  std::string xdgDataHome;    ///< $XDG_DATA_HOME, "" when unset
  std::string aiBackend;      ///< $ANTIDRIFT_AI_BACKEND, "" when unset
  std::string display;        ///< $DISPLAY, "" when unset
  /// Directory of the running binary (/proc/self/exe, symlinks resolved),
  /// "" when unknown: an installed antidriftd finds its page and plugins
  /// relative to it (defaultWwwDir, defaultPluginDir).
  std::string executableDir;
  std::string swaySocket;  ///< $SWAYSOCK, "" when unset
  std::string i3Socket;    ///< $I3SOCK, "" when unset

  /// Reads the variables above from this process. Thread-safe.
  static ConfigEnvironment fromProcess();
};

/// The window evidence source the daemon runs (evidence.source; docs/DESIGN.md §3, issue 10 item
/// 1).
enum class EvidenceSource {
  None,  ///< no built-in source: evidence only through POST /evidence/window and /api/0
  X11,   ///< Xlib on $DISPLAY (server/x11)
  Sway,  ///< i3 IPC on $SWAYSOCK (server/sway)
  I3,    ///< i3 IPC on $I3SOCK (server/sway), idle from the X server on $DISPLAY
};

/// "none", "x11", "sway" or "i3". Pure.
std::string_view toString(EvidenceSource source);

/// Everything antidriftd reads from its configuration, validated.
/// Defaults are the built-in defaults of docs/DESIGN.md §12; see
/// antidrift.properties.example for every key.
struct DaemonConfig {
  std::string address = "127.0.0.1";   ///< server.address: an IP address to bind
  std::uint16_t port = 7717;           ///< server.port: 0 = ephemeral
  std::size_t maxSseClients = 32;      ///< server.max_sse_clients: open /events streams, ≥ 1
  int threads = 64;                    ///< server.threads: HTTP pool capacity
  std::int64_t sseKeepAliveSecs = 15;  ///< server.sse_keepalive_s: SSE comment interval, seconds
  /// server.request_timeout_s: socket receive timeout of every connection,
  /// seconds (1..300): how long a silent client may hold a pool thread.
  std::int64_t requestTimeoutSecs = 5;
  /// server.request_deadline_s: the longest a whole request (request line,
  /// headers, body) may take to arrive from its first byte, seconds
  /// (1..3600, issue 19 item 1).
  std::int64_t requestDeadlineSecs = 10;
  /// server.max_connections_per_uid: connections one Unix user may hold at
  /// once (1..4096; default 2 × server.threads, issue 19 item 1).
  int maxConnectionsPerUid = 128;
  std::string wwwDir;  ///< server.www_dir: static UI files
  /// drift.categories_file: the known-distractions file read (issue 16 item
  /// 3); "" when none was (switched off, or the default file is missing).
  std::string distractionsFile;
  std::string storeDir;  ///< store.dir: snapshot.json, audit.jsonl, token
  /// ai.backend ($ANTIDRIFT_AI_BACKEND wins); "none" = off; "auto" (the
  /// default, issue 18 item 2) = the daemon chooses at start (backend_choice.h).
  std::string aiBackend = "auto";
  std::string pluginDir;  ///< ai.plugin_dir: where antidrift-<name>.so live
  /// ai.user_plugin_dir: a person's own plugins, dropped in without root
  /// (default `~/.local/lib/antidrift/plugins`; "" = none). Searched after
  /// ai.plugin_dir, so a shipped backend keeps its name (docs/PLUGINS.md
  /// "Where plugins go").
  std::string userPluginDir;
  /// ai.<backend>.* with the prefix stripped, plus "timeout_s" (backend.h
  /// `configure`), "local_only" ("true"/"false") and "local_hosts" (issue 18
  /// item 3). With ai.backend = auto: empty but for those three.
  std::map<std::string, std::string> aiBackendSettings;
  /// ai.backend = auto only: ai.openai.*, ai.claude.* and ai.codex.* with the
  /// prefix stripped, by backend name (what auto passes to the one it picks).
  std::map<std::string, std::map<std::string, std::string>> aiAutoSettings;
  /// privacy.local_only (issue 18 item 3): refuse every backend that sends
  /// prompts off the machine (plugin.json "prompts": "remote").
  bool localOnly = false;
  /// privacy.local_hosts: host names besides loopback the person counts as
  /// this machine, comma-separated as written ("" = none).
  std::string localHosts;
  /// evidence.x11: false forbids every use of X11 (auto never picks it, i3 reads no idle
  /// time from XScreenSaver); the key predates evidence.source and keeps working.
  bool x11 = true;
  /// evidence.source resolved: `auto` (the default) picks sway when $SWAYSOCK is set, else i3
  /// when $I3SOCK is set, else x11 when $DISPLAY is set and evidence.x11 is true, else none.
  EvidenceSource evidenceSource = EvidenceSource::None;
  /// Why that source, one phrase for the log: "evidence.source = auto and $SWAYSOCK is set".
  std::string evidenceSourceReason;
  /// notify.desktop: call notifyCommand when a new drift starts (docs/DESIGN.md §4).
  /// nullopt = `auto` (the default, issue 17 item 2): on when a notification
  /// server owns org.freedesktop.Notifications on the session bus at start.
  std::optional<bool> notifyDesktop;
  /// notify.repeat_s: a drift that lasts is reminded every this many seconds
  /// (issue 17 item 2); 0 = never. 30…86400 otherwise.
  std::int64_t notifyRepeatSecs = 300;
  /// notify.heads_up: the heads-up (DriftView::nudge) raises a desktop
  /// notification too, once per distinct text in a session (issue 17 item 2).
  bool notifyHeadsUp = false;
  /// focus.do_not_disturb (issue 17 item 3): "auto" (the default: the server
  /// on the session bus, nothing when none or unknown), "off", or a backend
  /// name of notify::dndBackendNamed ("dunst", "mako", "swaync", "gnome", "xfce").
  std::string doNotDisturb = "auto";
  /// notify.command: the notify-send compatible program run for a drift
  /// (looked up on $PATH; "~" expanded). Not empty.
  std::string notifyCommand = "notify-send";
  /// The core's part: heartbeat, idle, allowed apps, timeouts, paths, and
  /// the drift.*, nudge.* and privacy.* keys (settings.h has their defaults).
  /// Every pattern (drift.blocked_titles.*, privacy.redact.*) compiles.
  Settings settings;
};

/// Reads and validates every daemon key of `config` (docs/DESIGN.md §12). Relative
/// and `~` paths are expanded with Poco::Path::expand. `$ANTIDRIFT_AI_BACKEND`
/// (in `env`) overrides ai.backend unless "ai.backend" is in
/// `commandLineKeys` (keys given with `-D`, which always win).
/// Lists of apps are normalised (normalizeApp); a list key that is set
/// replaces its default. Pattern keys (`drift.blocked_titles.<name>`,
/// `privacy.redact.<name>`) override the default of the same name and must
/// compile with Poco::RegularExpression.
/// `evidence.source` (auto | x11 | sway | i3 | none) is resolved against `env`; `x11`
/// together with `evidence.x11 = false` is a contradiction and a ConfigError.
/// Throws ConfigError naming the first bad key (e.g. `server.port must be an
/// integer from 0 to 65535, got "http"`, `privacy.redact.x is not a valid
/// pattern: …`). Pure apart from reading `config`.
DaemonConfig readDaemonConfig(const Poco::Util::AbstractConfiguration& config,
                              const ConfigEnvironment& env,
                              const std::set<std::string>& commandLineKeys = {});

/// The default configuration file (docs/DESIGN.md §12):
/// `$XDG_CONFIG_HOME/antidrift/antidrift.properties`, else
/// `~/.config/antidrift/antidrift.properties`; nullopt when that file does
/// not exist. Reads the file system only.
std::optional<std::string> defaultConfigFile(const ConfigEnvironment& env);

/// Reads the configuration file at `path` (docs/DESIGN.md §12): `.ini`, `.xml` and
/// `.json` by extension, anything else as a `.properties` file. Throws
/// ConfigError "cannot read the configuration file <path>: <reason>" when it
/// is missing or malformed. Reads the file system only; thread-safe.
Poco::AutoPtr<Poco::Util::AbstractConfiguration> loadConfigurationFile(const std::string& path);

/// The default store.dir (docs/DESIGN.md §9): `$XDG_DATA_HOME/antidrift`, else
/// `~/.local/share/antidrift`. Throws ConfigError when neither
/// $XDG_DATA_HOME (absolute) nor $HOME is set. Pure.
std::string defaultStoreDir(const ConfigEnvironment& env);

/// The entry of `candidates` nearest to `name` by edit distance (Levenshtein,
/// bytes; the first of equals), "" when `candidates` is empty: the "did you
/// mean" of an unknown configuration key or request field (issue 17 item 4).
/// Pure.
std::string nearestName(const std::string& name, const std::vector<std::string>& candidates);

/// True for a binary outside the build tree it was built in (`env.executableDir`
/// is neither the build directory nor ""): it uses the installed layout, and
/// what it tells a person to run names installed commands, not scripts/ of
/// the source tree (issue 10 item 3, issue 17 item 4). Pure.
bool runsInstalled(const ConfigEnvironment& env);

/// Built-in default of server.www_dir: the source tree's www/ for the
/// binary in the build tree (`env.executableDir` is the build directory or
/// ""), else `<executableDir>/../share/antidrift/www` — the installed layout
/// (issue 10 item 3). Pure.
std::string defaultWwwDir(const ConfigEnvironment& env);
/// Built-in default of ai.plugin_dir: `<build dir>/plugins` for the binary
/// in the build tree, else `<executableDir>/../lib/antidrift/plugins`
/// (docs/TECH-NOTES.md §1.6). Pure.
std::string defaultPluginDir(const ConfigEnvironment& env);
/// Built-in default of ai.user_plugin_dir: `<home>/.local/lib/antidrift/plugins`
/// (the per-user twin of `<prefix>/lib/antidrift/plugins`; a plugin is
/// architecture-dependent code, so not under ~/.local/share), "" when
/// `env.home` is empty (docs/PLUGINS.md "Where plugins go"). Pure.
std::string defaultUserPluginDir(const ConfigEnvironment& env);
/// The plugin folders in search order: ai.plugin_dir, then ai.user_plugin_dir
/// (when set). The first folder holding `antidrift-<name>.so` provides
/// backend `<name>` (docs/PLUGINS.md "Where plugins go"). Pure.
std::vector<std::string> pluginSearchPath(const DaemonConfig& config);

/// Every key readDaemonConfig reads, found by running it against an empty
/// configuration that records each key asked for (so a key added there is
/// known here without a second list), plus the roots of the key families it
/// enumerates (`drift.blocked_titles`, `privacy.redact`, `ai.<name>`).
/// Thread-safe; computed once.
const std::set<std::string>& knownConfigKeys();

/// Every leaf key of `config` (a key with a value), sorted. Reads `config` only.
std::vector<std::string> leafKeys(const Poco::Util::AbstractConfiguration& config);

/// One warning per key of `keys` that AntiDrift does not know (issue 10 item
/// 4): not in knownConfigKeys(), not under a known family root, not
/// `ai.<name>.<setting>` (plugin settings) and not `logging.*` (Poco). Each
/// is one sentence naming the key and the nearest known key by edit
/// distance: `unknown configuration key "server.prot" (ignored; did you mean
/// "server.port"?)`. Pure.
std::vector<std::string> unknownKeyWarnings(const std::vector<std::string>& keys);

/// Where an effective configuration value came from (`--check-config`).
enum class ValueOrigin {
  Default,      ///< built-in default (or derived from $HOME/$XDG_* for paths)
  File,         ///< the configuration file
  Environment,  ///< $ANTIDRIFT_AI_BACKEND
  CommandLine,  ///< -D key=value
};

/// One line of `antidriftd --check-config`.
struct ConfigEntry {
  std::string key;
  std::string value;  ///< as the daemon uses it (paths expanded, lists normalised)
  ValueOrigin origin = ValueOrigin::Default;
};

/// The effective configuration `config` as key/value lines sorted by key,
/// each with where it came from: `commandLineKeys` (-D), `env.aiBackend`
/// (for ai.backend), the keys of `file` (null when no file was read), else
/// the default. Pure.
std::vector<ConfigEntry> describeConfig(const DaemonConfig& config,
                                        const Poco::Util::AbstractConfiguration* file,
                                        const std::set<std::string>& commandLineKeys,
                                        const ConfigEnvironment& env);

/// "default", "file", "environment" or "-D". Pure.
std::string originName(ValueOrigin origin);

/// The logging.* defaults (docs/TECH-NOTES.md §4): root logger on a ConsoleChannel
/// (stderr) with the pattern "%Y-%m-%d %H:%M:%S [%p] %s: %t", level
/// information. The daemon adds them below every other layer.
std::map<std::string, std::string> defaultLoggingProperties();

}  // namespace antidrift
