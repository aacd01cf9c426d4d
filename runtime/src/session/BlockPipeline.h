//===- BlockPipeline.h - Build, run and consume blocks, overlapped -*- C++
//-*-===//
//
// The streaming run (docs/scale-out.md, "Streaming"): a pool is cut into
// blocks of whole queries (splitRange), and each block goes through three
// stages that overlap:
//
//   build    host threads build the candidates of the next blocks
//            (CandidateBuilder::build), up to `ahead` blocks beyond the one
//            being consumed (one more than the device may take);
//   run      device workers (one per device: --devices) take the built
//            blocks in block order from one shared queue, each running
//            its block on its own backend; a faster device simply takes
//            more blocks;
//   consume  the calling thread takes finished blocks IN QUERY ORDER
//            (ranking, counts, the outcomes file, checkpoint ranges).
//
// Memory is bounded by the blocks in flight (at most workers + ahead), not
// by the pool. A block's outcomes do not depend on the worker that ran it,
// so results are the same with any number of workers. An error (or an
// interrupt) in any stage is stored with its block and rethrown by the consumer
// when it reaches that block, after every earlier block was consumed: what a
// sequential run would have raised first is raised first (the smallest
// candidate with a non-finite logit, say). The threads are joined before any
// exception leaves run(). One block runs on the calling thread and the
// first worker, without the threads.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_BLOCKPIPELINE_H
#define PROOFC_RUNTIME_BLOCKPIPELINE_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace proofc {

/// One block on its way through the pipeline.
struct PipelineBlock {
  int64_t index = 0;
  QueryRange range;        ///< in the whole pool's numbering
  CandidateSet candidates; ///< CandidateBuilder::build(range)
  std::vector<Outcome> outcomes;
  ActionTrace actions;
  BackendTimings timings;
  int64_t chunks = 0;       ///< backend runs
  int64_t chunkSize = 0;    ///< candidates per backend run (the largest)
  int worker = -1;          ///< the device worker that ran it
  std::exception_ptr error; ///< from the build or the run
};

struct PipelineStages {
  /// Builds a block's candidates; called from several threads at once.
  std::function<CandidateSet(const QueryRange &)> build;
  /// Runs a block on device worker `worker` (fills outcomes, actions,
  /// timings, chunks, chunkSize); called from that worker's thread, one
  /// block at a time per worker, several workers at once.
  std::function<void(PipelineBlock &, int worker)> run;
  /// Takes a finished block; called from run()'s caller, in order.
  std::function<void(PipelineBlock &)> consume;
};

/// Runs `blocks` through the stages with `buildThreads` builders (>= 1)
/// and `workers` device workers (>= 1): the workers take at most
/// `workers` + `ahead` - 2 (`ahead` >= 1) blocks beyond the one being
/// consumed, the builders one more. Returns when every block was consumed;
/// rethrows the first error in block order (no worker takes a block after
/// a failed one). `cancel` (may be null) stops the builders early; the
/// backends check it themselves.
void runBlockPipeline(const std::vector<QueryRange> &blocks,
                      const PipelineStages &stages, int buildThreads,
                      int workers, int ahead, const std::atomic<bool> *cancel);

} // namespace proofc

#endif // PROOFC_RUNTIME_BLOCKPIPELINE_H
