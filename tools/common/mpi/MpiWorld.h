//===- MpiWorld.h - What the MPI ranks' code shares -------------*- C++ -*-===//
//
// Internal to tools/common/mpi (the only code that includes mpi.h): the
// message tags and limits, one rank's verdict on a step (Status), MPI's
// lifetime and polling (World), and a rank's name in messages. MpiRun.cpp
// runs the ranks' steps; MpiParts.cpp moves the parts, rows and proofs
// between them.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_MPI_MPIWORLD_H
#define PROOFC_TOOLS_COMMON_MPI_MPIWORLD_H

#include "mpi/InitDeadline.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/RunControl.h"

#include <fmt/format.h>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace proofc::cli::mpi {

inline constexpr int kTagProgress = 1, kTagFailure = 2, kTagPart = 3,
                     kTagRows = 4, kTagRowsEnd = 5, kTagProofs = 6;
/// The largest message: MPI counts are ints; 64 MiB keeps far below.
inline constexpr int64_t kMaxMessageBytes = int64_t{64} << 20;
/// The longest failure message sent to rank 0.
inline constexpr size_t kMaxFailureBytes = 64 << 10;

/// One rank's verdict on a step.
struct Status {
  int code = 0; ///< 0 ok, 1 error, 128 + signal interrupted
  bool interrupted = false;
  std::string what;     ///< the error's message
  bool printed = false; ///< the rank printed its own diagnostics
  bool named = false;   ///< `what` names the rank it is about
};

inline Status attempt(const std::function<void()> &step) {
  try {
    step();
    return {};
  } catch (const Interrupted &e) {
    return {e.exitCode(), true, e.what()};
  } catch (const Error &e) {
    return {1, false, e.what()};
  } catch (const std::exception &e) {
    return {1, false, std::string("internal error: ") + e.what()};
  }
}

class World {
public:
  explicit World(const std::string &tool) {
    // The progress callback may run on a backend thread, never two at once
    // and never while the main thread calls MPI: SERIALIZED is enough. A
    // process of the launch that never calls MPI_Init must not leave this
    // one waiting for ever (InitDeadline.h).
    {
      const InitDeadline deadline(tool);
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided_);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    main_ = std::this_thread::get_id();
  }
  ~World() { MPI_Finalize(); }
  World(const World &) = delete;
  World &operator=(const World &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Whether this thread may call MPI now (a library below SERIALIZED:
  /// only the main thread).
  bool mayCall() const {
    return provided_ >= MPI_THREAD_SERIALIZED ||
           std::this_thread::get_id() == main_;
  }
  /// Waits for `request`, calling `meanwhile` between polls.
  void wait(MPI_Request &request,
            const std::function<void()> &meanwhile = {}) const {
    auto pause = std::chrono::microseconds(50);
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done)
        return;
      if (meanwhile)
        meanwhile();
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(
          pause * 2, std::chrono::milliseconds(20));
    }
  }

private:
  int provided_ = MPI_THREAD_SINGLE;
  int rank_ = 0, size_ = 1;
  std::thread::id main_;
};

inline std::string rankName(int rank, int ranks) {
  return fmt::format("rank {} of {}", rank, ranks);
}

} // namespace proofc::cli::mpi

#endif // PROOFC_TOOLS_COMMON_MPI_MPIWORLD_H
