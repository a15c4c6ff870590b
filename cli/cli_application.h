/// @file cli_application.h
/// `antidrift`, the command-line client of antidriftd (issue 10 item 2,
/// docs/API.md §10): finds the daemon and its token the way the daemon
/// finds its configuration (`--config FILE`, `-D key=value`, the XDG
/// default file; server/config.h), or from `--url URL`, and runs one
/// command over the HTTP API.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <Poco/JSON/Object.h>
#include <Poco/Util/Application.h>
#include <Poco/Util/OptionSet.h>

#include "cli/daemon_client.h"
#include "cli/watch_client.h"
#include "server/config.h"

namespace antidrift::cli {

/// The commands. Options: `--config FILE`, `-D key=value` (repeatable),
/// `--url URL`, `--token-file FILE`, `--json`, `--help`; per command
/// `status --format waybar|i3blocks|polybar`, `start --next TEXT --done
/// TEXT --minutes N [--apps a,b]`, `history -n N`, `watch [--format BAR
/// [--refresh N]]` (`--format` execs antidrift-watch, watch_client.h; issue 20
/// item 2), `token [--rotate]` (issue 19 item 7).
///
/// Exit codes: 0 done; 1 the daemon refused the request (its error
/// sentence on stderr) or `verify` found a broken chain; 64 bad usage;
/// 69 the daemon is not running or stopped answering; 77 the token file
/// cannot be read; 73 `token --rotate` could not write the new token; 78 a
/// configuration error (the daemon's own rules).
///
/// Only the main thread uses this object.
class CliApplication : public Poco::Util::Application {
 public:
  /// Sets Unix-style options; does no I/O.
  CliApplication();

 protected:
  void defineOptions(Poco::Util::OptionSet& options) override;
  int main(const std::vector<std::string>& args) override;

 private:
  /// The callback of every option (a separate name: Application::handleOption
  /// is virtual, and overriding it would handle each option twice).
  void onOption(const std::string& name, const std::string& value);
  void printHelp();

  /// Reads the configuration (file, -D) into config_; ConfigError on failure.
  void readConfiguration();
  /// The daemon's address: --url, else server.address:server.port.
  Endpoint endpoint() const;
  /// The token: --token-file, else <store.dir>/token. Throws
  /// std::runtime_error naming the file when it cannot be read.
  std::string readToken() const;
  /// readToken(), or nullopt after saying on stderr (escaped for the
  /// terminal) why the token could not be read; callers then exit EXIT_NOPERM.
  std::optional<std::string> tokenOrSayWhy() const;

  int runCommand(const std::string& command, DaemonClient& client);
  int status(DaemonClient& client);
  /// POSTs `body` (default `{}`) to `path` with the token and prints the
  /// State answered; a refusal is exit 1 with the daemon's message.
  int transition(DaemonClient& client, const std::string& path, const std::string& body = "{}");
  int start(DaemonClient& client);
  /// `plan`: POST /planning. When the daemon is already planning (its 409),
  /// that planning goes on: the State is printed as for a transition, a note
  /// on stderr says how to go on, and the exit code is 0 (issue 17 item 4,
  /// re-walk). Any other refusal is exit 1 with the daemon's sentence.
  int plan(DaemonClient& client);
  int history(DaemonClient& client);
  int watch(DaemonClient& client);
  /// `watch --format`: replaces this process with antidrift-watch for the
  /// daemon at `endpoint` (resolved here) and `options`. Returns only when
  /// it cannot be run (EXIT_SOFTWARE, the reason on stderr); throws
  /// DaemonUnreachable when the address cannot be resolved.
  int execWatchClient(const Endpoint& endpoint, WatchClientOptions& options);
  /// `verdicts` (GET /verdicts) and `verdicts --clear [KEY]` (DELETE /verdicts).
  int verdicts(DaemonClient& client);
  int verify();
  /// `token`: prints the token file's path (--token-file, else
  /// <store.dir>/token); 77 when it cannot be read.
  int tokenPath();
  /// `token --rotate`: a new token, through
  /// the running daemon (POST /token/rotate, with the current token), or
  /// written here under the store lock when no daemon holds the store
  /// (issue 19 item 7, docs/SECURITY.md L10).
  int token(DaemonClient& client);
  /// The token file the daemon uses: <store.dir>/token.
  std::string storeTokenFile() const;

  /// Prints a State answer: the JSON line with --json, else describeState().
  int printState(const std::string& body);
  /// The daemon's error sentence from an error answer, on stderr; returns 1.
  int refused(const Reply& reply);
  /// A usage error on stderr; returns 64.
  int usageError(const std::string& message);

  bool helpRequested_ = false;
  bool json_ = false;
  std::string configFile_;
  std::set<std::string> commandLineKeys_;
  std::optional<std::string> url_;
  std::string tokenFile_;
  std::optional<std::string> format_;
  std::optional<std::string> nextAction_;
  std::optional<std::string> successCondition_;
  std::optional<std::string> minutes_;
  std::optional<std::string> apps_;
  std::optional<std::string> count_;
  std::optional<std::string> note_;      ///< review --note
  std::string reviewAnswer_;             ///< review's argument: yes, partly or no
  bool clear_ = false;                   ///< verdicts --clear
  bool rotate_ = false;                  ///< token --rotate
  std::optional<std::string> clearKey_;  ///< verdicts --clear KEY, unescaped
  std::optional<std::string> refresh_;
  /// Options given, by full name, to refuse those a command does not take.
  std::set<std::string> given_;
  DaemonConfig config_;
  /// This CLI runs from the build tree: its hints name scripts/start.sh, else
  /// the installed commands (server/config.h runsInstalled; issue 17 item 4).
  bool inBuildTree_ = false;
};

}  // namespace antidrift::cli
