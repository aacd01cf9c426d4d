//===- ProofcRunTest.cpp - The proofc-run command line --------------------===//
//
// Runs the real proofc-run binary on the reference bundle: on the CPU here,
// and with --device cuda in each cond mode where a GPU exists (the outcomes
// TSV must then equal the CPU run's in status and depth).
//
//===----------------------------------------------------------------------===//
#ifdef PROOFC_RUN_BINARY

#include "TestUtil.h"
#include "ToolRunner.h"
#include "cuda/CudaBackend.h"
#include "runtime/cuda/TestBundle.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace proofc::test {
namespace {

using Result = ToolResult;

class ProofcRun : public ::testing::Test {
protected:
  void SetUp() override {
    ProgramSpec program = v10Program();
    program.shape.B = 32;
    bundle_ = dir_.file("ref.pcb");
    writeBundle(bundle_, makeTestBundle(program));
    common_ = bundle_ + " --data " + dataDir("countries_s2") + " --weights " +
              weightsFile("countries_s2") + " --queries 6 --corruptions 20";
  }
  TempDir dir_;
  std::string bundle_, common_;
};

/// status and depth columns of an outcomes TSV.
std::vector<std::string> statusAndDepth(const std::string &tsv) {
  std::vector<std::string> rows;
  std::istringstream in(tsv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::istringstream fields(line);
    std::string f;
    while (std::getline(fields, f, '\t'))
      cols.push_back(f);
    rows.push_back(cols.size() >= 5 ? cols[3] + "\t" + cols[4] : line);
  }
  return rows;
}

TEST_F(ProofcRun, RunsABundleOnTheCpuAndWritesReportAndOutcomes) {
  const std::string report = dir_.file("r.json"), outcomes = dir_.file("o.tsv");
  Result r = runProofcRun(common_ + " --device cpu --threads 2 --report " +
                          report + " --outcomes " + outcomes);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("MRR"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on host [cpu (2 threads)]"), std::string::npos)
      << r.output;
  nlohmann::json j = nlohmann::json::parse(readFile(report));
  EXPECT_EQ(j.at("schema"), "proofc-report");
  EXPECT_GT(statusAndDepth(readFile(outcomes)).size(), 10u);
}

TEST_F(ProofcRun, FailuresAreOneLineErrors) {
  TempDir d;
  const std::string bad = d.write("bad.pcb", "{\"schema\": \"proofc-bundle\"}");
  Result r = runProofcRun(bad + " --data " + dataDir("countries_s2") +
                          " --weights " + weightsFile("countries_s2"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output.rfind("proofc-run: error: " + bad + ": version", 0), 0u)
      << r.output;
  r = runProofcRun(common_ + " --cond sideways");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--cond"), std::string::npos) << r.output;
  r = runProofcRun(bundle_ + " --data " + dataDir("countries_s2") +
                   " --weights " + weightsFile("nations"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output.rfind("proofc-run: error: ", 0), 0u) << r.output;
  if (!cudaDeviceAvailable()) {
    r = runProofcRun(common_ + " --device cuda");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("proofc-run: error: --device cuda: "),
              std::string::npos)
        << r.output;
  }
}

TEST_F(ProofcRun, CudaRunsMatchTheCpuRunInEveryCondMode) {
  if (!cudaDeviceAvailable())
    GTEST_SKIP() << "no CUDA driver";
  const std::string cpu = dir_.file("cpu.tsv");
  Result r = runProofcRun(common_ + " --device cpu --outcomes " + cpu);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char *mode : {"native", "emulated", "host"}) {
    const std::string gpu = dir_.file(std::string(mode) + ".tsv");
    r = runProofcRun(common_ + " --device cuda --cond " + mode +
                     " --outcomes " + gpu);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("cond ") + mode), std::string::npos)
        << r.output;
    std::printf("%s", r.output.c_str());
    EXPECT_EQ(statusAndDepth(readFile(gpu)), statusAndDepth(readFile(cpu)))
        << mode;
  }
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_RUN_BINARY
