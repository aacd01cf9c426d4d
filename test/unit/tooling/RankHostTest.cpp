//===- RankHostTest.cpp - What an MPI rank takes of its host
//---------------===//
//
// RankHost.h: `--device cuda` under a launcher puts rank r of a host on
// GPU (local rank mod visible GPUs); an explicit cuda:N, another device, a
// launcher's own binding (CUDA_VISIBLE_DEVICES), no local rank or no GPU
// leave the device as given. A rank bound to fewer CPUs than its host work
// needs is told so.
//
//===----------------------------------------------------------------------===//
#include "tooling/RankHost.h"

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

TEST(RankHost, EachLocalRankItsOwnGpu) {
  EXPECT_EQ(rankDevice("cuda", 0, 4, false), "cuda:0");
  EXPECT_EQ(rankDevice("cuda", 3, 4, false), "cuda:3");
  EXPECT_EQ(rankDevice("cuda", 5, 4, false), "cuda:1"); // more ranks than GPUs
  EXPECT_EQ(rankDevice("cuda", 1, 1, false), "cuda:0");
}

TEST(RankHost, OtherwiseTheDeviceAsGiven) {
  EXPECT_EQ(rankDevice("cuda:2", 1, 4, false), "cuda:2"); // the user's choice
  EXPECT_EQ(rankDevice("cpu", 1, 4, false), "cpu");
  EXPECT_EQ(rankDevice("auto", 1, 4, false), "auto");
  EXPECT_EQ(rankDevice("cuda", 1, 4, true), "cuda");   // the launcher bound it
  EXPECT_EQ(rankDevice("cuda", -1, 4, false), "cuda"); // no local rank
  EXPECT_EQ(rankDevice("cuda", 1, 0, false), "cuda");  // no GPU seen
}

TEST(RankHost, LocalRankFromTheLaunchersVariables) {
  EXPECT_EQ(localRankOf({}), -1);
  EXPECT_EQ(localRankOf({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}), 3);
  EXPECT_EQ(localRankOf({{"MPI_LOCALRANKID", "2"}}), 2);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", "7"}}), 7);
  // Open MPI's first; a malformed value is skipped.
  EXPECT_EQ(localRankOf(
                {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"SLURM_LOCALID", "5"}}),
            1);
  EXPECT_EQ(localRankOf(
                {{"OMPI_COMM_WORLD_LOCAL_RANK", "x1"}, {"SLURM_LOCALID", "5"}}),
            5);
  EXPECT_EQ(localRankOf({{"MPI_LOCALRANKID", "-1"}}), -1);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", ""}}), -1);
  EXPECT_EQ(localRankOf({{"SLURM_LOCALID", "99999999999999999999999"}}), -1);
  std::map<std::string, std::string> sizes{{"MPI_LOCALNRANKS", "4"}};
  environment = &sizes;
  EXPECT_EQ(localSizeFromEnvironment(fakeGetenv), 4);
  environment = nullptr;
}

TEST(RankHost, ANarrowBindingIsNamed) {
  EXPECT_EQ(rankBindingNotice(0, 2, 1, 16, 2),
            "rank 0 of 2 may run on 1 of the host's 16 CPUs (the launcher's "
            "binding: Open MPI binds each rank to one core when it starts two "
            "or fewer); a rank's host work -- building candidates, feeding "
            "the device, ranking, the outcome rows -- then shares it while "
            "the device waits: start mpirun with --bind-to none or --map-by "
            "slot:PE=<CPUs per rank> (srun: --cpus-per-task)");
  EXPECT_NE(rankBindingNotice(1, 4, 3, 64, 4), "");
  EXPECT_NE(rankBindingNotice(1, 4, 1, 16, -1), ""); // local ranks unknown
  EXPECT_EQ(rankBindingNotice(0, 2, 4, 16, 2), "");  // enough
  EXPECT_EQ(rankBindingNotice(0, 2, 1, 2, 2), "");   // its share of the host
  EXPECT_EQ(rankBindingNotice(0, 8, 2, 16, 8), "");  // its share
  EXPECT_EQ(rankBindingNotice(0, 1, 0, 16, 1), "");  // affinity unknown
}

} // namespace
