// Tests for antidrift::plugin::PluginLoader against the real fake plugin and
// the broken test plugins in tests/plugins (docs/DESIGN.md §8, docs/TECH-NOTES.md §1).

#include "antidrift/plugin/loader.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <Poco/File.h>
#include <Poco/Path.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/backend.h"
#include "support/temp_dir.h"

namespace antidrift::plugin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kFakeDir = FAKE_PLUGIN_DIR;
const std::string kTestPluginDir = TEST_PLUGIN_DIR;

using test::TempDirectory;
using test::writeWholeFile;

std::map<std::string, std::string> fakeSettings(const std::string& responsesPath) {
  return {{"responses", responsesPath}, {"timeout_s", "30"}};
}

/// Loads the fake with the given responses file content.
std::shared_ptr<Backend> loadFake(PluginLoader& loader, const TempDirectory& dir,
                                  const std::string& responses) {
  writeWholeFile(dir.file("responses.json"), responses);
  LoadResult result = loader.load("fake", kFakeDir, fakeSettings(dir.file("responses.json")));
  EXPECT_EQ(result.error, "");
  EXPECT_TRUE(result.loaded());
  return result.backend;
}

std::string errorOf(Backend& backend, const std::string& prompt, std::int64_t timeoutMs = 1000) {
  try {
    backend.complete(prompt, timeoutMs);
  } catch (const BackendError& e) {
    return e.what();
  }
  return "(no error)";
}

bool isMapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(path) != std::string::npos) {
      return true;
    }
  }
  return false;
}

const char* kRoleResponses = R"({"responses": [
  {"role": "coach", "match": "quarterly", "text": "coach for the report"},
  {"role": "coach", "text": "generic coach"},
  {"role": "judge", "match": "never present", "text": "unreachable judge"},
  {"role": "nudge", "fail": "nudge backend down"},
  {"role": "reviewer", "text": "{\"recap\": \"r\"}", "delay_ms": 5000},
  {"role": "*", "match": "wildcard", "text": "any role"}
]})";

TEST(PluginLoaderTest, LoadsRealFakePluginAndAnswersByRoleAndMatch) {
  PluginLoader loader;
  TempDirectory dir;
  auto backend = loadFake(loader, dir, kRoleResponses);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "fake");
  EXPECT_EQ(backend->complete("ROLE: coach\nintent: the quarterly report", 1000),
            "coach for the report");
  EXPECT_EQ(backend->complete("ROLE: coach\nintent: tidy the desk", 1000), "generic coach");
  EXPECT_EQ(backend->complete("ROLE: judge\nwildcard title", 1000), "any role");
  EXPECT_EQ(backend->complete("no role line but wildcard", 1000), "any role");
}

TEST(PluginLoaderTest, FakeWithoutMatchingEntryThrowsNamingTheRole) {
  PluginLoader loader;
  TempDirectory dir;
  auto backend = loadFake(loader, dir, kRoleResponses);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(errorOf(*backend, "ROLE: judge\ntitle: Inbox"),
            "fake: no canned response for role judge");
  EXPECT_EQ(errorOf(*backend, "just text"), "fake: no canned response for role (none)");
}

TEST(PluginLoaderTest, FakeFailEntryThrowsBackendErrorAcrossTheBoundary) {
  PluginLoader loader;
  TempDirectory dir;
  auto backend = loadFake(loader, dir, kRoleResponses);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(errorOf(*backend, "ROLE: nudge\nrecent titles"), "nudge backend down");
}

TEST(PluginLoaderTest, FakeDelayLongerThanTimeoutTimesOut) {
  PluginLoader loader;
  TempDirectory dir;
  auto backend = loadFake(loader, dir, kRoleResponses);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(errorOf(*backend, "ROLE: reviewer\n", 20), "fake: timed out after 20 ms");
}

TEST(PluginLoaderTest, FakeAnswersFromSeveralThreadsAtOnce) {
  PluginLoader loader;
  TempDirectory dir;
  auto backend = loadFake(loader, dir, kRoleResponses);
  ASSERT_NE(backend, nullptr);
  std::vector<std::string> answers(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    threads.emplace_back([&, i] { answers[i] = backend->complete("ROLE: coach\nx", 1000); });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  for (const auto& answer : answers) {
    EXPECT_EQ(answer, "generic coach");
  }
}

TEST(PluginLoaderTest, ShippedExampleResponsesConfigure) {
  PluginLoader loader;
  LoadResult result = loader.load("fake", kFakeDir, fakeSettings(FAKE_EXAMPLE_RESPONSES));
  ASSERT_EQ(result.error, "");
  ASSERT_TRUE(result.loaded());
  EXPECT_THAT(result.backend->complete("ROLE: judge\n", 1000), HasSubstr("\"on_task\": true"));
  EXPECT_THAT(result.backend->complete("ROLE: coach\nsomething else", 1000),
              HasSubstr("\"next_action\""));
}

TEST(PluginLoaderTest, ShippedExampleAnswersTheJudgeAndNudgeRolesInTheirContracts) {
  PluginLoader loader;
  LoadResult result = loader.load("fake", kFakeDir, fakeSettings(FAKE_EXAMPLE_RESPONSES));
  ASSERT_TRUE(result.loaded()) << result.error;
  Backend& fake = *result.backend;

  ai::JudgeInput judged{"Draft the summary", "Three paragraphs", "firefox",
                        "Cat videos - YouTube — Mozilla Firefox"};
  const ai::Expected<ai::Verdict> drift = ai::judge(fake, judged, 1000);
  ASSERT_TRUE(drift.hasValue()) << drift.error().message;
  EXPECT_FALSE(drift.value().onTask);
  EXPECT_EQ(drift.value().reason, "A YouTube video does not move the report forward.");
  judged.title = "report.odt - LibreOffice Writer";
  const ai::Expected<ai::Verdict> onTask = ai::judge(fake, judged, 1000);
  ASSERT_TRUE(onTask.hasValue()) << onTask.error().message;
  EXPECT_TRUE(onTask.value().onTask);

  ai::NudgeInput nudged{"Draft the summary", "Three paragraphs", {"report.odt", "r/cats - Reddit"}};
  const ai::Expected<std::string> headsUp = ai::nudge(fake, nudged, 1000);
  ASSERT_TRUE(headsUp.hasValue()) << headsUp.error().message;
  EXPECT_EQ(headsUp.value(), "Reddit threads have taken over from the report.");
  nudged.recentTitles = {"report.odt", "summary.odt"};
  const ai::Expected<std::string> silent = ai::nudge(fake, nudged, 1000);
  ASSERT_TRUE(silent.hasValue()) << silent.error().message;
  EXPECT_EQ(silent.value(), "");
}

TEST(PluginLoaderTest, FakeConfigureErrorsNameTheResponsesFile) {
  PluginLoader loader;
  TempDirectory dir;
  const std::string missing = dir.file("missing.json");
  LoadResult result = loader.load("fake", kFakeDir, fakeSettings(missing));
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error, StartsWith("fake: cannot read responses file " + missing));

  writeWholeFile(dir.file("bad.json"), "{not json");
  result = loader.load("fake", kFakeDir, fakeSettings(dir.file("bad.json")));
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error,
              StartsWith("fake: responses file " + dir.file("bad.json") + " is not a JSON object"));

  writeWholeFile(dir.file("noarray.json"), R"({"answers": []})");
  result = loader.load("fake", kFakeDir, fakeSettings(dir.file("noarray.json")));
  EXPECT_EQ(result.error,
            "fake: responses file " + dir.file("noarray.json") + " has no \"responses\" array");

  writeWholeFile(dir.file("notext.json"),
                 R"({"responses": [{"role": "coach", "text": "ok"}, {"role": "judge"}]})");
  result = loader.load("fake", kFakeDir, fakeSettings(dir.file("notext.json")));
  EXPECT_EQ(result.error, "fake: responses file " + dir.file("notext.json") +
                              ", entry 1: needs \"text\" or \"fail\"");

  result = loader.load("fake", kFakeDir, {{"timeout_s", "30"}});
  EXPECT_EQ(result.error, "fake: setting ai.fake.responses (a JSON file) is not set");
}

TEST(PluginLoaderTest, FakeEntryFieldErrorsArePlainSentences) {
  PluginLoader loader;
  TempDirectory dir;
  const std::string path = dir.file("responses.json");
  const std::string where = "fake: responses file " + path + ", entry 0: ";
  const std::pair<const char*, std::string> cases[] = {
      {R"({"text": "ok"})", R"("role" is missing (a string: coach, judge, nudge, reviewer or *))"},
      {R"({"role": 5, "text": "ok"})",
       R"("role" must be a string (coach, judge, nudge, reviewer or *), not a number)"},
      {R"({"role": "", "text": "ok"})",
       R"("role" is empty (a string: coach, judge, nudge, reviewer or *))"},
      {R"({"role": "coach", "match": ["a"], "text": "ok"})",
       R"("match" must be a string (a substring of the prompt), not an array)"},
      {R"({"role": "coach", "text": {"a": 1}})",
       R"("text" must be a string (the answer), not an object)"},
      {R"({"role": "coach", "fail": true})",
       R"("fail" must be a string (the error message), not a boolean)"},
      {R"({"role": "coach", "text": "ok", "delay_ms": "800"})",
       R"("delay_ms" must be a whole number of milliseconds, 0 or more, not a string)"},
      {R"({"role": "coach", "text": "ok", "delay_ms": 1.5})",
       R"("delay_ms" must be a whole number of milliseconds, 0 or more, not a fraction)"},
      {R"({"role": "coach", "text": "ok", "delay_ms": -1})",
       R"("delay_ms" is negative (a whole number of milliseconds, 0 or more))"},
      {R"({"role": "coach", "text": null})", R"("text" must be a string (the answer), not null)"},
  };
  for (const auto& [entry, problem] : cases) {
    writeWholeFile(path, std::string(R"({"responses": [)") + entry + "]}");
    const LoadResult result = loader.load("fake", kFakeDir, fakeSettings(path));
    EXPECT_FALSE(result.loaded()) << entry;
    EXPECT_EQ(result.error, where + problem) << entry;
    EXPECT_THAT(result.error, Not(HasSubstr("Invalid access"))) << entry;
  }
}

TEST(PluginLoaderTest, NoneMeansOffWithoutError) {
  PluginLoader loader;
  LoadResult result = loader.load("none", kFakeDir, {});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "");
}

TEST(PluginLoaderTest, RejectsInvalidNamesBeforeTouchingTheDisk) {
  PluginLoader loader;
  for (const std::string name : {"", "Fake", "../fake", "fa ke", "fake.so", "a/b"}) {
    LoadResult result = loader.load(name, kFakeDir, {});
    EXPECT_FALSE(result.loaded()) << name;
    EXPECT_EQ(result.error, "invalid backend name \"" + name + "\"");
  }
}

TEST(PluginLoaderTest, MissingPluginNamesFileAndDirectory) {
  PluginLoader loader;
  TempDirectory dir;
  LoadResult result = loader.load("nothere", dir.path(), {});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "no plugin antidrift-nothere.so in " + dir.path());
}

TEST(PluginLoaderTest, RelativePluginDirIsMadeAbsolute) {
  const std::string previous = Poco::Path::current();
  Poco::Path fakeDir(kFakeDir);
  fakeDir.makeDirectory();
  const std::string leaf = fakeDir[fakeDir.depth() - 1];
  ASSERT_EQ(::chdir(fakeDir.parent().toString().c_str()), 0);
  PluginLoader loader;
  LoadResult result = loader.load("fake", leaf, fakeSettings(FAKE_EXAMPLE_RESPONSES));
  LoadResult missing = loader.load("nothere", leaf, {});
  ASSERT_EQ(::chdir(previous.c_str()), 0);
  EXPECT_EQ(result.error, "");
  EXPECT_TRUE(result.loaded());
  EXPECT_EQ(missing.error,
            "no plugin antidrift-nothere.so in " + Poco::Path(fakeDir.parent(), leaf).toString());
}

TEST(PluginLoaderTest, WrongAbiVersionIsRefused) {
  PluginLoader loader;
  LoadResult result = loader.load("wrong_abi", kTestPluginDir, {});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "antidrift-wrong_abi.so has ABI version " +
                              std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION + 1) +
                              ", daemon expects " + std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION));
}

TEST(PluginLoaderTest, LibraryWithoutAbiSymbolIsNotAPlugin) {
  PluginLoader loader;
  LoadResult result = loader.load("no_abi", kTestPluginDir, {});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, Poco::Path(kTestPluginDir, "antidrift-no_abi.so").toString() +
                              " is not an AntiDrift plugin (no antidriftBackendAbiVersion)");
}

TEST(PluginLoaderTest, ConfigureFailureIsReportedAndNoBackendHandedOut) {
  PluginLoader loader;
  LoadResult result = loader.load("configure_throws", kTestPluginDir, {});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error, "configure_throws: refusing every configuration");
}

TEST(PluginLoaderTest, StaleInterfaceFailsPocoManifestCheck) {
  PluginLoader loader;
  const std::string path = Poco::Path(kTestPluginDir, "antidrift-stale_manifest.so").toString();
  LoadResult result = loader.load("stale_manifest", kTestPluginDir, {});
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error, StartsWith("cannot load " + path + ": "));
  EXPECT_THAT(result.error, HasSubstr("Manifest class mismatch"));
}

TEST(PluginLoaderTest, FileThatIsNoSharedObjectReportsTheLoaderError) {
  PluginLoader loader;
  TempDirectory dir;
  writeWholeFile(dir.file("antidrift-garbage.so"), "this is not an ELF file\n");
  LoadResult result = loader.load("garbage", dir.path(), {});
  EXPECT_FALSE(result.loaded());
  EXPECT_THAT(result.error, StartsWith("cannot load " + dir.file("antidrift-garbage.so") + ": "));
  EXPECT_THAT(result.error, HasSubstr("garbage"));
}

TEST(PluginLoaderTest, LoadingTwiceGivesIndependentBackendsThatOutliveTheLoader) {
  std::shared_ptr<Backend> first;
  std::shared_ptr<Backend> second;
  TempDirectory dir;
  writeWholeFile(dir.file("one.json"), R"({"responses": [{"role": "*", "text": "one"}]})");
  writeWholeFile(dir.file("two.json"), R"({"responses": [{"role": "*", "text": "two"}]})");
  {
    PluginLoader loader;
    first = loader.load("fake", kFakeDir, fakeSettings(dir.file("one.json"))).backend;
    second = loader.load("fake", kFakeDir, fakeSettings(dir.file("two.json"))).backend;
  }
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(first.get(), second.get());
  EXPECT_EQ(first->complete("ROLE: coach", 1000), "one");
  EXPECT_EQ(second->complete("ROLE: coach", 1000), "two");
}

TEST(PluginLoaderTest, ListBackendsReadsShippedMetadata) {
  const auto backends = PluginLoader::listBackends(kFakeDir);
  auto fake = std::find_if(backends.begin(), backends.end(),
                           [](const BackendInfo& info) { return info.name == "fake"; });
  ASSERT_NE(fake, backends.end());
  EXPECT_EQ(fake->abi, ANTIDRIFT_BACKEND_ABI_VERSION);
  EXPECT_FALSE(fake->description.empty());
  EXPECT_TRUE(fake->libraryPresent);
  EXPECT_EQ(fake->problem, "");
}

TEST(PluginLoaderTest, ListBackendsReportsEachDefectWithoutOpeningLibraries) {
  TempDirectory dir;
  writeWholeFile(dir.file("antidrift-ghost.json"),
                 R"({"name": "ghost", "abi": 2, "description": "no .so"})");
  writeWholeFile(dir.file("antidrift-broken.json"), "{oops");
  writeWholeFile(dir.file("antidrift-broken.so"), "not a library");
  writeWholeFile(dir.file("antidrift-renamed.json"),
                 R"({"name": "other", "abi": 2, "description": "x"})");
  writeWholeFile(dir.file("antidrift-renamed.so"), "");
  writeWholeFile(dir.file("antidrift-future.json"),
                 R"({"name": "future", "abi": 99, "description": "y"})");
  writeWholeFile(dir.file("antidrift-future.so"), "");
  writeWholeFile(dir.file("unrelated.json"), "{}");
  writeWholeFile(dir.file("antidrift-Bad Name.json"), "{}");
  // A real, loadable plugin with metadata: listing must not map it.
  Poco::File(Poco::Path(kFakeDir, "antidrift-fake.so")).copyTo(dir.file("antidrift-fake.so"));
  Poco::File(Poco::Path(kFakeDir, "antidrift-fake.json")).copyTo(dir.file("antidrift-fake.json"));
  // A library with no metadata file.
  writeWholeFile(dir.file("antidrift-bare.so"), "");
  // Sound metadata beside a file that cannot be a library: named by its
  // missing ELF header, still without mapping it.
  writeWholeFile(dir.file("antidrift-junk.json"),
                 R"({"name": "junk", "abi": 2, "description": "z"})");
  writeWholeFile(dir.file("antidrift-junk.so"), "not an ELF file\n");

  const auto backends = PluginLoader::listBackends(dir.path());
  std::map<std::string, BackendInfo> byName;
  std::vector<std::string> names;
  for (const auto& info : backends) {
    names.push_back(info.name);
    byName[info.name] = info;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"bare", "broken", "fake", "future", "ghost", "junk",
                                             "renamed"}));
  EXPECT_EQ(byName["ghost"].description, "no .so");
  EXPECT_FALSE(byName["ghost"].libraryPresent);
  EXPECT_EQ(byName["ghost"].problem, "no antidrift-ghost.so");
  EXPECT_THAT(byName["broken"].problem, StartsWith("invalid metadata: "));
  EXPECT_TRUE(byName["broken"].libraryPresent);
  EXPECT_EQ(byName["renamed"].problem, "metadata names \"other\"");
  EXPECT_EQ(byName["future"].abi, 99);
  EXPECT_EQ(byName["future"].problem,
            "ABI version 99, daemon expects " + std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION));
  EXPECT_EQ(byName["bare"].problem, "no metadata file");
  EXPECT_EQ(byName["junk"].problem, "antidrift-junk.so is not a shared library (no ELF header)");
  EXPECT_FALSE(isMapped(dir.file("antidrift-junk.so")));
  EXPECT_EQ(byName["fake"].problem, "");
  EXPECT_TRUE(byName["fake"].libraryPresent);
  EXPECT_FALSE(isMapped(dir.file("antidrift-fake.so")));
}

// docs/PLUGINS.md "Where plugins go": the first folder holding the library
// provides the backend; metadata alone provides nothing.
TEST(PluginLoaderTest, LocateReturnsTheFirstFolderHoldingTheLibrary) {
  TempDirectory user;
  TempDirectory system;
  writeWholeFile(user.file("antidrift-meta.json"), R"({"name": "meta", "abi": 2})");
  writeWholeFile(system.file("antidrift-meta.so"), "");
  writeWholeFile(user.file("antidrift-both.so"), "");
  writeWholeFile(system.file("antidrift-both.so"), "");
  const std::vector<std::string> folders = {user.path(), system.path()};
  EXPECT_EQ(PluginLoader::locate("both", folders), user.path());
  EXPECT_EQ(PluginLoader::locate("meta", folders), system.path());
  EXPECT_EQ(PluginLoader::locate("absent", folders), "");
  EXPECT_EQ(PluginLoader::locate("../both", folders), "");
  EXPECT_EQ(PluginLoader::locate("both", {user.file("nope"), system.path()}), system.path());
}

TEST(PluginLoaderTest, ListBackendsOfMissingDirectoryThrows) {
  TempDirectory dir;
  const std::string missing = dir.file("nope");
  try {
    PluginLoader::listBackends(missing);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "plugin directory " + missing + " does not exist");
  }
}

// ---- privacy.local_only and where prompts go (issue 18 item 3) ------------------------------

TEST(PluginLoaderTest, ReportsWherePromptsGoFromPluginJson) {
  PluginLoader loader;
  const LoadResult result = loader.load("fake", kFakeDir, fakeSettings(FAKE_EXAMPLE_RESPONSES));
  ASSERT_TRUE(result.loaded()) << result.error;
  EXPECT_EQ(result.prompts, "local");
  EXPECT_EQ(result.destination, "local");  // the fake keeps the default destination()
}

TEST(PluginLoaderTest, LocalOnlyLoadsALocalPlugin) {
  PluginLoader loader;
  auto settings = fakeSettings(FAKE_EXAMPLE_RESPONSES);
  settings["local_only"] = "true";
  settings["local_hosts"] = "";
  const LoadResult result = loader.load("fake", kFakeDir, settings);
  EXPECT_TRUE(result.loaded()) << result.error;
}

TEST(PluginLoaderTest, LocalOnlyRefusesARemotePluginBeforeLoadingIt) {
  PluginLoader loader;
  const LoadResult result =
      loader.load("claude", CLI_PLUGIN_DIR, {{"timeout_s", "30"}, {"local_only", "true"}});
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error,
            "privacy.local_only is on and backend claude sends prompts off this machine "
            "(plugin.json \"prompts\": \"remote\")");
  const LoadResult allowed =
      loader.load("claude", CLI_PLUGIN_DIR,
                  {{"timeout_s", "30"}, {"local_only", "false"}, {"command", "/bin/true"}});
  EXPECT_TRUE(allowed.loaded()) << allowed.error;
  EXPECT_EQ(allowed.prompts, "remote");
}

TEST(PluginLoaderTest, LocalOnlyRefusesAPluginThatDeclaresNoDestination) {
  TempDirectory dir;
  // A copy of the fake without "prompts" in its metadata.
  Poco::File(kFakeDir + "/antidrift-fake.so").copyTo(dir.path());
  writeWholeFile(dir.file("antidrift-fake.json"), R"({"name": "fake", "abi": 2})");
  PluginLoader loader;
  auto settings = fakeSettings(FAKE_EXAMPLE_RESPONSES);
  settings["local_only"] = "true";
  const LoadResult result = loader.load("fake", dir.path(), settings);
  EXPECT_FALSE(result.loaded());
  EXPECT_EQ(result.error,
            "privacy.local_only is on and backend fake declares no \"prompts\" in its plugin.json");
}

TEST(PluginLoaderTest, ListBackendsReadsPrompts) {
  const auto backends = PluginLoader::listBackends(kFakeDir);
  std::map<std::string, std::string> prompts;
  for (const auto& backend : backends) prompts[backend.name] = backend.prompts;
  EXPECT_EQ(prompts["fake"], "local");
  EXPECT_EQ(prompts["claude"], "remote");
  EXPECT_EQ(prompts["codex"], "remote");
}

}  // namespace
}  // namespace antidrift::plugin
