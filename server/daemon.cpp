#include "server/daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <Poco/AutoPtr.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Logger.h>
#include <Poco/Path.h>
#include <Poco/String.h>
#include <Poco/Util/HelpFormatter.h>
#include <Poco/Util/MapConfiguration.h>
#include <Poco/Util/Option.h>
#include <Poco/Util/OptionCallback.h>
#include <Poco/Util/OptionException.h>

#include "antidrift/clock.h"
#include "antidrift/drift/rules.h"
#include "antidrift/executor.h"
#include "antidrift/plugin/backend_choice.h"
#include "antidrift/plugin/loader.h"
#include "antidrift/session/controller.h"
#include "antidrift/session/history_view.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"
#include "antidrift/store/verdict_store.h"
#include "antidrift/text/duration.h"
#include "antidrift/wire/json.h"
#include "server/api_server.h"
#include "server/backend_probe.h"
#include "server/child_processes.h"
#include "server/evidence_sources.h"
#include "server/http_api.h"
#include "server/listener_owner.h"
#include "server/notify/desktop_notifier.h"
#include "server/notify/do_not_disturb.h"
#include "server/request_guard.h"
#include "server/sse_broadcaster.h"
#include "server/state_delivery.h"
#include "server/store_lock.h"
#include "server/ticker.h"
#include "server/token_file.h"
#include "server/window_join.h"

namespace antidrift {
namespace {

using Poco::Util::Application;
using Poco::Util::Option;
using Poco::Util::OptionCallback;

/// Priority of the built-in logging defaults: below files (0) and the
/// system layer (100), so anything configured wins.
constexpr int kDefaultsPriority = 1000;
/// Threads of the core's executor (docs/DESIGN.md §1).
constexpr unsigned kExecutorThreads = 4;
/// How long a start waits for a store lock held by a process that is not an
/// antidriftd (the CLI's offline token rotation; docs/SECURITY.md "N5").
constexpr std::chrono::seconds kStoreLockWait{5};
/// At shutdown, how long a child process group has between SIGTERM and
/// SIGKILL (issue 9 item 7: the daemon exits within 2 s).
constexpr std::chrono::milliseconds kChildTerminateGrace{500};

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ANTIDRIFT_UNDER_TSAN 1
#endif
#endif
#ifndef ANTIDRIFT_UNDER_TSAN
#define ANTIDRIFT_UNDER_TSAN 0
#endif

/// Under ThreadSanitizer only: how often the signal wait wakes up so that a
/// deferred signal is delivered.
[[maybe_unused]] constexpr int kTsanPollMs = 100;

/// Termination signals through a self-pipe. The handler only write(2)s the
/// signal number, which is async-signal-safe, so the signals need not be
/// blocked in every thread (the executor's threads and the child processes
/// the AI plugins launch keep a normal signal mask).
class TerminationSignals {
 public:
  TerminationSignals() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) {
      throw Poco::SystemException("cannot create the signal pipe");
    }
    ::fcntl(fds_[1], F_SETFL, O_NONBLOCK);
    writeFd_ = fds_[1];
    struct sigaction action {};
    action.sa_handler = &TerminationSignals::onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signal : kSignals) {
      ::sigaction(signal, &action, nullptr);
    }
  }

  ~TerminationSignals() {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int signal : kSignals) {
      ::sigaction(signal, &action, nullptr);
    }
    writeFd_ = -1;
    ::close(fds_[0]);
    ::close(fds_[1]);
  }

  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  /// Waits at most `timeout` for a termination signal; true when one came
  /// (it is consumed: the caller ends the process).
  bool arrivedWithin(std::chrono::milliseconds timeout) {
    pollfd readable{fds_[0], POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(timeout.count()));
    unsigned char signal = 0;
    return ready == 1 && ::read(fds_[0], &signal, 1) == 1;
  }

  /// Blocks until a termination signal arrives; returns its number.
  int wait() {
    unsigned char signal = 0;
    while (true) {
#if ANTIDRIFT_UNDER_TSAN
      // ThreadSanitizer defers a signal until the interrupted call returns,
      // and a read(2) on an empty pipe never does: poll with a timeout so the
      // handler runs (docs/RELIABILITY.md "Sanitizers"). Other builds block.
      pollfd readable{fds_[0], POLLIN, 0};
      if (::poll(&readable, 1, kTsanPollMs) != 1) {
        continue;
      }
#endif
      const ssize_t count = ::read(fds_[0], &signal, 1);
      if (count == 1) {
        return signal;
      }
      if (count < 0 && errno == EINTR) {
        continue;
      }
      return SIGTERM;
    }
  }

 private:
  static void onSignal(int signal) {
    const int savedErrno = errno;
    const int fd = writeFd_;
    if (fd >= 0) {
      const unsigned char byte = static_cast<unsigned char>(signal);
      const ssize_t written = ::write(fd, &byte, 1);
      static_cast<void>(written);
    }
    errno = savedErrno;
  }

  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGQUIT};
  static inline volatile sig_atomic_t writeFd_ = -1;
  int fds_[2] = {-1, -1};
};

std::string signalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGQUIT:
      return "SIGQUIT";
    default:
      return "signal " + std::to_string(signal);
  }
}

}  // namespace

Daemon::Daemon() {
  setUnixOptions(true);
}

void Daemon::defineOptions(Poco::Util::OptionSet& options) {
  ServerApplication::defineOptions(options);
  options.addOption(Option("help", "h", "print this help and exit")
                        .required(false)
                        .repeatable(false)
                        .callback(OptionCallback<Daemon>(this, &Daemon::handleHelp)));
  options.addOption(Option("config", "c",
                           "read the configuration from FILE (default: "
                           "~/.config/antidrift/antidrift.properties, if it exists)")
                        .required(false)
                        .repeatable(false)
                        .argument("FILE")
                        .callback(OptionCallback<Daemon>(this, &Daemon::handleConfig)));
  options.addOption(Option("define", "D", "set a configuration key, e.g. -D server.port=0")
                        .required(false)
                        .repeatable(true)
                        .argument("key=value")
                        .callback(OptionCallback<Daemon>(this, &Daemon::handleDefine)));
  options.addOption(
      Option("verify-audit", "", "check the hash chain of <store.dir>/audit.jsonl and exit")
          .required(false)
          .repeatable(false)
          .callback(OptionCallback<Daemon>(this, &Daemon::handleVerifyAudit)));
  options.addOption(
      Option("export-history", "",
             "write every session of the verified audit chain to stdout as FORMAT (jsonl, csv "
             "or markdown, also md) and exit; a broken chain is reported on stderr (exit 1)")
          .required(false)
          .repeatable(false)
          .argument("FORMAT")
          .callback(OptionCallback<Daemon>(this, &Daemon::handleExportHistory)));
  options.addOption(
      Option("list-backends", "",
             "list the AI backends in ai.plugin_dir and ai.user_plugin_dir from their metadata "
             "(no plugin is loaded) and exit")
          .required(false)
          .repeatable(false)
          .callback(OptionCallback<Daemon>(this, &Daemon::handleListBackends)));
  options.addOption(
      Option("check-config", "",
             "print the effective configuration, where each value came from, and unknown keys, "
             "and exit (78 on an error)")
          .required(false)
          .repeatable(false)
          .callback(OptionCallback<Daemon>(this, &Daemon::handleCheckConfig)));
  options.addOption(
      Option("release-dnd", "",
             "release a do-not-disturb hold that a stopped or crashed antidriftd left in "
             "<store.dir> (unless one runs there), and exit; the systemd unit's ExecStopPost")
          .required(false)
          .repeatable(false)
          .callback(OptionCallback<Daemon>(this, &Daemon::handleReleaseDnd)));
}

void Daemon::handleHelp(const std::string&, const std::string&) {
  helpRequested_ = true;
  Poco::Util::HelpFormatter formatter(options());
  formatter.setCommand(commandName());
  formatter.setUsage("[OPTIONS]\n       " + commandName() + " replay FILE [REPLAY OPTIONS]");
  formatter.setHeader(
      "AntiDrift focus daemon: serves the UI and API on http://127.0.0.1:7717 by default.");
  // Issue 17 item 4: the one-shot replay is a command of this binary too.
  formatter.setFooter(
      "Configuration keys are documented in antidrift.properties.example and docs/API.md.\n"
      "Subcommands (the first argument; no daemon starts), each with --help:\n"
      "  " +
      commandName() +
      " replay FILE ...  replay a recorded day, scored with --labels\n"
      "  " +
      commandName() + " label FILE ...   list a recorded day's windows to label\n");
  formatter.format(std::cout);
  stopOptionsProcessing();
}

void Daemon::handleConfig(const std::string&, const std::string& value) {
  configFile_ = value;
}

void Daemon::handleDefine(const std::string&, const std::string& value) {
  const std::size_t equals = value.find('=');
  const std::string key = Poco::trim(value.substr(0, equals));
  if (equals == std::string::npos || key.empty()) {
    throw Poco::Util::InvalidArgumentException("-D needs key=value, got \"" + value + "\"");
  }
  config().setString(key, value.substr(equals + 1));
  commandLineKeys_.insert(key);
}

void Daemon::handleVerifyAudit(const std::string&, const std::string&) {
  verifyAuditRequested_ = true;
}

void Daemon::handleExportHistory(const std::string&, const std::string& value) {
  exportFormat_ = value;
}

void Daemon::handleListBackends(const std::string&, const std::string&) {
  listBackendsRequested_ = true;
}

void Daemon::handleCheckConfig(const std::string&, const std::string&) {
  checkConfigRequested_ = true;
}

void Daemon::handleReleaseDnd(const std::string&, const std::string&) {
  releaseDndRequested_ = true;
}

void Daemon::addConfigurationFile() {
  std::string path = configFile_;
  if (path.empty()) {
    const auto found = defaultConfigFile(environment_);
    if (!found) {
      return;
    }
    path = *found;
  }
  fileConfig_ = loadConfigurationFile(path);
  fileConfigPath_ = path;
  config().add(fileConfig_, PRIO_DEFAULT, false);
}

void Daemon::initialize(Application& self) {
  environment_ = ConfigEnvironment::fromProcess();
  Poco::AutoPtr<Poco::Util::MapConfiguration> defaults = new Poco::Util::MapConfiguration;
  for (const auto& [key, value] : defaultLoggingProperties()) {
    defaults->setString(key, value);
  }
  config().add(defaults, kDefaultsPriority, false);
  if (!helpRequested_) {
    try {
      addConfigurationFile();
    } catch (const ConfigError& error) {
      configError_ = error.what();
    }
  }
  try {
    ServerApplication::initialize(self);
  } catch (const Poco::Exception& error) {
    if (!configError_) {
      configError_ = "the logging configuration is not usable: " + error.displayText();
    }
  }
  if (configError_ || helpRequested_) {
    return;
  }
  try {
    config_ = readDaemonConfig(config(), environment_, commandLineKeys_);
  } catch (const ConfigError& error) {
    configError_ = error.what();
  }
  std::vector<std::string> given(commandLineKeys_.begin(), commandLineKeys_.end());
  if (fileConfig_) {
    const std::vector<std::string> fileKeys = leafKeys(*fileConfig_);
    given.insert(given.end(), fileKeys.begin(), fileKeys.end());
  }
  std::sort(given.begin(), given.end());
  given.erase(std::unique(given.begin(), given.end()), given.end());
  warnings_ = unknownKeyWarnings(given);
}

int Daemon::main(const std::vector<std::string>& args) {
  if (helpRequested_) {
    return EXIT_OK;
  }
  if (configError_) {
    std::cerr << "antidriftd: configuration error: " << *configError_ << std::endl;
    return EXIT_CONFIG;
  }
  if (!args.empty()) {
    std::cerr << "antidriftd: unexpected argument \"" << args.front() << "\"; see --help"
              << std::endl;
    return EXIT_USAGE;
  }
  if (verifyAuditRequested_) {
    return verifyAudit();
  }
  if (listBackendsRequested_) {
    return listBackends();
  }
  if (exportFormat_) {
    return exportHistoryToStdout();
  }
  if (checkConfigRequested_) {
    return checkConfig();
  }
  if (releaseDndRequested_) {
    return releaseDnd();
  }
  for (const std::string& warning : warnings_) {
    Poco::Logger::get("antidrift.config").warning(warning);
  }
  return serve();
}

int Daemon::verifyAudit() {
  // Reads only: needs no store lock, so it also checks a running daemon's log.
  const std::string path = config_.storeDir + "/audit.jsonl";
  bool exists = false;
  try {
    exists = Poco::File(path).exists();
  } catch (const Poco::Exception&) {
    exists = true;  // unreadable directory: let verify() report the problem
  }
  if (!exists) {
    // Says where it looked, so a misspelt store.dir is visible.
    std::cout << "audit chain ok: " << text::countText(0, "record") << " (no " << path << " yet)"
              << std::endl;
    return EXIT_OK;
  }
  const AuditVerification result = AuditLog::verify(path);
  if (result.ok) {
    std::cout << "audit chain ok: " << text::countText(result.records, "record") << std::endl;
    return EXIT_OK;
  }
  if (result.firstBadLine) {
    std::cout << "audit chain broken at line " << *result.firstBadLine << ": " << result.problem
              << std::endl;
  } else {
    std::cout << "audit chain broken: " << result.problem << std::endl;
  }
  return 1;
}

int Daemon::exportHistoryToStdout() {
  const std::optional<ExportFormat> format = parseExportFormat(*exportFormat_);
  if (!format) {
    std::cerr << "antidriftd: --export-history takes jsonl, csv or markdown (md), not \""
              << *exportFormat_ << "\"" << std::endl;
    return EXIT_USAGE;
  }
  const std::string path = config_.storeDir + "/audit.jsonl";
  const VerifiedHistory history = readVerifiedHistory(path);
  std::cout << exportHistory(history.sessions, *format) << std::flush;
  if (history.verification.ok) {
    return EXIT_OK;
  }
  const std::size_t left = history.verification.records > history.sessions.size()
                               ? history.verification.records - history.sessions.size()
                               : 0;
  std::cerr << "antidriftd: audit chain of " << path << " is broken";
  if (history.verification.firstBadLine) {
    std::cerr << " at line " << *history.verification.firstBadLine;
  }
  std::cerr << ": " << history.verification.problem << "; exported the "
            << text::countText(history.sessions.size(), "sound record") << " before it, left out "
            << text::countText(left, "well-formed record")
            << " from there on (check with --verify-audit)" << std::endl;
  return 1;
}

int Daemon::listBackends() {
  // docs/PLUGINS.md "Where plugins go": the system folder first, then the
  // person's; a name in both is provided by the first, the other is shadowed.
  struct Folder {
    std::string path;
    std::string origin;
    std::vector<plugin::BackendInfo> backends;
  };
  std::vector<Folder> folders;
  Folder system{config_.pluginDir, "system, ai.plugin_dir; searched first", {}};
  try {
    system.backends = plugin::PluginLoader::listBackends(config_.pluginDir);
  } catch (const std::exception& error) {
    std::cerr << "antidriftd: " << error.what() << std::endl;
    return EXIT_CONFIG;
  }
  folders.push_back(std::move(system));
  if (!config_.userPluginDir.empty()) {
    Folder user{config_.userPluginDir, "per-user, ai.user_plugin_dir; searched second", {}};
    if (Poco::File(config_.userPluginDir).exists()) {
      try {
        user.backends = plugin::PluginLoader::listBackends(config_.userPluginDir);
      } catch (const std::exception& error) {
        // Not a folder, or unreadable: said, and the system's backends still listed.
        user.origin += "; unreadable: " + std::string(error.what());
      }
    } else {
      user.origin += "; absent";
    }
    folders.push_back(std::move(user));
  }

  std::map<std::string, std::string> providedBy;  // backend name -> folder that provides it
  for (const Folder& folder : folders) {
    for (const auto& backend : folder.backends) {
      if (backend.libraryPresent) providedBy.emplace(backend.name, folder.path);
    }
  }
  for (const Folder& folder : folders) {
    std::cout << "AI backends in " << folder.path << " (" << folder.origin
              << "; select with ai.backend = <name>):" << std::endl;
    for (const auto& backend : folder.backends) {
      const auto provider = providedBy.find(backend.name);
      const bool shadowed = provider != providedBy.end() && provider->second != folder.path;
      std::cout << "  " << backend.name
                << (backend.name == config_.aiBackend && !shadowed ? " *" : "") << "  "
                << backend.description;
      if (!backend.prompts.empty()) std::cout << "  (prompts: " << backend.prompts << ")";
      if (!backend.problem.empty()) std::cout << "  [" << backend.problem << "]";
      if (shadowed) std::cout << "  [shadowed by " << provider->second << "]";
      std::cout << std::endl;
    }
  }
  std::cout << "  auto" << (config_.aiBackend == "auto" ? " *" : "")
            << "  chosen at start: a local OpenAI-compatible server, else a logged-in claude, "
               "else codex"
            << std::endl;
  std::cout << "  none  AI off" << (config_.aiBackend == "none" ? " *" : "") << std::endl;
  return EXIT_OK;
}

int Daemon::checkConfig() {
  std::cout << "# antidriftd --check-config: the effective configuration, key = value  # origin"
            << std::endl;
  std::cout << "# file: " << (fileConfig_ ? fileConfigPath_ : std::string("none")) << std::endl;
  for (const ConfigEntry& entry :
       describeConfig(config_, fileConfig_.get(), commandLineKeys_, environment_)) {
    std::cout << entry.key << " = " << entry.value << "  # " << originName(entry.origin)
              << std::endl;
  }
  for (const std::string& warning : warnings_) {
    std::cout << "warning: " << warning << std::endl;
  }
  // A backend name no plugin answers to passes every key's own check but
  // cannot load at start: say so here, where the person asked.
  if (config_.aiBackend != "auto" && config_.aiBackend != "none") {
    std::vector<std::string> names = {"auto", "none"};
    try {
      for (const auto& backend : plugin::PluginLoader::listBackends(config_.pluginDir)) {
        if (backend.name == config_.aiBackend) return EXIT_OK;
        names.push_back(backend.name);
      }
    } catch (const std::exception&) {
      // No readable plugin folder: only auto and none can be meant.
    }
    std::string known;
    for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
    std::cerr << "antidriftd: ai.backend = " << config_.aiBackend << " names no backend in "
              << config_.pluginDir << " (known: " << known << "; see --list-backends)" << std::endl;
    return EXIT_CONFIG;
  }
  return EXIT_OK;
}

int Daemon::releaseDnd() {
  const std::string record = config_.storeDir + "/" + notify::DoNotDisturb::kStateFileName;
  bool recorded = false;
  try {
    recorded = Poco::File(record).exists();
  } catch (const Poco::Exception&) {
    recorded = true;  // unreadable directory: let the lock report the problem
  }
  if (!recorded) {
    std::cout << "no do-not-disturb hold recorded in " << config_.storeDir << std::endl;
    return EXIT_OK;
  }
  StoreLockAttempt attempt;
  try {
    attempt = StoreLock::tryAcquire(config_.storeDir);
  } catch (const std::exception& error) {
    std::cerr << "antidriftd: cannot lock the store: " << error.what() << std::endl;
    return EXIT_CANTCREAT;
  }
  if (attempt.heldByDaemon()) {
    // The XDG autostart copy may run while the unit's own start failed: the
    // hold is that daemon's, and it releases it itself.
    std::cout << "antidriftd (pid " << attempt.holderPid << ") runs on " << config_.storeDir
              << "; its do-not-disturb hold is left to it" << std::endl;
    return EXIT_OK;
  }
  const std::string name = notify::DoNotDisturb::releaseLeftover(config_.storeDir);
  if (Poco::File(record).exists()) {
    std::cout << "could not release " << name << "'s do-not-disturb; " << record
              << " is kept for the next start" << std::endl;
    return 1;
  }
  std::cout << (name.empty() ? "no do-not-disturb switch named in " + record + "; removed it"
                             : "released " + name + "'s do-not-disturb")
            << std::endl;
  return EXIT_OK;
}

AiSetup Daemon::loadAi() {
  Poco::Logger& log = Poco::Logger::get("antidrift.daemon");
  AiSetup setup;
  setup.backendName = config_.aiBackend;
  if (config_.aiBackend == "none") {
    setup.detail = "Switched off in the configuration (ai.backend = none).";
    log.information(setup.detail);
    return setup;
  }
  std::string name = config_.aiBackend;
  std::map<std::string, std::string> settings = config_.aiBackendSettings;
  if (name == "auto") {
    // Issue 18 item 2: probe at start (about 1 s at most for the model
    // servers), pick by the pure rule, say which and why.
    const plugin::AutoProbes probes =
        runAutoProbes(config_.aiAutoSettings, environment_.home, config_.localOnly);
    const plugin::BackendChoice choice = plugin::chooseBackend(probes);
    log.information(choice.reason);
    setup.origin.automatic = true;
    setup.origin.found = choice.found;
    setup.backendName = choice.backend;
    if (choice.backend == "none") {
      setup.detail = plugin::aiOffByAutoSentence(config_.localOnly);
      return setup;
    }
    name = choice.backend;
    const auto chosen = config_.aiAutoSettings.find(name);
    if (chosen != config_.aiAutoSettings.end()) {
      for (const auto& [key, value] : chosen->second) settings[key] = value;
    }
    for (const auto& [key, value] : choice.settings) settings[key] = value;
  }
  // The first plugin folder holding antidrift-<name>.so provides it (the
  // system's before the person's); with none, the system folder, so the
  // error names where the plugin was looked for.
  std::string folder = plugin::PluginLoader::locate(name, pluginSearchPath(config_));
  if (folder.empty()) folder = config_.pluginDir;
  plugin::PluginLoader loader;
  plugin::LoadResult result = loader.load(name, folder, settings);
  if (!result.loaded()) {
    // docs/DESIGN.md §12: an unknown backend or a plugin that fails to load is a
    // warning, and the daemon runs without AI.
    log.warning("AI backend \"" + name + "\" not loaded: " + result.error + "; running without AI");
    setup.detail = result.error + " — the daemon runs without AI";
    return setup;
  }
  log.information("AI backend \"" + name + "\" loaded from " + folder +
                  "; prompts go: " + (result.destination.empty() ? "unknown" : result.destination));
  if (name == "openai" && !setup.origin.automatic) {
    // Issue 18 item 1: say before the first call whether the configured
    // server answers (a missing model was refused by configure already).
    const auto url = settings.find("url");
    const plugin::ServerCandidate candidate =
        plugin::autoServerCandidates(url == settings.end() ? "" : url->second).front();
    const auto model = settings.find("model");
    setup.origin.found = plugin::describeConfiguredServer(
        probeModelServer(candidate, std::chrono::milliseconds(300),
                         parseUserList(settings.count("trusted_users")
                                           ? settings.at("trusted_users")
                                           : std::string(kDefaultTrustedModelServerUsers))),
        model == settings.end() ? "" : model->second);
    log.information("AI backend \"openai\": " + setup.origin.found);
  }
  setup.origin.prompts = result.prompts;
  setup.origin.destination = result.destination;
  setup.backend = std::move(result.backend);
  setup.available = true;
  return setup;
}

int Daemon::serve() {
  Poco::Logger& log = Poco::Logger::get("antidrift.daemon");
  // Before any thread starts (docs/TECH-NOTES.md §2.2): writes to a closed socket
  // must fail with EPIPE, never kill the process.
  ::signal(SIGPIPE, SIG_IGN);
  TerminationSignals signals;

  log.information("store.dir is " + config_.storeDir);
  // One daemon per store.dir, before the snapshot, audit log or token is
  // touched: two would overwrite each other's snapshot and fork the chain.
  std::unique_ptr<StoreLock> storeLock;
  try {
    StoreLockAttempt attempt = StoreLock::tryAcquire(config_.storeDir);
    // "pid 4822 (antidrift)": what holds the lock, by the pid it wrote.
    const auto holder = [&attempt] {
      return "pid " + (attempt.holderPid > 0 ? std::to_string(attempt.holderPid) : "unknown") +
             (attempt.holderName.empty() ? "" : " (" + attempt.holderName + ")");
    };
    bool signalled = false;
    if (!attempt.lock && !attempt.heldByDaemon()) {
      // docs/SECURITY.md "N5": a short holder — the CLI rotating the token
      // while no daemon runs — is waited for, not mistaken for a daemon.
      log.information("the store " + config_.storeDir + " is locked by " + holder() +
                      ", not an antidriftd; waiting up to " +
                      std::to_string(kStoreLockWait.count()) + " s for it");
      attempt = StoreLock::acquireWithin(config_.storeDir, kStoreLockWait,
                                         [&signals, &signalled](std::chrono::milliseconds pause) {
                                           signalled = signals.arrivedWithin(pause);
                                           return !signalled;
                                         });
    }
    if (!attempt.lock) {
      if (signalled) {
        log.information("stopped while waiting for the store lock");
        return EXIT_OK;
      }
      if (attempt.heldByDaemon()) {
        std::cerr << "antidriftd: another antidriftd is using " << config_.storeDir << " (pid "
                  << attempt.holderPid << ")" << std::endl;
      } else {
        // docs/SECURITY.md "N6": no daemon runs on this store, so a
        // do-not-disturb hold recorded in it is a crash's leftover; the
        // desktop is not left silenced by a start that fails.
        notify::DoNotDisturb::releaseLeftover(config_.storeDir);
        std::cerr << "antidriftd: " << config_.storeDir << " is still locked by " << holder()
                  << ", not an antidriftd, after " << kStoreLockWait.count() << " s; not started"
                  << std::endl;
      }
      return EXIT_TEMPFAIL;
    }
    storeLock = std::move(attempt.lock);
  } catch (const std::exception& error) {
    log.fatal(std::string("cannot lock the store: ") + error.what());
    return EXIT_CANTCREAT;
  }
  // docs/SECURITY.md "N6": a do-not-disturb hold a crash left behind is
  // undone first thing once the store is ours (issue 17 item 3) — before
  // the audit log, the token and the AI probe, any of which can fail or stall.
  notify::DoNotDisturb::releaseLeftover(config_.storeDir);
  SystemClock clock;
  SseBroadcaster broadcaster(config_.maxSseClients, std::chrono::seconds(config_.sseKeepAliveSecs));
  ThreadExecutor executor(kExecutorThreads);
  FileSnapshotStore snapshots(config_.storeDir);
  FileVerdictStore verdicts(config_.storeDir);
  AuditLog audit(config_.storeDir);

  try {
    const AuditOpenReport report = audit.open();
    if (report.tornLineMovedTo) {
      log.warning("audit.jsonl ended in a torn line (a crash mid-append); it was moved to " +
                  *report.tornLineMovedTo);
    }
    if (report.lastLineProblem) {
      log.error("audit log " + audit.path() + ": " + *report.lastLineProblem +
                " (check the whole chain with antidriftd --verify-audit)");
    }
  } catch (const std::exception& error) {
    log.fatal(std::string("cannot open the audit log: ") + error.what());
    return EXIT_IOERR;
  }
  // The whole chain is checked off the start path, streaming, in bounded
  // memory (issue 19 item 6): the daemon serves at once whatever the log's
  // size, and a break is still logged. Cancelled and joined on the way out.
  std::atomic<bool> stopAuditCheck{false};
  std::thread auditCheck([path = audit.path(), &stopAuditCheck] {
    // Lowest CPU priority for this thread only (Linux: nice is per thread):
    // on a 1 GB log the check is minutes of one core (docs/PERFORMANCE.md).
    if (::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19) != 0) {
      // Best effort: the check runs at normal priority.
    }
    const AuditVerification verification = AuditLog::verify(path, &stopAuditCheck);
    if (!verification.ok && !stopAuditCheck) {
      const std::string where = verification.firstBadLine
                                    ? " at line " + std::to_string(*verification.firstBadLine)
                                    : std::string();
      Poco::Logger::get("antidrift.daemon")
          .error("audit chain of " + path + " is broken" + where + ": " + verification.problem +
                 " (left as it is; check with antidriftd --verify-audit)");
    }
  });
  struct JoinAuditCheck {
    std::atomic<bool>& stop;
    std::thread& thread;
    ~JoinAuditCheck() {
      stop = true;
      thread.join();
    }
  } joinAuditCheck{stopAuditCheck, auditCheck};

  TokenFileResult token;
  try {
    token = TokenFile::loadOrCreate(config_.storeDir);
  } catch (const std::exception& error) {
    log.fatal(std::string("cannot prepare the token file: ") + error.what());
    return EXIT_CANTCREAT;
  }
  if (token.replacedInvalid) {
    log.warning("the token file in " + config_.storeDir + " was not a valid token; replaced it");
  } else if (token.created) {
    log.information("created a new token file in " + config_.storeDir);
  }
  if (token.permissionsTightened) {
    log.warning("the token file in " + config_.storeDir +
                " was readable by other users; its mode is now 0600");
  }

  const AiSetup ai = loadAi();
  // The notification server on the daemon's own session bus, asked once:
  // notify.desktop = auto and focus.do_not_disturb = auto follow it.
  std::string serverName;
  if (!config_.notifyDesktop.has_value() || config_.doNotDisturb == "auto") {
    serverName = notify::notificationServerName();
    log.information(serverName.empty() ? std::string("no notification server on the session bus")
                                       : "notification server on the session bus: " + serverName);
  }
  // Declared before the controller, so they outlive every listener call.
  std::unique_ptr<notify::DoNotDisturb> dnd;
  {
    const std::string name = config_.doNotDisturb == "auto"
                                 ? notify::dndBackendForServer(serverName)
                                 : (config_.doNotDisturb == "off" ? "" : config_.doNotDisturb);
    if (std::optional<notify::DndBackend> backend = notify::dndBackendNamed(name)) {
      dnd = std::make_unique<notify::DoNotDisturb>(*backend, config_.storeDir);
      log.information("do-not-disturb during sessions through " + name +
                      " (focus.do_not_disturb = " + config_.doNotDisturb + ")");
    } else if (config_.doNotDisturb == "auto" && !serverName.empty()) {
      log.information("focus.do_not_disturb = auto: no switch known for \"" + serverName +
                      "\"; notifications are not held");
    }
  }
  // Set once the controller exists, before any State reaches the notifier.
  Controller* actionTarget = nullptr;
  std::unique_ptr<notify::DesktopNotifier> notifier;
  if (config_.notifyDesktop.value_or(!serverName.empty())) {
    notify::DesktopNotifier::Options options;
    options.repeatMs = config_.notifyRepeatSecs * 1000;
    options.headsUp = config_.notifyHeadsUp;
    // Asked also when notify.desktop = true left the server unnamed: the
    // markup rule must hold whichever way the notifier was switched on.
    const std::vector<std::string> capabilities = notify::notificationServerCapabilities();
    const auto lists = [&capabilities](const char* capability) {
      return std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
    };
    options.actions = !serverName.empty() && lists("actions");
    // docs/SECURITY.md "N4": dunst (markup = full), GNOME and KDE render a
    // body's markup; the reason and the site names are text from outside.
    options.escapeMarkup = lists("body-markup");
    if (options.escapeMarkup) {
      log.information("the notification server parses markup (body-markup): bodies are escaped");
    }
    options.onAction = [&actionTarget, &log](const std::string& action) {
      if (action != notify::DesktopNotifier::kActionOnTask || actionTarget == nullptr) return;
      const ActionResult result = actionTarget->markOnTask();
      log.information(std::string("\"This is on task\" chosen on the desktop notification") +
                      (result ? ": refused (" + result->message + ")" : std::string()));
    };
    if (dnd) {
      notify::DoNotDisturb* hold = dnd.get();
      options.around = [hold](const std::function<void()>& send) {
        hold->aroundOwnNotification(send);
      };
      options.waitForClose = notify::dndBackendNamed(hold->backendName())->holdsOwnNotifications;
    }
    notifier = std::make_unique<notify::DesktopNotifier>(config_.notifyCommand, std::move(options));
    log.information("desktop notifications on (notify.command = " + config_.notifyCommand +
                    (config_.notifyDesktop ? ")" : ", notify.desktop = auto)"));
  }
  // The served page's own tag (issue 19 item 3): only it titles itself so.
  config_.settings.ownPageTag = drift::ownPageTag(token.token);
  Controller controller(config_.settings, clock, executor, snapshots, audit, ai.backendName,
                        ai.available);
  controller.setBackend(ai.backend, ai.detail);
  controller.setAiOrigin(ai.origin);
  controller.setVerdictStore(&verdicts);  // issue 16 item 3: remembered across restarts
  controller.setNotifyView(NotifyView{notifier != nullptr, dnd ? dnd->backendName() : ""});
  actionTarget = &controller;
  Ticker ticker(
      clock, [&controller] { return controller.nextWakeMonotonicMs(); },
      [&controller] { controller.tick(); }, std::nullopt,
      // Only an active session's deadline is kept on the boot clock; every
      // other due time (health, write-behind, judge, review) is monotonic.
      [&controller] { return controller.runtime() == RuntimeState::Active; });
  RequestGuard guard(token.token);
  // Every window, from any source, passes here on its way to the controller: the
  // site of a browser's page joined from aw-watcher-web (issue 16 item 4).
  WindowJoin windows(controller, clock);
  // A tab opened before a token rotation and this restart still carries an
  // earlier tag: it stays AntiDrift's own until it reloads (State page_tag
  // tells it to).
  windows.setEarlierPageTags(
      TokenFile::recordPageTag(config_.storeDir, config_.settings.ownPageTag));
  HttpApi::Options apiOptions{config_.wwwDir, audit.path(),
                              std::chrono::seconds(config_.requestTimeoutSecs), &windows};
  // `antidrift token --rotate` (issue 19 item 7): a new token in the store,
  // then the only one the guard accepts.
  apiOptions.storeNewToken = [directory = config_.storeDir] {
    return TokenFile::rotate(directory);
  };
  apiOptions.tokenFile = config_.storeDir + "/" + TokenFile::kFileName;
  HttpApi api(controller, broadcaster, guard, std::move(apiOptions));
  // A deferred snapshot write scheduled without an announcement (a
  // heartbeat) must still reach the ticker's schedule (issue 8 item 2).
  controller.setWakeHook([&ticker] { ticker.wake(); });
  // Started after the server listens; made here so the listener can reach it:
  // heartbeats run only while a session is active (issue 8 item 2).
  EvidenceSources sources(config_, environment_, controller, windows);
  // The one delivery point of States (issue 15 item 3): every sink sees them in
  // version order, with what it needs carried in the State (runtime, next wake),
  // so none keeps a guard of its own or calls back into the controller.
  StateDelivery delivery;
  delivery.addSink("evidence sources",
                   [&sources](const State& state) { sources.followSession(state.runtime); });
  delivery.addSink("sse", [&api](const State& state) { api.publish(state); });
  delivery.addSink(
      "ticker", [&ticker](const State& state) { ticker.wakeIfSooner(state.nextWakeMonotonicMs); });
  if (notifier) {
    delivery.addSink("desktop notifier",
                     [&notifier](const State& state) { notifier->onState(state); });
  }
  if (dnd) {
    delivery.addSink("do-not-disturb", [&dnd](const State& state) { dnd->onState(state); });
  }
  controller.setChangeListener([&delivery](const State& state) { delivery.deliver(state); });

  try {
    log.information(controller.restore());
  } catch (const std::exception& error) {
    log.fatal(std::string("cannot restore the snapshot: ") + error.what() +
              " (refusing to start so it is not overwritten)");
    executor.shutdown();
    return EXIT_DATAERR;
  }
  // The restored State to every sink (unless restore() announced it already):
  // heartbeats follow the session, and a session resumed after a restart is
  // held again by do-not-disturb.
  delivery.deliver(controller.state());

  ApiServerOptions serverOptions;
  serverOptions.address = config_.address;
  serverOptions.port = config_.port;
  serverOptions.threads = config_.threads;
  serverOptions.requestTimeout = std::chrono::seconds(config_.requestTimeoutSecs);
  serverOptions.requestDeadline = std::chrono::seconds(config_.requestDeadlineSecs);
  serverOptions.maxConnectionsPerUid = config_.maxConnectionsPerUid;
  ApiServer server(api, broadcaster, serverOptions);
  try {
    server.start();
  } catch (const Poco::Exception& error) {
    log.fatal("cannot listen on " + config_.address + ":" + std::to_string(config_.port) + ": " +
              error.displayText());
    executor.shutdown();
    return EXIT_UNAVAILABLE;
  }
  std::cout << "antidriftd listening on " << server.baseUrl() << std::endl;
  std::string addresses;
  for (const std::string& address : server.listening()) {
    addresses += (addresses.empty() ? "" : " and ") + address;
  }
  log.information("listening on " + addresses + "; UI files from " + config_.wwwDir);
  if (config_.distractionsFile.empty() && config_.settings.distractionSites.empty()) {
    log.warning(
        "no known distractions (drift.categories_file is off or missing): with the AI "
        "off, only drift.blocked_apps and drift.blocked_titles raise the banner");
  } else {
    log.information(
        "known distractions: " + std::to_string(config_.settings.distractionSites.size()) +
        " sites" +
        (config_.distractionsFile.empty() ? std::string() : " from " + config_.distractionsFile));
  }
  log.information("peer check: " + PeerUserCheck::lookupDescription());
  ticker.start();

  sources.start();

  const int signal = signals.wait();
  log.information("received " + signalName(signal) + "; shutting down");

  // docs/TECH-NOTES.md §2.4: stop flag + wake every SSE stream, stopAll(true), join
  // the pool; then the evidence source, the timer and the executor (its
  // queued tasks still run against a live Controller). An AI call in flight
  // would hold the executor for up to ai.timeout_s: while it drains, every
  // child process group (the CLIs run under setsid) gets SIGTERM, then
  // SIGKILL, so the exit takes well under two seconds (issue 9 item 7).
  server.stop();
  sources.stop();
  ticker.stop();
  runWhileEndingChildren([&executor] { executor.shutdown(); }, kChildTerminateGrace);
  // Window changes are written behind (at most Controller::kWriteBehindMs
  // late) and time is credited at the next change; nothing changes any more,
  // so the session is credited up to the stop and written now (issue 17 item 4).
  controller.flushForShutdown();
  // Nothing announces any more: the notifier stops, then the hold is
  // released (issue 17 item 3: SIGTERM/SIGINT never leave the desktop silenced).
  notifier.reset();
  dnd.reset();
  log.information("stopped");
  return EXIT_OK;
}

}  // namespace antidrift
