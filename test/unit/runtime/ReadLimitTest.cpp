//===- ReadLimitTest.cpp - readFile's input size limit --------------------===//
//
// An input larger than the limit is one error naming the file, found from
// the size before reading where there is one (a regular file) and while
// reading where there is none (a device, a FIFO), so /dev/zero or an
// endless pipe cannot exhaust memory.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/FileIO.h"
#include "proofc/runtime/Safetensors.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <thread>

using namespace proofc;
using proofc::test::TempDir;

namespace {

using test::errorOf;

/// A sparse file of `size` bytes: no disk space, no time.
std::string sparseFile(const TempDir &dir, const std::string &name,
                       off_t size) {
  std::string path = dir.write(name, "");
  EXPECT_EQ(::truncate(path.c_str(), size), 0) << path;
  return path;
}

TEST(ReadLimit, TheLimitIsGenerousAndDocumented) {
  EXPECT_EQ(kMaxInputFileBytes, uint64_t{2} << 30); // docs/errors.md
}

TEST(ReadLimit, RegularFileAtTheLimitIsReadAndPastItRejectedUpFront) {
  TempDir dir;
  std::string path = dir.write("f", "12345678");
  EXPECT_EQ(readFile(path, 8), "12345678");
  EXPECT_EQ(errorOf([&] { readFile(path, 7); }),
            path + ": cannot read: larger than 7 bytes (the input file size "
                   "limit)");
}

TEST(ReadLimit, SparseFilePastTheDefaultLimitIsRejectedWithoutReading) {
  TempDir dir;
  std::string path = sparseFile(dir, "w.safetensors",
                                static_cast<off_t>(kMaxInputFileBytes) + 1);
  EXPECT_EQ(errorOf([&] { readSafetensors(path); }),
            path + ": cannot read: larger than 2147483648 bytes (the input "
                   "file size limit)");
}

TEST(ReadLimit, EndlessDeviceIsCutAtTheLimit) {
  // /dev/zero says size 0 and never ends.
  EXPECT_EQ(errorOf([] { readFile("/dev/zero", 1 << 20); }),
            "/dev/zero: cannot read: larger than 1048576 bytes (the input "
            "file size limit)");
}

TEST(ReadLimit, FifoIsCutAtTheLimitAndShortOneReadWhole) {
  TempDir dir;
  std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto writer = [&](size_t bytes) {
    return std::thread([&fifo, bytes] {
      int fd = ::open(fifo.c_str(), O_WRONLY);
      std::string chunk(4096, 'x');
      for (size_t left = bytes; fd >= 0 && left > 0;) {
        ssize_t n = ::write(fd, chunk.data(), std::min(left, chunk.size()));
        if (n <= 0)
          break; // the reader gave up (EPIPE)
        left -= static_cast<size_t>(n);
      }
      if (fd >= 0)
        ::close(fd);
    });
  };
  // The writer of the cut read sees EPIPE instead of dying of SIGPIPE.
  auto previous = std::signal(SIGPIPE, SIG_IGN);
  std::thread small = writer(1000);
  EXPECT_EQ(readFile(fifo, 4096).size(), 1000u);
  small.join();
  std::thread big = writer(1 << 20);
  EXPECT_EQ(errorOf([&] { readFile(fifo, 4096); }),
            fifo + ": cannot read: larger than 4096 bytes (the input file "
                   "size limit)");
  big.join();
  std::signal(SIGPIPE, previous);
}

TEST(ReadLimit, DatasetSplitPastTheLimitNamesTheSplit) {
  TempDir dir;
  dir.write("train.tsv", "a\tr\tb\n");
  dir.write("valid.tsv", "a\tr\tb\n");
  dir.write("rules.txt", "");
  std::string test =
      sparseFile(dir, "test.tsv", static_cast<off_t>(kMaxInputFileBytes) + 1);
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            test + ": cannot read: larger than 2147483648 bytes (the input "
                   "file size limit)");
}

} // namespace
