//===- ProvenanceTest.cpp - The report's provenance pieces ----------------===//
#include "TestUtil.h"

#include "Provenance.h"
#include "Sha256.h"

#include <gtest/gtest.h>

using namespace proofc;
using proofc::test::TempDir;

namespace {

Dataset tinyDataset(const std::string &aliceName = "alice") {
  TempDir dir;
  dir.write("train.tsv", aliceName + "\tlikes\tbob\nbob\tlikes\tcarol\n");
  dir.write("valid.tsv", "carol\tknows\t" + aliceName + "\n");
  dir.write("test.tsv", aliceName + "\tknows\tcarol\n");
  dir.write("rules.txt", "knows(X,Y) :- likes(X,Z), likes(Z,Y).\n");
  return loadDataset(dir.path());
}

} // namespace

TEST(Provenance, UtcTimestampIsIso8601) {
  EXPECT_EQ(utcTimestamp(std::chrono::system_clock::time_point{}),
            "1970-01-01T00:00:00Z");
  EXPECT_EQ(utcTimestamp(std::chrono::system_clock::from_time_t(1795563605)),
            "2026-11-24T23:40:05Z");
}

TEST(Provenance, DatasetFingerprintIsTheDocumentedSerialization) {
  // docs/report-schema.md, "provenance": written out by hand.
  const std::string text = "proofc-dataset-fingerprint\t1\n"
                           "entities\t3\nalice\nbob\ncarol\n"
                           "relations\t2\nknows\nlikes\n"
                           "train\t2\nalice\tlikes\tbob\nbob\tlikes\tcarol\n"
                           "valid\t1\ncarol\tknows\talice\n"
                           "test\t1\nalice\tknows\tcarol\n"
                           "rules\t1\n"
                           "rule\tknows\tv1\tv2\t:-\tlikes\tv1\tv3\tlikes\tv3\tv2\n";
  EXPECT_EQ(datasetFingerprint(tinyDataset()), "sha256:" + sha256Hex(text));
}

TEST(Provenance, DatasetFingerprintSeesARenamedEntity) {
  const std::string a = datasetFingerprint(tinyDataset());
  EXPECT_EQ(a, datasetFingerprint(tinyDataset())); // stable
  // "aaron" sorts first like "alice": the same ids, another name.
  EXPECT_NE(a, datasetFingerprint(tinyDataset("aaron")));
  EXPECT_EQ(a.rfind("sha256:", 0), 0u);
  EXPECT_EQ(a.size(), 7u + 64u);
}

TEST(Provenance, VersionCommitAndHost) {
  EXPECT_STRNE(proofcVersion(), "");
  // A 40-hex commit (maybe "-dirty"), or "unknown" outside a checkout.
  const std::string commit = proofcGitCommit();
  const bool hex40 =
      commit.size() >= 40 &&
      commit.find_first_not_of("0123456789abcdef") >= 40 &&
      (commit.size() == 40 || commit.substr(40) == "-dirty");
  EXPECT_TRUE(commit == "unknown" || hex40) << commit;
  EXPECT_FALSE(hostName().empty());
}
