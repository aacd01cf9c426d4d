//===- Interruptible.h - Wait for the worker, let Ctrl-C through -*- C++
//-*-===//
//
// Python runs its signal handlers (KeyboardInterrupt for SIGINT) only in the
// main thread and only when asked. While a Session call runs on the worker
// (Worker.h), the calling thread waits with the GIL released and, every
// poll, takes the GIL back and asks: when a handler raises, or the caller's
// progress callable does, the call's cancel flag goes up, the Session stops
// at its next check (throwing proofc::Interrupted, after which it is usable
// again), and the Python exception is re-raised. The runtime itself never
// installs a signal handler.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_INTERRUPTIBLE_H
#define PROOFC_PYTHON_INTERRUPTIBLE_H

#include "proofc/runtime/RunControl.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>

namespace proofc::python {

/// How often the waiting thread runs the signal handlers and `poll`.
inline constexpr std::chrono::milliseconds kPollInterval{50};

/// Waits for `job` (submitted to the worker with `cancel` as its flag);
/// call with the GIL held. `poll` (may be empty) runs with the GIL at every
/// interval and may throw (a Python exception: py::error_already_set). An
/// exception raised meanwhile cancels the job and, once the job has ended,
/// wins over its result.
template <typename R>
R waitInterruptible(std::future<R> &job, std::atomic<bool> &cancel,
                    const std::function<void()> &poll) {
  namespace py = pybind11;
  std::exception_ptr raised;
  while (!raised) {
    bool done;
    {
      py::gil_scoped_release released;
      done = job.wait_for(kPollInterval) == std::future_status::ready;
    }
    if (done)
      return job.get();
    if (PyErr_CheckSignals() != 0) {
      // Fetches (and clears) the handler's exception, to re-raise below.
      raised = std::make_exception_ptr(py::error_already_set());
      break;
    }
    try {
      if (poll)
        poll();
    } catch (...) {
      raised = std::current_exception();
    }
  }
  // The job reads the caller's tensors: it must end before they are let go.
  cancel.store(true);
  {
    py::gil_scoped_release released;
    job.wait();
  }
  try {
    (void)job.get();
  } catch (...) {
    // Interrupted, as asked; any other error is superseded by the
    // caller's exception too.
  }
  std::rethrow_exception(raised);
}

} // namespace proofc::python

#endif // PROOFC_PYTHON_INTERRUPTIBLE_H
