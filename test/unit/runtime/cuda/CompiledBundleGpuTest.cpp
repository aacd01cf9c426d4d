//===- CompiledBundleGpuTest.cpp - A bundle from `proofc compile` on a GPU ===//
//
// The compiler's output cannot be checked without a GPU, so these tests take
// bundles written by `proofc compile examples/v10.mlir --schedule ...`: those
// in $PROOFC_TEST_BUNDLE (paths separated by spaces), else those a full build
// makes (test/CMakeLists.txt, <build>/test/v10-{step,persistent}.pcb).
// Skipped without them or without a CUDA device:
//   - the generated PTX policy kernel `proofc_policy` of a step-schedule
//     bundle, launched exactly as the bundle's plan binds it (PlanBinding:
//     buffers, folded tables, args), on random-walk states of real datasets,
//     against HostPolicy and the host's selectAction: same action (up to
//     near-ties within rounding) and logp within 1e-4; inactive slots
//     untouched (the persistent kernel advances and derives too: it is
//     checked whole, below);
//   - each whole bundle run by CudaBackend against the host backend (spec
//     §7: >= 99.9% equal outcomes, every metric within 1e-3);
//   - a bundle with the step memo (persistent schedule) gives bit for bit
//     the same outcomes with the memo off, sized from the pool, and so small
//     (64 entries, or 1) that it fills and every key collides;
//   - --proofs on CUDA: each bundle records the actions of the host backend
//     on nations and countries_s3 (trained weights), every status and depth
//     is the host's, the proofs replayed from the CUDA trace are the host's
//     byte for byte, and so are the proofs files that `proofc-run --proofs`
//     writes on each backend (RunSession, both formats; a proof shows no
//     log-probability, which agrees only within spec §7's tolerance).
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#include <sstream>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "host/Engine.h"
#include "host/HostBackend.h"
#include "host/HostPolicy.h"
#include "outputs/ProofFormats.h"
#include "proofc/contract/kernel_abi.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "tooling/RunSession.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

namespace proofc::test {
namespace {

#define PROOFC_REQUIRE_COMPILED_BUNDLES(paths)                                 \
  std::vector<std::string> paths = compiledBundlePaths();                      \
  if (paths.empty())                                                           \
    GTEST_SKIP() << "no compiled bundle: set PROOFC_TEST_BUNDLE to outputs "   \
                    "of `proofc compile examples/v10.mlir -o v10.pcb`";

const KernelModule &moduleNamed(const Bundle &bundle, const std::string &name) {
  if (const KernelModule *m = findModule(bundle, name))
    return *m;
  throw Error("bundle has no module '" + name + "'");
}

class CompiledPolicyKernel : public ::testing::TestWithParam<const char *> {};

/// The bundle's step policy kernel ("score_select") on 4 x B states sampled
/// from `dataset` against HostPolicy.
void expectPolicyKernelMatchesHost(const std::string &path,
                                   const Bundle &bundle, const char *dataset) {
  const ProgramSpec &program = bundle.program;
  const ShapeParams &shape = program.shape;
  const size_t B = static_cast<size_t>(shape.B), A = shape.A, S = shape.S;
  const size_t W = 3 * A;

  Dataset ds = loadDataset(dataDir(dataset));
  TensorMap weights = readSafetensors(weightsFile(dataset));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  CandidateOptions opts;
  opts.queries = 1;
  opts.corruptions = 2;
  CandidateSet set = buildCandidates(ds, opts);
  EvalInputs inputs{program, ds, weights, set, false};
  PlanBinding binding(bundle, inputs, kb, path);
  HostPolicy host(program, weights, ds.numEntities(), ds.numRelations());

  // Every buffer of the plan, with its initial contents.
  GpuContext gpu;
  CudaDriver &drv = gpu.drv;
  std::vector<CUdeviceptr> buffers;
  for (const BoundBuffer &b : binding.buffers()) {
    CUdeviceptr p = gpu.alloc(b.bytes);
    PROOFC_CU(drv, cuMemsetD8, p, 0, b.bytes);
    if (!b.data.empty())
      PROOFC_CU(drv, cuMemcpyHtoD, p, b.data.data(), b.data.size() * 4);
    buffers.push_back(p);
  }
  auto bufferOf = [&](const std::string &name) {
    return buffers[binding.bufferIndex(name)];
  };

  const BoundLaunch &launch = binding.launch("score_select");
  const KernelModule &ptx = moduleNamed(bundle, launch.launch->module);
  ASSERT_EQ(ptx.format, "ptx");
  CUmodule module = gpu.load(ptx.source); // the driver JITs the PTX
  CUfunction fn = gpu.function(module, launch.launch->entry.c_str());
  // The buffers the kernel reads and writes, by its arguments' positions.
  auto argBuffer = [&](size_t i) {
    const BoundArg &a = launch.args.at(i);
    EXPECT_EQ(a.kind, BoundArg::Kind::Buffer) << "argument " << i;
    return buffers[a.buffer];
  };
  const size_t nargs = launch.args.size();
  // The step policy grid's words, where the kernel takes them: only when the
  // step sizes the policy grid on the device (choosePolicyGridResize), the
  // words and the list then end the signature (docs/gpu-kernels.md, "The
  // step policy grid").
  auto isBuffer = [&](size_t i, const std::string &name) {
    const BoundArg &a = launch.args.at(i);
    return a.kind == BoundArg::Kind::Buffer &&
           binding.buffers()[a.buffer].decl->name == name;
  };
  const bool takesGrid = nargs >= 2 && isBuffer(nargs - 2, "policy_grid");
  if (takesGrid)
    EXPECT_TRUE(isBuffer(nargs - 1, "policy_list"));
  for (size_t i = 0; i + (takesGrid ? 2 : 0) < nargs; ++i)
    EXPECT_FALSE(isBuffer(i, "policy_grid") || isBuffer(i, "policy_list"))
        << "argument " << i;
  // The outputs by name: the signature ends with the action rows and the
  // arrival counts (then the grid's words and list).
  const size_t tail = nargs - (takesGrid ? 2 : 0);
  CUdeviceptr guard = argBuffer(0), state = argBuffer(1),
              derived = argBuffer(2), count = argBuffer(3),
              slotCand = argBuffer(4), action = bufferOf("action"),
              actionLogp = bufferOf("action_logp");
  EXPECT_EQ(action, argBuffer(tail - 4));
  EXPECT_EQ(actionLogp, argBuffer(tail - 3));
  const int32_t one = 1;
  PROOFC_CU(drv, cuMemcpyHtoD, guard, &one, 4);
  if (takesGrid) {
    // Every slot's parts, as init leaves the grid before a run's first step.
    const int32_t everySlot = -1;
    PROOFC_CU(drv, cuMemcpyHtoD,
              argBuffer(nargs - 2) + 4 * proofc_abi::kPolicyListed, &everySlot,
              4);
  }

  // Kernel parameters as the CUDA backend passes them.
  std::vector<uint64_t> storage(nargs);
  std::vector<void *> params(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    const BoundArg &a = launch.args[i];
    if (a.kind == BoundArg::Kind::Buffer)
      std::memcpy(&storage[i], &buffers[a.buffer], 8);
    else if (a.kind == BoundArg::Kind::I32)
      std::memcpy(&storage[i], &a.i32, 4);
    else if (a.kind == BoundArg::Kind::F32)
      std::memcpy(&storage[i], &a.f32, 4);
    params[i] = &storage[i];
  }

  SampledStates sampled = sampleStates(ds, kb, shape, 4 * B, 4321);
  DerivedSet dset(kb, shape);
  int64_t checked = 0, nearTies = 0;
  double maxLogpDiff = 0;
  for (size_t first = 0; first + B <= sampled.size(); first += B) {
    std::vector<int32_t> hState(B * W), hDerived(B * S * W, 0), hCount(B),
        hCand(B);
    std::vector<std::vector<float>> logits(B);
    for (size_t b = 0; b < B; ++b) {
      const Atom *goals = sampled.states.data() + (first + b) * A;
      std::memcpy(&hState[b * W], goals, W * 4);
      derive(kb, goals, sampled.candidates[first + b], shape, dset);
      hCount[b] = dset.count;
      hCand[b] = b % 7 == 3 ? -1 : static_cast<int32_t>(b); // some inactive
      std::vector<float> parent =
          host.encode(std::vector<Atom>(goals, goals + A));
      std::vector<std::vector<float>> children;
      for (int32_t i = 0; i < dset.count; ++i) {
        std::memcpy(&hDerived[(b * S + i) * W], dset.state(i), W * 4);
        children.push_back(
            host.encode(std::vector<Atom>(dset.state(i), dset.state(i) + A)));
      }
      logits[b] = host.logits(parent, children);
    }
    std::vector<int32_t> sentinel(B, -7);
    PROOFC_CU(drv, cuMemcpyHtoD, state, hState.data(), hState.size() * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, derived, hDerived.data(), hDerived.size() * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, count, hCount.data(), B * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, slotCand, hCand.data(), B * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, action, sentinel.data(), B * 4);
    PROOFC_CU(drv, cuLaunchKernel, fn, launch.grid, 1, 1,
              static_cast<unsigned>(launch.launch->block), 1, 1,
              static_cast<unsigned>(launch.launch->sharedBytes), nullptr,
              params.data(), nullptr);
    PROOFC_CU(drv, cuCtxSynchronize);
    std::vector<int32_t> gAction = gpu.download<int32_t>(action, B);
    std::vector<float> gLogp = gpu.download<float>(actionLogp, B);

    for (size_t b = 0; b < B; ++b) {
      if (hCand[b] < 0) {
        EXPECT_EQ(gAction[b], -7) << "inactive slot " << b << " was written";
        continue;
      }
      Action want = selectAction(logits[b].data(), hCount[b]);
      ++checked;
      if (gAction[b] != want.index) {
        // Allowed only between logits equal within rounding (spec §7).
        ASSERT_GE(gAction[b], 0);
        ASSERT_LT(gAction[b], hCount[b]);
        float a = logits[b][gAction[b]], w = logits[b][want.index];
        EXPECT_NEAR(a, w, 1e-4f * std::max(1.f, std::fabs(w)))
            << dataset << ": state " << first + b << " chose " << gAction[b]
            << " not " << want.index;
        ++nearTies;
        continue;
      }
      double diff = std::fabs(double(gLogp[b]) - want.logp);
      maxLogpDiff = std::max(maxLogpDiff, diff);
      EXPECT_LT(diff, 1e-4)
          << dataset << ": state " << first + b << " k=" << hCount[b];
    }
  }
  std::cout << "[ ptx      ] " << dataset << ": " << checked
            << " states, near-ties " << nearTies << ", max |dlogp| "
            << maxLogpDiff << "\n";
  EXPECT_GT(checked, 0);
  EXPECT_LE(nearTies, checked / 100);
}

TEST_P(CompiledPolicyKernel, MatchesHostPolicy) {
  PROOFC_REQUIRE_GPU();
  PROOFC_REQUIRE_COMPILED_BUNDLES(paths);
  if (!std::filesystem::exists(dataDir(GetParam())))
    GTEST_SKIP() << "dataset " << GetParam() << " not present";
  // Every step-schedule bundle's policy kernel (a "score_select" launch):
  // scripts/gpu-check.sh passes one with the grid sized on the device too.
  // A policy module that links slot.cu (proofc compile --advance-in-policy)
  // advances the slots it selects for, so it neither loads nor runs alone:
  // CompiledBundle's tests check such a bundle whole against the host.
  int checkedBundles = 0;
  for (const std::string &path : paths) {
    const Bundle bundle = readBundle(path);
    for (const Launch &l : bundle.plan.launches) {
      if (l.name != "score_select")
        continue;
      if (advancesInPolicy(bundle, l)) {
        std::cout << "[ ptx      ] " << path
                  << ": the policy advances (links slot.cu), checked whole\n";
        continue;
      }
      SCOPED_TRACE(path);
      expectPolicyKernelMatchesHost(path, bundle, GetParam());
      ++checkedBundles;
    }
  }
  if (checkedBundles == 0)
    GTEST_SKIP() << "no step-schedule bundle (proofc compile --schedule step) "
                    "among PROOFC_TEST_BUNDLE's";
}

INSTANTIATE_TEST_SUITE_P(Datasets, CompiledPolicyKernel,
                         ::testing::Values("kinship", "umls", "nations"));

#define PROOFC_REQUIRE_KINSHIP()                                               \
  if (!std::filesystem::exists(dataDir("kinship")))                            \
    GTEST_SKIP() << "dataset kinship not present";

TEST(CompiledBundle, RunsLikeTheHostBackend) {
  PROOFC_REQUIRE_GPU();
  PROOFC_REQUIRE_COMPILED_BUNDLES(paths);
  PROOFC_REQUIRE_KINSHIP();
  const TrainedWorkload w = trainedWorkload("kinship", 40);
  for (const std::string &path : paths) {
    SCOPED_TRACE(path);
    Bundle bundle = readBundle(path);
    // The host runs each bundle's own program (they may differ).
    EvalInputs inputs{bundle.program, w.ds, w.weights, w.set, false};
    BackendTimings ht, gt;
    std::vector<Outcome> host = HostBackend().run(inputs, ht);
    CudaBackendOptions options;
    options.cache.disabled = true;
    CudaBackend backend(bundle, path, options);
    std::vector<Outcome> gpuOut = backend.run(inputs, gt);
    ASSERT_EQ(gpuOut.size(), host.size());
    int64_t same = 0;
    for (size_t i = 0; i < host.size(); ++i)
      same += gpuOut[i].status == host[i].status &&
              gpuOut[i].depth == host[i].depth;
    double agreement = double(same) / double(host.size());
    std::cout << "[ bundle   ] " << path << ": kinship: " << host.size()
              << " candidates, agree " << agreement << ", cond "
              << condModeName(backend.runInfo().cond) << ", run "
              << gt.runSeconds << "s (host " << ht.runSeconds << "s), steps "
              << gt.steps << "\n";
    EXPECT_GE(agreement, 0.999);
    Metrics a = computeMetrics(w.set, host), b = computeMetrics(w.set, gpuOut);
    EXPECT_NEAR(a.both.mrr, b.both.mrr, 1e-3);
    EXPECT_NEAR(a.both.hits1, b.both.hits1, 1e-3);
    EXPECT_NEAR(a.both.hits3, b.both.hits3, 1e-3);
    EXPECT_NEAR(a.both.hits10, b.both.hits10, 1e-3);
  }
}

bool hasStepMemo(const Bundle &bundle) {
  for (const BufferDecl &b : bundle.plan.buffers)
    for (const std::string &factor : b.elements.factors)
      if (factor == "MEMO")
        return true;
  return false;
}

/// Runs `test` on each of `paths`' bundles that has the step memo (the path
/// in the failure trace); skips the test when none has it.
void forEachStepMemoBundle(
    const std::vector<std::string> &paths,
    const std::function<void(const std::string &, const Bundle &)> &test) {
  int tested = 0;
  for (const std::string &path : paths) {
    const Bundle bundle = readBundle(path);
    if (!hasStepMemo(bundle))
      continue;
    SCOPED_TRACE(path);
    ++tested;
    test(path, bundle);
  }
  if (tested == 0)
    GTEST_SKIP() << "no bundle with the step memo among " << paths.size();
}

TEST(CompiledBundle, StepMemoChangesNoOutcome) {
  PROOFC_REQUIRE_GPU();
  PROOFC_REQUIRE_COMPILED_BUNDLES(paths);
  PROOFC_REQUIRE_KINSHIP();
  const TrainedWorkload w = trainedWorkload("kinship", 20);
  forEachStepMemoBundle(paths, [&](const std::string &path,
                                   const Bundle &bundle) {
    EvalInputs inputs{bundle.program, w.ds, w.weights, w.set, false};
    auto runWith = [&](int64_t memoEntries) {
      CudaBackendOptions options;
      options.memoEntries = memoEntries;
      BackendTimings t;
      std::vector<Outcome> out =
          CudaBackend(bundle, path, options).run(inputs, t);
      std::cout << "[ memo     ] " << path << ": entries " << memoEntries
                << ", run " << t.runSeconds << "s\n";
      return out;
    };
    const std::vector<Outcome> off = runWith(0);
    for (int64_t entries : {int64_t{-1}, int64_t{64}, int64_t{1}}) {
      SCOPED_TRACE(entries);
      const std::vector<Outcome> on = runWith(entries);
      ASSERT_EQ(on.size(), off.size());
      int64_t differ = 0;
      for (size_t i = 0; i < off.size(); ++i)
        differ += on[i].status != off[i].status ||
                  on[i].depth != off[i].depth ||
                  std::memcmp(&on[i].logp, &off[i].logp, sizeof(float)) != 0;
      EXPECT_EQ(differ, 0) << "of " << off.size() << " candidates";
    }
  });
}

/// The step memo keys a relevant step by its candidate, on the device:
/// RelevantSteps (TestUtil.h) says how a step shared among its candidates
/// would show. Each compiled bundle with the memo, the memo at its auto
/// size and off, equals the host (its own memo off) bit for bit.
TEST(CompiledBundle, RelevantStepsAreTheCandidatesOwn) {
  PROOFC_REQUIRE_GPU();
  PROOFC_REQUIRE_COMPILED_BUNDLES(paths);
  TempDir dir;
  const RelevantSteps w = relevantSteps(dir);
  const Dataset &ds = w.ds;
  const CandidateSet &set = w.set;
  forEachStepMemoBundle(
      paths, [&](const std::string &path, const Bundle &bundle) {
        const TensorMap weights = initWeights(bundle.program, ds, 1);
        EvalInputs inputs{bundle.program, ds, weights, set, false};
        BackendTimings t;
        const std::vector<Outcome> host =
            HostBackend(HostBackendOptions{0, 0}).run(inputs, t);
        for (int64_t entries : {int64_t{-1}, int64_t{0}}) {
          SCOPED_TRACE(entries);
          CudaBackendOptions options;
          options.memoEntries = entries;
          expectSameOutcomes(CudaBackend(bundle, path, options).run(inputs, t),
                             host);
        }
      });
}

/// The proofs file a run of `backend` writes (RunSession::writeOutputs, as
/// `proofc-run --proofs FILE --proofs-format FORMAT`) for the first 30 test
/// queries of `dataset` with 20 corruptions and its trained weights.
std::string writtenProofs(const ProgramSpec &program, Backend &backend,
                          const std::string &dataset, const char *format) {
  TempDir dir;
  RunSessionOptions o = sessionOptions(dataset, 30);
  o.corruptions = 20;
  o.proofs = dir.file("proofs");
  o.proofsFormat = format;
  RunSession session(program, backend, "", o);
  std::FILE *sink = std::tmpfile();
  session.writeOutputs(session.evaluate(), sink);
  std::fclose(sink);
  return readFile(o.proofs);
}

TEST(CompiledBundle, ProofsEqualTheHostsByteForByte) {
  PROOFC_REQUIRE_GPU();
  PROOFC_REQUIRE_COMPILED_BUNDLES(paths);
  for (const char *dataset : {"nations", "countries_s3"}) {
    if (!std::filesystem::exists(dataDir(dataset)))
      GTEST_SKIP() << "dataset " << dataset << " not present";
    const Dataset ds = loadDataset(dataDir(dataset));
    const TensorMap weights = readSafetensors(weightsFile(dataset));
    CandidateOptions opts;
    opts.queries = 30;
    opts.corruptions = 20;
    const CandidateSet set = buildCandidates(ds, opts);
    for (const std::string &path : paths) {
      SCOPED_TRACE(std::string(dataset) + " " + path);
      Bundle bundle = readBundle(path);
      BackendTimings t;
      ActionTrace hostTrace, gpuTrace;
      EvalInputs hostInputs{bundle.program, ds, weights, set, false};
      hostInputs.actions = &hostTrace;
      const std::vector<Outcome> host = HostBackend().run(hostInputs, t);
      CudaBackend backend(bundle, path);
      EvalInputs inputs{bundle.program, ds, weights, set, false};
      inputs.poolId = 1;
      // A run without the recording, then one with it: the backend sets
      // out.actions up anew (its size differs), then again without.
      const std::vector<Outcome> plain = backend.run(inputs, t);
      inputs.actions = &gpuTrace;
      const std::vector<Outcome> gpu = backend.run(inputs, t);
      inputs.actions = nullptr;
      EXPECT_EQ(backend.run(inputs, t).size(), plain.size());
      ASSERT_EQ(gpu.size(), host.size());
      ASSERT_EQ(gpuTrace.actions.size(), hostTrace.actions.size());
      int64_t differ = 0, proved = 0;
      for (size_t i = 0; i < host.size(); ++i) {
        EXPECT_EQ(gpu[i].status, plain[i].status) << "candidate " << i;
        EXPECT_EQ(gpu[i].depth, plain[i].depth) << "candidate " << i;
        EXPECT_EQ(gpu[i].status, host[i].status) << "candidate " << i;
        EXPECT_EQ(gpu[i].depth, host[i].depth) << "candidate " << i;
        EXPECT_NEAR(gpu[i].logp, host[i].logp, 1e-4) << "candidate " << i;
        proved += host[i].status == ProofStatus::Proved;
      }
      for (size_t i = 0; i < hostTrace.actions.size(); ++i)
        differ += gpuTrace.actions[i] != hostTrace.actions[i];
      EXPECT_EQ(differ, 0) << "recorded actions differ from the host's";
      EXPECT_GT(proved, 0);
      for (ProofFormat format : {ProofFormat::Json, ProofFormat::Prolog}) {
        const std::string a =
            proofsFile(format, ProofSelection::All, ds, false,
                       bundle.program.shape, set, host, hostTrace);
        const std::string b =
            proofsFile(format, ProofSelection::All, ds, false,
                       bundle.program.shape, set, gpu, gpuTrace);
        expectSameText(a, b, "the proofs of each backend's own run");
      }
      // The files as `proofc-run --proofs` writes them (RunSession, each
      // backend with its own outcomes): byte for byte the same.
      for (const char *format : {"json", "prolog"}) {
        HostBackend hostBackend;
        CudaBackend cudaBackend(bundle, path);
        const std::string fromHost =
            writtenProofs(bundle.program, hostBackend, dataset, format);
        const std::string fromGpu =
            writtenProofs(bundle.program, cudaBackend, dataset, format);
        EXPECT_GT(fromHost.size(), 100u) << format;
        EXPECT_TRUE(fromHost == fromGpu)
            << format << ": the proofs files of the host and CUDA runs differ";
        expectSameText(fromHost, fromGpu, "the written proofs files");
      }
    }
  }
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
