/// @file daemon.h
/// antidriftd as a Poco::Util::ServerApplication: command line, layered
/// configuration (docs/DESIGN.md §12, docs/TECH-NOTES.md §4) and the wiring of core, HTTP
/// server, evidence sources (X11, sway/i3), notifier and timers (docs/DESIGN.md §1,
/// §10; docs/ARCHITECTURE.md).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <Poco/AutoPtr.h>
#include <Poco/Util/OptionSet.h>
#include <Poco/Util/ServerApplication.h>

#include "antidrift/backend.h"
#include "antidrift/session/state.h"
#include "server/config.h"

namespace antidrift {

/// What loadAi() set up: the configured backend name and whether it loaded.
struct AiSetup {
  std::string backendName = "none";  ///< the backend in use: ai.backend, auto's choice, or "none"
  bool available = false;            ///< a backend plugin is loaded and configured
  /// The loaded backend (null when off or failed). Plugin libraries stay
  /// mapped for the process's life, so it may outlive the loader; keep it
  /// alive until the executor has been shut down.
  std::shared_ptr<Backend> backend;
  /// Why AI is unavailable and what that means, one short sentence for the
  /// page: "Switched off in the configuration (ai.backend = none).", or the plugin's load or
  /// configure error followed by " — the daemon runs without AI"; "" when
  /// the backend loaded.
  std::string detail;
  /// How it was chosen (ai.backend = auto) and where its prompts go (issue
  /// 18 items 2 and 3), for State `ai`.
  AiOrigin origin;
};

/// The daemon. Options: `--config FILE` (else the XDG default file, else
/// built-in defaults), `-D key=value` (repeatable, wins over the file),
/// `--verify-audit` (check <store.dir>/audit.jsonl and exit 0 or 1),
/// `--list-backends` (list the backends of ai.plugin_dir and ai.user_plugin_dir
/// from their metadata files without loading any plugin, and exit), `--check-config` (print the
/// effective configuration with where each value came from, and exit),
/// `--release-dnd` (release a do-not-disturb hold a stopped or crashed daemon
/// left, and exit; the unit's ExecStopPost=), `--help`, plus ServerApplication's `--daemon`,
/// `--pidfile`, `--umask`.
///
/// Exit codes: 0 after a clean shutdown (SIGTERM, SIGINT, SIGQUIT) or
/// `--help`; 1 for a broken audit chain with `--verify-audit`; 64 for stray
/// arguments; 65 when the snapshot cannot be read; 69 when the port cannot be
/// bound; 73 when the token file or <store.dir>/lock cannot be written; 74
/// when audit.jsonl cannot be opened; 75 (EX_TEMPFAIL) when another
/// antidriftd holds <store.dir>/lock ("another antidriftd is using <dir>
/// (pid N)" on stderr), or another process (the CLI's offline token
/// rotation) still holds it after 5 s of waiting ("… is still locked by pid N
/// (name), not an antidriftd, after 5 s"); 78 for any configuration error (one sentence on
/// stderr; also from `--check-config`). `--verify-audit` takes no lock.
/// A key AntiDrift does not know is a warning naming the nearest known key
/// (logged at start, printed by `--check-config`), never an error.
/// On a termination signal it ends every child process group still running
/// (an AI CLI in flight) while the executor drains, and exits within about
/// two seconds with the snapshot written (issue 9 item 7).
///
/// Only the main thread uses this object; threads start in main(), never in
/// the constructor (`--daemon` forks).
class Daemon : public Poco::Util::ServerApplication {
 public:
  /// Sets Unix-style options; starts nothing (threads start in main()).
  Daemon();

 protected:
  void defineOptions(Poco::Util::OptionSet& options) override;
  /// Loads the configuration file, sets logging defaults, initialises the
  /// logging subsystem and reads DaemonConfig. Never throws: a problem is
  /// kept and reported by main() with exit code 78.
  void initialize(Poco::Util::Application& self) override;
  int main(const std::vector<std::string>& args) override;

 private:
  void handleHelp(const std::string& name, const std::string& value);
  void handleConfig(const std::string& name, const std::string& value);
  void handleDefine(const std::string& name, const std::string& value);
  void handleVerifyAudit(const std::string& name, const std::string& value);
  void handleListBackends(const std::string& name, const std::string& value);
  void handleExportHistory(const std::string& name, const std::string& value);
  void handleCheckConfig(const std::string& name, const std::string& value);
  void handleReleaseDnd(const std::string& name, const std::string& value);
  void addConfigurationFile();

  /// `--verify-audit`: prints "audit chain ok: N records" (exit 0),
  /// "audit chain ok: 0 records (no <path> yet)" when the file does not
  /// exist (exit 0), or "audit chain broken at line N: <problem>" (exit 1)
  /// on stdout.
  int verifyAudit();
  /// `--list-backends`: per plugin folder in search order (ai.plugin_dir, then
  /// ai.user_plugin_dir; docs/PLUGINS.md "Where plugins go") a heading naming
  /// the folder and where it came from, then one line per backend in it (name,
  /// "*" for the configured one, description, a problem note if it would not
  /// load, "[shadowed by <folder>]" when an earlier folder provides the same
  /// name), read from the metadata files and each library's ELF header only.
  /// Exit 0, or 78 when ai.plugin_dir does not exist (an absent or unreadable
  /// per-user folder is only noted).
  int listBackends();
  /// `--export-history FORMAT` (jsonl, csv, markdown; issue 7 item 6): writes
  /// every session of the VERIFIED chain of <store.dir>/audit.jsonl to stdout
  /// (antidrift/wire/json.h exportHistory). When the chain is broken, the records
  /// from the first problem on are not exported; stderr says where it broke
  /// and how many records were left out, and the exit code is 1. An unknown
  /// FORMAT is exit 64 (usage). Takes no store lock (reads only).
  int exportHistoryToStdout();
  /// `--check-config`: "key = value  # origin" lines on stdout, sorted, then
  /// one "warning: …" line per unknown key; exit 0. A configuration error is
  /// reported by main() before (exit 78).
  int checkConfig();
  /// `--release-dnd` (the unit's ExecStopPost=; docs/SECURITY.md "N6"): when
  /// <store.dir>/dnd.state records a do-not-disturb hold and no running
  /// antidriftd holds <store.dir>/lock (a daemon that runs keeps its own
  /// hold), runs that switch's release and removes the record
  /// (notify::DoNotDisturb::releaseLeftover). One line on stdout saying what
  /// was done. Exit 0, also when there was nothing to release; 1 when the
  /// release command failed (the record stays for the next start); 73 when
  /// the store lock cannot be opened.
  int releaseDnd();
  /// Runs the daemon until a termination signal; returns the exit code.
  int serve();
  /// Loads the configured AI backend plugin through plugin::PluginLoader —
  /// the single place where the loader is called. Never throws; a failure is
  /// a warning and AI stays off (docs/DESIGN.md §12).
  AiSetup loadAi();

  bool helpRequested_ = false;
  bool verifyAuditRequested_ = false;
  bool listBackendsRequested_ = false;
  std::optional<std::string> exportFormat_;  ///< --export-history FORMAT
  bool checkConfigRequested_ = false;
  bool releaseDndRequested_ = false;
  /// The configuration file's own layer (null when none was read).
  Poco::AutoPtr<Poco::Util::AbstractConfiguration> fileConfig_;
  std::string fileConfigPath_;
  /// Unknown keys in the file or on the command line (unknownKeyWarnings).
  std::vector<std::string> warnings_;
  std::string configFile_;
  std::set<std::string> commandLineKeys_;
  std::optional<std::string> configError_;
  ConfigEnvironment environment_;
  DaemonConfig config_;
};

}  // namespace antidrift
