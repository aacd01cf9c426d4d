//===- Worker.h - The one thread that touches an Evaluator's Session -*- C++
//-*-===//
//
// A proofc::Session on CUDA keeps its context current on the thread that
// built it, and a Python program may call one Evaluator from any thread. So
// every Session call (construction, evaluate, destruction) runs on one
// thread owned by the Evaluator, in submission order; the Python thread only
// waits for it, with the GIL released, and meanwhile runs Python's signal
// handlers (Interruptible.h). The worker never touches a Python object.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_WORKER_H
#define PROOFC_PYTHON_WORKER_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

namespace proofc::python {

class Worker {
public:
  Worker();
  /// Runs what was submitted, then joins the thread.
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  /// Queues `job`; the future holds its result or its exception.
  template <typename F> std::future<std::invoke_result_t<F>> submit(F job) {
    using R = std::invoke_result_t<F>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(job));
    std::future<R> result = task->get_future();
    push([task] { (*task)(); });
    return result;
  }

private:
  void push(std::function<void()> job);
  void loop();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_; // last: started once the queue exists
};

} // namespace proofc::python

#endif // PROOFC_PYTHON_WORKER_H
