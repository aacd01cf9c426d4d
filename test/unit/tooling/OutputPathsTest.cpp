//===- OutputPathsTest.cpp - Output destinations checked before a run -----===//
//
// A report or outcomes path that cannot be written is an error when the
// session starts -- before the dataset is even loaded -- not after a run
// that may take hours; the check leaves nothing behind.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "proofc/runtime/Error.h"
#include "support/FileIO.h"
#include "tooling/RunSession.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

using namespace proofc;
using proofc::test::TempDir;

namespace {

namespace fs = std::filesystem;

using test::errorOf;

size_t entriesIn(const std::string &dir) {
  return static_cast<size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(CheckWritable, WritableDestinationLeavesNothingBehind) {
  TempDir dir;
  checkWritable(dir.file("r.json"));
  EXPECT_EQ(entriesIn(dir.path()), 0u);
  dir.write("old.json", "old");
  checkWritable(dir.file("old.json")); // an existing file is replaced later
  EXPECT_EQ(entriesIn(dir.path()), 1u);
}

TEST(CheckWritable, MissingDirectoryAndDirectoryAreErrors) {
  TempDir dir;
  EXPECT_EQ(errorOf([&] { checkWritable(dir.file("no/such/r.json")); }),
            dir.file("no/such/r.json") +
                ": cannot write: No such file or directory");
  fs::create_directory(dir.file("taken"));
  EXPECT_EQ(errorOf([&] { checkWritable(dir.file("taken")); }),
            dir.file("taken") + ": cannot write: is a directory");
  EXPECT_EQ(entriesIn(dir.path()), 1u); // only "taken"
}

RunSessionOptions nationsOptions() {
  RunSessionOptions o;
  o.data = proofc::test::dataDir("nations");
  o.weights = proofc::test::weightsFile("nations");
  o.queries = 1;
  o.quiet = true;
  return o;
}

TEST(OutputPaths, UnwritableReportFailsBeforeAnythingIsLoaded) {
  TempDir dir;
  RunSessionOptions o = nationsOptions();
  o.data = dir.file("no-dataset-here"); // would fail if it were loaded
  o.report = dir.file("missing/r.json");
  o.outcomes = dir.file("o.tsv");
  HostBackend backend;
  EXPECT_EQ(errorOf([&] {
              RunSession session(proofc::test::v10Program(), backend, "", o);
            }),
            o.report + ": cannot write: No such file or directory");
  o.report.clear();
  o.outcomes = dir.path(); // a directory
  EXPECT_EQ(errorOf([&] {
              RunSession session(proofc::test::v10Program(), backend, "", o);
            }),
            dir.path() + ": cannot write: is a directory");
  EXPECT_EQ(entriesIn(dir.path()), 0u);
}

TEST(OutputPaths, ReportAndOutcomesMustBeTwoFiles) {
  TempDir dir;
  RunSessionOptions o = nationsOptions();
  o.report = dir.file("same");
  o.outcomes = dir.file("same");
  const std::string expected =
      o.report + ": the report and the outcomes would overwrite each other "
                 "(--report and --outcomes name the same file)";
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }), expected);
  o.outcomes = dir.path() + "/./same"; // the same file, spelt differently
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }), expected);
  o.outcomes = dir.file("other");
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }), "(no error)");
  EXPECT_EQ(entriesIn(dir.path()), 0u);
}

TEST(OutputPaths, ProofsAreAThirdFile) {
  TempDir dir;
  RunSessionOptions o = nationsOptions();
  o.report = dir.file("r.json");
  o.outcomes = dir.file("o.tsv");
  o.proofs = dir.file("o.tsv");
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }),
            o.outcomes + ": the outcomes and the proofs would overwrite each "
                         "other (--outcomes and --proofs name the same file)");
  o.proofs = dir.path() + "/./r.json";
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }),
            o.report + ": the report and the proofs would overwrite each "
                       "other (--report and --proofs name the same file)");
  o.proofs = dir.path(); // checked like the others
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }),
            dir.path() + ": cannot write: is a directory");
  o.proofs = dir.file("p.jsonl");
  o.proofsFormat = "xml"; // the runtime checks what the flags did not
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }),
            "--proofs-format xml: expected json or prolog");
  o.proofsFormat = "prolog";
  EXPECT_EQ(errorOf([&] { checkOutputPaths(o); }), "(no error)");
  EXPECT_EQ(entriesIn(dir.path()), 0u);
}

TEST(OutputPaths, CheckedOutputsAreNotWrittenBeforeTheRun) {
  TempDir dir;
  RunSessionOptions o = nationsOptions();
  o.report = dir.file("r.json");
  o.outcomes = dir.file("o.tsv");
  HostBackend backend;
  RunSession session(proofc::test::v10Program(), backend, "", o);
  EXPECT_EQ(entriesIn(dir.path()), 0u); // checked, not yet written
}

} // namespace
