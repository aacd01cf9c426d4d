//===- RunFlagsTest.cpp - proofc-run's run flags are proofc's -------------===//
//
// proofc run and proofc-run share one definition of the run flags
// (tools/common/RunFlags.h). The lit suite checks proofc's messages
// (test/proofc/cli-errors.test); this runs the real proofc-run binary on the
// same bad numbers and output paths and expects the same one-line errors,
// with its own tool name.
//
//===----------------------------------------------------------------------===//
#ifdef PROOFC_RUN_BINARY

#include "TestUtil.h"
#include "ToolRunner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace proofc::test {
namespace {

using Result = ToolResult;

/// The one error line proofc-run prints for `flags` after a valid start.
std::string errorFor(const std::string &flags) {
  Result r = runProofcRun("b.pcb --data d --weights w " + flags);
  EXPECT_EQ(r.status, 1) << r.output;
  return r.output;
}

TEST(RunFlags, ProofcRunRejectsTheSameNumbers) {
  EXPECT_EQ(errorFor("--queries 99999999999999999999"),
            "proofc-run: error: --queries: 99999999999999999999 is out of "
            "range [-9223372036854775808, 9223372036854775807]\n");
  EXPECT_EQ(errorFor("--seed -1"),
            "proofc-run: error: --seed: -1 is out of range [0, "
            "18446744073709551615]\n");
  EXPECT_EQ(errorFor("--corruptions many"),
            "proofc-run: error: --corruptions: 'many' is not an integer\n");
  EXPECT_EQ(errorFor("--threads -1"),
            "proofc-run: error: --threads: -1 is out of range [0, "
            "2147483647]\n");
  EXPECT_EQ(errorFor("--max-pool 0x10"),
            "proofc-run: error: --max-pool: '0x10' is not an integer\n");
  EXPECT_EQ(errorFor("--unroll 0"),
            "proofc-run: error: --unroll: 0 is out of range [1, 1024]\n");
  EXPECT_EQ(errorFor("--memo-entries -2"),
            "proofc-run: error: --memo-entries: -2 is out of range [-1, "
            "268435456]\n");
  // Checked before the bundle is read (b.pcb does not exist).
  EXPECT_EQ(errorFor("--memo-entries 1000"),
            "proofc-run: error: --memo-entries: 1000 is not -1, 0 or a power "
            "of two\n");
  EXPECT_EQ(errorFor("--split dev"),
            "proofc-run: error: --split: dev not in {train,valid,test}\n");
}

TEST(RunFlags, BlockIsAPositiveCandidateCount) {
  EXPECT_EQ(errorFor("--block 0"),
            "proofc-run: error: --block: 0 is out of range [1, "
            "1099511627776]\n");
  EXPECT_EQ(errorFor("--block 1k"),
            "proofc-run: error: --block: '1k' is not an integer\n");
}

TEST(RunFlags, ProofcRunChecksOutputsBeforeReadingAnything) {
  // The bundle, dataset and weights do not exist: the outputs are checked
  // first.
  TempDir dir;
  EXPECT_EQ(errorFor("--report " + dir.file("no/such/r.json")),
            "proofc-run: error: " + dir.file("no/such/r.json") +
                ": cannot write: No such file or directory\n");
  EXPECT_EQ(
      errorFor("--report " + dir.file("x") + " --outcomes " + dir.file("x")),
      "proofc-run: error: " + dir.file("x") +
          ": the report and the outcomes would overwrite each other "
          "(--report and --outcomes name the same file)\n");
}

TEST(RunFlags, ProofcRunHelpListsTheSharedFlags) {
  Result r = runProofcRun("--help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char *flag :
       {"--data DIR", "--weights W.safetensors", "--split", "--corruptions INT",
        "--seed INT=0", "--queries INT=-1", "--device", "--threads INT=0",
        "--facts", "--max-pool INT=0", "--quiet", "--report FILE.json",
        "--outcomes FILE.tsv", "--cond", "--unroll INT=8",
        "--memo-entries INT=-1"})
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag << "\n"
                                                      << r.output;
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_RUN_BINARY
