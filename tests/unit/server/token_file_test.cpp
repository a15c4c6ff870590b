#include "server/token_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include <Poco/File.h>
#include <Poco/TemporaryFile.h>

namespace antidrift {
namespace {

class TokenFileTest : public ::testing::Test {
 protected:
  TokenFileTest() : root_(Poco::TemporaryFile::tempName()) {
    Poco::TemporaryFile::registerForDeletion(root_);
  }

  std::string directory() const { return root_ + "/store"; }
  std::string path() const { return directory() + "/token"; }

  mode_t modeOf(const std::string& file) const {
    struct stat info {};
    EXPECT_EQ(::stat(file.c_str(), &info), 0) << file;
    return info.st_mode & 07777;
  }

  std::string contentOf(const std::string& file) const {
    std::ifstream in(file);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

  std::string root_;
};

TEST_F(TokenFileTest, CreatesA64HexTokenWithMode0600InA0700Directory) {
  const TokenFileResult result = TokenFile::loadOrCreate(directory());
  EXPECT_TRUE(result.created);
  EXPECT_FALSE(result.replacedInvalid);
  EXPECT_TRUE(std::regex_match(result.token, std::regex("[0-9a-f]{64}"))) << result.token;
  EXPECT_EQ(modeOf(path()), 0600u);
  EXPECT_EQ(modeOf(directory()), 0700u);
  EXPECT_EQ(contentOf(path()), result.token + "\n");
}

TEST_F(TokenFileTest, ReusesTheExistingToken) {
  const std::string first = TokenFile::loadOrCreate(directory()).token;
  const TokenFileResult second = TokenFile::loadOrCreate(directory());
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.token, first);
}

TEST_F(TokenFileTest, ReplacesAnInvalidToken) {
  Poco::File(directory()).createDirectories();
  std::ofstream(path()) << "short\n";
  const TokenFileResult result = TokenFile::loadOrCreate(directory());
  EXPECT_TRUE(result.created);
  EXPECT_TRUE(result.replacedInvalid);
  EXPECT_EQ(result.token.size(), 64u);
  EXPECT_EQ(contentOf(path()), result.token + "\n");
  EXPECT_EQ(modeOf(path()), 0600u);
}

TEST_F(TokenFileTest, TightensPermissionsOfAReadableToken) {
  Poco::File(directory()).createDirectories();
  const std::string token(40, 'a');
  std::ofstream(path()) << token << "\n";
  ASSERT_EQ(::chmod(path().c_str(), 0644), 0);
  const TokenFileResult result = TokenFile::loadOrCreate(directory());
  EXPECT_EQ(result.token, token);
  EXPECT_FALSE(result.created);
  EXPECT_TRUE(result.permissionsTightened);
  EXPECT_EQ(modeOf(path()), 0600u);
}

TEST_F(TokenFileTest, PageTagsKeepTheLastFewServedAndReturnTheEarlierOnes) {
  ASSERT_NO_THROW(TokenFile::loadOrCreate(directory()));
  const std::string tags = directory() + "/" + TokenFile::kPageTagsFileName;
  EXPECT_TRUE(TokenFile::recordPageTag(directory(), "0000000a").empty());
  EXPECT_EQ(modeOf(tags), 0600u);
  // A restart with the same token records nothing new.
  EXPECT_TRUE(TokenFile::recordPageTag(directory(), "0000000a").empty());
  EXPECT_EQ(TokenFile::recordPageTag(directory(), "0000000b"),
            (std::vector<std::string>{"0000000a"}));
  EXPECT_EQ(TokenFile::recordPageTag(directory(), "0000000c"),
            (std::vector<std::string>{"0000000a", "0000000b"}));
  EXPECT_EQ(TokenFile::recordPageTag(directory(), "0000000d"),
            (std::vector<std::string>{"0000000a", "0000000b", "0000000c"}));
  // At most kMaxPageTags in all: the oldest goes.
  EXPECT_EQ(TokenFile::recordPageTag(directory(), "0000000e"),
            (std::vector<std::string>{"0000000b", "0000000c", "0000000d"}));
  EXPECT_EQ(contentOf(tags), "0000000b\n0000000c\n0000000d\n0000000e\n");
  // What is not a tag is dropped, never returned.
  {
    std::ofstream out(tags);
    out << "not a tag\n<script>\n0000000e\n";
  }
  EXPECT_EQ(TokenFile::recordPageTag(directory(), "0000000f"),
            (std::vector<std::string>{"0000000e"}));
}

TEST_F(TokenFileTest, PageTagsAreNeverReadThroughASymbolicLink) {
  ASSERT_NO_THROW(TokenFile::loadOrCreate(directory()));
  const std::string elsewhere = root_ + "/elsewhere";
  {
    std::ofstream out(elsewhere);
    out << "0000000a\n";
  }
  const std::string tags = directory() + "/" + TokenFile::kPageTagsFileName;
  ASSERT_EQ(::symlink(elsewhere.c_str(), tags.c_str()), 0);
  EXPECT_TRUE(TokenFile::recordPageTag(directory(), "0000000b").empty());
  EXPECT_EQ(contentOf(elsewhere), "0000000a\n");  // the link is replaced, its target untouched
  EXPECT_EQ(contentOf(tags), "0000000b\n");
}

TEST_F(TokenFileTest, GeneratedTokensDiffer) {
  EXPECT_NE(TokenFile::generate(), TokenFile::generate());
}

TEST_F(TokenFileTest, AFileWhereTheDirectoryShouldBeIsAnError) {
  Poco::File(root_).createDirectories();
  std::ofstream(directory()) << "not a directory";
  EXPECT_THROW(TokenFile::loadOrCreate(directory()), std::runtime_error);
}

TEST_F(TokenFileTest, GenerationFailsClosedWithoutEntropy) {
  // Issue 19 item 7 (review L10): no kernel randomness, no token; never a fallback.
  const TokenFile::EntropySource failing = [](unsigned char*, std::size_t) -> long {
    errno = ENOSYS;
    return -1;
  };
  EXPECT_THROW(TokenFile::generate(failing), std::runtime_error);
  const TokenFile::EntropySource empty = [](unsigned char*, std::size_t) -> long { return 0; };
  EXPECT_THROW(TokenFile::generate(empty), std::runtime_error);
}

TEST_F(TokenFileTest, ShortEntropyReadsAreCompleted) {
  int calls = 0;
  const TokenFile::EntropySource dribble = [&calls](unsigned char* buffer, std::size_t) -> long {
    buffer[0] = static_cast<unsigned char>(++calls);
    return 1;
  };
  const std::string token = TokenFile::generate(dribble);
  EXPECT_EQ(calls, 32);
  EXPECT_EQ(token.substr(0, 4), "0102");
  EXPECT_EQ(token.size(), 64u);
}

TEST_F(TokenFileTest, ASymlinkedTokenFileIsRefusedAndItsTargetUntouched) {
  // Issue 19 item 6 (review L1): never read or chmod through a symbolic link.
  Poco::File(directory()).createDirectories();
  const std::string victim = root_ + "/secret";
  std::ofstream(victim) << "0123456789abcdef0123456789abcdef\n";
  ASSERT_EQ(::chmod(victim.c_str(), 0644), 0);
  ASSERT_EQ(::symlink(victim.c_str(), path().c_str()), 0);
  EXPECT_THROW(TokenFile::loadOrCreate(directory()), std::runtime_error);
  EXPECT_EQ(modeOf(victim), 0644u);
}

TEST_F(TokenFileTest, RotateReplacesTheTokenAtomicallyWithMode0600) {
  // Issue 19 item 7 (review L10): `antidrift token --rotate`.
  const std::string old = TokenFile::loadOrCreate(directory()).token;
  ASSERT_EQ(::chmod(path().c_str(), 0600), 0);
  const std::string fresh = TokenFile::rotate(directory());
  EXPECT_NE(fresh, old);
  EXPECT_TRUE(std::regex_match(fresh, std::regex("[0-9a-f]{64}"))) << fresh;
  EXPECT_EQ(contentOf(path()), fresh + "\n");
  EXPECT_EQ(modeOf(path()), 0600u);
  EXPECT_EQ(TokenFile::loadOrCreate(directory()).token, fresh);
  // No temporary file is left beside it.
  std::vector<std::string> names;
  Poco::File(directory()).list(names);
  EXPECT_EQ(names, std::vector<std::string>{"token"});
}

TEST_F(TokenFileTest, RotateWithoutEntropyFailsAndKeepsTheOldToken) {
  const std::string old = TokenFile::loadOrCreate(directory()).token;
  const TokenFile::EntropySource failing = [](unsigned char*, std::size_t) -> long {
    errno = ENOSYS;
    return -1;
  };
  EXPECT_THROW(TokenFile::rotate(directory(), failing), std::runtime_error);
  EXPECT_EQ(contentOf(path()), old + "\n");
  std::vector<std::string> names;
  Poco::File(directory()).list(names);
  EXPECT_EQ(names, std::vector<std::string>{"token"});
}

TEST_F(TokenFileTest, RotateReplacesASymlinkWithoutWritingThroughIt) {
  Poco::File(directory()).createDirectories();
  const std::string victim = root_ + "/victim";
  std::ofstream(victim) << "untouched\n";
  ASSERT_EQ(::symlink(victim.c_str(), path().c_str()), 0);
  const std::string fresh = TokenFile::rotate(directory());
  EXPECT_EQ(contentOf(victim), "untouched\n");
  struct stat info {};
  ASSERT_EQ(::lstat(path().c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(contentOf(path()), fresh + "\n");
}

TEST_F(TokenFileTest, RotateWithoutAStoreIsAnError) {
  EXPECT_THROW(TokenFile::rotate(directory()), std::runtime_error);
  EXPECT_FALSE(Poco::File(directory()).exists());
}

}  // namespace
}  // namespace antidrift
