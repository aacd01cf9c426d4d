//===- PlanBinding.h - A bundle's GpuPlan bound to run-time inputs -*- C++
//-*-===//
//
// Everything about executing a GpuPlan that does not touch a device: the
// values of the run-time symbols, every buffer's size and initial contents
// (knowledge-base arrays, the candidate pool, weights and the tables the
// plan's prologue ops fold from them), and every launch's grid and typed
// arguments. The CUDA backend turns this into allocations, uploads and graph
// nodes; the kernel-emulation tests run the same binding on the CPU. All
// errors name the bundle path and the buffer, launch or tensor.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_PLANBINDING_H
#define PROOFC_RUNTIME_CUDA_PLANBINDING_H

#include "bundle/Bundle.h"
#include "cuda/PoolOrder.h"
#include "data/KnowledgeBase.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Safetensors.h"
#include "support/MemoSize.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace proofc {

using SymbolTable = std::map<std::string, int64_t>;

/// Bytes of one entry of the CUDA step memo (memo.cu): kernel_abi.h's
/// memoEntryWords(A) words, what memoAutoCap (support/MemoSize.h) sizes the
/// table by on a device.
uint64_t cudaMemoEntryBytes(int A);

/// The rows of `program`'s folded atom layer over `kb` (the symbol AL:
/// kernel_abi.h's atomLayerRows(R, E, 2A, d), 0 past its budget).
int64_t atomLayerRowsFor(const ProgramSpec &program, const KnowledgeBase &kb);

/// Whether `plan`'s prologue makes a folded atom layer (fold_atom_layer).
bool planFoldsAtomLayer(const GpuPlan &plan);

/// The values of kBundleSymbols (BundleNames.h) for a program, knowledge
/// base, pool and step memo (MEMO = memoEntriesFor(memoEntries,
/// numCandidates)); ACTIONS is D when the run records the actions (the rows
/// of out.actions), else 0; AL and AN are the folded atom layer's rows and
/// argument rows (kernel_abi.h's atomLayerRows(R, E, 2A, d), and
/// atomLayerArgRows(2A, E) when AL > 0, else 0).
SymbolTable planSymbols(const ProgramSpec &program, const KnowledgeBase &kb,
                        int64_t numCandidates, int64_t memoEntries = -1,
                        bool recordActions = false);

/// The product of `extent`'s factors; `what` names it in errors (overflow
/// past 2^40 elements, unknown symbol).
int64_t evalExtent(const Extent &extent, const SymbolTable &symbols,
                   const std::string &what);

/// Runs the plan's prologue ops (PrologueOp) over `weights`: the returned map
/// holds the weights and every op's dst. Errors name `bundlePath`, the op and
/// the tensor; every op is checked before any is computed. The CUDA backend's
/// device prologue (weights already on the GPU) makes the same checks and
/// computes the same tables bit for bit (runtime/src/cuda/DevicePrologue.h).
TensorMap runPlanPrologue(const GpuPlan &plan, const TensorMap &weights,
                          const std::string &bundlePath);

struct BoundBuffer {
  const BufferDecl *decl = nullptr;
  int64_t elements = 0;
  /// Bytes to allocate: elements * 4, at least 4 (a valid address even when
  /// the data has no rows, e.g. no rules).
  size_t bytes = 0;
  /// Initial contents (elements * 4 bytes), empty when zero-filled.
  std::vector<uint32_t> data;
};

struct BoundArg {
  enum class Kind { Buffer, I32, F32, Cond, Node } kind = Kind::I32;
  int32_t buffer = -1; ///< Buffer: index into PlanBinding::buffers()
  int32_t i32 = 0;     ///< I32 (literals and symbols)
  float f32 = 0;       ///< F32
  std::string cond;    ///< Cond: the cond's name
  /// Node: the launch whose next graph node's record this is (empty:
  /// none, 0), kernel_abi.h's ArgKind::Node.
  std::string node;
};

struct BoundLaunch {
  const Launch *launch = nullptr;
  uint32_t grid = 1;
  std::vector<BoundArg> args;
};

class PlanBinding {
public:
  /// Binds `bundle` (already verified by parseBundle) to `inputs` and `kb`
  /// (the knowledge base of inputs.dataset). `bundlePath` names errors.
  /// With inputs.actions the plan records the steps' actions (out.actions
  /// sized N x D; a bundle without that output is an error).
  /// With `foldHostWeights` false, host weights are left to the runner
  /// too (its device prologue folds them), as device weights always are.
  PlanBinding(const Bundle &bundle, const EvalInputs &inputs,
              const KnowledgeBase &kb, const std::string &bundlePath,
              int64_t memoEntries = -1, bool foldHostWeights = true);

  const SymbolTable &symbols() const { return symbols_; }
  const std::vector<BoundBuffer> &buffers() const { return buffers_; }
  std::vector<BoundBuffer> &buffers() { return buffers_; }
  int32_t bufferIndex(const std::string &name) const;
  const BoundLaunch &launch(const std::string &name) const;
  /// Buffers bound to out.status / out.depth / out.logp.
  int32_t outStatus() const { return outStatus_; }
  int32_t outDepth() const { return outDepth_; }
  int32_t outLogp() const { return outLogp_; }
  /// The buffer bound to out.actions (N x ACTIONS words), or -1.
  int32_t outActions() const { return outActions_; }
  /// Whether the plan records the actions (symbol ACTIONS > 0).
  bool recordsActions() const { return symbols_.at("ACTIONS") > 0; }
  size_t totalBytes() const;
  /// The buffers whose init is "weights:<name>" (a weight or a prologue
  /// table), in plan order.
  const std::vector<int32_t> &weightBuffers() const { return weightBuffers_; }
  /// Their contents for `weights` (the plan's prologue run on the host):
  /// (buffer index, words) in weightBuffers() order. The binding fills its
  /// buffers with this at construction unless the weights are on the device
  /// (EvalInputs::deviceWeights); a session calls it again for new weights.
  std::vector<std::pair<int32_t, std::vector<uint32_t>>>
  weightData(const TensorMap &weights) const;
  /// The buffers bound to the candidate pool ("pool.*": the candidates'
  /// triples in pool order), each with its word count, and their contents
  /// for other `candidates` of the binding's N, written straight into `dst`
  /// (as many words): what a run over new candidates of the same size
  /// uploads (EvalInputs::shapeId).
  std::vector<std::pair<int32_t, size_t>> poolBuffers() const;
  void writePool(int32_t buffer, const CandidateSet &candidates,
                 uint32_t *dst) const;
  /// Frees the initial contents once they are uploaded.
  void releaseHostData();

  /// Outcomes from the three out.* buffers' contents (N elements each);
  /// a status outside 0..2 or a negative depth is an error.
  std::vector<Outcome> outcomes(const std::vector<int32_t> &status,
                                const std::vector<int32_t> &depth,
                                const std::vector<float> &logp) const;
  /// The same read in place (e.g. from the readback's pinned staging):
  /// N elements each.
  std::vector<Outcome> outcomes(const int32_t *status, const int32_t *depth,
                                const float *logp) const;
  /// The recorded actions from out.actions' contents (N x D words, pool
  /// order) for `outcomes` (candidate order): candidate i's row, its steps
  /// after outcomes[i].depth -1 (the device writes only those it took).
  ActionTrace actions(const std::vector<int32_t> &words,
                      const std::vector<Outcome> &outcomes) const;

private:
  std::string path_;
  const GpuPlan *plan_ = nullptr;
  SymbolTable symbols_;
  std::vector<BoundBuffer> buffers_;
  std::map<std::string, int32_t> bufferIndex_;
  std::vector<int32_t> weightBuffers_;
  std::map<std::string, BoundLaunch> launches_;
  int32_t outStatus_ = -1, outDepth_ = -1, outLogp_ = -1, outActions_ = -1;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_PLANBINDING_H
