//===- SameFileTest.cpp - Outputs that reach an input or each other -------===//
//
// SameFile.h: two outputs reaching one file, or an output reaching an
// input, are refused before anything is written, whatever the spelling: a
// symbolic link, a hard link, `..`, /proc/self/fd/N, /dev/stdout and `-`
// (standard output itself). /dev/null is shared freely.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "support/SameFile.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

namespace proofc::test {
namespace {

TEST(SameFile, AFileIsTheSameThroughAnyPath) {
  const TempDir dir;
  const std::string a = dir.write("a", "x");
  const std::string b = dir.write("b", "x");
  const std::string sym = dir.file("sym");
  ASSERT_EQ(::symlink(a.c_str(), sym.c_str()), 0);
  const std::string hard = dir.file("hard");
  ASSERT_EQ(::link(a.c_str(), hard.c_str()), 0);
  const int fd = ::open(a.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string procFd = "/proc/self/fd/" + std::to_string(fd);
  for (const std::string &alias :
       {sym, hard, dir.path() + "/./sub/../a", procFd}) {
    if (alias.find("/sub/") != std::string::npos)
      std::filesystem::create_directory(dir.file("sub"));
    EXPECT_TRUE(sameFile(a, alias, true, false)) << alias;
    EXPECT_TRUE(sameFile(alias, a, true, true)) << alias;
  }
  EXPECT_FALSE(sameFile(a, b, true, false));
  ::close(fd);
  // Outputs not there yet: the same name in the same real directory.
  EXPECT_TRUE(
      sameFile(dir.file("new"), dir.path() + "/sub/../new", true, true));
  EXPECT_FALSE(sameFile(dir.file("new"), dir.file("other"), true, true));
  // A missing input is nothing (its reader names it).
  EXPECT_FALSE(sameFile(dir.file("new"), dir.file("new"), true, false));
  // /dev/null is a sink every output may share.
  EXPECT_FALSE(sameFile("/dev/null", "/dev/null", true, true));
}

TEST(SameFile, StandardOutputIsTheSameAsDevStdoutAndItsDescriptor) {
  const TempDir dir;
  // Standard output a pipe, then a file, as a shell would make it.
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  for (int round = 0; round < 2; ++round) {
    const int target =
        round == 0 ? pipeFds[1]
                   : ::open(dir.file("out").c_str(),
                            O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(target, 0);
    ASSERT_EQ(::dup2(target, STDOUT_FILENO), STDOUT_FILENO);
    const std::string refused = errorOf([] {
      checkOutputsApart({{"-", "proofs", "--proofs"},
                         {"/dev/stdout", "outcomes", "--outcomes"}},
                        {});
    });
    const std::string refusedFd = errorOf([] {
      checkOutputsApart({{"/proc/self/fd/1", "report", "--report"},
                         {"-", "proofs", "--proofs"}},
                        {});
    });
    ::dup2(saved, STDOUT_FILENO);
    if (round == 1)
      ::close(target);
    EXPECT_EQ(refused, "-: the proofs and the outcomes would overwrite each "
                       "other (--proofs and --outcomes name the same file)");
    EXPECT_EQ(refusedFd,
              "/proc/self/fd/1: the report and the proofs would overwrite "
              "each other (--report and --proofs name the same file)");
  }
  ::close(saved);
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
}

TEST(SameFile, AnOutputThatReachesAnInputIsRefused) {
  const TempDir dir;
  const std::string part = dir.write("p0.part", "x");
  const std::string link = dir.file("out.json");
  ASSERT_EQ(::symlink(part.c_str(), link.c_str()), 0);
  EXPECT_EQ(errorOf([&] {
              checkOutputsApart({{dir.file("r.json"), "report", "--report"},
                                 {link, "outcomes", "--outcomes"}},
                                {{part, "part", ""}});
            }),
            link + ": the outcomes (--outcomes) would replace the part " +
                part + ", which this command reads; write it elsewhere");
  EXPECT_EQ(errorOf([&] {
              checkOutputsApart({{dir.file("r.json"), "report", "--report"},
                                 {dir.file("o.tsv"), "outcomes", "--outcomes"}},
                                {{part, "part", ""}});
            }),
            "(no error)");
  // Two outputs spelled differently, one file not there yet.
  EXPECT_EQ(errorOf([&] {
              checkOutputsApart(
                  {{dir.file("r.json"), "report", "--report"},
                   {dir.path() + "//r.json", "proofs", "--proofs"}},
                  {});
            }),
            dir.file("r.json") + ": the report and the proofs would "
                                 "overwrite each other (--report and "
                                 "--proofs name the same file)");
}

} // namespace
} // namespace proofc::test
