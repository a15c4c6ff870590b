#include "server/config.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
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
#include <Poco/Util/IniFileConfiguration.h>
#include <Poco/Util/JSONConfiguration.h>
#include <Poco/Util/MapConfiguration.h>
#include <Poco/Util/PropertyFileConfiguration.h>
#include <Poco/Util/XMLConfiguration.h>

#include "antidrift/drift/distractions.h"
#include "antidrift/evidence/observation.h"

#ifndef ANTIDRIFT_WWW_DIR
#define ANTIDRIFT_WWW_DIR "www"
#endif
#ifndef ANTIDRIFT_PLUGIN_DIR
#define ANTIDRIFT_PLUGIN_DIR "plugins"
#endif
#ifndef ANTIDRIFT_DATA_DIR
#define ANTIDRIFT_DATA_DIR "data"
#endif
#ifndef ANTIDRIFT_BUILD_DIR
#define ANTIDRIFT_BUILD_DIR ""
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
    std::string app = normalizeApp(token);
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

/// True for a binary outside the build tree it was built in: it uses the
/// installed layout (bin/, share/antidrift/www, lib/antidrift/plugins).
bool isInstalled(const ConfigEnvironment& env) {
  return !env.executableDir.empty() && env.executableDir != ANTIDRIFT_BUILD_DIR;
}

/// The installation prefix with a trailing '/': the parent of bin/.
std::string installPrefix(const ConfigEnvironment& env) {
  return Poco::Path::forDirectory(env.executableDir).parent().toString(Poco::Path::PATH_UNIX);
}

/// A read-only view of another configuration that records every key asked
/// for and every root enumerated: how knownConfigKeys() learns what
/// readDaemonConfig reads.
class RecordingConfiguration : public AbstractConfiguration {
 public:
  explicit RecordingConfiguration(const AbstractConfiguration& inner) : inner_(inner) {}

  // getRaw and enumerate are const in the interface; recording is not a
  // change anyone can observe through the configuration.
  mutable std::set<std::string> keys;   ///< every key looked up
  mutable std::set<std::string> roots;  ///< every root whose children were listed

 protected:
  bool getRaw(const std::string& key, std::string& value) const override {
    keys.insert(key);
    if (!inner_.hasProperty(key)) {
      return false;
    }
    value = inner_.getRawString(key);
    return true;
  }
  void setRaw(const std::string& key, const std::string&) override {
    throw Poco::NotImplementedException("read-only configuration: " + key);
  }
  void enumerate(const std::string& key, Keys& range) const override {
    roots.insert(key);
    inner_.keys(key, range);
  }

 private:
  const AbstractConfiguration& inner_;
};

/// Levenshtein distance of two keys (bytes). Pure.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    previous[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

void collectLeafKeys(const AbstractConfiguration& config, const std::string& root,
                     std::vector<std::string>& out) {
  AbstractConfiguration::Keys children;
  config.keys(root, children);
  for (const std::string& child : children) {
    const std::string full = root.empty() ? child : root + "." + child;
    if (config.hasProperty(full)) {
      out.push_back(full);
    }
    collectLeafKeys(config, full, out);
  }
}

std::string joinApps(const std::vector<std::string>& apps) {
  std::string text;
  for (const std::string& app : apps) {
    text += (text.empty() ? "" : ", ") + app;
  }
  return text;
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

const std::set<std::string>& knownConfigKeys() {
  static const std::set<std::string> known = [] {
    Poco::AutoPtr<Poco::Util::MapConfiguration> empty = new Poco::Util::MapConfiguration;
    Poco::AutoPtr<RecordingConfiguration> recording = new RecordingConfiguration(*empty);
    ConfigEnvironment env;
    env.home = "/";
    readDaemonConfig(*recording, env);
    std::set<std::string> keys = recording->keys;
    for (const std::string& root : recording->roots) {
      keys.insert(root + ".");  // a family: any key under it
    }
    return keys;
  }();
  return known;
}

std::vector<std::string> leafKeys(const AbstractConfiguration& config) {
  std::vector<std::string> keys;
  collectLeafKeys(config, "", keys);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> unknownKeyWarnings(const std::vector<std::string>& keys) {
  const std::set<std::string>& known = knownConfigKeys();
  std::vector<std::string> warnings;
  for (const std::string& key : keys) {
    if (known.count(key) != 0 || key.rfind("logging.", 0) == 0) {
      continue;
    }
    // ai.<name>.<setting>: settings of any plugin, read when it is selected.
    if (key.rfind("ai.", 0) == 0 && key.find('.', 3) != std::string::npos) {
      continue;
    }
    const bool inFamily = std::any_of(known.begin(), known.end(), [&](const std::string& entry) {
      return entry.back() == '.' && key.rfind(entry, 0) == 0;
    });
    if (inFamily) {
      continue;
    }
    std::string nearest;
    std::size_t best = std::string::npos;
    for (const std::string& entry : known) {
      if (entry.back() == '.') {
        continue;
      }
      const std::size_t distance = editDistance(key, entry);
      if (distance < best) {
        best = distance;
        nearest = entry;
      }
    }
    warnings.push_back("unknown configuration key \"" + key + "\" (ignored; did you mean \"" +
                       nearest + "\"?)");
  }
  return warnings;
}

std::string originName(ValueOrigin origin) {
  switch (origin) {
    case ValueOrigin::File:
      return "file";
    case ValueOrigin::Environment:
      return "environment";
    case ValueOrigin::CommandLine:
      return "-D";
    case ValueOrigin::Default:
      break;
  }
  return "default";
}

std::vector<ConfigEntry> describeConfig(const DaemonConfig& config,
                                        const AbstractConfiguration* file,
                                        const std::set<std::string>& commandLineKeys,
                                        const ConfigEnvironment& env) {
  const Settings& settings = config.settings;
  std::map<std::string, std::string> values = {
      {"server.address", config.address},
      {"server.port", std::to_string(config.port)},
      {"server.max_sse_clients", std::to_string(config.maxSseClients)},
      {"server.threads", std::to_string(config.threads)},
      {"server.sse_keepalive_s", std::to_string(config.sseKeepAliveSecs)},
      {"server.request_timeout_s", std::to_string(config.requestTimeoutSecs)},
      {"server.request_deadline_s", std::to_string(config.requestDeadlineSecs)},
      {"server.max_connections_per_uid", std::to_string(config.maxConnectionsPerUid)},
      {"server.www_dir", config.wwwDir},
      {"store.dir", config.storeDir},
      {"ai.backend", config.aiBackend},
      {"ai.plugin_dir", config.pluginDir},
      {"ai.user_plugin_dir", config.userPluginDir},
      {"ai.timeout_s", std::to_string(settings.aiTimeoutSecs)},
      {"evidence.heartbeat_s", std::to_string(settings.heartbeatSecs)},
      {"evidence.idle_after_s", std::to_string(settings.idleAfterSecs)},
      {"evidence.x11", config.x11 ? "true" : "false"},
      {"evidence.source",
       std::string(toString(config.evidenceSource)) + " (" + config.evidenceSourceReason + ")"},
      {"drift.allowed_apps", joinApps(settings.defaultAllowedApps)},
      {"drift.blocked_apps", joinApps(settings.blockedApps)},
      {"drift.title_sensitive_apps", joinApps(settings.titleSensitiveApps)},
      {"drift.lock_screen_apps", joinApps(settings.lockScreenApps)},
      {"drift.judge_dwell_s", std::to_string(settings.judgeDwellSecs)},
      {"drift.private_windows", settings.privateWindows == Settings::PrivateWindows::Ask ? "ask"
                                : settings.privateWindows == Settings::PrivateWindows::Local
                                    ? "local"
                                    : "ignore"},
      {"drift.memory", settings.driftMemory ? "true" : "false"},
      {"drift.memory_max_entries", std::to_string(settings.driftMemoryMaxEntries)},
      {"drift.categories_file", config.distractionsFile},
      {"drift.distraction_categories", joinApps(settings.distractionCategories)},
      {"nudge.debounce_s", std::to_string(settings.nudgeDebounceSecs)},
      {"privacy.never_send_apps", joinApps(settings.neverSendApps)},
      {"privacy.local_only", config.localOnly ? "true" : "false"},
      {"privacy.local_hosts", config.localHosts},
      {"tasks.todo_txt", settings.todoTxtPath},
      {"knowledge.profile", settings.profilePath},
      {"notify.desktop",
       config.notifyDesktop ? (*config.notifyDesktop ? "true" : "false") : "auto"},
      {"notify.repeat_s", std::to_string(config.notifyRepeatSecs)},
      {"notify.heads_up", config.notifyHeadsUp ? "true" : "false"},
      {"focus.do_not_disturb", config.doNotDisturb},
      {"notify.command", config.notifyCommand},
  };
  for (const auto& [name, pattern] : settings.blockedTitles) {
    values["drift.blocked_titles." + name] = pattern;
  }
  for (const auto& [name, pattern] : settings.redactPatterns) {
    values["privacy.redact." + name] = pattern;
  }
  if (config.aiBackend != "none") {
    for (const auto& [name, value] : config.aiBackendSettings) {
      // "timeout_s" is ai.timeout_s passed along, unless the section sets its own;
      // local_only and local_hosts are privacy.* keys passed to every plugin.
      if (name == "local_only" || name == "local_hosts") continue;
      if (name != "timeout_s" || value != std::to_string(settings.aiTimeoutSecs)) {
        values["ai." + config.aiBackend + "." + name] = value;
      }
    }
  }
  std::vector<ConfigEntry> entries;
  for (const auto& [key, value] : values) {
    ConfigEntry entry{key, value, ValueOrigin::Default};
    if (commandLineKeys.count(key) != 0) {
      entry.origin = ValueOrigin::CommandLine;
    } else if (key == "ai.backend" && !env.aiBackend.empty()) {
      entry.origin = ValueOrigin::Environment;
    } else if (file != nullptr && file->hasProperty(key)) {
      entry.origin = ValueOrigin::File;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string_view toString(EvidenceSource source) {
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
  char buffer[4096];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length > 0) {
    env.executableDir = Poco::Path(std::string(buffer, static_cast<std::size_t>(length)))
                            .parent()
                            .toString(Poco::Path::PATH_UNIX);
    if (env.executableDir.size() > 1 && env.executableDir.back() == '/') {
      env.executableDir.pop_back();
    }
  }
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

Poco::AutoPtr<AbstractConfiguration> loadConfigurationFile(const std::string& path) {
  try {
    const std::string extension = Poco::toLower(Poco::Path(path).getExtension());
    if (extension == "ini") {
      return new Poco::Util::IniFileConfiguration(path);
    }
    if (extension == "xml") {
      return new Poco::Util::XMLConfiguration(path);
    }
    if (extension == "json") {
      return new Poco::Util::JSONConfiguration(path);
    }
    return new Poco::Util::PropertyFileConfiguration(path);
  } catch (const Poco::Exception& error) {
    throw ConfigError("cannot read the configuration file " + path + ": " + error.displayText());
  }
}

std::string nearestName(const std::string& name, const std::vector<std::string>& candidates) {
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = editDistance(name, candidate);
    if (distance < best) {
      best = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

bool runsInstalled(const ConfigEnvironment& env) {
  return isInstalled(env);
}

std::string defaultWwwDir(const ConfigEnvironment& env) {
  return isInstalled(env) ? installPrefix(env) + "share/antidrift/www" : ANTIDRIFT_WWW_DIR;
}

std::string defaultDistractionsFile(const ConfigEnvironment& env) {
  return isInstalled(env) ? installPrefix(env) + "share/antidrift/distractions.txt"
                          : std::string(ANTIDRIFT_DATA_DIR) + "/distractions.txt";
}

std::string defaultPluginDir(const ConfigEnvironment& env) {
  return isInstalled(env) ? installPrefix(env) + "lib/antidrift/plugins" : ANTIDRIFT_PLUGIN_DIR;
}

std::string defaultUserPluginDir(const ConfigEnvironment& env) {
  if (env.home.empty()) return "";
  std::string home = env.home;
  if (home.size() > 1 && home.back() == '/') home.pop_back();
  return home + "/.local/lib/antidrift/plugins";
}

std::vector<std::string> pluginSearchPath(const DaemonConfig& config) {
  std::vector<std::string> folders{config.pluginDir};
  if (!config.userPluginDir.empty()) folders.push_back(config.userPluginDir);
  return folders;
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

namespace {

/// The known distractions (issue 16 item 3): drift.categories_file (default:
/// the shipped file; "" = none), then every drift.categories.<category> list
/// added, and drift.distraction_categories (the categories that count).
void readDistractions(const AbstractConfiguration& config, const ConfigEnvironment& env,
                      DaemonConfig& result) {
  const bool explicitFile = config.hasProperty("drift.categories_file");
  result.distractionsFile = readPath(config, "drift.categories_file", defaultDistractionsFile(env));
  if (!result.distractionsFile.empty()) {
    std::ifstream in(result.distractionsFile);
    if (in) {
      try {
        result.settings.distractionSites = drift::parseDistractions(in, result.distractionsFile);
      } catch (const std::invalid_argument& error) {
        throw ConfigError(std::string("drift.categories_file: ") + error.what());
      }
    } else if (explicitFile) {
      throw ConfigError("drift.categories_file: cannot read " + result.distractionsFile);
    } else {
      result.distractionsFile.clear();  // the daemon logs that none are known
    }
  }
  std::map<std::string, std::string> lists;
  collectLeaves(config, "drift.categories", "", lists);
  for (const auto& [category, list] : lists) {
    if (category.find('.') != std::string::npos || category.empty()) {
      throw ConfigError("drift.categories." + category +
                        ": a category is one word (drift.categories.video = youtube.com, …)");
    }
    DistractionSite site = drift::distractionFromList(category, list);
    if (!site.domains.empty() || !site.names.empty()) {
      result.settings.distractionSites.push_back(std::move(site));
    }
  }
  if (config.hasProperty("drift.distraction_categories")) {
    result.settings.distractionCategories.clear();
    Poco::StringTokenizer tokens(
        rawValue(config, "drift.distraction_categories"), ",",
        Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
    for (const std::string& token : tokens) {
      result.settings.distractionCategories.push_back(Poco::toLower(token));
    }
  }
}

}  // namespace

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
  result.requestDeadlineSecs = readInteger(config, "server.request_deadline_s", 10, 1, 3600);
  result.maxConnectionsPerUid = static_cast<int>(
      readInteger(config, "server.max_connections_per_uid", 2 * result.threads, 1, 4096));
  result.wwwDir = readPath(config, "server.www_dir", defaultWwwDir(env));
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
  result.pluginDir = readPath(config, "ai.plugin_dir", defaultPluginDir(env));
  result.userPluginDir = readPath(config, "ai.user_plugin_dir", defaultUserPluginDir(env));
  result.settings.aiTimeoutSecs = readInteger(config, "ai.timeout_s", 30, 1, 3600);
  if (result.aiBackend == "auto") {
    for (const char* name : {"openai", "claude", "codex", "auto"}) {
      collectLeaves(config, std::string("ai.") + name, "", result.aiAutoSettings[name]);
    }
  } else if (result.aiBackend != "none") {
    collectLeaves(config, "ai." + result.aiBackend, "", result.aiBackendSettings);
  }
  // A backend's own ai.<name>.timeout_s (the openai plugin's cap) wins over ai.timeout_s.
  result.aiBackendSettings.emplace("timeout_s", std::to_string(result.settings.aiTimeoutSecs));
  // Issue 18 item 3: every plugin hears where prompts may go.
  result.localOnly = readBool(config, "privacy.local_only", false);
  result.localHosts = Poco::trim(readString(config, "privacy.local_hosts", ""));
  result.aiBackendSettings["local_only"] = result.localOnly ? "true" : "false";
  result.aiBackendSettings["local_hosts"] = result.localHosts;

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
  // drift.judge_debounce_s is the setting's older name: read when the new one is absent.
  const char* dwellKey =
      config.hasProperty("drift.judge_dwell_s") || !config.hasProperty("drift.judge_debounce_s")
          ? "drift.judge_dwell_s"
          : "drift.judge_debounce_s";
  result.settings.judgeDwellSecs =
      readInteger(config, dwellKey, result.settings.judgeDwellSecs, 0, 86400);
  result.settings.driftMemory = readBool(config, "drift.memory", result.settings.driftMemory);
  result.settings.driftMemoryMaxEntries = readInteger(
      config, "drift.memory_max_entries", result.settings.driftMemoryMaxEntries, 1, 50000);
  result.settings.nudgeDebounceSecs =
      readInteger(config, "nudge.debounce_s", result.settings.nudgeDebounceSecs, 0, 86400);
  readDistractions(config, env, result);
  readPatterns(config, "privacy.redact", result.settings.redactPatterns);
  result.settings.neverSendApps =
      readAppListOr(config, "privacy.never_send_apps", result.settings.neverSendApps);
  {
    const std::string mode = Poco::toLower(readString(config, "drift.private_windows", "ask"));
    static const std::map<std::string, Settings::PrivateWindows> kModes{
        {"ask", Settings::PrivateWindows::Ask},
        {"local", Settings::PrivateWindows::Local},
        {"ignore", Settings::PrivateWindows::Ignore}};
    const auto found = kModes.find(mode);
    if (found == kModes.end()) {
      throw ConfigError("drift.private_windows must be ask, local or ignore, got \"" + mode + "\"");
    }
    result.settings.privateWindows = found->second;
  }
  result.settings.todoTxtPath = readPath(config, "tasks.todo_txt", "");
  result.settings.profilePath = readPath(config, "knowledge.profile", "");

  if (config.hasProperty("notify.desktop") && rawValue(config, "notify.desktop") != "auto") {
    const std::string text = rawValue(config, "notify.desktop");
    bool value = false;
    if (!Poco::NumberParser::tryParseBool(text, value)) {
      throw ConfigError("notify.desktop must be auto, true or false, got \"" + text + "\"");
    }
    result.notifyDesktop = value;
  }
  result.notifyRepeatSecs =
      readInteger(config, "notify.repeat_s", result.notifyRepeatSecs, 0, 86400);
  if (result.notifyRepeatSecs != 0 && result.notifyRepeatSecs < 30) {
    throw ConfigError("notify.repeat_s must be 0 (off) or from 30 to 86400, got " +
                      std::to_string(result.notifyRepeatSecs));
  }
  result.notifyHeadsUp = readBool(config, "notify.heads_up", result.notifyHeadsUp);
  result.doNotDisturb = readString(config, "focus.do_not_disturb", result.doNotDisturb);
  {
    static const std::set<std::string> kChoices = {"auto",   "off",   "dunst", "mako",
                                                   "swaync", "gnome", "xfce"};
    if (kChoices.count(result.doNotDisturb) == 0) {
      throw ConfigError(
          "focus.do_not_disturb must be auto, off, dunst, mako, swaync, gnome or xfce, got \"" +
          result.doNotDisturb + "\"");
    }
  }
  result.notifyCommand = readPath(config, "notify.command", result.notifyCommand);
  if (result.notifyCommand.empty()) {
    throw ConfigError("notify.command must not be empty");
  }
  return result;
}

}  // namespace antidrift
