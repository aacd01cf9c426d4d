//===- ReportTest.cpp - Atomic writes, JSON report, outcomes TSV ----------===//
#include "TestUtil.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/Report.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace proofc;
using proofc::test::TempDir;

namespace {

size_t entriesIn(const std::string &dir) {
  return static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator(dir),
                    std::filesystem::directory_iterator()));
}

} // namespace

TEST(WriteAtomically, WritesAndReplaces) {
  TempDir dir;
  std::string path = dir.file("out.txt");
  writeAtomically(path, "first");
  EXPECT_EQ(readFile(path), "first");
  writeAtomically(path, std::string("sec\0ond", 7));
  EXPECT_EQ(readFile(path), std::string("sec\0ond", 7));
  writeAtomically(path, "");
  EXPECT_EQ(readFile(path), "");
  EXPECT_EQ(entriesIn(dir.path()), 1u); // no temporary left behind
}

TEST(WriteAtomically, FailureNamesPathAndLeavesNothing) {
  TempDir dir;
  std::string path = dir.file("missing/out.txt");
  try {
    writeAtomically(path, "x");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": cannot write: No such file or directory");
  }
  // A directory is refused before any temporary is written.
  std::filesystem::create_directory(dir.file("taken"));
  std::filesystem::create_directory(dir.file("taken/child"));
  try {
    writeAtomically(dir.file("taken"), "x");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              dir.file("taken") + ": cannot write: is a directory");
  }
  EXPECT_EQ(entriesIn(dir.path()), 1u); // only "taken"
}

TEST(ReadFile, MissingFileAndDirectory) {
  TempDir dir;
  EXPECT_THROW(readFile(dir.file("nope")), Error);
  try {
    readFile(dir.path());
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + ": cannot read: is a directory");
  }
}

namespace {

ReportInputs sampleInputs() {
  ReportInputs in;
  in.program = proofc::test::v10Program();
  in.datasetDir = "/shared/data/nations";
  in.datasetName = "nations";
  in.entities = 14;
  in.relations = 55;
  in.facts = 1592;
  in.rules = 49;
  in.weights = "/shared/weights/nations.safetensors";
  in.candidates.corruptions = 100;
  in.candidates.seed = 0xFFFFFFFFFFFFFFFFull;
  in.metrics.both = {0.3335, 0.0697, 0.3358, 0.9826, 402};
  in.metrics.head.pairs = 201;
  in.metrics.candidates = 3198;
  in.metrics.proved = 434;
  in.metrics.failed = 2393;
  in.metrics.truncated = 371;
  in.metrics.meanDepth = 3.937;
  in.timings = {0.25, 1.5, 80};
  in.compileSeconds = 0.125;
  in.totalSeconds = 2.0;
  in.backend = "host";
  in.device = "cpu (2 threads)";
  return in;
}

} // namespace

TEST(Report, JsonHasSchemaVersionAndEverySection) {
  nlohmann::json j = reportJson(sampleInputs());
  EXPECT_EQ(j["schema"], "proofc-report");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["program"]["name"], "v10");
  EXPECT_EQ(j["program"]["shape"]["A"], 6);
  EXPECT_EQ(j["program"]["shape"]["S"], 120);
  EXPECT_EQ(j["program"]["policy"]["score_scale"], 0.125);
  ASSERT_EQ(j["program"]["policy"]["encoder"].size(), 9u);
  EXPECT_EQ(j["program"]["policy"]["encoder"][0]["op"], "atom_embed");
  EXPECT_EQ(j["program"]["policy"]["encoder"][0]["const_table"], "const_emb");
  EXPECT_EQ(j["program"]["policy"]["encoder"][0]["in"], 192);
  EXPECT_EQ(j["program"]["policy"]["encoder"][4]["op"], "layer_norm");
  EXPECT_EQ(j["program"]["policy"]["encoder"][4]["width"], 64);
  EXPECT_EQ(j["dataset"]["name"], "nations");
  EXPECT_EQ(j["dataset"]["entities"], 14);
  EXPECT_EQ(j["dataset"]["facts"], 1592);
  EXPECT_EQ(j["dataset"]["facts_include_valid"], false);
  EXPECT_EQ(j["weights"]["file"], "/shared/weights/nations.safetensors");
  EXPECT_EQ(j["candidates"]["split"], "test");
  EXPECT_EQ(j["candidates"]["corruptions"], 100);
  EXPECT_EQ(j["candidates"]["seed"].get<uint64_t>(), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(j["candidates"]["max_queries"], -1);
  EXPECT_EQ(j["metrics"]["both"]["mrr"], 0.3335);
  EXPECT_EQ(j["metrics"]["both"]["hits10"], 0.9826);
  EXPECT_EQ(j["metrics"]["both"]["pairs"], 402);
  EXPECT_EQ(j["metrics"]["head"]["pairs"], 201);
  EXPECT_EQ(j["metrics"]["truncated"], 371);
  EXPECT_EQ(j["metrics"]["mean_depth"], 3.937);
  EXPECT_EQ(j["timings"]["compile_seconds"], 0.125);
  EXPECT_EQ(j["timings"]["run_seconds"], 1.5);
  EXPECT_EQ(j["timings"]["steps"], 80);
  EXPECT_EQ(j["backend"], "host");
  EXPECT_EQ(j["device"], "cpu (2 threads)");

  ReportInputs random = sampleInputs();
  random.weights.clear();
  random.weightsSeed = 5;
  j = reportJson(random);
  EXPECT_TRUE(j["weights"]["file"].is_null());
  EXPECT_EQ(j["weights"]["init_seed"], 5);
}

TEST(Report, WrittenJsonParsesBack) {
  TempDir dir;
  std::string path = dir.file("report.json");
  writeReportJson(path, sampleInputs());
  std::string text = readFile(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(nlohmann::json::parse(text), reportJson(sampleInputs()));
}

TEST(Report, OutcomesTsv) {
  TempDir dir;
  dir.write("train.tsv", "alpha\tr\tbeta\n");
  dir.write("valid.tsv", "");
  dir.write("test.tsv", "beta\tr\tgamma\n");
  dir.write("rules.txt", "");
  Dataset ds = loadDataset(dir.path());
  CandidateSet set = buildCandidates(ds, CandidateOptions{});
  // Entities alpha 0, beta 1, gamma 2; query (beta, r, gamma). Head list:
  // beta (+), alpha, gamma; tail list: gamma (+), alpha, beta.
  ASSERT_EQ(set.candidates.size(), 6u);
  std::vector<Outcome> outcomes = {
      {ProofStatus::Proved, 3, -0.1f},   {ProofStatus::Failed, 2, 0.f},
      {ProofStatus::Truncated, 20, -1.f / 3}, {ProofStatus::Proved, 1, 0.f},
      {ProofStatus::Failed, 1, -2.5f},   {ProofStatus::Proved, 4, -1e-8f}};
  std::string path = dir.file("outcomes.tsv");
  writeOutcomesTsv(path, set, ds, outcomes);
  EXPECT_EQ(readFile(path), "query\tmode\tentity\tstatus\tdepth\tlogp\n"
                            "0\thead\tbeta\tproved\t3\t-0.100000001\n"
                            "0\thead\talpha\tfailed\t2\t0\n"
                            "0\thead\tgamma\ttruncated\t20\t-0.333333343\n"
                            "0\ttail\tgamma\tproved\t1\t0\n"
                            "0\ttail\talpha\tfailed\t1\t-2.5\n"
                            "0\ttail\tbeta\tproved\t4\t-9.99999994e-09\n");

  outcomes.pop_back();
  try {
    writeOutcomesTsv(path, set, ds, outcomes);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), path + ": 5 outcomes for 6 candidates");
  }
}

TEST(Report, BackendDetailsOnlyWhenGiven) {
  ReportInputs in = sampleInputs();
  EXPECT_FALSE(reportJson(in).contains("backend_details"));
  in.backendDetails = {{"kernel_cache", {{"hits", 3}, {"misses", 0}}}};
  nlohmann::json j = reportJson(in);
  ASSERT_TRUE(j.contains("backend_details"));
  EXPECT_EQ(j["backend_details"]["kernel_cache"]["hits"], 3);
}
