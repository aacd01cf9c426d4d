//===- InitDeadline.cpp - A bounded wait for MPI_Init ---------------------===//
#include "InitDeadline.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <initializer_list>

#include <unistd.h>

namespace proofc::cli {
namespace {

/// The first of `names` that the environment sets, or "".
std::string firstOf(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const char *v = std::getenv(name))
      return v;
  return "";
}

double deadlineSeconds() {
  if (const char *v = std::getenv(kMpiInitTimeoutEnv)) {
    char *end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && *end == '\0' && s > 0 && s < 1e6)
      return s;
  }
  return 120;
}

} // namespace

InitDeadline::InitDeadline(std::string tool) {
  const std::string rank =
      firstOf({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"});
  const std::string size = firstOf({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
  const double seconds = deadlineSeconds();
  // Rank 0 speaks first; the others wait a little longer for mpirun to end
  // them on rank 0's exit.
  const double wait = rank == "0" || rank.empty() ? seconds : seconds + 5;
  const std::string message = fmt::format(
      "{}: error: rank {} of {}: MPI_Init did not end within {} s: a process "
      "of the launch exited or never started MPI (every rank of an MPI "
      "launch must be {}, started with the same flags; {} sets the wait in "
      "seconds)\n",
      tool, rank.empty() ? "?" : rank, size.empty() ? "?" : size, seconds, tool,
      kMpiInitTimeoutEnv);
  watch_ = std::thread([this, wait, message] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (done_.wait_for(lock, std::chrono::duration<double>(wait),
                       [this] { return disarmed_; }))
      return;
    // MPI_Init holds the main thread: write and end from here.
    [[maybe_unused]] const ssize_t n =
        ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(1);
  });
}

InitDeadline::~InitDeadline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  done_.notify_all();
  watch_.join();
}

} // namespace proofc::cli
