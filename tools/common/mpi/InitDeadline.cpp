//===- InitDeadline.cpp - A bounded wait for MPI_Init ---------------------===//
#include "InitDeadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include <csignal>
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

/// What a SIGTERM while armed writes (a signal handler may not format or
/// allocate): set before the handler is installed, read only by it.
char termMessage[1024];
size_t termLength = 0;

extern "C" void onTermWhileWaiting(int) {
  [[maybe_unused]] const ssize_t n =
      ::write(STDERR_FILENO, termMessage, termLength);
  ::_exit(1);
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
  // Who speaks and the likely cause, the same in both messages below.
  const std::string who =
      fmt::format("{}: error: rank {} of {}", tool, rank.empty() ? "?" : rank,
                  size.empty() ? "?" : size);
  const std::string cause = fmt::format(
      "a process of the launch exited or never started MPI (every rank of an "
      "MPI launch must be {}, started with the same flags",
      tool);
  const std::string message =
      fmt::format("{}: MPI_Init did not end within {} s: {}; {} sets the wait "
                  "in seconds)\n",
                  who, seconds, cause, kMpiInitTimeoutEnv);
  // mpirun may end the launch itself while the ranks wait (a process of it
  // exited), by SIGTERM, and Open MPI 4.1 then prints nothing at times
  // (about 1 launch in 60 on a loaded 2-core machine): rank 0 says why it
  // ends; the others end silently, as after rank 0's deadline.
  armedTerm_ = rank == "0";
  if (armedTerm_) {
    const std::string term = fmt::format(
        "{}: the launch was ended while MPI_Init waited: {})\n", who, cause);
    termLength = std::min(term.size(), sizeof(termMessage));
    std::memcpy(termMessage, term.data(), termLength);
    struct sigaction action{};
    action.sa_handler = onTermWhileWaiting;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, &previousTerm_);
  }
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
  // Restored only if still ours: MPI_Init may have installed its own.
  struct sigaction current{};
  if (armedTerm_ && sigaction(SIGTERM, nullptr, &current) == 0 &&
      current.sa_handler == onTermWhileWaiting)
    sigaction(SIGTERM, &previousTerm_, nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  done_.notify_all();
  watch_.join();
}

} // namespace proofc::cli
