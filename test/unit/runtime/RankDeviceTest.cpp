//===- RankDeviceTest.cpp - The GPU of an MPI rank --------------------------===//
//
// RankDevice.h: `--device cuda` under a launcher puts rank r of a host on
// GPU (local rank mod visible GPUs); an explicit cuda:N, another device, a
// launcher's own binding (CUDA_VISIBLE_DEVICES), no local rank or no GPU
// leave the device as given.
//
//===----------------------------------------------------------------------===//
#include "RankDevice.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace proofc;

namespace {

std::map<std::string, std::string> *environment = nullptr;

const char *fakeGetenv(const char *name) {
  auto it = environment->find(name);
  return it == environment->end() ? nullptr : it->second.c_str();
}

int64_t localRankOf(std::map<std::string, std::string> env) {
  environment = &env;
  const int64_t rank = localRankFromEnvironment(fakeGetenv);
  environment = nullptr;
  return rank;
}

TEST(RankDevice, EachLocalRankItsOwnGpu) {
  EXPECT_EQ(rankDevice("cuda", 0, 4, false), "cuda:0");
  EXPECT_EQ(rankDevice("cuda", 3, 4, false), "cuda:3");
  EXPECT_EQ(rankDevice("cuda", 5, 4, false), "cuda:1"); // more ranks than GPUs
  EXPECT_EQ(rankDevice("cuda", 1, 1, false), "cuda:0");
}

TEST(RankDevice, OtherwiseTheDeviceAsGiven) {
  EXPECT_EQ(rankDevice("cuda:2", 1, 4, false), "cuda:2"); // the user's choice
  EXPECT_EQ(rankDevice("cpu", 1, 4, false), "cpu");
  EXPECT_EQ(rankDevice("auto", 1, 4, false), "auto");
  EXPECT_EQ(rankDevice("cuda", 1, 4, true), "cuda"); // the launcher bound it
  EXPECT_EQ(rankDevice("cuda", -1, 4, false), "cuda"); // no local rank
  EXPECT_EQ(rankDevice("cuda", 1, 0, false), "cuda");  // no GPU seen
}

TEST(RankDevice, LocalRankFromTheLaunchersVariables) {
  EXPECT_EQ(localRankOf({}), -1);
  EXPECT_EQ(localRankOf({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}), 3);
  EXPECT_EQ(localRankOf({{"MPI_LOCALRANKID", "2"}}), 2);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", "7"}}), 7);
  // Open MPI's first; a malformed value is skipped.
  EXPECT_EQ(localRankOf({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                         {"SLURM_LOCALID", "5"}}),
            1);
  EXPECT_EQ(localRankOf({{"OMPI_COMM_WORLD_LOCAL_RANK", "x1"},
                         {"SLURM_LOCALID", "5"}}),
            5);
  EXPECT_EQ(localRankOf({{"MPI_LOCALRANKID", "-1"}}), -1);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", ""}}), -1);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", "99999999999999999999999"}}), -1);
}

} // namespace
