//===- HostBackend.h - The CPU reference backend ----------------*- C++ -*-===//
//
// Runs spec §5 for every candidate with the slot structure the GPU backend
// uses: B slots (ProgramSpec.shape.B), each holding one candidate's state;
// a step derives, encodes, scores and selects for every live slot, applies
// the transition and the terminal check, writes the Outcome of finished slots
// and refills them from a shared pool. The B slots are partitioned among
// worker threads that draw from one atomic pool counter; a step the run's
// step memo has seen is taken from it (StepMemo.h). A candidate's
// outcome depends on nothing but the candidate (spec: never on its slot,
// batch, pool order or thread).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_HOSTBACKEND_H
#define PROOFC_RUNTIME_HOSTBACKEND_H

#include "data/KnowledgeBase.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Session.h"

#include <memory>

namespace proofc {

struct HostBackendOptions {
  int threads = 0; ///< 0: std::thread::hardware_concurrency()
  /// The step memo's entries (StepMemo.h): -1 auto (support/MemoSize.h's
  /// rule within a quarter of the available memory), 0 off, else a power of
  /// two up to 2^28; --memo-entries, as on the CUDA backend.
  int64_t memoEntries = -1;
};

/// The host backend's options among a run's (--threads, --memo-entries):
/// what every place that makes a host backend for a run passes it.
HostBackendOptions hostBackendOptions(const BackendOptions &options);

/// The device in words for `threads` (0: every core) over `slots` slots:
/// "cpu (N threads)", N the threads actually used (each needs a slot).
std::string hostDeviceName(int threads, int slots);

class HostBackend : public Backend {
public:
  explicit HostBackend(HostBackendOptions options = {}) : options_(options) {}
  std::string name() const override { return "host"; }
  /// BackendTimings::steps is the largest number of steps any worker thread
  /// ran over its share of the slots.
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override;
  /// Each step's action goes to EvalInputs::actions when it is set.
  bool recordsActions() const override { return true; }
  /// Every episode whole on one of the threads, the state table built
  /// after them in episode order (HostRollouts.cpp); the tensors are host
  /// memory kept until the next rollouts().
  Trajectories rollouts(const RolloutInputs &inputs) override;

private:
  /// The knowledge base for `dataset` and its facts: the kept one when `id`
  /// (EvalInputs::poolId, RolloutInputs::kbId) is that of the last build.
  std::shared_ptr<const KnowledgeBase>
  knowledgeBase(const Dataset &dataset, bool factsIncludeValid, uint64_t id);

  HostBackendOptions options_;
  /// The knowledge base of the pool EvalInputs::poolId `kbPool_`, kept
  /// for a session's next run.
  std::shared_ptr<const KnowledgeBase> kb_;
  uint64_t kbPool_ = 0;
  /// rollouts()' output tensors (HostRollouts.cpp; shared_ptr: the type
  /// is complete there only).
  struct RolloutStorage;
  std::shared_ptr<RolloutStorage> rollouts_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_HOSTBACKEND_H
