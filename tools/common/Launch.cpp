//===- Launch.cpp - How a run tool was started: alone or as MPI ranks -----===//
#include "Launch.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>

namespace proofc::cli {
namespace {

std::optional<std::string> env(const char *name) {
  const char *value = std::getenv(name);
  if (!value)
    return std::nullopt;
  return std::string(value);
}

int64_t countOf(const std::optional<std::string> &text) {
  if (!text || text->empty() || text->size() > 9 ||
      text->find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(*text);
}

} // namespace

Launch detectLaunch() {
  Launch launch;
  auto set = [&](const char *name, const std::string &value, int64_t ranks) {
    launch.mpi = true;
    launch.launcher = std::string(name) + "=" + value;
    launch.ranks = ranks;
  };
  if (auto size = env("OMPI_COMM_WORLD_SIZE"))
    set("OMPI_COMM_WORLD_SIZE", *size, countOf(size));
  else if (auto rank = env("PMIX_RANK"))
    set("PMIX_RANK", *rank, countOf(env("SLURM_STEP_NUM_TASKS")));
  else if (auto pmiSize = env("PMI_SIZE"))
    set("PMI_SIZE", *pmiSize, countOf(pmiSize));
  else if (auto pmiRank = env("PMI_RANK"))
    set("PMI_RANK", *pmiRank, countOf(env("SLURM_STEP_NUM_TASKS")));
  return launch;
}

bool builtWithMpi() {
#ifdef PROOFC_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::string rankCheckpointDir(const std::string &dir, int64_t rank,
                              int64_t ranks) {
  return (std::filesystem::path(dir) /
          ("rank-" + std::to_string(rank) + "-of-" + std::to_string(ranks)))
      .string();
}

void checkCheckpointLaunch(const std::string &dir, int64_t ranks) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return; // made by the run (or refused by Checkpoint: not a directory)
  const std::string name = escapeForMessage(dir);
  const std::string launch =
      ranks == 0 ? std::string("this run is one process without MPI")
                 : "this run has " + std::to_string(ranks) + " MPI ranks";
  if (ranks > 0 && fs::exists(fs::path(dir) / "manifest.json", ec))
    fail("{}: a checkpoint of one process without MPI (it holds "
         "manifest.json); {}: resume it without mpirun, or give another "
         "--checkpoint directory",
         name, launch);
  static const std::regex rankDir("rank-([0-9]{1,9})-of-([0-9]{1,9})");
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string leaf = entry.path().filename().string();
    if (!std::regex_match(leaf, m, rankDir))
      continue;
    const int64_t made = std::stoll(m[2].str());
    if (made != ranks)
      fail("{}: a checkpoint of {} MPI ranks (it holds {}); {}: resume it "
           "with `mpirun -np {}`, or give another --checkpoint directory",
           name, made, escapeForMessage(leaf), launch, made);
  }
}

} // namespace proofc::cli
