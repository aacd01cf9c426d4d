//===- ProofPathsTest.cpp - One proofs file, whichever way it was made ----===//
//
// docs/proofs.md: a run of one process replays every proof at the end from
// the whole pool's actions (proofsFile); a run by ranges (--checkpoint,
// --shard, MPI ranks) replays them block by block as the blocks finish
// (ProofLineWriter) and keeps them in proofs parts (ProofParts.h). Both must
// write the same file byte for byte: here on the host backend (nations,
// trained weights), the whole run against a checkpointed run in small
// ranges and blocks, and against three shards merged by mergeParts, in
// both formats; then the proofs part's own checks.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "host/HostBackend.h"
#include "outputs/ProofFormats.h"
#include "support/FileIO.h"
#include "tooling/Merge.h"
#include "tooling/ProofParts.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>

namespace proofc::test {
namespace {

RunSessionOptions nationsRun(const std::string &proofs, const char *format) {
  RunSessionOptions o = sessionOptions("nations", 30);
  o.corruptions = 20;
  o.proofs = proofs;
  o.proofsFormat = format;
  return o;
}

/// Runs `o` on the host backend and writes its outputs (as the tools do).
void runAndWrite(const RunSessionOptions &o) {
  HostBackend backend;
  RunSession session(v10Program(), backend, "cpu", o);
  std::FILE *sink = std::tmpfile();
  session.writeOutputs(session.evaluate(), sink);
  std::fclose(sink);
}

class ProofPaths : public ::testing::TestWithParam<const char *> {};

TEST_P(ProofPaths, RangesAndShardsWriteTheWholeRunsFile) {
  TempDir dir;
  runAndWrite(nationsRun(dir.file("whole"), GetParam()));
  const std::string whole = readFile(dir.file("whole"));
  EXPECT_GT(std::count(whole.begin(), whole.end(), '\n'), 20);

  // Ranges of about 150 candidates in blocks of 64: every proof is made
  // from a block's actions, with the block's offset in the pool.
  RunSessionOptions ranged = nationsRun(dir.file("ranged"), GetParam());
  ranged.checkpoint = dir.file("ck");
  ranged.checkpointEvery = 150;
  ranged.blockCandidates = 64;
  runAndWrite(ranged);
  EXPECT_TRUE(readFile(dir.file("ranged")) == whole)
      << "a checkpointed run's proofs differ from the whole run's";
  // Resumed from every recorded range: the proofs are read back.
  ranged.proofs = dir.file("resumed");
  runAndWrite(ranged);
  EXPECT_TRUE(readFile(dir.file("resumed")) == whole)
      << "the proofs read back from the checkpoint differ";

  // Three shards, merged.
  MergeOptions merge;
  for (int i = 0; i < 3; ++i) {
    RunSessionOptions shard =
        nationsRun(dir.file("s" + std::to_string(i) + ".proofs"), GetParam());
    shard.shardIndex = i;
    shard.shardCount = 3;
    shard.part = dir.file("s" + std::to_string(i) + ".part");
    runAndWrite(shard);
    merge.parts.push_back(shard.proofs); // any order, mixed
    merge.parts.push_back(shard.part);
  }
  merge.proofs = dir.file("merged");
  std::FILE *sink = std::tmpfile();
  mergeParts(merge, sink);
  std::fclose(sink);
  EXPECT_TRUE(readFile(dir.file("merged")) == whole)
      << "the merged shards' proofs differ from the whole run's";
}

INSTANTIATE_TEST_SUITE_P(Formats, ProofPaths,
                         ::testing::Values("json", "prolog"));

TEST(ProofsPart, RoundTripAndDamage) {
  ProofsPart part;
  part.identity.programSha256 = "sha256:p";
  part.identity.weightsSha256 = "sha256:w";
  part.identity.datasetFingerprint = "sha256:d";
  part.identity.split = "test";
  part.identity.shardIndex = 1;
  part.identity.shardCount = 2;
  part.range = {3, 5, 40, 70};
  part.format = "prolog";
  part.of = "positives";
  part.lines = "proof(40).\nproof(41).\n";
  const std::string bytes = serializeProofsPart(part);
  EXPECT_TRUE(looksLikeProofsPart(bytes));
  const ProofsPart back = parseProofsPart(bytes, "p");
  EXPECT_EQ(back.lines, part.lines);
  EXPECT_TRUE(back.range == part.range);
  EXPECT_EQ(back.format, "prolog");
  EXPECT_EQ(back.of, "positives");
  EXPECT_EQ(RunIdentity::difference(back.identity, "a", part.identity, "b"),
            "");

  // The checksum (of everything after the first line) refuses any damage
  // first; with it made right again, the checks behind it still do.
  EXPECT_EQ(bytes.rfind("proofc-proofs 3 xxh3:", 0), 0u);
  EXPECT_EQ(withProofsPartChecksum(bytes), bytes);
  EXPECT_EQ(errorOf([&] { parseProofsPart(bytes + "proof(42).\n", "p"); }),
            "p: the proofs part's checksum does not match its contents (the "
            "file is cut off or damaged)");
  EXPECT_EQ(errorOf([&] {
              parseProofsPart(withProofsPartChecksum(bytes + "proof(42).\n"),
                              "p");
            }),
            "p: 3 proof lines, the header says 2: the file is cut off or has "
            "extra bytes");
  std::string flipped = bytes;
  flipped[flipped.size() - 3] = '2';
  EXPECT_EQ(errorOf([&] { parseProofsPart(flipped, "p"); }),
            "p: the proofs part's checksum does not match its contents (the "
            "file is cut off or damaged)");
  EXPECT_EQ(
      errorOf([&] { parseProofsPart(withProofsPartChecksum(flipped), "p"); }),
      "p: the proofs' SHA-256 does not match the header (the file is "
      "damaged)");
  std::string count = bytes;
  count.replace(count.find("\"count\":2"), 9, "\"count\":3");
  EXPECT_NE(errorOf([&] { parseProofsPart(count, "p"); }).find("checksum"),
            std::string::npos);
  EXPECT_EQ(errorOf([&] { parseProofsPart("proofc-part 1\n", "p"); }),
            "p: not a proofc proofs part (it does not start with "
            "\"proofc-proofs \")");
  EXPECT_EQ(errorOf([&] { parseProofsPart("proofc-proofs 9\n{}\n", "p"); }),
            "p: a proofs part of version 9 (this proofc reads version 3; the "
            "proofs parts of an older proofc have no checksum or another "
            "header: run the shards or the checkpoint again)");
  for (int old : {1, 2})
    EXPECT_EQ(errorOf([&] {
                parseProofsPart(fmt::format("proofc-proofs {}\n{{}}\n", old),
                                "p");
              }),
              fmt::format("p: a proofs part of version {} (this proofc reads "
                          "version 3; the proofs parts of an older proofc "
                          "have no checksum or another header: run the "
                          "shards or the checkpoint again)",
                          old));

  // Checked against the run that reads it: inputs, range, format.
  const std::string remedy = "do this";
  EXPECT_EQ(errorOf([&] {
              checkProofsPart(back, "p", part.identity, part.range, "prolog",
                              "positives", false, remedy);
            }),
            "(no error)");
  EXPECT_EQ(errorOf([&] {
              checkProofsPart(back, "p", part.identity, {3, 6, 40, 90},
                              "prolog", "positives", false, remedy);
            }),
            "p: the proofs of queries [3, 5), not of [3, 6); do this");
  EXPECT_EQ(errorOf([&] {
              checkProofsPart(back, "p", part.identity, part.range, "json",
                              "positives", false, remedy);
            }),
            "p: proofs written with --proofs-format prolog --proofs-of "
            "positives, this run asks for json and positives; do this");
  RunIdentity other = part.identity;
  other.seed = 7;
  EXPECT_EQ(errorOf([&] {
              checkProofsPart(back, "p", other, part.range, "prolog",
                              "positives", false, remedy);
            }),
            "p: proofs made from other inputs: seed is 0 in p, 7 in this "
            "run; do this");
}

} // namespace
} // namespace proofc::test
