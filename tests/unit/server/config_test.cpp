#include "server/config.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/AutoPtr.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/String.h>
#include <Poco/TemporaryFile.h>
#include <Poco/Util/MapConfiguration.h>

namespace antidrift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() : config_(new Poco::Util::MapConfiguration) { env_.home = "/home/person"; }

  DaemonConfig read(const std::set<std::string>& commandLineKeys = {}) {
    return readDaemonConfig(*config_, env_, commandLineKeys);
  }

  /// The ConfigError message for the current config, or "" if none is thrown.
  std::string errorOf() {
    try {
      read();
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "";
  }

  Poco::AutoPtr<Poco::Util::MapConfiguration> config_;
  ConfigEnvironment env_;
};

TEST_F(ConfigTest, BuiltInDefaults) {
  const DaemonConfig config = read();
  EXPECT_EQ(config.address, "127.0.0.1");
  EXPECT_EQ(config.port, 7717);
  EXPECT_EQ(config.maxSseClients, 32u);
  EXPECT_EQ(config.threads, 64);
  EXPECT_EQ(config.sseKeepAliveSecs, 15);
  EXPECT_EQ(config.requestTimeoutSecs, 5);
  EXPECT_EQ(config.storeDir, "/home/person/.local/share/antidrift");
  EXPECT_EQ(config.aiBackend, "auto");  // issue 18 item 2
  EXPECT_FALSE(config.localOnly);
  EXPECT_EQ(config.localHosts, "");
  EXPECT_EQ(config.aiBackendSettings.at("local_only"), "false");
  EXPECT_EQ(config.aiBackendSettings.at("local_hosts"), "");
  EXPECT_EQ(config.wwwDir, defaultWwwDir(env_));
  EXPECT_EQ(config.pluginDir, defaultPluginDir(env_));
  EXPECT_EQ(config.userPluginDir, "/home/person/.local/lib/antidrift/plugins");
  EXPECT_EQ(pluginSearchPath(config),
            (std::vector<std::string>{defaultPluginDir(env_),
                                      "/home/person/.local/lib/antidrift/plugins"}));
  EXPECT_TRUE(config.x11);
  EXPECT_EQ(config.settings.heartbeatSecs, 10);
  EXPECT_EQ(config.settings.idleAfterSecs, 180);
  EXPECT_EQ(config.settings.aiTimeoutSecs, 30);
  EXPECT_TRUE(config.settings.defaultAllowedApps.empty());
  EXPECT_EQ(config.settings.todoTxtPath, "");
  EXPECT_EQ(config.settings.profilePath, "");
  EXPECT_THAT(config.aiBackendSettings,
              UnorderedElementsAre(Pair("timeout_s", "30"), Pair("local_only", "false"),
                                   Pair("local_hosts", "")));
}

TEST_F(ConfigTest, ABackendsOwnTimeoutWinsOverTheDaemonWideOne) {
  // ai.openai.timeout_s caps the openai plugin's calls (issue 18 item 1).
  config_->setString("ai.backend", "openai");
  config_->setString("ai.timeout_s", "40");
  config_->setString("ai.openai.timeout_s", "7.5");
  EXPECT_THAT(read().aiBackendSettings,
              UnorderedElementsAre(Pair("timeout_s", "7.5"), Pair("local_only", "false"),
                                   Pair("local_hosts", "")));
  config_->remove("ai.openai.timeout_s");
  EXPECT_THAT(read().aiBackendSettings,
              UnorderedElementsAre(Pair("timeout_s", "40"), Pair("local_only", "false"),
                                   Pair("local_hosts", "")));
}

TEST_F(ConfigTest, EvidenceSourceAutoPicksWhatTheSessionHas) {
  EXPECT_EQ(read().evidenceSource, EvidenceSource::None);  // no display, no IPC socket
  env_.display = ":0";
  EXPECT_EQ(read().evidenceSource, EvidenceSource::X11);
  env_.i3Socket = "/run/user/1000/i3/ipc-socket.42";
  EXPECT_EQ(read().evidenceSource, EvidenceSource::I3);  // i3 also sets DISPLAY
  env_.swaySocket = "/run/user/1000/sway-ipc.1000.7.sock";
  const DaemonConfig config = read();
  EXPECT_EQ(config.evidenceSource, EvidenceSource::Sway);
  EXPECT_EQ(config.evidenceSourceReason, "evidence.source = auto and $SWAYSOCK is set");
  config_->setString("evidence.source", " AUTO ");
  EXPECT_EQ(read().evidenceSource, EvidenceSource::Sway);
}

TEST_F(ConfigTest, EvidenceX11FalseKeepsAutoAwayFromX11) {
  env_.display = ":0";
  config_->setString("evidence.x11", "false");
  EXPECT_EQ(read().evidenceSource, EvidenceSource::None);
  env_.swaySocket = "/run/user/1000/sway-ipc.1000.7.sock";
  EXPECT_EQ(read().evidenceSource, EvidenceSource::Sway);
  config_->setString("evidence.source", "x11");
  EXPECT_THAT(errorOf(), HasSubstr("evidence.source = x11 contradicts evidence.x11 = false"));
}

TEST_F(ConfigTest, EvidenceSourceCanBeNamedWhateverTheEnvironment) {
  env_.display = ":0";
  for (const auto& [text, source] :
       std::vector<std::pair<std::string, EvidenceSource>>{{"none", EvidenceSource::None},
                                                           {"x11", EvidenceSource::X11},
                                                           {"Sway", EvidenceSource::Sway},
                                                           {"i3", EvidenceSource::I3}}) {
    config_->setString("evidence.source", text);
    EXPECT_EQ(read().evidenceSource, source) << text;
    EXPECT_EQ(toString(source), Poco::toLower(text));
  }
  config_->setString("evidence.source", "wayland");
  EXPECT_THAT(errorOf(), HasSubstr("evidence.source must be one of auto, x11, sway, i3, none, "
                                   "got \"wayland\""));
}

TEST_F(ConfigTest, ReadsEveryKey) {
  config_->setString("server.address", "::1");
  config_->setString("server.port", "0");
  config_->setString("server.max_sse_clients", "1");
  config_->setString("server.threads", "8");
  config_->setString("server.sse_keepalive_s", "2");
  config_->setString("server.request_timeout_s", "30");
  config_->setString("server.www_dir", "/srv/www");
  config_->setString("store.dir", "/var/lib/antidrift");
  config_->setString("ai.backend", "fake");
  config_->setString("ai.plugin_dir", "/opt/plugins");
  config_->setString("ai.timeout_s", "5");
  config_->setString("ai.fake.responses", "/x.json");
  config_->setString("ai.fake.delay.ms", "20");
  config_->setString("ai.claude.model", "not-for-fake");
  config_->setString("evidence.heartbeat_s", "3");
  config_->setString("evidence.idle_after_s", "60");
  config_->setString("evidence.x11", "off");
  config_->setString("drift.allowed_apps", " Code, qterminal,, code ,Firefox-ESR ");
  config_->setString("tasks.todo_txt", "/home/person/todo.txt");
  config_->setString("knowledge.profile", "/home/person/profile.md");

  const DaemonConfig config = read();
  EXPECT_EQ(config.address, "::1");
  EXPECT_EQ(config.port, 0);
  EXPECT_EQ(config.maxSseClients, 1u);
  EXPECT_EQ(config.threads, 8);
  EXPECT_EQ(config.sseKeepAliveSecs, 2);
  EXPECT_EQ(config.requestTimeoutSecs, 30);
  EXPECT_EQ(config.wwwDir, "/srv/www");
  EXPECT_EQ(config.storeDir, "/var/lib/antidrift");
  EXPECT_EQ(config.aiBackend, "fake");
  EXPECT_EQ(config.pluginDir, "/opt/plugins");
  EXPECT_EQ(config.settings.aiTimeoutSecs, 5);
  EXPECT_THAT(config.aiBackendSettings,
              UnorderedElementsAre(Pair("responses", "/x.json"), Pair("delay.ms", "20"),
                                   Pair("timeout_s", "5"), Pair("local_only", "false"),
                                   Pair("local_hosts", "")));
  EXPECT_EQ(config.settings.heartbeatSecs, 3);
  EXPECT_EQ(config.settings.idleAfterSecs, 60);
  EXPECT_FALSE(config.x11);
  EXPECT_THAT(config.settings.defaultAllowedApps, ElementsAre("code", "qterminal", "firefox-esr"));
  EXPECT_EQ(config.settings.todoTxtPath, "/home/person/todo.txt");
  EXPECT_EQ(config.settings.profilePath, "/home/person/profile.md");
}

TEST_F(ConfigTest, StoreDirFollowsXdgDataHomeWhenAbsolute) {
  env_.xdgDataHome = "/data";
  EXPECT_EQ(read().storeDir, "/data/antidrift");
  env_.xdgDataHome = "relative/data";  // the XDG spec says: ignore relative paths
  EXPECT_EQ(read().storeDir, "/home/person/.local/share/antidrift");
}

TEST_F(ConfigTest, NoHomeAndNoStoreDirIsAConfigError) {
  env_.home.clear();
  EXPECT_THAT(errorOf(), HasSubstr("store.dir"));
  config_->setString("store.dir", "/explicit");
  EXPECT_EQ(read().storeDir, "/explicit");
}

TEST_F(ConfigTest, BadPortsNameTheKeyAndTheValue) {
  for (const char* bad :
       {"http", "-1", "65536", "7,717", "0x1F", "77 17", "", "99999999999999999999"}) {
    config_->setString("server.port", bad);
    const std::string message = errorOf();
    EXPECT_THAT(message, HasSubstr("server.port must be an integer from 0 to 65535")) << bad;
    EXPECT_THAT(message, HasSubstr(std::string("\"") + bad + "\"")) << bad;
  }
  config_->setString("server.port", " 8080 ");
  EXPECT_EQ(read().port, 8080);
}

TEST_F(ConfigTest, OtherNumbersAreRangeChecked) {
  const std::pair<const char*, const char*> cases[] = {
      {"server.threads", "1"},
      {"server.max_sse_clients", "0"},
      {"server.sse_keepalive_s", "0"},
      {"ai.timeout_s", "0"},
      {"evidence.heartbeat_s", "ten"},
      {"evidence.idle_after_s", "-5"},
      {"server.request_timeout_s", "0"},
      {"server.request_timeout_s", "301"},
      {"server.request_timeout_s", "5s"},
  };
  for (const auto& [key, value] : cases) {
    config_->setString(key, value);
    EXPECT_THAT(errorOf(), HasSubstr(key)) << key;
    config_->remove(key);
  }
  EXPECT_EQ(errorOf(), "");
}

TEST_F(ConfigTest, SseClientsMustLeaveThreadsForRest) {
  config_->setString("server.threads", "16");
  config_->setString("server.max_sse_clients", "13");
  EXPECT_THAT(errorOf(),
              HasSubstr("server.max_sse_clients (13) must be at most server.threads - 4"));
  config_->setString("server.max_sse_clients", "12");
  EXPECT_EQ(read().maxSseClients, 12u);
}

TEST_F(ConfigTest, AddressMustBeAnIpAddress) {
  config_->setString("server.address", "my-laptop");
  EXPECT_THAT(errorOf(), HasSubstr("server.address must be an IP address"));
}

TEST_F(ConfigTest, BooleansAreStrict) {
  config_->setString("evidence.x11", "maybe");
  EXPECT_THAT(errorOf(), HasSubstr("evidence.x11 must be true or false, got \"maybe\""));
  config_->setString("evidence.x11", "yes");
  EXPECT_TRUE(read().x11);
}

TEST_F(ConfigTest, EnvironmentOverridesTheFileButNotTheCommandLine) {
  config_->setString("ai.backend", "codex");
  env_.aiBackend = "fake";
  EXPECT_EQ(read().aiBackend, "fake");
  EXPECT_EQ(read({"ai.backend"}).aiBackend, "codex");
}

TEST_F(ConfigTest, EmptyBackendMeansNone) {
  config_->setString("ai.backend", "");
  EXPECT_EQ(read().aiBackend, "none");
}

TEST_F(ConfigTest, ExpandsConfigurationReferences) {
  config_->setString("base", "/opt/antidrift");
  config_->setString("store.dir", "${base}/data");
  EXPECT_EQ(read().storeDir, "/opt/antidrift/data");
}

TEST_F(ConfigTest, EmptyStoreDirIsAnError) {
  config_->setString("store.dir", "  ");
  EXPECT_THAT(errorOf(), HasSubstr("store.dir must not be empty"));
}

TEST_F(ConfigTest, DriftNudgePrivacyAndNotifyDefaultsAreThoseOfSettings) {
  const DaemonConfig config = read();
  const Settings defaults;
  EXPECT_TRUE(config.settings.blockedApps.empty());
  EXPECT_TRUE(config.settings.blockedTitles.empty());
  EXPECT_EQ(config.settings.titleSensitiveApps, defaults.titleSensitiveApps);
  EXPECT_EQ(config.settings.lockScreenApps, defaults.lockScreenApps);
  EXPECT_EQ(config.settings.judgeDwellSecs, 3);
  EXPECT_EQ(config.settings.nudgeDebounceSecs, 300);
  EXPECT_EQ(config.settings.redactPatterns, defaults.redactPatterns);
  EXPECT_EQ(config.settings.neverSendApps, defaults.neverSendApps);
  EXPECT_EQ(config.notifyDesktop, std::nullopt);  // auto (issue 17 item 2)
  EXPECT_EQ(config.notifyCommand, "notify-send");
  EXPECT_EQ(config.notifyRepeatSecs, 300);
  EXPECT_FALSE(config.notifyHeadsUp);
  EXPECT_EQ(config.doNotDisturb, "auto");
}

TEST_F(ConfigTest, ReadsDriftNudgePrivacyAndNotifyKeys) {
  config_->setString("drift.blocked_apps", "Steam, discord,steam");
  config_->setString("drift.blocked_titles.video", "(?i)youtube|netflix");
  config_->setString("drift.blocked_titles.news.sites", "reddit\\.com");
  config_->setString("drift.title_sensitive_apps", "Firefox");
  config_->setString("drift.lock_screen_apps", "my-locker");
  config_->setString("drift.judge_debounce_s", "0");
  config_->setString("nudge.debounce_s", "30");
  config_->setString("privacy.redact.ticket", "JIRA-\\d+");
  config_->setString("privacy.never_send_apps", "Signal");
  config_->setString("notify.desktop", "true");
  config_->setString("notify.command", "/usr/local/bin/my-notify");
  config_->setString("notify.repeat_s", "0");
  config_->setString("notify.heads_up", "true");
  config_->setString("focus.do_not_disturb", "mako");

  const DaemonConfig config = read();
  EXPECT_THAT(config.settings.blockedApps, ElementsAre("steam", "discord"));
  EXPECT_THAT(config.settings.blockedTitles,
              UnorderedElementsAre(Pair("video", "(?i)youtube|netflix"),
                                   Pair("news.sites", "reddit\\.com")));
  EXPECT_THAT(config.settings.titleSensitiveApps, ElementsAre("firefox"));
  EXPECT_THAT(config.settings.lockScreenApps, ElementsAre("my-locker"));
  EXPECT_EQ(config.settings.judgeDwellSecs, 0);
  EXPECT_EQ(config.settings.nudgeDebounceSecs, 30);
  EXPECT_EQ(config.settings.redactPatterns.at("ticket"), "JIRA-\\d+");
  EXPECT_EQ(config.settings.redactPatterns.size(), 3u);  // email and digits stay
  EXPECT_THAT(config.settings.neverSendApps, ElementsAre("signal"));
  EXPECT_EQ(config.notifyDesktop, std::optional<bool>(true));
  EXPECT_EQ(config.notifyCommand, "/usr/local/bin/my-notify");
  EXPECT_EQ(config.notifyRepeatSecs, 0);
  EXPECT_TRUE(config.notifyHeadsUp);
  EXPECT_EQ(config.doNotDisturb, "mako");
}

TEST_F(ConfigTest, ASetListReplacesItsDefaultEvenWhenEmpty) {
  config_->setString("drift.lock_screen_apps", "");
  config_->setString("privacy.never_send_apps", " ");
  const DaemonConfig config = read();
  EXPECT_TRUE(config.settings.lockScreenApps.empty());
  EXPECT_TRUE(config.settings.neverSendApps.empty());
}

TEST_F(ConfigTest, ARedactKeyOverridesItsDefaultAndEmptySwitchesItOff) {
  config_->setString("privacy.redact.digits", "");
  config_->setString("privacy.redact.email", "@");
  const DaemonConfig config = read();
  EXPECT_THAT(config.settings.redactPatterns,
              UnorderedElementsAre(Pair("digits", ""), Pair("email", "@")));
}

TEST_F(ConfigTest, ABadPatternNamesItsKey) {
  config_->setString("privacy.redact.x", "(unclosed");
  EXPECT_THAT(errorOf(), HasSubstr("privacy.redact.x is not a valid pattern: "));
  config_->remove("privacy.redact.x");
  config_->setString("drift.blocked_titles.games", "[a-");
  EXPECT_THAT(errorOf(), HasSubstr("drift.blocked_titles.games is not a valid pattern: "));
}

TEST_F(ConfigTest, TheJudgeDwellIsReadUnderItsNameAndItsOlderOne) {
  config_->setString("drift.judge_debounce_s", "7");
  EXPECT_EQ(read().settings.judgeDwellSecs, 7);  // the older name alone still counts
  config_->setString("drift.judge_dwell_s", "2");
  EXPECT_EQ(read().settings.judgeDwellSecs, 2);  // the new name wins over the older one
  config_->setString("drift.judge_dwell_s", "-1");
  EXPECT_THAT(errorOf(), HasSubstr("drift.judge_dwell_s must be an integer from 0"));
}

TEST_F(ConfigTest, PrivateWindowsAreAskedAboutByDefaultAndTheModeIsChecked) {
  EXPECT_EQ(read().settings.privateWindows, Settings::PrivateWindows::Ask);
  config_->setString("drift.private_windows", "Local");
  EXPECT_EQ(read().settings.privateWindows, Settings::PrivateWindows::Local);
  config_->setString("drift.private_windows", "ignore");
  EXPECT_EQ(read().settings.privateWindows, Settings::PrivateWindows::Ignore);
  config_->setString("drift.private_windows", "send");
  EXPECT_THAT(errorOf(),
              HasSubstr("drift.private_windows must be ask, local or ignore, got \"send\""));
}

TEST_F(ConfigTest, DebouncesAreNonNegativeIntegersAndNotifyIsChecked) {
  config_->setString("drift.judge_debounce_s", "-1");
  EXPECT_THAT(errorOf(), HasSubstr("drift.judge_debounce_s must be an integer from 0"));
  config_->setString("drift.judge_debounce_s", "5");
  config_->setString("nudge.debounce_s", "soon");
  EXPECT_THAT(errorOf(), HasSubstr("nudge.debounce_s must be an integer from 0"));
  config_->setString("nudge.debounce_s", "5");
  config_->setString("notify.desktop", "maybe");
  EXPECT_THAT(errorOf(), HasSubstr("notify.desktop must be auto, true or false"));
  config_->setString("notify.desktop", "auto");
  config_->setString("notify.repeat_s", "10");
  EXPECT_THAT(errorOf(), HasSubstr("notify.repeat_s must be 0 (off) or from 30 to 86400"));
  config_->setString("notify.repeat_s", "60");
  config_->setString("focus.do_not_disturb", "kde");
  EXPECT_THAT(errorOf(), HasSubstr("focus.do_not_disturb must be auto, off, dunst"));
  config_->setString("focus.do_not_disturb", "off");
  EXPECT_EQ(read().doNotDisturb, "off");
  config_->setString("notify.desktop", "yes");
  config_->setString("notify.command", " ");
  EXPECT_THAT(errorOf(), HasSubstr("notify.command must not be empty"));
}

TEST(InstalledLayout, AnInstalledDaemonFindsPageAndPluginsBesideItsBinDirectory) {
  ConfigEnvironment env;
  env.home = "/home/person";
  env.executableDir = "/opt/antidrift/bin";
  EXPECT_EQ(defaultWwwDir(env), "/opt/antidrift/share/antidrift/www");
  EXPECT_EQ(defaultPluginDir(env), "/opt/antidrift/lib/antidrift/plugins");
  // Unknown (or the build tree): the build-time defaults, for scripts/start.sh.
  env.executableDir = "";
  EXPECT_EQ(defaultWwwDir(env), ANTIDRIFT_SOURCE_WWW_DIR_FOR_TEST);
}

TEST(DefaultConfigFile, FoundUnderXdgConfigHomeElseHomeDotConfig) {
  const std::string root = Poco::TemporaryFile::tempName();
  Poco::TemporaryFile::registerForDeletion(root);
  ConfigEnvironment env;
  env.home = root + "/home";
  env.xdgConfigHome = root + "/xdg";
  EXPECT_FALSE(defaultConfigFile(env));

  Poco::File(env.home + "/.config/antidrift").createDirectories();
  std::ofstream(env.home + "/.config/antidrift/antidrift.properties") << "server.port = 1\n";
  // $XDG_CONFIG_HOME is set, so ~/.config is not consulted.
  EXPECT_FALSE(defaultConfigFile(env));
  env.xdgConfigHome.clear();
  EXPECT_EQ(defaultConfigFile(env), env.home + "/.config/antidrift/antidrift.properties");

  env.xdgConfigHome = root + "/xdg";
  Poco::File(env.xdgConfigHome + "/antidrift").createDirectories();
  std::ofstream(env.xdgConfigHome + "/antidrift/antidrift.properties") << "server.port = 2\n";
  EXPECT_EQ(defaultConfigFile(env), env.xdgConfigHome + "/antidrift/antidrift.properties");
}

TEST(DefaultLogging, ConsoleWithThePatternOfTechNotes) {
  const auto properties = defaultLoggingProperties();
  EXPECT_EQ(properties.at("logging.loggers.root.channel"), "console");
  EXPECT_EQ(properties.at("logging.channels.console.class"), "ConsoleChannel");
  EXPECT_EQ(properties.at("logging.channels.console.formatter.pattern"),
            "%Y-%m-%d %H:%M:%S [%p] %s: %t");
}

}  // namespace
}  // namespace antidrift

namespace antidrift {
namespace {

TEST(UnknownKeys, AMisspeltKeyIsAWarningNamingTheNearestKnownOne) {
  EXPECT_THAT(unknownKeyWarnings({"server.prot"}),
              ::testing::ElementsAre("unknown configuration key \"server.prot\" (ignored; did you "
                                     "mean \"server.port\"?)"));
  EXPECT_THAT(unknownKeyWarnings({"evidance.x11"}),
              ::testing::ElementsAre(::testing::HasSubstr("did you mean \"evidence.x11\"?")));
}

TEST(UnknownKeys, EveryKeyTheReaderReadsAndEveryFamilyIsKnown) {
  EXPECT_TRUE(knownConfigKeys().count("server.port"));
  EXPECT_TRUE(knownConfigKeys().count("notify.command"));
  EXPECT_THAT(
      unknownKeyWarnings({"server.port", "store.dir", "ai.backend", "ai.codex.model",
                          "ai.fake.responses", "drift.blocked_titles.video",
                          "privacy.redact.ticket", "logging.loggers.root.level", "tasks.todo_txt"}),
      ::testing::IsEmpty());
}

TEST(DescribeConfig, EachValueSaysWhereItCameFrom) {
  Poco::AutoPtr<Poco::Util::MapConfiguration> file = new Poco::Util::MapConfiguration;
  file->setString("server.port", "7793");
  file->setString("store.dir", "/data/antidrift");
  Poco::AutoPtr<Poco::Util::MapConfiguration> layered = new Poco::Util::MapConfiguration;
  layered->setString("server.port", "7793");
  layered->setString("store.dir", "/elsewhere");
  ConfigEnvironment env;
  env.home = "/home/person";
  env.aiBackend = "fake";
  const DaemonConfig config = readDaemonConfig(*layered, env, {"store.dir"});
  std::map<std::string, ConfigEntry> byKey;
  for (const ConfigEntry& entry : describeConfig(config, file.get(), {"store.dir"}, env)) {
    byKey[entry.key] = entry;
  }
  EXPECT_EQ(byKey["server.port"].value, "7793");
  EXPECT_EQ(byKey["server.port"].origin, ValueOrigin::File);
  EXPECT_EQ(byKey["store.dir"].value, "/elsewhere");
  EXPECT_EQ(byKey["store.dir"].origin, ValueOrigin::CommandLine);
  EXPECT_EQ(byKey["ai.backend"].value, "fake");
  EXPECT_EQ(byKey["ai.backend"].origin, ValueOrigin::Environment);
  EXPECT_EQ(byKey["server.threads"].origin, ValueOrigin::Default);
  EXPECT_EQ(originName(ValueOrigin::CommandLine), "-D");
}

TEST_F(ConfigTest, LocalOnlyAndLocalHostsReachEveryPluginsSettings) {
  // Issue 18 item 3: privacy.local_only and privacy.local_hosts go into the
  // configure map of whichever plugin loads.
  config_->setString("ai.backend", "fake");
  config_->setString("privacy.local_only", "true");
  config_->setString("privacy.local_hosts", " gpu-box.lan, 10.0.0.5 ");
  const DaemonConfig config = read();
  EXPECT_TRUE(config.localOnly);
  EXPECT_EQ(config.localHosts, "gpu-box.lan, 10.0.0.5");
  EXPECT_EQ(config.aiBackendSettings.at("local_only"), "true");
  EXPECT_EQ(config.aiBackendSettings.at("local_hosts"), "gpu-box.lan, 10.0.0.5");
}

TEST_F(ConfigTest, AutoCollectsTheSettingsOfEveryBackendItMayChoose) {
  config_->setString("ai.openai.url", "http://127.0.0.1:9/v1");
  config_->setString("ai.claude.command", "/opt/claude");
  const DaemonConfig config = read();
  EXPECT_EQ(config.aiBackend, "auto");
  EXPECT_EQ(config.aiAutoSettings.at("openai").at("url"), "http://127.0.0.1:9/v1");
  EXPECT_EQ(config.aiAutoSettings.at("claude").at("command"), "/opt/claude");
  EXPECT_TRUE(config.aiAutoSettings.at("codex").empty());
}

// docs/PLUGINS.md "Where plugins go": the system folder first, then the
// per-user one; empty = only the system folder; no home, no per-user default.
TEST_F(ConfigTest, TheUserPluginFolderIsSearchedAfterTheSystemOneAndCanBeTurnedOff) {
  config_->setString("ai.plugin_dir", "/opt/plugins");
  config_->setString("ai.user_plugin_dir", "/home/person/mine");
  EXPECT_EQ(pluginSearchPath(read()),
            (std::vector<std::string>{"/opt/plugins", "/home/person/mine"}));

  config_->setString("ai.user_plugin_dir", "");
  EXPECT_EQ(pluginSearchPath(read()), (std::vector<std::string>{"/opt/plugins"}));

  ConfigEnvironment noHome;
  EXPECT_EQ(defaultUserPluginDir(noHome), "");
}

}  // namespace
}  // namespace antidrift
