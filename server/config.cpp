#include "server/config.h"

#include <algorithm>
#include <vector>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/NumberParser.h>
#include <Poco/Path.h>
#include <Poco/RegularExpression.h>
#include <Poco/String.h>
#include <Poco/StringTokenizer.h>

#include "antidrift/evidence/observation.h"

#ifndef ANTIDRIFT_WWW_DIR
#define ANTIDRIFT_WWW_DIR "www"
#endif
#ifndef ANTIDRIFT_PLUGIN_DIR
#define ANTIDRIFT_PLUGIN_DIR "plugins"
#endif

namespace antidrift {
namespace {

using Poco::Util::AbstractConfiguration;

bool isAbsolute(const std::string& path) {
  return !path.empty() && path.front() == '/';
}

/// Decimal digits with an optional leading '-': no separators, no hex, no spaces.
bool isPlainInteger(const std::string& text) {
  const std::size_t start = (!text.empty() && text.front() == '-') ? 1 : 0;
  if (text.size() == start || text.size() - start > 18) {
    return false;
  }
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

/// The value of `key` with ${...} expanded; ConfigError when expansion fails.
std::string rawValue(const AbstractConfiguration& config, const std::string& key) {
  try {
    return Poco::trim(config.getString(key));
  } catch (const Poco::Exception& error) {
    throw ConfigError(key + " cannot be read: " + error.displayText());
  }
}

std::string readString(const AbstractConfiguration& config, const std::string& key,
                       const std::string& fallback) {
  return config.hasProperty(key) ? rawValue(config, key) : fallback;
}

std::int64_t readInteger(const AbstractConfiguration& config, const std::string& key,
                         std::int64_t fallback, std::int64_t minimum, std::int64_t maximum) {
  if (!config.hasProperty(key)) {
    return fallback;
  }
  const std::string text = rawValue(config, key);
  Poco::Int64 value = 0;
  if (!isPlainInteger(text) || !Poco::NumberParser::tryParse64(text, value) || value < minimum ||
      value > maximum) {
    throw ConfigError(key + " must be an integer from " + std::to_string(minimum) + " to " +
                      std::to_string(maximum) + ", got \"" + text + "\"");
  }
  return value;
}

bool readBool(const AbstractConfiguration& config, const std::string& key, bool fallback) {
  if (!config.hasProperty(key)) {
    return fallback;
  }
  const std::string text = rawValue(config, key);
  bool value = false;
  if (!Poco::NumberParser::tryParseBool(text, value)) {
    throw ConfigError(key + " must be true or false, got \"" + text + "\"");
  }
  return value;
}

/// A path value: "~" and $VARIABLES expanded (Poco::Path::expand).
std::string readPath(const AbstractConfiguration& config, const std::string& key,
                     const std::string& fallback) {
  const std::string text = readString(config, key, fallback);
  if (text.empty()) {
    return text;
  }
  try {
    return Poco::Path::expand(text);
  } catch (const Poco::Exception& error) {
    throw ConfigError(key + " is not a usable path: \"" + text + "\" (" + error.displayText() +
                      ")");
  }
}

/// Every leaf key under `root`, with `root.` stripped, into `out`.
void collectLeaves(const AbstractConfiguration& config, const std::string& root,
                   const std::string& prefix, std::map<std::string, std::string>& out) {
  AbstractConfiguration::Keys children;
  config.keys(root, children);
  for (const std::string& child : children) {
    const std::string full = root + "." + child;
    const std::string relative = prefix.empty() ? child : prefix + "." + child;
    if (config.hasProperty(full)) {
      out[relative] = rawValue(config, full);
    }
    collectLeaves(config, full, relative, out);
  }
}

std::vector<std::string> readAppList(const AbstractConfiguration& config, const std::string& key) {
  std::vector<std::string> apps;
  const std::string text = readString(config, key, "");
  Poco::StringTokenizer tokens(
      text, ",", Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
  for (const std::string& token : tokens) {
    std::string app = normaliseApp(token);
    if (std::find(apps.begin(), apps.end(), app) == apps.end()) {
      apps.push_back(std::move(app));
    }
  }
  return apps;
}

/// The list at `key` when the key is set (an empty value is an empty list),
/// else `fallback`: a set list replaces the default rather than adding to it.
std::vector<std::string> readAppListOr(const AbstractConfiguration& config, const std::string& key,
                                       const std::vector<std::string>& fallback) {
  return config.hasProperty(key) ? readAppList(config, key) : fallback;
}

/// Every `<root>.<name> = <pattern>` over `patterns` (a key in the file
/// replaces the default of the same name; an empty pattern stays, meaning
/// "rule off"). Each non-empty pattern must compile as PCRE, else a
/// ConfigError naming its key.
void readPatterns(const AbstractConfiguration& config, const std::string& root,
                  std::map<std::string, std::string>& patterns) {
  std::map<std::string, std::string> found;
  collectLeaves(config, root, "", found);
  for (auto& [name, pattern] : found) {
    if (!pattern.empty()) {
      try {
        Poco::RegularExpression compiled(pattern, Poco::RegularExpression::RE_UTF8);
      } catch (const Poco::Exception& error) {
        throw ConfigError(root + "." + name + " is not a valid pattern: " + error.message() +
                          " in \"" + pattern + "\"");
      }
    }
    patterns[name] = std::move(pattern);
  }
}

/// evidence.source resolved against the environment (see DaemonConfig::evidenceSource).
void readEvidenceSource(const AbstractConfiguration& config, const ConfigEnvironment& env,
                        DaemonConfig& result) {
  const std::string text = Poco::toLower(readString(config, "evidence.source", "auto"));
  if (text == "auto") {
    if (!env.swaySocket.empty()) {
      result.evidenceSource = EvidenceSource::Sway;
      result.evidenceSourceReason = "evidence.source = auto and $SWAYSOCK is set";
    } else if (!env.i3Socket.empty()) {
      result.evidenceSource = EvidenceSource::I3;
      result.evidenceSourceReason = "evidence.source = auto and $I3SOCK is set";
    } else if (!env.display.empty() && result.x11) {
      result.evidenceSource = EvidenceSource::X11;
      result.evidenceSourceReason = "evidence.source = auto and $DISPLAY is set";
    } else {
      result.evidenceSource = EvidenceSource::None;
      result.evidenceSourceReason =
          result.x11 ? "evidence.source = auto and none of $SWAYSOCK, $I3SOCK, $DISPLAY is set"
                     : "evidence.source = auto, evidence.x11 = false and neither $SWAYSOCK nor "
                       "$I3SOCK is set";
    }
    return;
  }
  const std::map<std::string, EvidenceSource> named{{"none", EvidenceSource::None},
                                                    {"x11", EvidenceSource::X11},
                                                    {"sway", EvidenceSource::Sway},
                                                    {"i3", EvidenceSource::I3}};
  const auto found = named.find(text);
  if (found == named.end()) {
    throw ConfigError("evidence.source must be one of auto, x11, sway, i3, none, got \"" + text +
                      "\"");
  }
  if (found->second == EvidenceSource::X11 && !result.x11) {
    throw ConfigError(
        "evidence.source = x11 contradicts evidence.x11 = false; remove one of the two");
  }
  result.evidenceSource = found->second;
  result.evidenceSourceReason = "evidence.source = " + text;
}

}  // namespace

std::string toString(EvidenceSource source) {
  switch (source) {
    case EvidenceSource::X11:
      return "x11";
    case EvidenceSource::Sway:
      return "sway";
    case EvidenceSource::I3:
      return "i3";
    case EvidenceSource::None:
      break;
  }
  return "none";
}

ConfigEnvironment ConfigEnvironment::fromProcess() {
  ConfigEnvironment env;
  env.home = Poco::Environment::get("HOME", "");
  env.xdgConfigHome = Poco::Environment::get("XDG_CONFIG_HOME", "");
  env.xdgDataHome = Poco::Environment::get("XDG_DATA_HOME", "");
  env.aiBackend = Poco::Environment::get("ANTIDRIFT_AI_BACKEND", "");
  env.display = Poco::Environment::get("DISPLAY", "");
  env.swaySocket = Poco::Environment::get("SWAYSOCK", "");
  env.i3Socket = Poco::Environment::get("I3SOCK", "");
  return env;
}

std::string defaultStoreDir(const ConfigEnvironment& env) {
  if (isAbsolute(env.xdgDataHome)) {
    return env.xdgDataHome + "/antidrift";
  }
  if (env.home.empty()) {
    throw ConfigError("store.dir is not set and neither $XDG_DATA_HOME nor $HOME is set");
  }
  return env.home + "/.local/share/antidrift";
}

std::optional<std::string> defaultConfigFile(const ConfigEnvironment& env) {
  std::string base;
  if (isAbsolute(env.xdgConfigHome)) {
    base = env.xdgConfigHome;
  } else if (!env.home.empty()) {
    base = env.home + "/.config";
  } else {
    return std::nullopt;
  }
  const std::string path = base + "/antidrift/antidrift.properties";
  try {
    Poco::File file(path);
    if (file.exists() && file.isFile()) {
      return path;
    }
  } catch (const Poco::Exception&) {
    // Unreadable directory: treated as "no default file".
  }
  return std::nullopt;
}

std::string defaultWwwDir() {
  return ANTIDRIFT_WWW_DIR;
}

std::string defaultPluginDir() {
  return ANTIDRIFT_PLUGIN_DIR;
}

std::map<std::string, std::string> defaultLoggingProperties() {
  return {
      {"logging.loggers.root.channel", "console"},
      {"logging.loggers.root.level", "information"},
      {"logging.channels.console.class", "ConsoleChannel"},
      {"logging.channels.console.formatter.class", "PatternFormatter"},
      {"logging.channels.console.formatter.pattern", "%Y-%m-%d %H:%M:%S [%p] %s: %t"},
  };
}

DaemonConfig readDaemonConfig(const AbstractConfiguration& config, const ConfigEnvironment& env,
                              const std::set<std::string>& commandLineKeys) {
  DaemonConfig result;

  result.address = readString(config, "server.address", result.address);
  Poco::Net::IPAddress parsed;
  if (!Poco::Net::IPAddress::tryParse(result.address, parsed)) {
    throw ConfigError("server.address must be an IP address such as 127.0.0.1, got \"" +
                      result.address + "\"");
  }
  result.port = static_cast<std::uint16_t>(readInteger(config, "server.port", 7717, 0, 65535));
  result.threads = static_cast<int>(readInteger(config, "server.threads", 64, 5, 1024));
  result.maxSseClients =
      static_cast<std::size_t>(readInteger(config, "server.max_sse_clients", 32, 1, 1020));
  if (static_cast<int>(result.maxSseClients) > result.threads - 4) {
    throw ConfigError("server.max_sse_clients (" + std::to_string(result.maxSseClients) +
                      ") must be at most server.threads - 4 (" +
                      std::to_string(result.threads - 4) +
                      ") so that REST requests always get a thread");
  }
  result.sseKeepAliveSecs = readInteger(config, "server.sse_keepalive_s", 15, 1, 3600);
  result.requestTimeoutSecs = readInteger(config, "server.request_timeout_s", 5, 1, 300);
  result.wwwDir = readPath(config, "server.www_dir", defaultWwwDir());
  if (result.wwwDir.empty()) {
    throw ConfigError("server.www_dir must not be empty");
  }

  if (config.hasProperty("store.dir")) {
    result.storeDir = readPath(config, "store.dir", "");
    if (result.storeDir.empty()) {
      throw ConfigError("store.dir must not be empty");
    }
  } else {
    result.storeDir = defaultStoreDir(env);
  }

  result.aiBackend = readString(config, "ai.backend", result.aiBackend);
  if (!env.aiBackend.empty() && commandLineKeys.count("ai.backend") == 0) {
    result.aiBackend = Poco::trim(env.aiBackend);
  }
  if (result.aiBackend.empty()) {
    result.aiBackend = "none";
  }
  result.pluginDir = readPath(config, "ai.plugin_dir", defaultPluginDir());
  result.settings.aiTimeoutSecs = readInteger(config, "ai.timeout_s", 30, 1, 3600);
  if (result.aiBackend != "none") {
    collectLeaves(config, "ai." + result.aiBackend, "", result.aiBackendSettings);
  }
  result.aiBackendSettings["timeout_s"] = std::to_string(result.settings.aiTimeoutSecs);

  result.settings.heartbeatSecs = readInteger(config, "evidence.heartbeat_s", 10, 1, 3600);
  result.settings.idleAfterSecs = readInteger(config, "evidence.idle_after_s", 180, 1, 86400);
  result.x11 = readBool(config, "evidence.x11", true);
  readEvidenceSource(config, env, result);
  result.settings.defaultAllowedApps = readAppList(config, "drift.allowed_apps");
  result.settings.blockedApps = readAppList(config, "drift.blocked_apps");
  readPatterns(config, "drift.blocked_titles", result.settings.blockedTitles);
  result.settings.titleSensitiveApps =
      readAppListOr(config, "drift.title_sensitive_apps", result.settings.titleSensitiveApps);
  result.settings.lockScreenApps =
      readAppListOr(config, "drift.lock_screen_apps", result.settings.lockScreenApps);
  result.settings.judgeDebounceSecs =
      readInteger(config, "drift.judge_debounce_s", result.settings.judgeDebounceSecs, 0, 86400);
  result.settings.nudgeDebounceSecs =
      readInteger(config, "nudge.debounce_s", result.settings.nudgeDebounceSecs, 0, 86400);
  readPatterns(config, "privacy.redact", result.settings.redactPatterns);
  result.settings.neverSendApps =
      readAppListOr(config, "privacy.never_send_apps", result.settings.neverSendApps);
  result.settings.todoTxtPath = readPath(config, "tasks.todo_txt", "");
  result.settings.profilePath = readPath(config, "knowledge.profile", "");

  result.notifyDesktop = readBool(config, "notify.desktop", result.notifyDesktop);
  result.notifyCommand = readPath(config, "notify.command", result.notifyCommand);
  if (result.notifyCommand.empty()) {
    throw ConfigError("notify.command must not be empty");
  }
  return result;
}

}  // namespace antidrift
