//===- PlanBinding.cpp - A bundle's GpuPlan bound to run-time inputs ------===//
//
// Sizes come from the plan (symbolic extents) and contents from the inputs;
// the two must agree exactly — a binding whose element count differs from
// the plan's extent is an error, never a silent truncation or padding.
//
//===----------------------------------------------------------------------===//
#include "cuda/PlanBinding.h"

#include "cuda/PrologueSchedule.h"
#include "cuda/kernels/fold_columns_row.h"
#include "cuda/kernels/prologue_ops.h"
#include "proofc/contract/kernel_abi.h"
#include "proofc/runtime/Session.h"
#include "support/Fail.h"
#include "support/HostThreads.h"
#include "support/MessageText.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

namespace proofc {

std::vector<int64_t> poolOrder(int64_t numCandidates, int64_t B) {
  std::vector<int64_t> order;
  order.reserve(static_cast<size_t>(std::max<int64_t>(numCandidates, 0)));
  const int64_t stride = B > 0 ? (numCandidates + B - 1) / B : 1;
  for (int64_t first = 0; first < stride; ++first)
    for (int64_t c = first; c < numCandidates; c += stride)
      order.push_back(c);
  return order;
}

uint64_t cudaMemoEntryBytes(int A) {
  return 4 * static_cast<uint64_t>(proofc_abi::memoEntryWords(A));
}

int64_t atomLayerRowsFor(const ProgramSpec &program, const KnowledgeBase &kb) {
  return proofc_abi::atomLayerRows(kb.numRelations, kb.numEntities,
                                   2 * int64_t{program.shape.A},
                                   program.shape.d);
}

bool planFoldsAtomLayer(const GpuPlan &plan) {
  return std::any_of(
      plan.prologue.begin(), plan.prologue.end(),
      [](const PrologueOp &op) { return op.op == "fold_atom_layer"; });
}

SymbolTable planSymbols(const ProgramSpec &program, const KnowledgeBase &kb,
                        int64_t numCandidates, int64_t memoEntries,
                        bool recordActions) {
  const ShapeParams &s = program.shape;
  const int64_t E = kb.numEntities, R = kb.numRelations;
  const int64_t NR = kb.numRules();
  // The folded atom layer (kernel_abi.h): its rows, 0 past the budget, and
  // the argument rows the policy kernel indexes it by (0: no table).
  const int64_t atomRows = atomLayerRowsFor(program, kb);
  const int64_t atomArgs =
      atomRows > 0 ? proofc_abi::atomLayerArgRows(2 * int64_t{s.A}, E) : 0;
  return {{"B", s.B},
          {"S", s.S},
          {"A", s.A},
          {"A2", 2 * int64_t{s.A}},
          {"D", s.D},
          {"d", s.d},
          {"L", s.L},
          {"E", E},
          {"R", R},
          {"R1", R + 1},
          {"R2", R + 2},
          {"RE1", R * E + 1},
          {"NF", kb.numFacts()},
          {"NR", NR},
          {"NR1", NR + 1},
          {"NRB", static_cast<int64_t>(kb.ruleBody.size())},
          {"N", numCandidates},
          {"MEMO", memoEntriesFor(memoEntries, numCandidates)},
          {"ACTIONS", recordActions ? int64_t{s.D} : 0},
          {"AL", atomRows},
          {"AN", atomArgs}};
}

int64_t evalExtent(const Extent &extent, const SymbolTable &symbols,
                   const std::string &what) {
  constexpr int64_t kLimit = int64_t{1} << 40;
  int64_t product = 1;
  for (const std::string &factor : extent.factors) {
    int64_t v = 0;
    auto it = symbols.find(factor);
    if (it != symbols.end()) {
      v = it->second;
    } else {
      size_t used = 0;
      try {
        v = std::stoll(factor, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      if (used != factor.size() || factor.empty())
        fail("{}: unknown extent factor '{}'", what, factor);
    }
    if (v < 0)
      fail("{}: factor '{}' is negative ({})", what, factor, v);
    if (v != 0 && product > kLimit / v)
      fail("{}: extent exceeds 2^40 elements", what);
    product *= v;
  }
  return product;
}

namespace {

/// The ops' element functions (kernels/prologue_ops.h), which the device
/// prologue's kernels call too: the host tables are the device's bit for bit.
Tensor foldColumns(const ResolvedPrologueOp &r, const TensorMap &tensors) {
  const PrologueOp &op = *r.op;
  const float *table = tensors.at(op.table).data.data();
  const float *weight = tensors.at(op.weight).data.data();
  const float *bias = r.bias ? tensors.at(op.bias).data.data() : nullptr;
  Tensor dst;
  dst.shape = r.dstShape;
  dst.data.resize(static_cast<size_t>(r.dstElements));
  // foldColumnsElement(..., e) for e = row * out + j, a row at a time.
  for (int64_t row = 0; row < r.rows; ++row)
    prologue::foldColumnsRow(table + row * r.cols, weight + r.colBegin, bias,
                             r.out, r.in, r.cols,
                             dst.data.data() + row * r.out);
  return dst;
}

Tensor transposeTensor(const ResolvedPrologueOp &r, const TensorMap &tensors) {
  const Tensor &src = tensors.at(r.op->table);
  Tensor dst;
  dst.shape = r.dstShape;
  dst.data.resize(static_cast<size_t>(r.dstElements));
  for (int64_t e = 0; e < r.dstElements; ++e)
    dst.data[e] = src.data[prologue::transposeSource(e, r.rows, r.cols)];
  return dst;
}

/// `table` [rows = out, cols = in] split into high and low parts in
/// mma.sync B-fragment order, 4 words a fragment: `fragment` is
/// prologue::tf32Fragment (m16n8k8, eval.split_tf32_weight) or
/// prologue::f16Fragment (m16n8k16, eval.split_f16_weight).
template <typename Fragment>
Tensor fragments(const ResolvedPrologueOp &r, const TensorMap &tensors,
                 Fragment fragment) {
  const float *w = tensors.at(r.op->table).data.data();
  Tensor dst;
  dst.shape = r.dstShape;
  dst.data.resize(static_cast<size_t>(r.dstElements));
  for (int64_t f = 0; f < r.dstElements / 4; ++f)
    fragment(w, r.rows, r.cols, f, dst.data.data() + 4 * f);
  return dst;
}

/// fold_atom_layer, all of a row's outputs at once: W transposed into
/// doubles, so the inner loop runs over consecutive outputs (the compiler
/// vectorizes it). Each output is still its own sum (docs/bundle.md:
/// weight[j][f] times atomLayerInput, in double from 0 in ascending f,
/// rounded once), and a float product is exact in double, so the bits are
/// the device kernel's. The host makes it only when there is no device
/// prologue (RunnerSetup.cpp) or in tests; kinship's 383 k rows of 64 sums
/// of 64 are shared by up to 8 threads.
Tensor foldAtomLayer(const ResolvedPrologueOp &r, const TensorMap &tensors) {
  const PrologueOp &op = *r.op;
  const float *pred = tensors.at(op.table).data.data();
  const float *args[4];
  for (size_t a = 0; a < 4; ++a)
    args[a] = tensors.at(op.args[a]).data.data();
  const float *weight = tensors.at(op.weight).data.data();
  Tensor dst;
  dst.shape = r.dstShape;
  dst.data.resize(static_cast<size_t>(r.dstElements));
  const int64_t rows = r.dstShape[0], width = r.cols, out = r.out;
  if (rows == 0 || out == 0)
    return dst;
  std::vector<double> wt(static_cast<size_t>(width * out));
  for (int64_t j = 0; j < out; ++j)
    for (int64_t f = 0; f < width; ++f)
      wt[static_cast<size_t>(f * out + j)] =
          static_cast<double>(weight[j * width + f]);
  const int threads =
      rows * out * width < (int64_t{1} << 24)
          ? 1
          : std::min(hostThreadCount(0), 8); // the pool walk's cap
  const int64_t per = (rows + threads - 1) / threads;
  std::atomic<bool> abort{false};
  runHostWorkers(threads, abort, [&](int t) {
    std::vector<float> v(static_cast<size_t>(width));
    std::vector<double> acc(static_cast<size_t>(out));
    for (int64_t row = t * per; row < std::min(rows, (t + 1) * per); ++row) {
      const prologue::AtomLayerRowInputs in = prologue::atomLayerRowInputs(
          pred, args[0], args[1], args[2], args[3], r.rows, r.consts, r.vars,
          r.argRows, width, row);
      for (int64_t f = 0; f < width; ++f)
        v[static_cast<size_t>(f)] =
            prologue::atomLayerInput(in.pred, in.arg0, in.arg1, f, op.relu);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t f = 0; f < width; ++f) {
        const double xf = static_cast<double>(v[static_cast<size_t>(f)]);
        const double *w = wt.data() + f * out;
        for (int64_t j = 0; j < out; ++j)
          acc[static_cast<size_t>(j)] += w[j] * xf;
      }
      float *o = dst.data.data() + row * out;
      for (int64_t j = 0; j < out; ++j)
        o[j] = prologue::toFloat(acc[static_cast<size_t>(j)]);
    }
  });
  return dst;
}

template <typename T> std::vector<uint32_t> words(const T *data, size_t count) {
  static_assert(sizeof(T) % 4 == 0, "bindings are arrays of 32-bit words");
  std::vector<uint32_t> out(count * sizeof(T) / 4);
  if (!out.empty())
    std::memcpy(out.data(), data, out.size() * 4);
  return out;
}

template <typename T> std::vector<uint32_t> words(const std::vector<T> &v) {
  return words(v.data(), v.size());
}

/// The candidates' triples in pool order for B slots (poolOrder: position q
/// holds candidate poolOrder[q]'s), three words each, into dst; walked in
/// tiles (PoolOrder.h).
void gatherPool(const CandidateSet &candidates, int64_t B, uint32_t *dst) {
  static_assert(sizeof(Triple) == 12, "a pool triple is three words");
  const Candidate *from = candidates.candidates.data();
  forEachPoolPosition(static_cast<int64_t>(candidates.candidates.size()), B,
                      [&](int64_t q, int64_t c) {
                        std::memcpy(dst + 3 * q, &from[c].triple, 12);
                      });
}

/// Contents of the pool binding (binding::kPoolTriples), empty for any other.
std::vector<uint32_t> poolWords(const std::string &init,
                                const CandidateSet &candidates, int64_t B) {
  if (init != binding::kPoolTriples)
    return {};
  std::vector<uint32_t> out(3 * candidates.candidates.size());
  gatherPool(candidates, B, out.data());
  return out;
}

/// Contents of a named binding (BufferTables.h); empty for out.*. A
/// knowledge-base table kb.<param> is KnowledgeBase::<param>.
std::vector<uint32_t> bindingWords(const std::string &init,
                                   const KnowledgeBase &kb,
                                   const CandidateSet &candidates, int64_t B) {
#define PROOFC_KB_WORDS(Name, param, buffer, bind, dtype, rows, cols)          \
  if (init == binding::k##Name)                                                \
    return words(kb.param);
  PROOFC_KB_TABLES(PROOFC_KB_WORDS)
#undef PROOFC_KB_WORDS
  return poolWords(init, candidates, B);
}

BoundArg bindArg(const std::string &arg, const PlanBinding &binding,
                 const std::string &what) {
  const size_t colon = arg.find(':');
  const std::string kind = arg.substr(0, colon), value = arg.substr(colon + 1);
  BoundArg out;
  if (kind == "buf") {
    out.kind = BoundArg::Kind::Buffer;
    out.buffer = binding.bufferIndex(value);
  } else if (kind == "sym") {
    auto it = binding.symbols().find(value);
    if (it == binding.symbols().end())
      fail("{}: unknown symbol '{}'", what, value);
    if (it->second > std::numeric_limits<int32_t>::max())
      fail("{}: symbol {} = {} does not fit an int32 argument", what, value,
           it->second);
    out.i32 = static_cast<int32_t>(it->second);
  } else if (kind == "i32") {
    out.i32 = static_cast<int32_t>(std::stol(value));
  } else if (kind == "f32") {
    out.kind = BoundArg::Kind::F32;
    out.f32 = std::stof(value);
  } else if (kind == "cond") {
    out.kind = BoundArg::Kind::Cond;
    out.cond = value;
  } else if (kind == "node") {
    out.kind = BoundArg::Kind::Node;
    out.node = value;
  } else {
    fail("{}: unknown argument kind '{}'", what, kind);
  }
  return out;
}

} // namespace

TensorMap runPlanPrologue(const GpuPlan &plan, const TensorMap &weights,
                          const std::string &bundlePath) {
  ShapeMap shapes;
  for (const auto &[name, tensor] : weights)
    shapes.emplace(name, tensor.shape);
  const std::vector<ResolvedPrologueOp> ops =
      resolvePrologue(plan, shapes, bundlePath); // every check, up front
  TensorMap tensors = weights;
  for (const ResolvedPrologueOp &r : ops) {
    switch (r.kind) {
    case PrologueKind::FoldColumns:
      tensors.emplace(r.op->dst, foldColumns(r, tensors));
      break;
    case PrologueKind::Copy:
      tensors.emplace(r.op->dst, tensors.at(r.op->table));
      break;
    case PrologueKind::Transpose:
      tensors.emplace(r.op->dst, transposeTensor(r, tensors));
      break;
    case PrologueKind::Tf32Fragments:
      tensors.emplace(r.op->dst, fragments(r, tensors, prologue::tf32Fragment));
      break;
    case PrologueKind::F16Fragments:
      tensors.emplace(r.op->dst, fragments(r, tensors, prologue::f16Fragment));
      break;
    case PrologueKind::FoldAtomLayer:
      tensors.emplace(r.op->dst, foldAtomLayer(r, tensors));
      break;
    }
  }
  return tensors;
}

namespace {

/// A launch of a kernel template (lib/Targets/CUDA/Kernels) must pass the
/// arguments kernel_abi.h lists, and a kernel that links slot.cu must end
/// with slot.cu's words: a bundle built against other kernels is refused
/// here, not run into a fault.
void checkKernelAbi(const Bundle &bundle, const Launch &launch,
                    const std::string &what) {
  const KernelModule *module = findModule(bundle, launch.module);
  const proofc_abi::KernelSignature *sig = nullptr;
  int first = 0;
  if (module && module->format == "cuda") {
    sig = proofc_abi::findKernel(launch.entry.c_str());
  } else if (module && !module->link.empty()) {
    // The step policy that links slot.cu advances in the policy; the
    // persistent kernel, its slot step.
    sig = advancesInPolicy(bundle, launch) ? &proofc_abi::kPolicyAdvance
                                           : &proofc_abi::kSlotStep;
    first = static_cast<int>(launch.args.size()) - sig->numArgs;
  }
  if (!sig)
    return;
  const int n = static_cast<int>(launch.args.size());
  const int bad =
      proofc_abi::firstMismatch(*sig, n, std::max(first, 0), [&](int i) {
        return launch.args[static_cast<size_t>(i)].c_str();
      });
  if (first < 0 || (first == 0 && n != sig->numArgs))
    fail("{}: {} takes {} arguments{}, the launch passes {} (a bundle of "
         "other kernels: recompile it)",
         what, sig->entry, sig->numArgs, first == 0 ? "" : " at the end", n);
  if (bad >= 0)
    fail("{}: argument {} of {} ('{}') must be {}, not '{}' (a bundle of "
         "other kernels: recompile it)",
         what, first + bad, sig->entry, sig->names[bad],
         proofc_abi::kindPrefix(sig->kinds[bad]),
         escapeForMessage(launch.args[static_cast<size_t>(first + bad)]));
}

} // namespace

PlanBinding::PlanBinding(const Bundle &bundle, const EvalInputs &inputs,
                         const KnowledgeBase &kb, const std::string &bundlePath,
                         int64_t memoEntries, bool foldHostWeights)
    : path_(bundlePath),
      symbols_(
          planSymbols(bundle.program, kb,
                      static_cast<int64_t>(inputs.candidates.candidates.size()),
                      memoEntries, inputs.actions != nullptr)) {
  const GpuPlan &plan = bundle.plan;
  plan_ = &plan;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferDecl &decl = plan.buffers[i];
    const std::string what = fmt::format("{}: buffer '{}'", path_, decl.name);
    BoundBuffer b;
    b.decl = &decl;
    b.elements = evalExtent(decl.elements, symbols_, what);
    b.bytes = std::max<size_t>(4, static_cast<size_t>(b.elements) * 4);
    if (decl.init.rfind(binding::kWeightsPrefix, 0) == 0) {
      weightBuffers_.push_back(static_cast<int32_t>(i)); // filled below
    } else if (!decl.init.empty()) {
      b.data = bindingWords(decl.init, kb, inputs.candidates, symbols_.at("B"));
      const bool isOutput = decl.init.rfind(binding::kOutPrefix, 0) == 0;
      if (!isOutput && static_cast<int64_t>(b.data.size()) != b.elements)
        fail("{}: binding '{}' has {} elements, the plan declares {}", what,
             decl.init, b.data.size(), b.elements);
      const int32_t index = static_cast<int32_t>(i);
      if (isOutput) {
        const bool actions = decl.init == binding::kOutActions;
        const int64_t expected =
            symbols_.at("N") * (actions ? symbols_.at("ACTIONS") : 1);
        if (b.elements != expected)
          fail("{}: output '{}' must have {} = {} elements, not {}", what,
               decl.init, actions ? "N x ACTIONS" : "N", expected, b.elements);
        int32_t &slot = actions                            ? outActions_
                        : decl.init == binding::kOutStatus ? outStatus_
                        : decl.init == binding::kOutDepth  ? outDepth_
                                                           : outLogp_;
        if (slot >= 0)
          fail("{}: a second buffer binds '{}'", what, decl.init);
        slot = index;
      }
    }
    bufferIndex_.emplace(decl.name, static_cast<int32_t>(buffers_.size()));
    buffers_.push_back(std::move(b));
  }
  // Host weights: the folded tables now. Device weights, or host weights
  // the runner folds on the device: the buffers stay zero until the device
  // prologue fills them (DevicePrologue.h).
  if (!inputs.deviceWeights && foldHostWeights)
    for (auto &[index, data] : weightData(inputs.weights))
      buffers_[static_cast<size_t>(index)].data = std::move(data);
  if (outStatus_ < 0 || outDepth_ < 0 || outLogp_ < 0)
    fail("{}: the plan binds no buffer to {}", path_,
         outStatus_ < 0  ? binding::kOutStatus
         : outDepth_ < 0 ? binding::kOutDepth
                         : binding::kOutLogp);
  if (inputs.actions && outActions_ < 0)
    fail("{}: the plan binds no buffer to {}, so it cannot record the steps' "
         "actions (--proofs): recompile the bundle with this proofc",
         path_, binding::kOutActions);

  for (const Launch &launch : plan.launches) {
    const std::string what = fmt::format("{}: launch '{}'", path_, launch.name);
    BoundLaunch bound;
    bound.launch = &launch;
    const int64_t grid = evalExtent(launch.grid, symbols_, what + " grid");
    if (grid < 1 || grid > std::numeric_limits<int32_t>::max())
      fail("{}: grid of {} blocks is out of range [1, 2^31)", what, grid);
    bound.grid = static_cast<uint32_t>(grid);
    checkKernelAbi(bundle, launch, what);
    for (const std::string &arg : launch.args)
      bound.args.push_back(bindArg(arg, *this, what));
    launches_.emplace(launch.name, std::move(bound));
  }
}

std::vector<std::pair<int32_t, std::vector<uint32_t>>>
PlanBinding::weightData(const TensorMap &weights) const {
  const TensorMap tensors = runPlanPrologue(*plan_, weights, path_);
  std::vector<std::pair<int32_t, std::vector<uint32_t>>> out;
  for (int32_t index : weightBuffers_) {
    const BoundBuffer &b = buffers_[static_cast<size_t>(index)];
    const std::string what =
        fmt::format("{}: buffer '{}'", path_, b.decl->name);
    const std::string name = b.decl->init.substr(8);
    auto it = tensors.find(name);
    if (it == tensors.end())
      fail("{}: no weight or prologue table '{}'", what, name);
    if (it->second.numel() != b.elements)
      fail("{}: tensor '{}' has {} elements, the plan declares {}", what, name,
           it->second.numel(), b.elements);
    out.emplace_back(index, words(it->second.data));
  }
  return out;
}

int32_t PlanBinding::bufferIndex(const std::string &name) const {
  auto it = bufferIndex_.find(name);
  if (it == bufferIndex_.end())
    fail("{}: unknown buffer '{}'", path_, name);
  return it->second;
}

const BoundLaunch &PlanBinding::launch(const std::string &name) const {
  auto it = launches_.find(name);
  if (it == launches_.end())
    fail("{}: unknown launch '{}'", path_, name);
  return it->second;
}

size_t PlanBinding::totalBytes() const {
  size_t total = 0;
  for (const BoundBuffer &b : buffers_)
    total += b.bytes;
  return total;
}

std::vector<std::pair<int32_t, size_t>> PlanBinding::poolBuffers() const {
  std::vector<std::pair<int32_t, size_t>> out;
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].decl->init == binding::kPoolTriples)
      out.emplace_back(static_cast<int32_t>(i),
                       static_cast<size_t>(buffers_[i].elements));
  return out;
}

void PlanBinding::writePool(int32_t buffer, const CandidateSet &candidates,
                            uint32_t *dst) const {
  const BoundBuffer &b = buffers_.at(static_cast<size_t>(buffer));
  if (b.decl->init != binding::kPoolTriples)
    fail("{}: buffer '{}' is not bound to the pool", path_, b.decl->name);
  if (static_cast<int64_t>(candidates.candidates.size()) != symbols_.at("N"))
    fail("{}: {} candidates for a binding of N = {}", path_,
         candidates.candidates.size(), symbols_.at("N"));
  if (b.elements != 3 * symbols_.at("N"))
    fail("{}: binding '{}' has {} elements, the plan declares {}", path_,
         b.decl->init, 3 * symbols_.at("N"), b.elements);
  // poolWords' words, gathered in place.
  gatherPool(candidates, symbols_.at("B"), dst);
}

void PlanBinding::releaseHostData() {
  for (BoundBuffer &b : buffers_)
    std::vector<uint32_t>().swap(b.data);
}

std::vector<Outcome>
PlanBinding::outcomes(const std::vector<int32_t> &status,
                      const std::vector<int32_t> &depth,
                      const std::vector<float> &logp) const {
  const size_t n = static_cast<size_t>(symbols_.at("N"));
  if (status.size() != n || depth.size() != n || logp.size() != n)
    fail("{}: outcome buffers have {}, {}, {} elements, expected N = {}", path_,
         status.size(), depth.size(), logp.size(), n);
  return outcomes(status.data(), depth.data(), logp.data());
}

std::vector<Outcome> PlanBinding::outcomes(const int32_t *status,
                                           const int32_t *depth,
                                           const float *logp) const {
  const size_t n = static_cast<size_t>(symbols_.at("N"));
  std::vector<Outcome> out(n);
  Outcome *to = out.data();
  // Pool position q holds candidate i (walked in tiles: PoolOrder.h).
  forEachPoolPosition(
      static_cast<int64_t>(n), symbols_.at("B"), [&](int64_t q, int64_t i) {
        if (status[q] < 0 || status[q] > 2 || depth[q] < 1)
          fail("{}: candidate {} has no valid outcome (status {}, depth {}): "
               "the plan did not finish it",
               path_, i, status[q], depth[q]);
        to[i].status = static_cast<ProofStatus>(status[q]);
        to[i].depth = depth[q];
        to[i].logp = logp[q];
      });
  return out;
}

ActionTrace PlanBinding::actions(const std::vector<int32_t> &words,
                                 const std::vector<Outcome> &outcomes) const {
  const size_t n = static_cast<size_t>(symbols_.at("N"));
  const size_t D = static_cast<size_t>(symbols_.at("ACTIONS"));
  if (D == 0 || words.size() != n * D || outcomes.size() != n)
    fail("{}: {} recorded action words for {} candidates, expected N x D = "
         "{} x {}",
         path_, words.size(), outcomes.size(), n, D);
  ActionTrace trace;
  trace.D = static_cast<int32_t>(D);
  trace.actions.assign(n * D, -1);
  // Pool position q holds candidate i (walked in tiles: PoolOrder.h).
  forEachPoolPosition(
      static_cast<int64_t>(n), symbols_.at("B"), [&](int64_t q, int64_t c) {
        const size_t i = static_cast<size_t>(c);
        const size_t depth =
            std::min(D, static_cast<size_t>(std::max(outcomes[i].depth, 0)));
        std::copy_n(words.begin() + static_cast<std::ptrdiff_t>(q) *
                                        static_cast<std::ptrdiff_t>(D),
                    depth,
                    trace.actions.begin() + static_cast<std::ptrdiff_t>(i * D));
      });
  return trace;
}

} // namespace proofc
