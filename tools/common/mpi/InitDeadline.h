//===- InitDeadline.h - A bounded wait for MPI_Init -------------*- C++ -*-===//
//
// MPI_Init waits for every process of the launch to call it too. A process
// that never does -- an MPMD launch with another program (`mpirun -np 2
// proofc-run ... : -np 1 true`), a wrapper that fails before proofc starts --
// leaves every proofc rank in MPI_Init for ever, mpirun silent (Open MPI
// 4.1: the "did not call init" notice comes only when the job ends). An
// InitDeadline, armed around MPI_Init, ends the process after a deadline
// with one message naming the rank that waited: rank 0 at the deadline,
// the others a few seconds later (mpirun normally ends them first, on rank
// 0's exit), so that the user sees rank 0's line. A rank that exits after
// MPI_Init is mpirun's to notice: it ends the job at once. When mpirun ends
// the launch itself while the ranks wait (by SIGTERM: a process exited
// before MPI_Init), it does not always say so; rank 0 then does.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_INITDEADLINE_H
#define PROOFC_TOOLS_INITDEADLINE_H

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <csignal>

namespace proofc::cli {

/// The variable that sets the deadline, in seconds (default 120).
inline constexpr const char *kMpiInitTimeoutEnv = "PROOFC_MPI_INIT_TIMEOUT";

class InitDeadline {
public:
  /// Arms the deadline for the tool `tool` (its messages' prefix).
  explicit InitDeadline(std::string tool);
  /// Disarms it.
  ~InitDeadline();
  InitDeadline(const InitDeadline &) = delete;
  InitDeadline &operator=(const InitDeadline &) = delete;

private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool disarmed_ = false;
  std::thread watch_;
  /// Rank 0's SIGTERM handler is installed (previousTerm_ is restored).
  bool armedTerm_ = false;
  struct sigaction previousTerm_{};
};

} // namespace proofc::cli

#endif // PROOFC_TOOLS_INITDEADLINE_H
