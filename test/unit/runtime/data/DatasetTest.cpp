//===- DatasetTest.cpp - Vocab, TSV loading and the real datasets ---------===//
#include "TestUtil.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

using namespace proofc;
using proofc::test::TempDir;

namespace {

/// The message of the proofc::Error thrown by loadDataset(dir), or "".
std::string loadError(const std::string &dir) {
  try {
    loadDataset(dir);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

const char *const kGoodValid = "a\tr\tb\n";
const char *const kGoodTest = "b\tr\tc\n";

} // namespace

TEST(Vocab, SortsByBytesAndDeduplicates) {
  Vocab v({"b", "a", "B", "\xc3\xa9", "a", "_x", "b"});
  ASSERT_EQ(v.size(), 5);
  EXPECT_EQ(v.name(0), "B");
  EXPECT_EQ(v.name(1), "_x");
  EXPECT_EQ(v.name(2), "a");
  EXPECT_EQ(v.name(3), "b");
  EXPECT_EQ(v.name(4), "\xc3\xa9"); // bytes >= 0x80 sort after ASCII
  EXPECT_EQ(v.find("a"), 2);
  EXPECT_EQ(v.find("\xc3\xa9"), 4);
  EXPECT_EQ(v.find("c"), -1);
  EXPECT_EQ(v.find(""), -1);
  EXPECT_EQ(Vocab().size(), 0);
  EXPECT_EQ(Vocab().find("a"), -1);
}

TEST(Dataset, LoadsTinyDatasetWithIdsFromAllSplits) {
  TempDir dir;
  // CR LF endings and empty lines (also CR LF ones) are accepted.
  writeDataset(dir, "b\tr\tc\r\n\na\tr\tb\r\n\r\nb\tr\tc\n", "c\ts\ta\n",
               "zed\tr\ta", "% comment\nr(X,Y) :- s(Y,Z), r(Z,X).\n");
  Dataset ds = loadDataset(dir.path());
  EXPECT_EQ(ds.dir, dir.path());
  ASSERT_EQ(ds.numEntities(), 4);  // a b c zed (zed only in test)
  ASSERT_EQ(ds.numRelations(), 2); // r s (s only in valid)
  EXPECT_EQ(ds.entities.find("zed"), 3);
  EXPECT_EQ(ds.relations.find("s"), 1);
  EXPECT_EQ(ds.truePred(), 2);
  EXPECT_EQ(ds.falsePred(), 3);
  ASSERT_EQ(ds.train.size(), 3u); // duplicates kept, file order
  EXPECT_EQ(ds.train[0], (Triple{1, 0, 2}));
  EXPECT_EQ(ds.train[1], (Triple{0, 0, 1}));
  EXPECT_EQ(ds.train[2], (Triple{1, 0, 2}));
  ASSERT_EQ(ds.valid.size(), 1u);
  EXPECT_EQ(ds.valid[0], (Triple{2, 1, 0}));
  ASSERT_EQ(ds.test.size(), 1u); // last line without a newline
  EXPECT_EQ(ds.test[0], (Triple{3, 0, 0}));
  ASSERT_EQ(ds.rules.size(), 1u);
  EXPECT_EQ(ds.rules[0].line, 2);
  EXPECT_EQ(&ds.split("train"), &ds.train);
  EXPECT_EQ(&ds.split("valid"), &ds.valid);
  EXPECT_EQ(&ds.split("test"), &ds.test);
}

TEST(Dataset, NamesMayHoldSpacesAndUtf8) {
  TempDir dir;
  writeDataset(dir, "New York\tr\t\xe6\x9d\xb1\xe4\xba\xac\n", kGoodValid,
               kGoodTest);
  Dataset ds = loadDataset(dir.path());
  EXPECT_GE(ds.entities.find("New York"), 0);
  EXPECT_GE(ds.entities.find("\xe6\x9d\xb1\xe4\xba\xac"), 0);
}

// Spreadsheet exports start a file with a UTF-8 byte-order mark. A leading
// one is dropped (docs/spec-notes.md), so the first name is not a phantom
// "\ufeffa" beside "a"; elsewhere a BOM is part of a name (arbitrary UTF-8).
TEST(Dataset, LeadingByteOrderMarkIsDropped) {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir dir;
  writeDataset(dir, bom + "a\tr\tb\n", bom + "a\tr\tb\n",
               bom + "b\tr\t" + bom + "c\n", bom + "r(X,Y) :- r(Y,X).\n");
  Dataset ds = loadDataset(dir.path());
  ASSERT_EQ(ds.numEntities(), 3); // a, b and the BOM-led tail "\ufeffc"
  EXPECT_EQ(ds.entities.find(bom + "a"), -1);
  EXPECT_GE(ds.entities.find("a"), 0);
  EXPECT_GE(ds.entities.find(bom + "c"), 0); // not at the start of the file
  EXPECT_EQ(ds.numRelations(), 1);
  EXPECT_EQ(ds.train[0],
            (Triple{ds.entities.find("a"), 0, ds.entities.find("b")}));
  ASSERT_EQ(ds.rules.size(), 1u);
  // Errors on line 1 count columns and lines as if the BOM were not there.
  writeDataset(dir, bom + "a\tr\n", kGoodValid, kGoodTest);
  EXPECT_EQ(loadError(dir.path()),
            dir.path() + "/train.tsv:1: expected 3 TAB-separated fields "
                         "(head, relation, tail), found 2");
  writeDataset(dir, "a\tr\tb\n", kGoodValid, kGoodTest, bom + "r(X,Y) :- .\n");
  EXPECT_EQ(loadError(dir.path()),
            dir.path() +
                "/rules.txt:1:11: expected a predicate name, found '.'");
}

TEST(Dataset, UnknownSplitIsAnError) {
  Dataset ds;
  try {
    ds.split("dev");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "unknown split 'dev' (expected train, valid or test)");
  }
}

struct BadTsvCase {
  const char *name;
  const char *train;
  const char *message; // expected suffix after "<dir>/train.tsv:"
};

class BadTsv : public ::testing::TestWithParam<BadTsvCase> {};

TEST_P(BadTsv, ErrorNamesFileAndLine) {
  TempDir dir;
  writeDataset(dir, GetParam().train, kGoodValid, kGoodTest);
  EXPECT_EQ(loadError(dir.path()),
            dir.file("train.tsv") + ":" + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Dataset, BadTsv,
    ::testing::Values(
        BadTsvCase{"TwoFields", "a\tr\tb\n\na\tr\n",
                   "3: expected 3 TAB-separated fields (head, relation, "
                   "tail), found 2"},
        BadTsvCase{"FourFields", "a\tr\tb\tc\n",
                   "1: expected 3 TAB-separated fields (head, relation, "
                   "tail), found 4"},
        BadTsvCase{"OneField", "a\tr\tb\r\nabc\r\n",
                   "2: expected 3 TAB-separated fields (head, relation, "
                   "tail), found 1"},
        BadTsvCase{"BlankLine", "a\tr\tb\n \n",
                   "2: expected 3 TAB-separated fields (head, relation, "
                   "tail), found 1"},
        BadTsvCase{"EmptyHead", "\tr\tb\n", "1: empty head field"},
        BadTsvCase{"EmptyRelation", "a\tr\tb\na\t\tb\n",
                   "2: empty relation field"},
        BadTsvCase{"EmptyTail", "a\tr\t\r\n", "1: empty tail field"},
        BadTsvCase{"InvalidByte", "a\tr\tb\xff\n",
                   "1: invalid UTF-8 in the tail field"},
        BadTsvCase{"Overlong", "a\xc0\xaf\tr\tb\n",
                   "1: invalid UTF-8 in the head field"},
        BadTsvCase{"Surrogate", "a\tr\xed\xa0\x80\tb\n",
                   "1: invalid UTF-8 in the relation field"},
        BadTsvCase{"Truncated", "a\tr\tb\xe6\x9d\n",
                   "1: invalid UTF-8 in the tail field"},
        BadTsvCase{"AboveMax", "a\tr\tb\xf4\x90\x80\x80\n",
                   "1: invalid UTF-8 in the tail field"},
        BadTsvCase{"LoneCarriageReturn", "a\tr\tb\n\nx\ty\rz\tw\n",
                   "3: carriage return not followed by a line feed (column "
                   "4)"},
        BadTsvCase{"CarriageReturnAtEof", "a\tr\tb\r",
                   "1: carriage return not followed by a line feed (column "
                   "6)"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Dataset, ErrorsInValidAndTestNameTheirFile) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n", "a\tr\tb\n\n\nbad\n", kGoodTest);
  EXPECT_EQ(loadError(dir.path()),
            dir.file("valid.tsv") +
                ":4: expected 3 TAB-separated fields (head, relation, tail), "
                "found 1");
  writeDataset(dir, "a\tr\tb\n", kGoodValid, "a\tr\tb\n\t\t\n");
  EXPECT_EQ(loadError(dir.path()),
            dir.file("test.tsv") + ":2: empty head field");
}

TEST(Dataset, MissingFilesAreErrors) {
  TempDir dir;
  dir.write("train.tsv", "a\tr\tb\n");
  dir.write("test.tsv", kGoodTest);
  dir.write("rules.txt", "");
  std::string message = loadError(dir.path());
  EXPECT_NE(message.find(dir.file("valid.tsv") + ": cannot read"),
            std::string::npos)
      << message;

  dir.write("valid.tsv", kGoodValid);
  std::filesystem::remove(dir.file("rules.txt"));
  message = loadError(dir.path());
  EXPECT_NE(message.find(dir.file("rules.txt") + ": cannot read"),
            std::string::npos)
      << message;

  message = loadError(dir.file("nonexistent"));
  EXPECT_NE(message.find("nonexistent/train.tsv: cannot read"),
            std::string::npos)
      << message;
}

TEST(Dataset, RuleErrorsNameRulesFileAndLine) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n", kGoodValid, kGoodTest,
               "r(X,Y) :- r(Y,X).\n\nr(X,Y) :- nope(X,Y).\n");
  EXPECT_EQ(loadError(dir.path()),
            dir.file("rules.txt") +
                ":3:11: unknown relation 'nope' (not in train, valid or test)");
}

TEST(Dataset, RulesMayUseRelationsAndEntitiesOfEverySplit) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n", "c\tv\td\n", "e\tt\tf\n",
               "r(X,Y) :- v(X,f), t(d,Y).\n");
  Dataset ds = loadDataset(dir.path());
  ASSERT_EQ(ds.rules.size(), 1u);
  EXPECT_EQ(ds.rules[0].body[0].b, ds.entities.find("f"));
  EXPECT_EQ(ds.rules[0].body[1].a, ds.entities.find("d"));
}

struct RealDataset {
  const char *name;
  int32_t entities, relations;
  size_t train, valid, test, rules;
  size_t maxBody;
};

class RealDatasets : public ::testing::TestWithParam<RealDataset> {};

TEST_P(RealDatasets, LoadWithPublishedCounts) {
  const RealDataset &expected = GetParam();
  auto start = std::chrono::steady_clock::now();
  Dataset ds = loadDataset(proofc::test::dataDir(expected.name));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  RecordProperty("load_seconds", std::to_string(seconds));
  EXPECT_EQ(ds.numEntities(), expected.entities);
  EXPECT_EQ(ds.numRelations(), expected.relations);
  EXPECT_EQ(ds.train.size(), expected.train);
  EXPECT_EQ(ds.valid.size(), expected.valid);
  EXPECT_EQ(ds.test.size(), expected.test);
  EXPECT_EQ(ds.rules.size(), expected.rules);
  size_t maxBody = 0;
  for (const Rule &rule : ds.rules) {
    maxBody = std::max(maxBody, rule.body.size());
    // No constants in the shared rules: X, Y are the head's -1, -2.
    EXPECT_EQ(rule.head.a, -1);
    EXPECT_EQ(rule.head.b, -2);
  }
  EXPECT_EQ(maxBody, expected.maxBody);
  // Ids are byte order.
  for (int32_t i = 1; i < ds.numEntities(); ++i)
    ASSERT_LT(ds.entities.name(i - 1), ds.entities.name(i));
  // Generous bound (shared 2-core machines, debug builds); the Release build
  // loads fb15k-237 in a fraction of a second.
  EXPECT_LT(seconds, 10.0) << expected.name;
}

INSTANTIATE_TEST_SUITE_P(
    Shared, RealDatasets,
    ::testing::Values(
        RealDataset{"countries_s1", 271, 2, 1110, 24, 24, 1, 2},
        RealDataset{"countries_s2", 271, 2, 1062, 24, 24, 2, 2},
        RealDataset{"countries_s3", 271, 2, 978, 24, 24, 3, 3},
        RealDataset{"kinship", 104, 25, 3206, 2137, 5343, 1600, 3},
        RealDataset{"umls", 135, 46, 1959, 1306, 3264, 2624, 4},
        RealDataset{"nations", 14, 55, 1592, 199, 201, 49, 2},
        RealDataset{"family", 3007, 12, 23483, 2038, 2835, 768, 3},
        RealDataset{"wn18rr", 40943, 11, 86835, 3034, 3134, 704, 4},
        RealDataset{"fb15k-237", 14541, 237, 272115, 17535, 20466, 14597, 3}),
    [](const auto &info) {
      std::string name = info.param.name;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });
