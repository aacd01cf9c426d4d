//===- ReadLimitTest.cpp - readFile's input size limit --------------------===//
//
// An input larger than the limit is one error naming the file, found from
// the size before reading (and again while reading a file that grows). A
// device, such as /dev/zero, and a FIFO are refused outright (InputFile.h;
// OutputFilesTest, ReadFile.*; InputFileTest).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Safetensors.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <functional>

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

TEST(ReadLimit, EndlessDeviceIsRefusedBeforeReading) {
  // /dev/zero says size 0 and never ends: a device is not read at all
  // (InputFile.h), not even up to the limit.
  EXPECT_EQ(errorOf([] { readFile("/dev/zero", 1 << 20); }),
            "/dev/zero: cannot read: not a regular file (a character "
            "device)");
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
