// The installed AntiDrift (issue 10 item 3): cmake --install into a temporary
// prefix, the installed daemon finds its page and plugins without the source
// tree, systemd-analyze accepts the user unit, and the .deb built by cpack
// holds everything and its extracted daemon serves the page; the plugin SDK
// (docs/PLUGINS.md) builds a backend outside the tree against an installed
// prefix or the extracted antidrift-dev, and the installed daemon loads it.
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/RecursiveDirectoryIterator.h>

#include "antidrift/backend_abi.h"
#include "integration/http_test_support.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using test::ChildResult;
using ::testing::HasSubstr;

class InstallTest : public ::testing::Test {
 protected:
  InstallTest() {
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment_["XDG_DATA_HOME"] = directory_.path() + "/data";
  }

  ChildResult run(const std::string& program, const std::vector<std::string>& args) {
    return test::runToCompletion(program, args, environment_);
  }

  /// Runs `<prefix>/bin/antidriftd` on a free port and checks that it serves
  /// the page with the token injected and names its installed page folder.
  void expectServesThePage(const std::string& prefix) {
    test::RunningDaemon daemon(
        prefix + "/bin/antidriftd",
        {"-D", "server.port=0", "-D", "store.dir=" + directory_.path() + "/store", "-D",
         "ai.backend=none", "-D", "evidence.x11=false"},
        environment_);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
    const test::Reply page = test::sendRequest(daemon.port(), "GET", "/");
    EXPECT_EQ(page.status, 200);
    EXPECT_THAT(page.body, HasSubstr("<html"));
    EXPECT_THAT(page.body, ::testing::Not(HasSubstr("{{ANTIDRIFT_TOKEN}}")));
    EXPECT_EQ(test::sendRequest(daemon.port(), "GET", "/app.js").status, 200);
    EXPECT_EQ(daemon.stop(), 0);
    EXPECT_THAT(daemon.err(), HasSubstr("UI files from " + prefix + "/share/antidrift/www"));
    EXPECT_THAT(daemon.err(),
                HasSubstr("sites from " + prefix + "/share/antidrift/distractions.txt"));
  }

  /// Configures and builds the plugin project `source` in the fresh folder
  /// `build` against the SDK in `prefix` alone: no package registry, the
  /// daemon's compiler (the ABI is C++), and neither the AntiDrift package nor
  /// any include path taken from the source tree.
  void buildPluginAgainst(const std::string& prefix, const std::string& source,
                          const std::string& build) {
    const ChildResult configure =
        run(CMAKE_COMMAND_PATH,
            {"-S", source, "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix,
             "-DCMAKE_CXX_COMPILER=" CMAKE_CXX_COMPILER_PATH, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
             "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"});
    EXPECT_EQ(configure.exitCode, 0) << configure.out << configure.err;
    const ChildResult compile = run(CMAKE_COMMAND_PATH, {"--build", build});
    EXPECT_EQ(compile.exitCode, 0) << compile.out << compile.err;
    EXPECT_THAT(test::readWholeFile(build + "/CMakeCache.txt"),
                HasSubstr("\nAntiDrift_DIR:PATH=" + prefix + "/lib/cmake/AntiDrift\n"));
    const std::string commands = test::readWholeFile(build + "/compile_commands.json");
    EXPECT_THAT(commands, HasSubstr(prefix + "/include"));
    EXPECT_THAT(commands, ::testing::Not(HasSubstr(ANTIDRIFT_SOURCE_DIR)))
        << "the plugin must build from the installed prefix only";
  }

  test::TempDirectory directory_;
  Poco::Process::Env environment_;
};

TEST_F(InstallTest, TheInstalledDaemonFindsItsPageAndPluginsBesideItself) {
  const std::string prefix = directory_.path() + "/prefix";
  const ChildResult install =
      run(CMAKE_COMMAND_PATH, {"--install", ANTIDRIFT_BUILD_DIR, "--prefix", prefix});
  ASSERT_EQ(install.exitCode, 0) << install.out << install.err;
  for (const char* file :
       {"bin/antidriftd", "bin/antidrift", "libexec/antidrift/antidrift-watch",
        "lib/antidrift/plugins/antidrift-claude.so", "lib/antidrift/plugins/antidrift-codex.json",
        "lib/antidrift/plugins/antidrift-fake.so", "share/antidrift/www/index.html",
        "share/antidrift/distractions.txt", "share/doc/antidrift/antidrift.properties.example",
        "lib/systemd/user/antidrift.service", "etc/xdg/autostart/antidrift.desktop"}) {
    EXPECT_TRUE(Poco::File(prefix + "/" + file).exists()) << file;
  }
  EXPECT_FALSE(Poco::File(prefix + "/lib/antidrift/plugins/antidrift-wrong_abi.so").exists())
      << "test-only plugins are not installed";

  const ChildResult backends =
      run(prefix + "/bin/antidriftd", {"--list-backends", "-D", "store.dir=" + directory_.path()});
  EXPECT_EQ(backends.exitCode, 0) << backends.err;
  EXPECT_THAT(backends.out, HasSubstr("AI backends in " + prefix + "/lib/antidrift/plugins"));
  EXPECT_THAT(backends.out, HasSubstr("claude  Claude Code CLI"));
  EXPECT_THAT(backends.out, HasSubstr("fake  Canned answers"));
  EXPECT_THAT(backends.out, HasSubstr("openai  An OpenAI-compatible"));
  EXPECT_THAT(backends.out, HasSubstr("auto *  chosen at start"));  // the default (issue 18 item 2)
  EXPECT_THAT(backends.out, ::testing::Not(HasSubstr("[no antidrift-")));

  expectServesThePage(prefix);

  // The unit and the autostart entry name the installed binary.
  const std::string unit = test::readWholeFile(prefix + "/lib/systemd/user/antidrift.service");
  EXPECT_THAT(unit, HasSubstr("\nExecStart=" + prefix + "/bin/antidriftd\n"));
  EXPECT_THAT(unit, HasSubstr("\nRestart=on-failure\n"));
  // docs/SECURITY.md N6: the installed binary's own release after every stop.
  EXPECT_THAT(unit, HasSubstr("\nExecStopPost=-" + prefix + "/bin/antidriftd --release-dnd\n"));
  const ChildResult release =
      run(prefix + "/bin/antidriftd", {"--release-dnd", "-D", "store.dir=" + directory_.path()});
  EXPECT_EQ(release.exitCode, 0) << release.err;
  EXPECT_EQ(release.out, "no do-not-disturb hold recorded in " + directory_.path() + "\n");
  EXPECT_THAT(test::readWholeFile(prefix + "/etc/xdg/autostart/antidrift.desktop"),
              HasSubstr("\nExec=" + prefix + "/bin/antidriftd\n"));

  // systemd-analyze (Debian package systemd) accepts the unit as a user
  // unit: exit 0 and not one complaint (unknown keys are only warnings).
  Poco::Path analyze;
  ASSERT_TRUE(Poco::Path::find(Poco::Environment::get("PATH", "") + ":/usr/bin:/bin",
                               "systemd-analyze", analyze))
      << "systemd-analyze is missing: scripts/deps.sh test installs systemd";
  const std::string runtime = directory_.path() + "/runtime";
  Poco::File(runtime).createDirectories();
  environment_["XDG_RUNTIME_DIR"] = runtime;
  const ChildResult verify =
      run(analyze.toString(), {"--user", "verify", prefix + "/lib/systemd/user/antidrift.service"});
  EXPECT_EQ(verify.exitCode, 0) << verify.err;
  EXPECT_EQ(verify.out + verify.err, "");
}

// Issue 17 item 4: what an installed user reads points at what is installed
// and names what they can run.
TEST_F(InstallTest, TheInstalledReadmeLinksOnlyInstalledFilesAndTheCommandsNameInstalledOnes) {
  const std::string prefix = directory_.path() + "/prefix";
  const ChildResult install =
      run(CMAKE_COMMAND_PATH, {"--install", ANTIDRIFT_BUILD_DIR, "--prefix", prefix});
  ASSERT_EQ(install.exitCode, 0) << install.out << install.err;
  const std::string docDir = prefix + "/share/doc/antidrift/";
  const std::string readme = test::readWholeFile(docDir + "README.md");
  // Every relative Markdown link, "](path)" or "](path#anchor)".
  const std::regex link(R"(\]\(([^)#:\s]+)(#[^)]*)?\))");
  std::set<std::string> targets;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), link);
       it != std::sregex_iterator(); ++it) {
    targets.insert((*it)[1].str());
  }
  ASSERT_TRUE(targets.count("docs/API.md") && targets.count("packaging/README.md"))
      << "the README's links were not found";
  for (const std::string& target : targets) {
    EXPECT_TRUE(Poco::File(docDir + target).exists()) << "the README links " << target;
  }
  EXPECT_TRUE(Poco::File(docDir + "plugins/fake/README.md").exists());

  // The daemon's --help names replay; the CLI's hint names installed commands.
  const ChildResult help = run(prefix + "/bin/antidriftd", {"--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_THAT(help.out, HasSubstr("antidriftd replay FILE"));
  const ChildResult status =
      run(prefix + "/bin/antidrift",
          {"-D", "server.port=1", "-D", "store.dir=" + directory_.path() + "/store", "status"});
  EXPECT_EQ(status.exitCode, 69);
  EXPECT_THAT(status.err, HasSubstr("(start it with systemctl --user start antidrift, or run "
                                    "antidriftd)"));
  EXPECT_THAT(status.err, ::testing::Not(HasSubstr("scripts/")));

  // `watch --format` becomes the installed antidrift-watch (issue 20 item 2):
  // nothing listens on port 1, so its first line is "off".
  Poco::Pipe outPipe;
  Poco::ProcessHandle watch = Poco::Process::launch(
      prefix + "/bin/antidrift",
      {"-D", "server.port=1", "-D", "store.dir=" + directory_.path() + "/store", "watch",
       "--format", "polybar"},
      nullptr, &outPipe, nullptr, environment_);
  Poco::PipeInputStream out(outPipe);
  std::string line;
  std::getline(out, line);
  EXPECT_EQ(line, "%{F#aaaaaa}AntiDrift off%{F-}");
  char exe[4096] = {};
  EXPECT_GT(
      ::readlink(("/proc/" + std::to_string(watch.id()) + "/exe").c_str(), exe, sizeof exe - 1), 0);
  EXPECT_EQ(Poco::Path(exe).toString(),
            Poco::Path(prefix + "/libexec/antidrift/antidrift-watch").toString());
  Poco::Process::requestTermination(watch.id());
  EXPECT_EQ(watch.wait(), 0);
}

// The plugin SDK from the outside (docs/PLUGINS.md): against an installed
// prefix only, the installed example builds with find_package(AntiDrift
// CONFIG) and antidrift_add_backend, is listed from the per-user folder of a
// temporary home it was dropped into and answers the coach through the
// installed daemon; a plugin built against the same headers that declares
// another ABI is refused with both versions named before any of its classes is
// created, a file that is no library is refused with a sentence, and the
// daemon runs on each time.
TEST_F(InstallTest, AnInstalledSdkBuildsAPluginOutsideTheTreeThatTheInstalledDaemonLoads) {
  const std::string home = directory_.path() + "/home";
  environment_["HOME"] = home;
  const std::string prefix = directory_.path() + "/prefix";
  const ChildResult install =
      run(CMAKE_COMMAND_PATH, {"--install", ANTIDRIFT_BUILD_DIR, "--prefix", prefix});
  ASSERT_EQ(install.exitCode, 0) << install.out << install.err;
  for (const char* file : {"include/antidrift/backend.h", "include/antidrift/backend_abi.h",
                           "lib/cmake/AntiDrift/AntiDriftConfig.cmake",
                           "lib/cmake/AntiDrift/AntiDriftConfigVersion.cmake",
                           "lib/cmake/AntiDrift/AntiDriftBackend.cmake",
                           "share/doc/antidrift-dev/examples/backend-echo/CMakeLists.txt",
                           "share/doc/antidrift-dev/examples/backend-echo/echo_backend.cpp"}) {
    EXPECT_TRUE(Poco::File(prefix + "/" + file).exists()) << file;
  }

  // As an author would: the example copied into a folder of its own.
  const std::string echoSource = directory_.path() + "/backend-echo";
  Poco::File(prefix + "/share/doc/antidrift-dev/examples/backend-echo").copyTo(echoSource);
  const std::string echoBuild = directory_.path() + "/echo-build";
  buildPluginAgainst(prefix, echoSource, echoBuild);
  // The default per-user folder (ai.user_plugin_dir), not set anywhere here.
  const std::string userPlugins = home + "/.local/lib/antidrift/plugins";
  Poco::File(userPlugins).createDirectories();
  for (const char* file : {"antidrift-echo.so", "antidrift-echo.json"}) {
    ASSERT_TRUE(Poco::File(echoBuild + "/" + file).exists()) << file;
    Poco::File(echoBuild + "/" + file).copyTo(userPlugins + "/" + file);
  }

  // A second plugin, built against the same installed headers, that declares
  // the next ABI in its entry point and in metadata written beside it by hand
  // (antidrift_add_backend refuses a METADATA file of another ABI, below).
  // Its constructor and configure() would leave a file: refused by the
  // probe, neither runs.
  const std::string wrong = directory_.path() + "/wrongabi";
  const std::string ranMarker = directory_.path() + "/wrongabi-ran";
  Poco::File(wrong).createDirectories();
  test::writeWholeFile(wrong + "/CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(wrongabi LANGUAGES CXX)
find_package(AntiDrift CONFIG REQUIRED)
antidrift_add_backend(wrongabi wrongabi.cpp NO_METADATA)
)");
  const std::string nextAbiMetadata =
      R"({"name": "wrongabi", "abi": )" + std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION + 1) +
      R"(, "prompts": "local", "description": "declares the next ABI"})";
  test::writeWholeFile(wrong + "/wrongabi.cpp", R"(#include <fstream>
#include "antidrift/backend.h"
class WrongAbiBackend : public antidrift::Backend {
 public:
  WrongAbiBackend() { std::ofstream(")" + ranMarker +
                                                    R"(") << "constructed"; }
  std::string name() const override { return "wrongabi"; }
  void configure(const std::map<std::string, std::string>&) override {
    std::ofstream(")" + ranMarker + R"(") << "configured";
  }
  std::string complete(const std::string&, std::int64_t) override { return "{}"; }
};
extern "C" POCO_LIBRARY_API int antidriftBackendAbiVersion() {
  return ANTIDRIFT_BACKEND_ABI_VERSION + 1;
}
extern "C" POCO_LIBRARY_API const char* antidriftBackendClass() { return "WrongAbiBackend"; }
POCO_BEGIN_MANIFEST(antidrift::Backend)
POCO_EXPORT_CLASS(WrongAbiBackend)
POCO_END_MANIFEST
)");
  const std::string wrongBuild = directory_.path() + "/wrongabi-build";
  buildPluginAgainst(prefix, wrong, wrongBuild);
  ASSERT_TRUE(Poco::File(wrongBuild + "/antidrift-wrongabi.so").exists());
  Poco::File(wrongBuild + "/antidrift-wrongabi.so").copyTo(userPlugins + "/antidrift-wrongabi.so");
  test::writeWholeFile(userPlugins + "/antidrift-wrongabi.json", nextAbiMetadata);

  // A misspelt keyword is said as one, not taken for a source file.
  const std::string typo = directory_.path() + "/typo";
  Poco::File(typo).createDirectories();
  test::writeWholeFile(typo + "/CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(typo LANGUAGES CXX)
find_package(AntiDrift CONFIG REQUIRED)
antidrift_add_backend(typo typo.cpp PROMPT local)
)");
  const ChildResult typoConfigure =
      run(CMAKE_COMMAND_PATH, {"-S", typo, "-B", typo + "/build", "-DCMAKE_PREFIX_PATH=" + prefix});
  EXPECT_NE(typoConfigure.exitCode, 0);
  EXPECT_THAT(typoConfigure.err, HasSubstr("antidrift_add_backend(typo): unknown keyword PROMPT"));
  // A ready-made METADATA file of another ABI fails the configure, naming both.
  test::writeWholeFile(typo + "/CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(typo LANGUAGES CXX)
find_package(AntiDrift CONFIG REQUIRED)
antidrift_add_backend(wrongabi wrongabi.cpp METADATA wrongabi.json)
)");
  test::writeWholeFile(typo + "/wrongabi.json", nextAbiMetadata);
  const ChildResult staleConfigure = run(
      CMAKE_COMMAND_PATH, {"-S", typo, "-B", typo + "/build2", "-DCMAKE_PREFIX_PATH=" + prefix});
  EXPECT_NE(staleConfigure.exitCode, 0);
  // CMake wraps a message's lines: compare with every run of white space as one.
  const std::string staleError =
      std::regex_replace(staleConfigure.err, std::regex("\\s+"), std::string(" "));
  EXPECT_THAT(staleError,
              HasSubstr("says \"abi\": " + std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION + 1) +
                        ", the header's ANTIDRIFT_BACKEND_ABI_VERSION is " +
                        std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION)));

  // A file that is no library, with sound metadata: the listing names it by
  // its missing ELF header (it opens no library), the load refuses it with a
  // sentence.
  test::writeWholeFile(userPlugins + "/antidrift-broken.so", "not an ELF file\n");
  test::writeWholeFile(userPlugins + "/antidrift-broken.json",
                       R"({"name": "broken", "abi": )" +
                           std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION) +
                           R"(, "prompts": "local", "description": "no library at all"})");

  const std::string abi = std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION);
  const std::string nextAbi = std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION + 1);
  const std::string systemPlugins = prefix + "/lib/antidrift/plugins";
  const ChildResult backends =
      run(prefix + "/bin/antidriftd",
          {"--list-backends", "-D", "ai.backend=echo", "-D", "store.dir=" + directory_.path()});
  EXPECT_EQ(backends.exitCode, 0) << backends.err;
  const auto systemHeading =
      backends.out.find("AI backends in " + systemPlugins + " (system, ai.plugin_dir");
  const auto userHeading =
      backends.out.find("AI backends in " + userPlugins + " (per-user, ai.user_plugin_dir");
  ASSERT_NE(systemHeading, std::string::npos) << backends.out;
  ASSERT_NE(userHeading, std::string::npos) << backends.out;
  EXPECT_LT(systemHeading, userHeading) << "the system folder is searched first";
  const std::string userPart = backends.out.substr(userHeading);
  EXPECT_THAT(userPart,
              HasSubstr("  echo *  Echoes: the coach proposes the intent itself as the next "
                        "action (an SDK example)  (prompts: local)\n"));
  EXPECT_THAT(userPart,
              HasSubstr("  wrongabi  declares the next ABI  (prompts: local)  [ABI version " +
                        nextAbi + ", daemon expects " + abi + "]\n"));
  EXPECT_THAT(userPart,
              HasSubstr("  broken  no library at all  (prompts: local)  "
                        "[antidrift-broken.so is not a shared library (no ELF header)]\n"));

  const std::vector<std::string> common = {"-D", "server.port=0",
                                           "-D", "store.dir=" + directory_.path() + "/store",
                                           "-D", "evidence.x11=false"};
  {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"-D", "ai.backend=echo", "-D", "ai.echo.minutes=20"});
    test::RunningDaemon daemon(prefix + "/bin/antidriftd", args, environment_);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
    std::string token = test::readWholeFile(directory_.path() + "/store/token");
    token.erase(token.find_last_not_of('\n') + 1);
    test::RequestOptions options;
    options.token = token;
    test::SseRecorder events(daemon.port());
    ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
    ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/coach", R"({"intent":"write the intro"})",
                                options)
                  .status,
              200);
    ASSERT_TRUE(events.waitUntil([](const std::vector<test::SseEvent>& seen) {
      return !seen.empty() && seen.back().data.find(R"("status":"ready")") != std::string::npos;
    })) << daemon.err();
    const auto state = test::sendRequest(daemon.port(), "GET", "/state").json();
    const auto proposal = state->getObject("coach")->getObject("proposal");
    EXPECT_EQ(proposal->getValue<std::string>("next_action"), "Echo: write the intro");
    EXPECT_EQ(proposal->getValue<std::string>("success_condition"), "\"write the intro\" is done");
    EXPECT_EQ(proposal->getValue<int>("timebox_secs"), 20 * 60);
    EXPECT_EQ(state->getObject("ai")->getValue<std::string>("backend"), "echo");
    EXPECT_EQ(daemon.stop(), 0);
    EXPECT_THAT(daemon.err(), HasSubstr("AI backend \"echo\" loaded from " + userPlugins));
  }
  {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"-D", "ai.backend=wrongabi"});
    test::RunningDaemon daemon(prefix + "/bin/antidriftd", args, environment_);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
    EXPECT_EQ(test::sendRequest(daemon.port(), "GET", "/").status, 200);
    const auto ai = test::sendRequest(daemon.port(), "GET", "/state").json()->getObject("ai");
    EXPECT_FALSE(ai->getValue<bool>("available"));
    EXPECT_EQ(daemon.stop(), 0);
    EXPECT_THAT(daemon.err(), HasSubstr("antidrift-wrongabi.so has ABI version " + nextAbi +
                                        ", daemon expects " + abi + "; running without AI"));
    EXPECT_FALSE(Poco::File(ranMarker).exists()) << "the refused plugin's code ran";
  }
  {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"-D", "ai.backend=broken"});
    test::RunningDaemon daemon(prefix + "/bin/antidriftd", args, environment_);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
    EXPECT_EQ(test::sendRequest(daemon.port(), "GET", "/").status, 200);
    const auto ai = test::sendRequest(daemon.port(), "GET", "/state").json()->getObject("ai");
    EXPECT_FALSE(ai->getValue<bool>("available"));
    EXPECT_EQ(daemon.stop(), 0);
    EXPECT_THAT(daemon.err(), HasSubstr("AI backend \"broken\" not loaded: cannot load " +
                                        userPlugins + "/antidrift-broken.so: "));
    EXPECT_THAT(daemon.err(), HasSubstr("; running without AI"));
  }
}

TEST_F(InstallTest, TheDebianPackageHoldsEverythingAndItsDaemonServesThePage) {
  const std::string output = directory_.path() + "/deb";
  const ChildResult cpack = run(CPACK_COMMAND_PATH, {"-G", "DEB", "-B", output, "--config",
                                                     ANTIDRIFT_BUILD_DIR "/CPackConfig.cmake"});
  ASSERT_EQ(cpack.exitCode, 0) << cpack.out << cpack.err;
  std::vector<std::string> packages;
  Poco::File(output).list(packages);
  // Two packages: antidrift and the plugin SDK, antidrift-dev.
  const auto find = [&packages](const std::string& prefix) {
    return std::find_if(packages.begin(), packages.end(), [&prefix](const std::string& name) {
      return name.rfind(prefix, 0) == 0 && name.size() > 4 &&
             name.compare(name.size() - 4, 4, ".deb") == 0;
    });
  };
  const auto deb = find("antidrift_");
  ASSERT_NE(deb, packages.end());
  const std::string package = output + "/" + *deb;
  const auto devDeb = find("antidrift-dev_");
  ASSERT_NE(devDeb, packages.end());
  const std::string devPackage = output + "/" + *devDeb;
  const ChildResult devContents = run("dpkg-deb", {"-c", devPackage});
  ASSERT_EQ(devContents.exitCode, 0) << devContents.err;
  for (const char* file :
       {" ./usr/include/antidrift/backend.h\n", " ./usr/include/antidrift/backend_abi.h\n",
        " ./usr/lib/cmake/AntiDrift/AntiDriftConfig.cmake\n",
        " ./usr/lib/cmake/AntiDrift/AntiDriftConfigVersion.cmake\n",
        " ./usr/lib/cmake/AntiDrift/AntiDriftBackend.cmake\n",
        " ./usr/share/doc/antidrift-dev/examples/backend-echo/echo_backend.cpp\n",
        " ./usr/share/doc/antidrift-dev/copyright\n"}) {
    EXPECT_THAT(devContents.out, HasSubstr(file));
  }
  EXPECT_THAT(devContents.out, ::testing::Not(HasSubstr("antidriftd")));
  const ChildResult devDepends = run("dpkg-deb", {"-f", devPackage, "Depends"});
  EXPECT_THAT(devDepends.out, HasSubstr("libpoco-dev"));
  EXPECT_THAT(devDepends.out, HasSubstr("antidrift (="));

  const ChildResult contents = run("dpkg-deb", {"-c", package});
  ASSERT_EQ(contents.exitCode, 0) << contents.err;
  for (const char* file :
       {" ./usr/bin/antidriftd\n", " ./usr/bin/antidrift\n",
        " ./usr/libexec/antidrift/antidrift-watch\n",
        " ./usr/lib/antidrift/plugins/antidrift-claude.so\n",
        " ./usr/lib/antidrift/plugins/antidrift-codex.so\n",
        " ./usr/lib/antidrift/plugins/antidrift-fake.json\n",
        " ./usr/share/antidrift/www/index.html\n", " ./usr/share/antidrift/distractions.txt\n",
        " ./usr/share/doc/antidrift/copyright\n",
        " ./usr/share/doc/antidrift/antidrift.properties.example\n",
        " ./usr/share/doc/antidrift/docs/API.md\n",
        " ./usr/share/doc/antidrift/packaging/README.md\n",
        " ./usr/lib/systemd/user/antidrift.service\n",
        " ./etc/xdg/autostart/antidrift.desktop\n"}) {
    EXPECT_THAT(contents.out, HasSubstr(file));
  }
  EXPECT_THAT(contents.out, ::testing::Not(HasSubstr("/usr/include/")))
      << "the SDK is in antidrift-dev only";
  const ChildResult depends = run("dpkg-deb", {"-f", package, "Depends"});
  EXPECT_THAT(depends.out, HasSubstr("libpoconet80"));
  const ChildResult conffiles = run("dpkg-deb", {"-I", package, "conffiles"});
  EXPECT_EQ(conffiles.out, "/etc/xdg/autostart/antidrift.desktop\n");

  // The package's files as dpkg -i would lay them out, without touching the
  // machine: the daemon finds its page relative to itself.
  const std::string root = directory_.path() + "/root";
  const ChildResult extract = run("dpkg-deb", {"-x", package, root});
  ASSERT_EQ(extract.exitCode, 0) << extract.err;
  expectServesThePage(root + "/usr");
  const std::string unit = test::readWholeFile(root + "/usr/lib/systemd/user/antidrift.service");
  EXPECT_THAT(unit, HasSubstr("\nExecStart=/usr/bin/antidriftd\n"));

  // antidrift-dev holds exactly what `cmake --install --component dev` lays out.
  const std::string devPrefix = directory_.path() + "/dev-prefix";
  const ChildResult devInstall =
      run(CMAKE_COMMAND_PATH,
          {"--install", ANTIDRIFT_BUILD_DIR, "--component", "dev", "--prefix", devPrefix});
  ASSERT_EQ(devInstall.exitCode, 0) << devInstall.out << devInstall.err;
  std::set<std::string> installed;
  for (Poco::RecursiveDirectoryIterator it(devPrefix), end; it != end; ++it) {
    if (it->isFile()) installed.insert(it.path().toString().substr(devPrefix.size() + 1));
  }
  std::set<std::string> packaged;
  std::istringstream lines(devContents.out);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(" ./usr/");
    if (at != std::string::npos && line.back() != '/') packaged.insert(line.substr(at + 7));
  }
  EXPECT_EQ(packaged, installed);
  EXPECT_EQ(installed.count("include/antidrift/backend.h"), 1U);

  // The extracted SDK builds the example, and the package's daemon lists it
  // from the per-user folder of a temporary home.
  const ChildResult devExtract = run("dpkg-deb", {"-x", devPackage, root});
  ASSERT_EQ(devExtract.exitCode, 0) << devExtract.err;
  const std::string home = directory_.path() + "/home";
  environment_["HOME"] = home;
  const std::string echoBuild = directory_.path() + "/echo-build";
  buildPluginAgainst(root + "/usr", root + "/usr/share/doc/antidrift-dev/examples/backend-echo",
                     echoBuild);
  const std::string userPlugins = home + "/.local/lib/antidrift/plugins";
  Poco::File(userPlugins).createDirectories();
  for (const char* file : {"antidrift-echo.so", "antidrift-echo.json"}) {
    ASSERT_TRUE(Poco::File(echoBuild + "/" + file).exists()) << file;
    Poco::File(echoBuild + "/" + file).copyTo(userPlugins + "/" + file);
  }
  const ChildResult backends = run(root + "/usr/bin/antidriftd",
                                   {"--list-backends", "-D", "store.dir=" + directory_.path()});
  EXPECT_EQ(backends.exitCode, 0) << backends.err;
  EXPECT_THAT(backends.out, HasSubstr("AI backends in " + userPlugins +
                                      " (per-user, ai.user_plugin_dir; searched second; "
                                      "select with ai.backend = <name>):\n  echo  Echoes"));
}

}  // namespace
}  // namespace antidrift
