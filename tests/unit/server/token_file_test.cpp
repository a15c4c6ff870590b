#include "server/token_file.h"

#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>

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

TEST_F(TokenFileTest, GeneratedTokensDiffer) {
  EXPECT_NE(TokenFile::generate(), TokenFile::generate());
}

TEST_F(TokenFileTest, AFileWhereTheDirectoryShouldBeIsAnError) {
  Poco::File(root_).createDirectories();
  std::ofstream(directory()) << "not a directory";
  EXPECT_THROW(TokenFile::loadOrCreate(directory()), std::runtime_error);
}

}  // namespace
}  // namespace antidrift
