//===- RunInfoJsonTest.cpp - A CUDA run's backend_details -----------------===//
//
// cudaRunInfoJson, the report's backend_details (docs/report-schema.md):
// the modules' time, all at once and each module's own compile, which says
// which module a cold program waits for. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace {

TEST(RunInfoJson, ReportsEachModulesCompileSeconds) {
  CudaRunInfo info;
  info.moduleSeconds = 0.75;
  info.moduleCompileSeconds = {{"policy", 0.5}, {"step", 0.25}};
  const nlohmann::json j = cudaRunInfoJson(info);
  EXPECT_EQ(j.at("modules_seconds").get<double>(), 0.75);
  const nlohmann::json &modules = j.at("module_compile_seconds");
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules.at("policy").get<double>(), 0.5);
  EXPECT_EQ(modules.at("step").get<double>(), 0.25);
  // A run that loaded nothing (every module from an earlier setup).
  EXPECT_TRUE(
      cudaRunInfoJson(CudaRunInfo{}).at("module_compile_seconds").empty());
}

} // namespace
} // namespace proofc::test
