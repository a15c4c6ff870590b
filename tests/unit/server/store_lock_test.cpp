#include "server/store_lock.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/File.h>
#include <Poco/TemporaryFile.h>

namespace antidrift {
namespace {

class StoreLockTest : public ::testing::Test {
 protected:
  StoreLockTest() : root_(Poco::TemporaryFile::tempName()), store_(root_ + "/data/antidrift") {}
  ~StoreLockTest() override {
    try {
      Poco::File(root_).remove(true);
    } catch (...) {
      // Best effort cleanup.
    }
  }

  std::string contentOf(const std::string& path) const {
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

  std::string root_;
  std::string store_;
};

TEST_F(StoreLockTest, CreatesThePrivateDirectoryAndWritesThePid) {
  StoreLockAttempt attempt = StoreLock::tryAcquire(store_);
  ASSERT_TRUE(attempt.lock);
  EXPECT_EQ(attempt.lock->path(), store_ + "/lock");
  EXPECT_EQ(contentOf(store_ + "/lock"), std::to_string(::getpid()) + "\n");
  struct stat info {};
  ASSERT_EQ(::stat(store_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((store_ + "/lock").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(StoreLockTest, AnExistingLooseStoreOfOursIsTightenedTo0700) {
  // Issue 17 item 1: the unit's ExecStartPre (and older versions) made it 0755.
  Poco::File(store_).createDirectories();
  ASSERT_EQ(::chmod(store_.c_str(), 0755), 0);
  StoreLockAttempt attempt = StoreLock::tryAcquire(store_);
  ASSERT_TRUE(attempt.lock);
  struct stat info {};
  ASSERT_EQ(::stat(store_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
}

TEST_F(StoreLockTest, AStoreOfAnotherUserIsRefusedAndLeftAsItIs) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the store directory to another uid";
  }
  Poco::File(store_).createDirectories();
  ASSERT_EQ(::chmod(store_.c_str(), 0755), 0);
  ASSERT_EQ(::chown(store_.c_str(), 65534, 65534), 0);
  try {
    StoreLock::tryAcquire(store_);
    FAIL() << "a store of uid 65534 was taken";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("belongs to uid 65534"));
  }
  struct stat info {};
  ASSERT_EQ(::stat(store_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0755u);
  EXPECT_FALSE(Poco::File(store_ + "/lock").exists());
}

TEST_F(StoreLockTest, ASecondHolderIsRefusedWithTheFirstPidUntilItIsReleased) {
  StoreLockAttempt first = StoreLock::tryAcquire(store_);
  ASSERT_TRUE(first.lock);
  // flock(2) locks belong to the open file description, so a second open in
  // the same process conflicts exactly as a second daemon would.
  StoreLockAttempt second = StoreLock::tryAcquire(store_);
  EXPECT_FALSE(second.lock);
  EXPECT_EQ(second.holderPid, static_cast<long>(::getpid()));

  first.lock.reset();
  StoreLockAttempt third = StoreLock::tryAcquire(store_);
  EXPECT_TRUE(third.lock);
  EXPECT_TRUE(Poco::File(store_ + "/lock").exists()) << "the lock file is never deleted";
}

TEST_F(StoreLockTest, AStalePidFromACrashedHolderDoesNotBlock) {
  Poco::File(store_).createDirectories();
  std::ofstream(store_ + "/lock") << "999999\n";
  StoreLockAttempt attempt = StoreLock::tryAcquire(store_);
  ASSERT_TRUE(attempt.lock);
  EXPECT_EQ(contentOf(store_ + "/lock"), std::to_string(::getpid()) + "\n");
}

TEST_F(StoreLockTest, ASymlinkedLockFileIsRefusedAndItsTargetUntouched) {
  // Issue 19 item 6 (review L1): `lock -> ~/.bashrc` must not be truncated.
  Poco::File(store_).createDirectories();
  ASSERT_EQ(::chmod(store_.c_str(), 0700), 0);
  const std::string victim = root_ + "/bashrc";
  std::ofstream(victim) << "alias ll='ls -l'\n";
  ASSERT_EQ(::symlink(victim.c_str(), (store_ + "/lock").c_str()), 0);
  try {
    StoreLock::tryAcquire(store_);
    FAIL() << "the lock followed a symbolic link";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("symbolic link"));
  }
  EXPECT_EQ(contentOf(victim), "alias ll='ls -l'\n");
}

TEST_F(StoreLockTest, ALockFileOfAnotherUserIsRefused) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the lock file to another uid (CI runs as root)";
  }
  Poco::File(store_).createDirectories();
  ASSERT_EQ(::chmod(store_.c_str(), 0700), 0);
  std::ofstream(store_ + "/lock") << "";
  ASSERT_EQ(::chown((store_ + "/lock").c_str(), 65534, 65534), 0);
  EXPECT_THROW(StoreLock::tryAcquire(store_), std::runtime_error);
}

TEST_F(StoreLockTest, AStoreThatIsAFileIsAnErrorNamingIt) {
  Poco::File(root_).createDirectories();
  std::ofstream(root_ + "/file") << "x";
  try {
    StoreLock::tryAcquire(root_ + "/file");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr(root_ + "/file"));
  }
}

}  // namespace
}  // namespace antidrift
