//===- Evaluation.h - Outcomes, metrics and the backend interface -*- C++
//-*-===//
#ifndef PROOFC_RUNTIME_EVALUATION_H
#define PROOFC_RUNTIME_EVALUATION_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/RunControl.h"
#include "proofc/runtime/Safetensors.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace proofc {

enum class ProofStatus : uint8_t { Proved = 0, Failed = 1, Truncated = 2 };
const char *statusName(ProofStatus status);

/// Spec §5: one candidate's result.
struct Outcome {
  ProofStatus status = ProofStatus::Failed;
  int32_t depth = 0;
  float logp = 0.f;
  /// Spec §6: logp when proved, -inf otherwise.
  double score() const {
    return status == ProofStatus::Proved
               ? static_cast<double>(logp)
               : -std::numeric_limits<double>::infinity();
  }
};

struct MetricSet {
  double mrr = 0, hits1 = 0, hits3 = 0, hits10 = 0;
  int64_t pairs = 0; ///< (query, mode) pairs averaged over
};

struct Metrics {
  MetricSet head, tail, both;
  int64_t candidates = 0, proved = 0, failed = 0, truncated = 0;
  double meanDepth = 0;
};

/// Realistic rank of candidates[group.begin] among its group (spec §6).
double realisticRank(const std::vector<Outcome> &outcomes,
                     const CandidateGroup &group);
Metrics computeMetrics(const CandidateSet &set,
                       const std::vector<Outcome> &outcomes);

/// A weight tensor in the CUDA backend's device memory.
struct DeviceWeight {
  uint64_t address = 0; ///< CUdeviceptr of float32 row-major data
  std::vector<int64_t> shape;
};

/// The action (spec §5: the index i into derive's list) every step of every
/// candidate chose: all a backend records for the proofs (docs/proofs.md);
/// the host replays the derivations from it (Proofs.h).
struct ActionTrace {
  int32_t D = 0; ///< steps per candidate (ShapeParams::D)
  /// [candidates][D]: candidate c's step s is actions[c * D + s], for
  /// s < its Outcome::depth; the entries after its depth are -1.
  std::vector<int32_t> actions;
};

/// Everything a backend needs, bound at run time.
struct EvalInputs {
  const ProgramSpec &program;
  const Dataset &dataset;
  const TensorMap &weights; ///< checked by checkWeights() before a run
  const CandidateSet &candidates;
  bool factsIncludeValid = false;
  /// Progress and cancellation (RunControl.h); null: run to the end silently.
  const RunControl *control = nullptr;
  /// When set, the weights are on the CUDA backend's device (float32,
  /// row-major, checked against the program by the caller) and `weights`
  /// is empty; only the CUDA backend accepts them (Session.h).
  const std::map<std::string, DeviceWeight> *deviceWeights = nullptr;
  /// Non-zero: the same candidates as every earlier run with this id (a
  /// Session's whole pool), so a backend may keep what it built for them
  /// (the CUDA backend's buffers and graph). 0: no such promise.
  uint64_t poolId = 0;
  /// Non-zero: as many candidates, of the same dataset and facts, as every
  /// earlier run with this id, but maybe other ones (the blocks of one
  /// streamed call, padded to one size): a backend may keep what it built
  /// for the size and upload only the candidates (the CUDA backend: the
  /// pool's triples; context, knowledge base, buffers, modules and graph
  /// stay). 0: no such promise.
  uint64_t shapeId = 0;
  /// Non-zero: the same weights as every earlier run with this id (the
  /// blocks of one streamed call), so a backend that kept its setup may
  /// keep what it prepared from them (the CUDA backend: the prologue's
  /// tables stay on the device; no prologue, no upload). 0: no such
  /// promise.
  uint64_t weightsId = 0;
  /// Non-null: the backend also records every step's action here (sized to
  /// the candidates × D, -1 filled); only a backend whose
  /// recordsActions() is true accepts it.
  ActionTrace *actions = nullptr;
};

//===----------------------------------------------------------------------===//
// The weights contract (docs/weights.md): which tensors a program needs on a
// dataset, and what a weights file says about the program and dataset it was
// written for. Weights.cpp defines both once.
//===----------------------------------------------------------------------===//

/// One tensor the program needs (spec §4 table), as `proofc weights-spec`
/// prints it.
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype = "F32";
};

/// The tensors `program` reads on `dataset` (E and R size the embedding
/// tables), in encoder order (within an op: tables, weight, bias), each
/// once: the order initWeights draws them in. Throws proofc::Error naming
/// the op of an inconsistent program (widths, tied tensors, empty names).
std::vector<TensorSpec> expectedTensors(const ProgramSpec &program,
                                        const Dataset &dataset);

/// Throws proofc::Error naming the first tensor whose name or shape does not
/// match expectedTensors(program, dataset), then any tensor it does not list.
void checkWeights(const ProgramSpec &program, const Dataset &dataset,
                  const TensorMap &weights, const std::string &path);

/// Deterministic random policy weights (spec §4 shapes) for `program`.
TensorMap initWeights(const ProgramSpec &program, const Dataset &dataset,
                      uint64_t seed);

/// The "__metadata__" keys proofc writes and reads (besides "format").
inline constexpr const char *kWeightsProgramKey = "proofc.program";
inline constexpr const char *kWeightsVocabularyKey = "proofc.vocabulary";

/// What a weights file for `program` on `dataset` carries as "__metadata__":
/// {"format": "pt", "proofc.program": program.name, "proofc.vocabulary":
/// vocabularyFingerprint(dataset)} (Provenance.h).
SafetensorsMetadata weightsMetadata(const ProgramSpec &program,
                                    const Dataset &dataset);

/// Checks a weights file's metadata against the dataset it is about to run
/// on: a "proofc.vocabulary" other than vocabularyFingerprint(dataset) (the
/// embedding rows would belong to other names) is a proofc::Error naming the
/// file, both fingerprints and the dataset; a malformed one is an error too.
/// A file without the key (no metadata: trained elsewhere) is accepted, and
/// so is another "proofc.program": the tensors' names and shapes, which
/// checkWeights checks, are what binds weights to a program.
void checkWeightsMetadata(const SafetensorsMetadata &metadata,
                          const ProgramSpec &program, const Dataset &dataset,
                          const std::string &path);

struct BackendTimings {
  double setupSeconds = 0;    ///< index, weight folding, uploads
  double runSeconds = 0;      ///< the proof loop, steady state
  int64_t steps = 0;          ///< batched steps executed
  double readbackSeconds = 0; ///< the outcomes back to the host (CUDA)
};

/// What a backend says about itself and its runs since clearInfo()
/// (Backend::info()): the device it runs on and the time its kernels took
/// to compile or load, for the report and a tool's summary. A backend
/// without such details (the host backend) leaves every field empty.
struct BackendInfo {
  /// The report's `device` for this backend alone (CUDA: the GPU's name and
  /// arch, the cond mode used, " (fallback)"); empty: the session's device
  /// name stands (docs/report-schema.md).
  std::string device;
  std::string model;         ///< the GPU's name and arch, e.g. "... (sm_90)"
  std::string cond;          ///< the cond mode used ("native", ...)
  bool condFellBack = false; ///< native asked for, emulated used
  int ordinal = -1;          ///< the CUDA device ordinal; -1: not a GPU
  double compileSeconds = 0; ///< kernels compiled (kernel cache misses)
  double loadSeconds = 0;    ///< kernels loaded from the disk cache
  /// Wall time to get every kernel module (compiled or from the cache, all
  /// at once) and load it: what the runs waited for their kernels.
  double modulesSeconds = 0;
  /// The report's "backend_details" as JSON text; empty: none.
  std::string detailsJson;
  /// One line about the runs for a tool's summary (no newline); empty:
  /// none.
  std::string summary;
};

struct RolloutInputs; // Rollouts.h
struct Trajectories;  // Rollouts.h

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// The device and what its runs since the last clearInfo() took.
  virtual BackendInfo info() const { return {}; }
  /// Starts a new count for info() (a Session's call describes itself).
  virtual void clearInfo() {}
  /// Outcomes indexed like inputs.candidates.candidates.
  /// Throws Interrupted when inputs.control's flag is raised before the end.
  virtual std::vector<Outcome> run(const EvalInputs &inputs,
                                   BackendTimings &timings) = 0;
  /// The most candidates one run() can take at once (e.g. what fits in the
  /// device's free memory), 0 when there is no such limit. A caller with a
  /// larger pool runs it in chunks; outcomes do not depend on the chunking.
  /// Whether run() records the actions (EvalInputs::actions) for --proofs.
  virtual bool recordsActions() const { return false; }
  /// Whether runs of one size are cheaper than runs of any size
  /// (EvalInputs::shapeId: the CUDA backend keeps its device setup), so
  /// that a streamed call pads its blocks to one size.
  virtual bool prefersOneRunSize() const { return false; }
  virtual int64_t poolCapacity(const EvalInputs &inputs) {
    (void)inputs;
    return 0;
  }
  /// Runs the episodes of inputs.request (Rollouts.h, docs/rollouts.md) on
  /// this backend's device and returns views of tensors it owns there until
  /// its next rollouts() call. Throws Interrupted as run() does. The
  /// default throws proofc::Error "rollouts are not implemented on NAME
  /// yet".
  virtual Trajectories rollouts(const RolloutInputs &inputs);
};

} // namespace proofc

#endif // PROOFC_RUNTIME_EVALUATION_H
