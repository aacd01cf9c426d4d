//===- ProvenanceTest.cpp - The report's provenance pieces ----------------===//
#include "TestUtil.h"

#include "outputs/Provenance.h"
#include "support/Sha256.h"

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
  const std::string text =
      "proofc-dataset-fingerprint\t1\n"
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

TEST(Provenance, VocabularyFingerprintIsTheFrozenDefinition) {
  // The hex was computed when this test was written, independently of
  // proofc: hashlib.sha256(b"entities\nalice\nbob\ncarol\nrelations\n"
  //                        b"knows\nlikes\n").hexdigest().
  EXPECT_EQ(vocabularyFingerprint(tinyDataset()),
            "sha256:2e692961c38cbbde8821aecd08a1fb6396f69b24f58366b54b26a8d9bb"
            "6529ca");
  // Renaming an entity changes it, though E, R and every id stay the same.
  EXPECT_EQ(vocabularyFingerprint(tinyDataset("aaron")),
            "sha256:9aa35d56c249800fbd51279fcf755ffa5f52894f5e5da75bcc6d9b1314"
            "742fe5");
  // Names are UTF-8 bytes, in byte order ("bé" is 62 C3 A9):
  // hashlib.sha256("entities\nbé\nz\nrelations\nr\n".encode()).
  Dataset ds;
  ds.entities = Vocab({"z", "b\u00e9"});
  ds.relations = Vocab({"r"});
  EXPECT_EQ(vocabularyFingerprint(ds),
            "sha256:d8eb419d8ccc4b6e7c7fd77e743f3e3adf4c6287a583cf10597f530091"
            "a522d4");
}

TEST(Provenance, VocabularyFingerprintIgnoresFactsAndRules) {
  // Only the names matter: other facts, splits or rules over the same names
  // keep it (weights stay valid), while the dataset fingerprint changes.
  TempDir dir;
  dir.write("train.tsv", "alice\tknows\tcarol\n");
  dir.write("valid.tsv", "bob\tlikes\talice\n");
  dir.write("test.tsv", "carol\tlikes\tbob\n");
  dir.write("rules.txt", "");
  Dataset other = loadDataset(dir.path());
  EXPECT_EQ(vocabularyFingerprint(other), vocabularyFingerprint(tinyDataset()));
  EXPECT_NE(datasetFingerprint(other), datasetFingerprint(tinyDataset()));
}

TEST(Provenance, VersionCommitAndHost) {
  EXPECT_STRNE(proofcVersion(), "");
  // A 40-hex commit (maybe "-dirty"), or "unknown" outside a checkout.
  const std::string commit = proofcGitCommit();
  const bool hex40 = commit.size() >= 40 &&
                     commit.find_first_not_of("0123456789abcdef") >= 40 &&
                     (commit.size() == 40 || commit.substr(40) == "-dirty");
  EXPECT_TRUE(commit == "unknown" || hex40) << commit;
  EXPECT_FALSE(hostName().empty());
}
