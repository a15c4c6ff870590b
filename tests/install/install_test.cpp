// The installed AntiDrift (issue 10 item 3): cmake --install into a temporary
// prefix, the installed daemon finds its page and plugins without the source
// tree, systemd-analyze accepts the user unit, and the .deb built by cpack
// holds everything and its extracted daemon serves the page.
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <set>
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

TEST_F(InstallTest, TheDebianPackageHoldsEverythingAndItsDaemonServesThePage) {
  const std::string output = directory_.path() + "/deb";
  const ChildResult cpack = run(CPACK_COMMAND_PATH, {"-G", "DEB", "-B", output, "--config",
                                                     ANTIDRIFT_BUILD_DIR "/CPackConfig.cmake"});
  ASSERT_EQ(cpack.exitCode, 0) << cpack.out << cpack.err;
  std::vector<std::string> packages;
  Poco::File(output).list(packages);
  const auto deb = std::find_if(packages.begin(), packages.end(), [](const std::string& name) {
    return name.size() > 4 && name.compare(name.size() - 4, 4, ".deb") == 0;
  });
  ASSERT_NE(deb, packages.end());
  const std::string package = output + "/" + *deb;

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
}

}  // namespace
}  // namespace antidrift
