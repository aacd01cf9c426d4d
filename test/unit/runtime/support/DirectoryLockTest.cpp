//===- DirectoryLockTest.cpp - One process at a time in a directory -------===//
//
// DirectoryLock.h: a second holder of a directory is refused at once,
// naming the directory and the first one's pid, in this process (another
// open file description) or another; the lock ends with its holder, kill -9
// included. ensureDirectory names a dangling link's target instead of
// failing with `File exists`.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "support/DirectoryLock.h"

#include <gtest/gtest.h>

#include <csignal>

#include <sys/wait.h>
#include <unistd.h>

namespace proofc::test {
namespace {

TEST(DirectoryLock, ASecondHolderIsRefusedNamingThePid) {
  const TempDir dir;
  {
    const DirectoryLock first(dir.path(), "checkpoint directory");
    EXPECT_EQ(errorOf([&] {
                DirectoryLock second(dir.path(), "checkpoint directory");
              }),
              dir.path() + ": the checkpoint directory is in use by process " +
                  std::to_string(::getpid()) + " (it holds " + dir.path() +
                  "/lock); wait for it to end, or give another directory");
  }
  // Released with its holder: taken again.
  EXPECT_EQ(
      errorOf([&] { DirectoryLock again(dir.path(), "checkpoint directory"); }),
      "(no error)");
}

TEST(DirectoryLock, AnotherProcessIsRefusedAndAKilledHolderReleases) {
  const TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      DirectoryLock lock(dir.path(), "checkpoint directory");
      char c = 1;
      if (::write(ready[1], &c, 1) != 1)
        ::_exit(2);
      ::pause(); // until killed
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(errorOf([&] {
              DirectoryLock second(dir.path(), "checkpoint directory");
            }),
            dir.path() + ": the checkpoint directory is in use by process " +
                std::to_string(child) + " (it holds " + dir.path() +
                "/lock); wait for it to end, or give another directory");
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(
      errorOf([&] { DirectoryLock after(dir.path(), "checkpoint directory"); }),
      "(no error)");
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(DirectoryLock, EnsureDirectoryNamesADanglingLinksTarget) {
  const TempDir dir;
  const std::string link = dir.file("ckpt");
  const std::string target = dir.file("gone/nowhere");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(errorOf([&] { ensureDirectory(link, "checkpoint"); }),
            link + ": the checkpoint is a symbolic link to " + target +
                ", which does not exist; make that directory, or give "
                "another path");
  const std::string file = dir.write("f", "x");
  EXPECT_EQ(errorOf([&] { ensureDirectory(file, "checkpoint"); }),
            file + ": the checkpoint is not a directory");
  EXPECT_EQ(errorOf([&] { ensureDirectory(dir.file("new"), "checkpoint"); }),
            "(no error)");
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("new")));
  EXPECT_NE(errorOf([&] {
              ensureDirectory(dir.file("no/parent"), "checkpoint");
            }).find(": cannot create the checkpoint directory: "),
            std::string::npos);
}

} // namespace
} // namespace proofc::test
