//===- ReportTest.cpp - Atomic writes, JSON report, outcomes TSV ----------===//
#include "TestUtil.h"

#include "outputs/Report.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

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
    EXPECT_EQ(std::string(e.what()),
              dir.path() + ": cannot read: is a directory");
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
  // By name: BackendTimings grows (readbackSeconds came before steps).
  in.timings.setupSeconds = 0.25;
  in.timings.runSeconds = 1.5;
  in.timings.steps = 80;
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
  // Head list: nothing proved, every score -inf, all three tie: ranks 1, 3
  // and 2. Tail list: gamma (+) and beta proved with the same logp (a
  // corruption tied with the positive), alpha failed: ranks 1, 2 and 1.5.
  std::vector<Outcome> outcomes = {
      {ProofStatus::Failed, 3, -0.1f},        {ProofStatus::Failed, 2, 0.f},
      {ProofStatus::Truncated, 20, -1.f / 3}, {ProofStatus::Proved, 1, -2.5f},
      {ProofStatus::Failed, 1, 0.f},          {ProofStatus::Proved, 4, -2.5f}};
  std::string path = dir.file("outcomes.tsv");
  writeOutcomesTsv(path, set, ds, outcomes);
  // Version 3: the version line, version 1's columns in their order, then
  // the query triple and the positive's optimistic, pessimistic and
  // realistic rank, repeated on every line of its (query, mode) list, then
  // the candidate's finite score (logp when proved, else the lowest float32)
  // and the list's size.
  const std::string low = "\t-3.40282347e+38\t3\n";
  EXPECT_EQ(readFile(path),
            "#proofc-outcomes 3\n"
            "query\tmode\tentity\tstatus\tdepth\tlogp\thead\trelation\ttail"
            "\toptimistic_rank\tpessimistic_rank\trealistic_rank\tscore"
            "\tlist_size\n"
            "0\thead\tbeta\tfailed\t3\t-0.100000001\tbeta\tr\tgamma\t1\t3\t2" +
                low + "0\thead\talpha\tfailed\t2\t0\tbeta\tr\tgamma\t1\t3\t2" +
                low +
                "0\thead\tgamma\ttruncated\t20\t-0.333333343\tbeta\tr\tgamma\t1"
                "\t3\t2" +
                low +
                "0\ttail\tgamma\tproved\t1\t-2.5\tbeta\tr\tgamma\t1\t2\t1.5"
                "\t-2.5\t3\n"
                "0\ttail\talpha\tfailed\t1\t0\tbeta\tr\tgamma\t1\t2\t1.5" +
                low +
                "0\ttail\tbeta\tproved\t4\t-2.5\tbeta\tr\tgamma\t1\t2\t1.5"
                "\t-2.5\t3\n");
  // The score parses below every finite float32 as a double, and to the
  // lowest float32, not -inf, as a float32.
  EXPECT_LT(std::stod("-3.40282347e+38"),
            static_cast<double>(std::numeric_limits<float>::lowest()));
  EXPECT_EQ(std::stof("-3.40282347e+38"), std::numeric_limits<float>::lowest());
  EXPECT_LE(readFile(path).size(), outcomesTsvBound(set, ds));

  outcomes.pop_back();
  try {
    writeOutcomesTsv(path, set, ds, outcomes);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), path + ": 5 outcomes for 6 candidates");
  }
}

TEST(Report, OutcomesTsvRanksPerList) {
  // Two queries, every list of four; ranks are per (query, mode) list. A
  // positive below one proved corruption and tied with another ranks 2, 3,
  // 2.5 (optimistic, pessimistic, realistic); a list where nothing is proved
  // ranks 1, 4, 2.5.
  TempDir dir;
  dir.write("train.tsv", "a\tq\tb\n");
  dir.write("valid.tsv", "");
  dir.write("test.tsv", "a\tr\tc\nc\ts\td\n");
  dir.write("rules.txt", "");
  Dataset ds = loadDataset(dir.path());
  CandidateOptions co;
  co.corruptions = 3;
  CandidateSet set = buildCandidates(ds, co);
  ASSERT_EQ(set.groups.size(), 4u);
  std::vector<Outcome> outcomes(set.candidates.size(),
                                {ProofStatus::Failed, 1, 0.f});
  auto at = [&](size_t group, size_t k) -> Outcome & {
    return outcomes[set.groups[group].begin + k];
  };
  // Query 0, head: positive -1, corruptions -0.5 (above), -1 (tie), fail.
  for (const CandidateGroup &g : set.groups)
    ASSERT_EQ(g.end - g.begin, 4);
  at(0, 0) = {ProofStatus::Proved, 2, -1.f};
  at(0, 1) = {ProofStatus::Proved, 2, -0.5f};
  at(0, 2) = {ProofStatus::Proved, 2, -1.f};
  // Query 1, tail: nothing proved: optimistic 1, pessimistic n.
  std::string tsv = outcomesTsv("o.tsv", set, ds, outcomes);
  std::vector<std::string> lines;
  for (size_t p = 0; p < tsv.size();) {
    size_t e = tsv.find('\n', p);
    lines.push_back(tsv.substr(p, e - p));
    p = e + 1;
  }
  ASSERT_EQ(lines.size(), 2 + set.candidates.size());
  EXPECT_EQ(lines[0], "#proofc-outcomes 3");
  // The last five fields: the three ranks, the score and the list size.
  auto lastFields = [&](int64_t candidate) {
    const std::string &l = lines[2 + candidate];
    size_t tab = l.size();
    for (int i = 0; i < 5; ++i)
      tab = l.rfind('\t', tab - 1);
    return l.substr(tab + 1);
  };
  EXPECT_EQ(lastFields(set.groups[0].begin), "2\t3\t2.5\t-1\t4");
  EXPECT_EQ(lastFields(set.groups[0].begin + 1), "2\t3\t2.5\t-0.5\t4");
  EXPECT_EQ(lastFields(set.groups[0].begin + 3),
            "2\t3\t2.5\t-3.40282347e+38\t4");
  const CandidateGroup &g3 = set.groups[3];
  for (int64_t i = g3.begin; i < g3.end; ++i)
    EXPECT_EQ(lastFields(i), "1\t4\t2.5\t-3.40282347e+38\t4") << i;
  EXPECT_EQ(lines[2 + g3.begin].substr(0, 2), "1\t");
  EXPECT_NE(lines[2 + g3.begin].find("\tc\ts\td\t"), std::string::npos);
  EXPECT_LE(tsv.size(), outcomesTsvBound(set, ds));
}

TEST(Report, BackendDetailsOnlyWhenGiven) {
  ReportInputs in = sampleInputs();
  EXPECT_FALSE(reportJson(in).contains("backend_details"));
  in.backendDetails = {{"kernel_cache", {{"hits", 3}, {"misses", 0}}}};
  nlohmann::json j = reportJson(in);
  ASSERT_TRUE(j.contains("backend_details"));
  EXPECT_EQ(j["backend_details"]["kernel_cache"]["hits"], 3);
}
