//===- HostThreads.h - The host backend's worker threads, joined ---*- C++
//-*-===//
//
// Evaluation (HostBackend.cpp) and rollouts (HostRollouts.cpp) both run one
// worker per host thread over a shared queue, the first on the calling
// thread: whichever worker throws first raises `abort` so that the others
// stop at their next item, every thread is joined, and that first
// exception is rethrown. Written once here; derive() of any states
// (session/StateDeriver.cpp) runs its ranges of states on it too, and the
// host's fold_atom_layer (cuda/PlanBinding.cpp) its rows: support/, below
// every layer that uses it. Also the one rule for how many threads "0:
// every core" means (hostThreadCount).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SUPPORT_HOSTTHREADS_H
#define PROOFC_RUNTIME_SUPPORT_HOSTTHREADS_H

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace proofc {

/// The host threads that `threads` asks for: itself when positive, else
/// every core (std::thread::hardware_concurrency(), at least one).
inline int hostThreadCount(int threads) {
  if (threads > 0)
    return threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Runs work(t) for t = 0..threads-1 (t = 0 on the calling thread), joins
/// the others and rethrows the first exception any of them threw; an
/// exception raises `abort` for the ones still running.
template <typename Work>
void runHostWorkers(int threads, std::atomic<bool> &abort, Work &&work) {
  std::exception_ptr error;
  std::mutex errorMutex;
  auto body = [&](int t) {
    try {
      work(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!error)
        error = std::current_exception();
      abort = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(body, t);
  body(0);
  for (std::thread &th : pool)
    th.join();
  if (error)
    std::rethrow_exception(error);
}

} // namespace proofc

#endif // PROOFC_RUNTIME_SUPPORT_HOSTTHREADS_H
