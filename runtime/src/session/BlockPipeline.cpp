//===- BlockPipeline.cpp - Build, run and consume blocks, overlapped ------===//
#include "session/BlockPipeline.h"

#include "support/Cancellation.h"

#include <algorithm>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace proofc {

void runBlockPipeline(const std::vector<QueryRange> &blocks,
                      const PipelineStages &stages, int buildThreads,
                      int workers, int ahead, const std::atomic<bool> *cancel) {
  const int64_t count = static_cast<int64_t>(blocks.size());
  if (count == 0)
    return;
  buildThreads = std::max(1, buildThreads);
  workers = std::max(1, workers);
  ahead = std::max(1, ahead);
  if (count == 1) {
    // One block (the in-loop evaluate of a pool that fits in a block):
    // nothing to overlap, so no threads to start and join (about 0.1 ms of
    // a 7 ms call). The same stages in the same order, on the calling
    // thread and the first worker; an error leaves as the pipeline's would.
    PipelineBlock block;
    block.range = blocks.front();
    block.worker = 0;
    if (cancel && cancel->load(std::memory_order_relaxed))
      throwInterrupted();
    block.candidates = stages.build(block.range);
    stages.run(block, 0);
    stages.consume(block);
    return;
  }
  // Blocks beyond the one being consumed that the workers may take.
  const int64_t window = workers + ahead - 1;
  std::mutex mutex;
  std::condition_variable changed;
  int64_t nextBuild = 0;    // the next block a builder claims
  int64_t nextRun = 0;      // the next block a worker claims
  int64_t consumed = 0;     // blocks the consumer has taken
  int64_t failedAt = count; // the first block that failed (none: count)
  bool stop = false;        // the consumer left (done or failed)
  std::map<int64_t, std::unique_ptr<PipelineBlock>> built, finished;

  auto cancelled = [&] {
    return cancel && cancel->load(std::memory_order_relaxed);
  };

  auto builder = [&] {
    for (;;) {
      int64_t index;
      {
        std::unique_lock<std::mutex> lock(mutex);
        // One block more than the device may take: built while the device
        // runs the one before, so that the device never waits for it.
        changed.wait(lock, [&] {
          return stop || nextBuild >= count || nextBuild <= consumed + window;
        });
        if (stop || nextBuild >= count)
          return;
        index = nextBuild++;
      }
      auto block = std::make_unique<PipelineBlock>();
      block->index = index;
      block->range = blocks[static_cast<size_t>(index)];
      try {
        if (cancelled())
          throwInterrupted();
        block->candidates = stages.build(block->range);
      } catch (...) {
        block->error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        built.emplace(index, std::move(block));
      }
      changed.notify_all();
    }
  };

  auto device = [&](int worker) {
    for (;;) {
      int64_t index;
      std::unique_ptr<PipelineBlock> block;
      {
        std::unique_lock<std::mutex> lock(mutex);
        // Blocks are claimed in order: every block before a failed one was
        // claimed (and so is finished and consumed) before it.
        changed.wait(lock, [&] {
          return stop || nextRun >= failedAt ||
                 (built.count(nextRun) && nextRun < consumed + window);
        });
        if (stop || nextRun >= failedAt)
          return;
        index = nextRun++;
        block = std::move(built[index]);
        built.erase(index);
      }
      block->worker = worker;
      // A block that failed to build is passed on as it is.
      if (!block->error) {
        try {
          stages.run(*block, worker);
        } catch (...) {
          block->error = std::current_exception();
        }
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (block->error)
          failedAt = std::min(failedAt, index + 1); // nothing after it runs
        finished.emplace(index, std::move(block));
      }
      changed.notify_all();
    }
  };

  std::vector<std::thread> threads;
  std::exception_ptr error;
  try {
    for (int i = 0; i < buildThreads; ++i)
      threads.emplace_back(builder);
    for (int w = 0; w < workers; ++w)
      threads.emplace_back(device, w);
    for (int64_t index = 0; index < count; ++index) {
      std::unique_ptr<PipelineBlock> block;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return finished.count(index) > 0; });
        block = std::move(finished[index]);
        finished.erase(index);
      }
      if (block->error)
        std::rethrow_exception(block->error);
      stages.consume(*block);
      block.reset(); // its memory before the next is let in
      {
        std::lock_guard<std::mutex> lock(mutex);
        consumed = index + 1;
      }
      changed.notify_all();
    }
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;
  }
  changed.notify_all();
  for (std::thread &t : threads)
    t.join();
  if (error)
    std::rethrow_exception(error);
}

} // namespace proofc
