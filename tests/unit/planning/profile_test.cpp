// Tests for the profile grounding (core/include/antidrift/planning/profile.h; docs/DESIGN.md §6).
#include "antidrift/planning/profile.h"

#include <string>

#include <Poco/TemporaryFile.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace antidrift::planning {
namespace {

using test::writeWholeFile;

Profile loadContent(const std::string& content) {
  Poco::TemporaryFile file;
  writeWholeFile(file.path(), content);
  return loadProfile(file.path());
}

TEST(LoadProfile, MissingOrUnusablePathsAreNone) {
  for (const std::string& path : {std::string(), std::string("/nonexistent/profile.md")}) {
    const Profile profile = loadProfile(path);
    EXPECT_EQ(profile.status, LoadStatus::None) << path;
    EXPECT_TRUE(profile.text.empty());
    EXPECT_EQ(profile.bytes, 0u);
  }
  Poco::TemporaryFile directory;
  directory.createDirectories();
  EXPECT_EQ(loadProfile(directory.path()).status, LoadStatus::None);
}

TEST(LoadProfile, ReadsASmallFile) {
  const Profile profile = loadContent("# Me\r\nI focus best before noon.\r\n");
  EXPECT_EQ(profile.status, LoadStatus::Ready);
  EXPECT_EQ(profile.text, "# Me\nI focus best before noon.\n");
  EXPECT_EQ(profile.bytes, profile.text.size());
}

TEST(LoadProfile, WhitespaceOnlyIsNone) {
  EXPECT_EQ(loadContent("").status, LoadStatus::None);
  EXPECT_EQ(loadContent(" \n\t\r\n").status, LoadStatus::None);
}

TEST(LoadProfile, CapsAt4KiBExactly) {
  const Profile profile = loadContent(std::string(5000, 'a'));
  EXPECT_EQ(profile.status, LoadStatus::Ready);
  EXPECT_EQ(profile.bytes, kMaxProfileBytes);
  EXPECT_EQ(profile.text, std::string(kMaxProfileBytes, 'a'));
}

TEST(LoadProfile, NeverSplitsACharacterStraddlingTheCap) {
  // "é" is 2 bytes at 4095..4096; "€" is 3 bytes at 4094..4096.
  const Profile twoByte = loadContent(std::string(4095, 'a') + "\xC3\xA9" + "tail");
  EXPECT_EQ(twoByte.bytes, 4095u);
  EXPECT_EQ(twoByte.text, std::string(4095, 'a'));
  const Profile threeByte = loadContent(std::string(4094, 'a') + "\xE2\x82\xAC" + "tail");
  EXPECT_EQ(threeByte.bytes, 4094u);
  const Profile fits = loadContent(std::string(4093, 'a') + "\xE2\x82\xAC" + "tail");
  EXPECT_EQ(fits.bytes, 4096u);
  EXPECT_EQ(fits.text.substr(4093), "\xE2\x82\xAC");
}

TEST(LoadProfile, ReplacesInvalidUtf8) {
  const Profile profile = loadContent("ok \xff\xfe done\x01");
  EXPECT_EQ(profile.text, "ok \xEF\xBF\xBD\xEF\xBF\xBD done");
  EXPECT_EQ(profile.bytes, profile.text.size());
}

TEST(ParseProfile, CleansBytesWithoutAFile) {
  const Profile profile = parseProfile(std::string("Me\r\n\x01\xff done\n", 13));
  EXPECT_EQ(profile.status, LoadStatus::Ready);
  EXPECT_EQ(profile.text, "Me\n\xEF\xBF\xBD done\n");
  EXPECT_EQ(profile.bytes, profile.text.size());
  EXPECT_EQ(parseProfile(" \t\r\n").status, LoadStatus::None);
  EXPECT_EQ(parseProfile(std::string(kMaxProfileBytes + 10, 'a')).bytes, kMaxProfileBytes);
}

}  // namespace
}  // namespace antidrift::planning
