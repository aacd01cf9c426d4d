//===- PrologueEmulationTest.cpp - The device prologue, run on the CPU ----===//
//
// The device prologue minus the driver: schedulePrologue's steps (the ones
// DevicePrologue enqueues) executed with the kernels of
// runtime/src/cuda/kernels/prologue.cu compiled as C++ through the CUDA shim,
// at the schedule's own grid and block sizes, over host memory standing in
// for device memory (addresses are host pointers; scratch is a host array).
// Every output must equal runPlanPrologue's tensor bit for bit: on a
// hand-built plan with every op at odd sizes and random floats of every
// class, and on the prologue of the reference test bundle and of the bundles
// `proofc compile` writes, over real and random weights; fold_atom_layer's
// table must also equal a loop written from docs/bundle.md's index
// convention. The schedule's checks must give runPlanPrologue's messages. No
// GPU needed.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#include "cuda/kernels/prologue.cu"

#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "cuda/PrologueSchedule.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "runtime/cuda/PrologueTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#if PROOFC_HAVE_CUDA
#include "runtime/cuda/GpuTestUtil.h" // compiledBundlePaths()
#endif

#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <set>

namespace proofc::test {
namespace {

uint64_t addressOf(const void *p) { return reinterpret_cast<uintptr_t>(p); }

/// Host memory laid out as DevicePrologue's device memory: the weights, one
/// buffer per output, the scratch.
class EmulatedPrologue {
public:
  EmulatedPrologue(const GpuPlan &plan, const TensorMap &weights,
                   const std::vector<std::string> &outputs,
                   const std::string &bundlePath = "x.pcb") {
    std::map<std::string, AddressedTensor> addressed;
    for (const auto &[name, t] : weights) {
      // A zero-element tensor still has an address (as cuMemAlloc's).
      std::vector<float> &copy = memory_[name];
      copy = t.data;
      copy.resize(std::max<size_t>(copy.size(), 1));
      addressed[name] = AddressedTensor{addressOf(copy.data()), t.shape};
    }
    const ShapeMap shapes =
        prologueShapes(plan, shapeMapOf(weights), bundlePath);
    std::map<std::string, uint64_t> outputAddresses;
    for (const std::string &name : outputs) {
      // Poisoned: anything not written is seen.
      std::vector<float> &buffer = outputs_[name];
      buffer.assign(std::max<int64_t>(elementCount(shapes.at(name)), 1),
                    std::numeric_limits<float>::quiet_NaN());
      outputAddresses[name] = addressOf(buffer.data());
    }
    schedule_ = schedulePrologue(plan, addressed, outputAddresses, bundlePath);
    scratch_.assign(schedule_.scratchBytes / 4 + 1,
                    std::numeric_limits<float>::quiet_NaN());
  }

  static ShapeMap shapeMapOf(const TensorMap &weights) {
    ShapeMap shapes;
    for (const auto &[name, t] : weights)
      shapes[name] = t.shape;
    return shapes;
  }

  /// `atomLayerGrid` > 0: fold_atom_layer launched with that grid instead
  /// of the schedule's (its blocks then take several passes each).
  void run(unsigned atomLayerGrid = 0) {
    for (const PrologueStep &s : schedule_.steps) {
      float *dst = at(s.dst);
      const float *src = at(s.src);
      switch (s.kind) {
      case PrologueStep::Kind::Copy:
        std::memcpy(dst, src, static_cast<size_t>(s.elements) * 4);
        break;
      case PrologueStep::Kind::FoldColumns: {
        const float *weight = at(s.weight);
        const float *bias = s.hasBias ? at(s.bias) : nullptr;
        emu::launch(s.grid, s.block, [&] {
          proofc_prologue_fold_columns(dst, src, weight, bias, s.rows, s.out,
                                       s.in, s.colBegin, s.cols);
        });
        break;
      }
      case PrologueStep::Kind::Transpose:
        emu::launch(s.grid, s.block, [&] {
          proofc_prologue_transpose(dst, src, s.rows, s.cols);
        });
        break;
      case PrologueStep::Kind::Tf32Fragments:
        emu::launch(s.grid, s.block, [&] {
          proofc_prologue_tf32_fragments(dst, src, s.rows, s.cols);
        });
        break;
      case PrologueStep::Kind::F16Fragments:
        emu::launch(s.grid, s.block, [&] {
          proofc_prologue_f16_fragments(dst, src, s.rows, s.cols);
        });
        break;
      case PrologueStep::Kind::FoldAtomLayer: {
        const float *weight = at(s.weight);
        const float *args[4];
        for (int a = 0; a < 4; ++a)
          args[a] = at(s.args[a]);
        emu::launch(atomLayerGrid > 0 ? atomLayerGrid : s.grid, s.block, [&] {
          proofc_prologue_fold_atom_layer(dst, src, args[0], args[1], args[2],
                                          args[3], weight, s.elements / s.out,
                                          s.rows, s.consts, s.vars, s.argRows,
                                          s.cols, s.out, s.relu ? 1 : 0);
        });
        break;
      }
      }
    }
  }

  /// Output `name`'s elements.
  std::vector<float> output(const std::string &name, int64_t elements) const {
    const std::vector<float> &b = outputs_.at(name);
    return {b.begin(), b.begin() + elements};
  }
  const PrologueSchedule &schedule() const { return schedule_; }

private:
  float *at(const StepAddress &a) {
    if (a.scratch) {
      EXPECT_LT(a.value / 4, scratch_.size());
      EXPECT_EQ(a.value % 256, 0u);
      return scratch_.data() + a.value / 4;
    }
    return reinterpret_cast<float *>(static_cast<uintptr_t>(a.value));
  }

  std::map<std::string, std::vector<float>> memory_, outputs_;
  std::vector<float> scratch_;
  PrologueSchedule schedule_;
};

/// Runs `plan` both ways and compares every output bit for bit
/// (`atomLayerGrid`: EmulatedPrologue::run's).
void expectEmulationMatchesHost(const GpuPlan &plan, const TensorMap &weights,
                                const std::vector<std::string> &outputs,
                                const std::string &what,
                                unsigned atomLayerGrid = 0) {
  const TensorMap host = runPlanPrologue(plan, weights, "x.pcb");
  EmulatedPrologue device(plan, weights, outputs);
  device.run(atomLayerGrid);
  ASSERT_FALSE(outputs.empty()) << what;
  for (const std::string &name : outputs) {
    const Tensor &ref = host.at(name);
    expectSameBits(device.output(name, ref.numel()), ref,
                   what + ": tensor '" + name + "'");
  }
}

TEST(PrologueEmulation, EveryOpAtOddSizesIsBitIdenticalToTheHost) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const PrologueCase c = handBuiltPrologueCase(seed);
    expectEmulationMatchesHost(c.plan, c.weights, c.outputs,
                               "seed " + std::to_string(seed));
  }
}

TEST(PrologueEmulation, ScheduleWritesOutputsInPlaceAndIntermediatesToScratch) {
  const PrologueCase c = handBuiltPrologueCase(1);
  EmulatedPrologue device(c.plan, c.weights, c.outputs);
  const PrologueSchedule &s = device.schedule();
  std::map<std::string, const PrologueStep *> byTensor;
  for (const PrologueStep &step : s.steps) {
    EXPECT_FALSE(byTensor.count(step.tensor))
        << step.tensor << " written twice";
    byTensor[step.tensor] = &step;
  }
  // Intermediates: in scratch, 256-byte aligned apart (f2: 6 x 3 floats,
  // lin2.t: 8 x 24), and the plain copy lin.copy is no step at all.
  ASSERT_TRUE(byTensor.count("f2") && byTensor.count("lin2.t"));
  EXPECT_TRUE(byTensor["f2"]->dst.scratch);
  EXPECT_TRUE(byTensor["lin2.t"]->dst.scratch);
  EXPECT_EQ(s.scratchBytes, 256u + 768u);
  EXPECT_FALSE(byTensor.count("lin.copy"));
  EXPECT_TRUE(byTensor["lin.copy.tf32"]->src == byTensor["lin.tf32"]->src);
  // Outputs: computed in place; weights and the output copy moved whole.
  for (const char *name : {"fold.bias", "m.t", "f2.t", "lin2.t.tf32"})
    EXPECT_FALSE(byTensor.at(name)->dst.scratch) << name;
  EXPECT_EQ(byTensor.at("b")->kind, PrologueStep::Kind::Copy);
  EXPECT_EQ(byTensor.at("b.copy")->kind, PrologueStep::Kind::Copy);
  EXPECT_EQ(byTensor.at("lin")->elements, 16 * 24);
  // Nothing to compute for an empty table.
  EXPECT_FALSE(byTensor.count("fold.empty"));
  // Grid-stride launches of 256 threads, a grid that covers the elements.
  const PrologueStep &tf32 = *byTensor.at("lin.tf32");
  EXPECT_EQ(tf32.block, 256u);
  EXPECT_EQ(tf32.grid, 1u); // 16 * 24 / 2 fragments
  EXPECT_EQ(tf32.elements, 2 * 16 * 24);
  // f16: two halves a word of each part, one word an element.
  const PrologueStep &f16 = *byTensor.at("lin16.f16");
  EXPECT_EQ(f16.kind, PrologueStep::Kind::F16Fragments);
  EXPECT_EQ(f16.elements, 8 * 48);
  EXPECT_FALSE(f16.dst.scratch);
}

/// The host prologue's error for `c` is `message`, and the device's checks
/// (the shapes alone, as DevicePrologue and prologueShapes see them) give
/// the same.
void expectOneMessageFromEveryChecker(const PrologueCase &c,
                                      const std::string &message,
                                      const char *what) {
  const std::string host =
      errorOf([&] { runPlanPrologue(c.plan, c.weights, "x.pcb"); });
  EXPECT_EQ(host, message) << what;
  std::map<std::string, AddressedTensor> addressed;
  for (const auto &[name, t] : c.weights)
    addressed[name] = AddressedTensor{0x1000, t.shape};
  EXPECT_EQ(errorOf([&] { schedulePrologue(c.plan, addressed, {}, "x.pcb"); }),
            host)
      << what;
  EXPECT_EQ(errorOf([&] {
              prologueShapes(c.plan, EmulatedPrologue::shapeMapOf(c.weights),
                             "x.pcb");
            }),
            host)
      << what;
}

TEST(PrologueEmulation, ErrorsAreTheHostPrologues) {
  const PrologueCase good = handBuiltPrologueCase(4);
  struct Bad {
    const char *what;
    std::function<void(PrologueCase &)> edit;
    const char *message;
  };
  const std::vector<Bad> cases = {
      {"missing table", [](PrologueCase &c) { c.weights.erase("tab"); },
       "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): no tensor 'tab'"},
      {"missing bias", [](PrologueCase &c) { c.weights.erase("b"); },
       "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): no tensor 'b'"},
      {"table columns",
       [](PrologueCase &c) { c.weights["tab"].shape = {7, 13}; },
       "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): table 'tab' must "
       "be [rows, 7]"},
      {"narrow weight", [](PrologueCase &c) { c.weights["w"].shape = {6, 9}; },
       "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): weight 'w' must "
       "be [out, >= 10]"},
      {"bias size", [](PrologueCase &c) { c.weights["b"].shape = {4}; },
       "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): bias 'b' must be "
       "[5]"},
      {"transpose of 3-D",
       [](PrologueCase &c) { c.weights["m"].shape = {11, 3, 2}; },
       "x.pcb: plan.prologue[4] (copy -> m.t): transpose needs a 2-D tensor, "
       "'m' has 3 dimensions"},
      {"tf32 sizes", [](PrologueCase &c) { c.weights["lin"].shape = {12, 32}; },
       "x.pcb: plan.prologue[7] (tf32_fragments -> lin.tf32): 'lin' must be a "
       "2-D weight whose sizes are multiples of 8"},
      {"f16 sizes", [](PrologueCase &c) { c.weights["lin16"].shape = {8, 40}; },
       "x.pcb: plan.prologue[13] (f16_fragments -> lin16.f16): 'lin16' must "
       "be a 2-D weight [out, in] with out a multiple of 8 and in of 16"},
      {"dst shadows a weight",
       [](PrologueCase &c) { c.weights["m.t"] = c.weights["m"]; },
       "x.pcb: plan.prologue[4] (copy -> m.t): dst 'm.t' already names a "
       "tensor"},
      {"unknown op", [](PrologueCase &c) { c.plan.prologue[2].op = "gelu"; },
       "x.pcb: plan.prologue[2] (gelu -> fold.cols0): unknown prologue op"},
  };
  for (const Bad &bad : cases) {
    PrologueCase c = good;
    bad.edit(c);
    expectOneMessageFromEveryChecker(c, bad.message, bad.what);
  }
}

TEST(PrologueEmulation, DeviceOnlyErrorsNameTheTensor) {
  const PrologueCase c = handBuiltPrologueCase(5);
  std::map<std::string, AddressedTensor> addressed;
  for (const auto &[name, t] : c.weights)
    addressed[name] = AddressedTensor{0x1000, t.shape};
  auto scheduleError = [&](std::map<std::string, AddressedTensor> weights,
                           std::map<std::string, uint64_t> outputs) {
    return errorOf(
        [&] { schedulePrologue(c.plan, weights, outputs, "x.pcb"); });
  };
  auto nullWeight = addressed;
  nullWeight["w"].address = 0;
  EXPECT_EQ(scheduleError(nullWeight, {}),
            "x.pcb: weight 'w' has a null device address");
  auto emptyNull = addressed;
  emptyNull["empty"].address = 0; // no elements: no address needed
  EXPECT_EQ(scheduleError(emptyNull, {}), "(no error)");
  auto negative = addressed;
  negative["m"].shape = {11, -6};
  EXPECT_EQ(scheduleError(negative, {}),
            "x.pcb: weight 'm' has a negative size (-6)");
  EXPECT_EQ(scheduleError(addressed, {{"lin.tf32", 0}}),
            "x.pcb: output 'lin.tf32' has a null device address");
  EXPECT_EQ(scheduleError(addressed, {{"nope\n", 0x2000}}),
            "x.pcb: output 'nope\\x0a': no weight or prologue table of that "
            "name");
  auto huge = addressed;
  huge["tab"].shape = {int64_t{1} << 30, 7};
  huge["w"].shape = {int64_t{1} << 20, 12};
  huge["b"].shape = {int64_t{1} << 20};
  EXPECT_EQ(scheduleError(huge, {}),
            "x.pcb: plan.prologue[0] (fold_columns -> fold.bias): dst "
            "'fold.bias' has more than 2^40 elements");
}

/// fold_atom_layer's table written straight from docs/bundle.md's index
/// convention, independently of prologue_ops.h: row (p * N + x) * N + y,
/// N = V + E + 1; P(p) pred_proj's row p, zero for p = R + 2; A(x) the var
/// row V - 1 - x for x < V, the const row x - V below V + E, else zero; the
/// atom summed in float in that order, relu'd, then W's rows dotted with it
/// in double from 0 and rounded once.
std::vector<float> atomLayerReference(const Tensor &pred, const Tensor &c0,
                                      const Tensor &c1, const Tensor &v0,
                                      const Tensor &v1, const Tensor &W,
                                      bool relu) {
  const int64_t predRows = pred.shape[0], w = pred.shape[1];
  const int64_t E = c0.shape[0], V = v0.shape[0], out = W.shape[0];
  const int64_t N = V + E + 1;
  auto arg = [&](const Tensor &c, const Tensor &v, int64_t x,
                 int64_t f) -> float {
    if (x < V)
      return v.data[(V - 1 - x) * w + f];
    if (x < V + E)
      return c.data[(x - V) * w + f];
    return 0.0f;
  };
  std::vector<float> table;
  for (int64_t p = 0; p <= predRows; ++p)
    for (int64_t x = 0; x < N; ++x)
      for (int64_t y = 0; y < N; ++y)
        for (int64_t j = 0; j < out; ++j) {
          double acc = 0.0;
          for (int64_t f = 0; f < w; ++f) {
            float v = p < predRows ? pred.data[p * w + f] : 0.0f;
            v += arg(c0, v0, x, f);
            v += arg(c1, v1, y, f);
            if (relu && !(v > 0.0f))
              v = 0.0f;
            acc +=
                static_cast<double>(W.data[j * w + f]) * static_cast<double>(v);
          }
          table.push_back(static_cast<float>(acc));
        }
  return table;
}

TEST(PrologueEmulation, AtomLayerIsBitIdenticalToTheHostAndTheConvention) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const PrologueCase c = atomLayerPrologueCase(seed);
    const std::string what = "seed " + std::to_string(seed);
    expectEmulationMatchesHost(c.plan, c.weights, c.outputs, what);
    const TensorMap host = runPlanPrologue(c.plan, c.weights, "x.pcb");
    const Tensor &pred = host.at("pp");
    const int64_t N =
        c.weights.at("v0").shape[0] + c.weights.at("c0").shape[0] + 1;
    for (const char *name : {"al.relu", "al.linear"}) {
      const Tensor &table = host.at(name);
      EXPECT_EQ(table.shape, (std::vector<int64_t>{(pred.shape[0] + 1) * N * N,
                                                   c.weights.at("W").shape[0]}))
          << what << ": " << name;
      const bool relu = std::string(name) == "al.relu";
      expectSameBits(atomLayerReference(pred, c.weights.at("c0"),
                                        c.weights.at("c1"), c.weights.at("v0"),
                                        c.weights.at("v1"), c.weights.at("W"),
                                        relu),
                     table, what + ": '" + name + "' against the convention");
    }
    // Past the budget: an empty table, and nothing launched for it.
    EXPECT_EQ(host.at("al.empty").shape, (std::vector<int64_t>{0, 1})) << what;
    EmulatedPrologue device(c.plan, c.weights, c.outputs);
    int launches = 0;
    for (const PrologueStep &step : device.schedule().steps) {
      EXPECT_NE(step.tensor, "al.empty") << what;
      launches += step.kind == PrologueStep::Kind::FoldAtomLayer;
      // The tiled kernel's launch: its block, and a block a pass of rows
      // (these tables are under the cap).
      if (step.kind == PrologueStep::Kind::FoldAtomLayer) {
        EXPECT_EQ(step.block, prologue::kAtomLayerThreads) << what;
        const int64_t rows = host.at(step.tensor).shape[0];
        EXPECT_EQ(step.grid, (rows + prologue::kAtomLayerRowsPerPass - 1) /
                                 prologue::kAtomLayerRowsPerPass)
            << what << ": " << step.tensor;
      }
      if (step.tensor == "pp")
        EXPECT_TRUE(step.dst.scratch) << what;
    }
    EXPECT_EQ(launches, 2) << what;
  }
}

/// Blocks that take several passes each (the grid-stride loop, which
/// kinship's table reaches past kAtomLayerMaxGrid blocks): a pass must
/// start from its own rows' inputs and zeroed sums, whatever the last
/// pass of the block left in shared memory and registers.
TEST(PrologueEmulation, AtomLayerBlocksOfSeveralPassesAreBitIdentical) {
  for (uint64_t seed : {2u, 5u, 7u, 8u}) {
    const PrologueCase c = atomLayerPrologueCase(seed);
    for (unsigned grid : {1u, 3u})
      expectEmulationMatchesHost(c.plan, c.weights, c.outputs,
                                 "seed " + std::to_string(seed) + ", grid " +
                                     std::to_string(grid),
                                 grid);
  }
}

/// fold_atom_layer's grid: a block a pass, one at least (an empty table is
/// never launched, but the function stays total), kAtomLayerMaxGrid at most
/// (the grid-stride loop takes the rest), within every prologue launch's
/// cap.
TEST(PrologueEmulation, AtomLayerGridIsABlockAPassCapped) {
  const long long pass = prologue::kAtomLayerRowsPerPass,
                  most = prologue::kAtomLayerMaxGrid;
  EXPECT_LE(most, prologue::kPrologueMaxGrid);
  EXPECT_EQ(prologue::atomLayerGrid(0), 1);
  EXPECT_EQ(prologue::atomLayerGrid(1), 1);
  EXPECT_EQ(prologue::atomLayerGrid(pass), 1);
  EXPECT_EQ(prologue::atomLayerGrid(pass + 1), 2);
  EXPECT_EQ(prologue::atomLayerGrid(pass * most), most);
  EXPECT_EQ(prologue::atomLayerGrid(pass * most + 1), most);
  // kinship's table (V10, row 42's 381,951 rows of bench/proto's shape).
  EXPECT_EQ(prologue::atomLayerGrid(381951), most);
}

TEST(PrologueEmulation, AtomLayerErrorsAreTheHostPrologues) {
  const PrologueCase good = atomLayerPrologueCase(3);
  const int64_t w = good.weights.at("W").shape[1];
  struct Bad {
    const char *what;
    std::function<void(PrologueCase &)> edit;
    std::string message;
  };
  const std::string op = "x.pcb: plan.prologue[1] (fold_atom_layer -> al.relu)";
  const std::string ws = std::to_string(w);
  const std::vector<Bad> cases = {
      {"missing arg", [](PrologueCase &c) { c.weights.erase("c1"); },
       op + ": no tensor 'c1'"},
      {"missing weight", [](PrologueCase &c) { c.weights.erase("W"); },
       op + ": no tensor 'W'"},
      {"three args",
       [](PrologueCase &c) { c.plan.prologue[1].args.pop_back(); },
       op + ": fold_atom_layer needs 4 args (arg0_const, arg1_const, "
            "arg0_var, arg1_var), not 3"},
      {"pred_proj not 2-D",
       [](PrologueCase &c) { c.plan.prologue[1].table = "ba"; },
       op + ": table 'ba' must be [R+2, width] with R >= 0"},
      {"const width",
       [w](PrologueCase &c) { c.weights["c0"].shape = {2, w + 1}; },
       op + ": 'c0' must be [E, " + ws + "]"},
      {"arg1_const rows",
       [w](PrologueCase &c) { c.weights["c1"].shape = {99, w}; },
       op + ": 'c1' must be [" +
           std::to_string(good.weights.at("c0").shape[0]) + ", " + ws +
           "], as 'c0'"},
      {"odd var rows", [w](PrologueCase &c) { c.weights["v0"].shape = {3, w}; },
       op + ": 'v0' must be [V, " + ws + "] with V even and > 0"},
      {"no var rows", [w](PrologueCase &c) { c.weights["v0"].shape = {0, w}; },
       op + ": 'v0' must be [V, " + ws + "] with V even and > 0"},
      {"arg1_var rows",
       [w](PrologueCase &c) { c.weights["v1"].shape = {8, w}; },
       op + ": 'v1' must be [" +
           std::to_string(good.weights.at("v0").shape[0]) + ", " + ws +
           "], as 'v0'"},
      {"weight width",
       [w](PrologueCase &c) { c.weights["W"].shape = {2, w + 1}; },
       op + ": weight 'W' must be [out, " + ws + "]"},
  };
  for (const Bad &bad : cases) {
    PrologueCase c = good;
    bad.edit(c);
    for (auto &[name, t] : c.weights) // keep data and shape consistent
      t.data.resize(static_cast<size_t>(t.numel()));
    expectOneMessageFromEveryChecker(c, bad.message, bad.what);
  }
}

/// The bundles whose prologue is checked: the reference test bundle and, when
/// the build made them, those of `proofc compile`.
std::vector<std::pair<std::string, Bundle>> prologueBundles() {
  std::vector<std::pair<std::string, Bundle>> bundles;
  bundles.emplace_back("TestBundle.h", makeTestBundle(v10Program()));
#if PROOFC_HAVE_CUDA
  for (const std::string &path : compiledBundlePaths())
    bundles.emplace_back(path, readBundle(path));
#endif
  return bundles;
}

TEST(PrologueEmulation, BundleProloguesAreBitIdenticalToTheHost) {
  const std::vector<std::pair<std::string, Bundle>> bundles = prologueBundles();
  int compiled = 0;
  for (const char *dataset : {"countries_s1", "nations"}) {
    if (!std::filesystem::exists(dataDir(dataset)))
      continue;
    const Dataset ds = loadDataset(dataDir(dataset));
    for (const auto &[path, bundle] : bundles) {
      // Without the folded atom layer: countries' table is 103 MB, which
      // the shim's fibers took minutes to emulate (a barrier switches 256
      // of them, twice a pass of 4 rows). Its kernel is emulated on small
      // and wide shapes (AtomLayerIsBitIdenticalToTheHostAndTheConvention)
      // and run on kinship's real weights on the GPU (GpuDevicePrologue).
      GpuPlan plan = bundle.plan;
      plan.prologue.clear();
      std::set<std::string> folded;
      for (const PrologueOp &op : bundle.plan.prologue) {
        if (op.op == "fold_atom_layer")
          folded.insert(op.dst);
        else
          plan.prologue.push_back(op);
      }
      std::vector<std::string> outputs;
      for (const std::string &name : planWeightOutputs(bundle.plan))
        if (!folded.count(name))
          outputs.push_back(name);
      // Real weights where the shared folder has them, and random ones.
      std::vector<std::pair<std::string, TensorMap>> weightSets;
      if (std::filesystem::exists(weightsFile(dataset)))
        weightSets.emplace_back("real", readSafetensors(weightsFile(dataset)));
      weightSets.emplace_back("random", initWeights(bundle.program, ds, 7));
      for (const auto &[kind, weights] : weightSets)
        expectEmulationMatchesHost(plan, weights, outputs,
                                   path + " on " + dataset + " (" + kind +
                                       " weights)");
      compiled += path != "TestBundle.h";
    }
  }
  if (compiled == 0)
    std::cout << "[  NOTE    ] no compiled bundle (PROOFC_TEST_BUNDLE, or a "
                 "full build's v10-*.pcb): the test bundle only\n";
}

} // namespace
} // namespace proofc::test
