//===- GpuDevicePrologueTest.cpp - The plan's weight prologue on a GPU ----===//
//
// DevicePrologue over weights uploaded to the device, against
// runPlanPrologue on the same weights: every output bit for bit, on the
// hand-built plan (every op at odd sizes, random floats of every class) and
// fold_atom_layer's (random small sizes, with and without relu), on
// the reference test bundle's and the compiled bundles' prologues over the
// shared folder's real weights, across runs of one object on two streams
// (scratch reused, then grown), with the kernel cache hit by a second
// object; a bad weight is the host prologue's error, before any work, and
// an output buffer too small for its tensor is an error, not an overrun.
// And the fold's premise on this GPU: the FP64 tensor core's steps
// (m16n8k16, m8n8k4) are FMA chains in ascending order, bit for bit.
// Skipped without a CUDA device.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "cuda/CompileTiers.h"
#include "cuda/DevicePrologue.h"
#include "cuda/Nvrtc.h"
#include "cuda/PlanBinding.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "runtime/cuda/PrologueTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#include <cmath>
#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {

/// A GPU context, a kernel cache in a temporary directory and a stream.
class GpuDevicePrologue : public ::testing::Test {
protected:
  void SetUp() override {
    PROOFC_REQUIRE_GPU();
    gpu_ = std::make_unique<GpuContext>();
    KernelCacheOptions options;
    options.dir = cacheDir_.path();
    cache_ = std::make_unique<KernelCache>(options);
    for (CUstream &s : streams_)
      PROOFC_CU(gpu_->drv, cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  }
  void TearDown() override {
    if (!gpu_)
      return;
    for (CUstream s : streams_)
      if (s)
        gpu_->drv.cuStreamDestroy(s);
  }

  std::unique_ptr<DevicePrologue> makePrologue() {
    return std::make_unique<DevicePrologue>(gpu_->drv, *cache_, gpu_->major,
                                            gpu_->minor, "x.pcb");
  }

  /// Uploads `weights`, runs `prologue` on `stream` into fresh output
  /// buffers, and compares every output with runPlanPrologue's.
  void expectMatchesHost(DevicePrologue &prologue, const GpuPlan &plan,
                         const TensorMap &weights,
                         const std::vector<std::string> &outputs,
                         CUstream stream, const std::string &what) {
    const TensorMap host = runPlanPrologue(plan, weights, "x.pcb");
    std::map<std::string, DeviceTensor> device;
    for (const auto &[name, t] : weights)
      device[name] = DeviceTensor{gpu_->upload(t.data), t.shape};
    std::map<std::string, CUdeviceptr> buffers;
    for (const std::string &name : outputs) {
      const size_t n = static_cast<size_t>(host.at(name).numel());
      buffers[name] = gpu_->upload(std::vector<uint32_t>(
          std::max<size_t>(n, 1), 0x7fc00000u)); // NaN: unwritten shows
    }
    // cuMemcpyHtoD from pageable memory may return before the DMA lands,
    // and a non-blocking stream does not wait for the legacy stream.
    PROOFC_CU(gpu_->drv, cuCtxSynchronize);
    prologue.run(plan, device, buffers, stream);
    PROOFC_CU(gpu_->drv, cuStreamSynchronize, stream);
    for (const std::string &name : outputs) {
      const Tensor &ref = host.at(name);
      expectSameBits(gpu_->download<float>(buffers[name],
                                           static_cast<size_t>(ref.numel())),
                     ref, what + ": tensor '" + name + "'");
    }
  }

  TempDir cacheDir_;
  std::unique_ptr<GpuContext> gpu_;
  std::unique_ptr<KernelCache> cache_;
  CUstream streams_[2] = {nullptr, nullptr};
};

TEST_F(GpuDevicePrologue, EveryOpAtOddSizesIsBitIdenticalToTheHost) {
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  for (uint64_t seed : {1u, 2u, 3u}) {
    const PrologueCase c = handBuiltPrologueCase(seed);
    expectMatchesHost(*prologue, c.plan, c.weights, c.outputs, streams_[0],
                      "seed " + std::to_string(seed));
  }
}

TEST_F(GpuDevicePrologue, AtomLayerIsBitIdenticalToTheHost) {
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  // Seeds 7 and 8: widths and outputs past one 64-wide tile.
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const PrologueCase c = atomLayerPrologueCase(seed);
    expectMatchesHost(*prologue, c.plan, c.weights, c.outputs, streams_[0],
                      "seed " + std::to_string(seed));
  }
}

// The quick tier's prologue (cuda/CompileTiers.h: a cold setup's first
// calls run it) makes the same bits: every op's rounding is explicit
// (prologue_ops.h's __dadd_rn, __fsub_rn, ...), so no optimization level
// may change it.
TEST_F(GpuDevicePrologue, TheQuickTiersPrologueIsBitIdenticalToo) {
  const std::string cubin =
      DevicePrologue::compileCubin(*cache_, gpu_->drv.version(), gpu_->major,
                                   gpu_->minor, "x.pcb", {kQuickTierOption});
  DevicePrologue prologue(gpu_->drv, cubin, "x.pcb");
  for (uint64_t seed : {1u, 2u, 3u}) {
    const PrologueCase c = handBuiltPrologueCase(seed);
    expectMatchesHost(prologue, c.plan, c.weights, c.outputs, streams_[0],
                      "quick, seed " + std::to_string(seed));
  }
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const PrologueCase c = atomLayerPrologueCase(seed);
    expectMatchesHost(prologue, c.plan, c.weights, c.outputs, streams_[0],
                      "quick, atom layer seed " + std::to_string(seed));
  }
}

/// A double of random sign and significand, the exponent in [-e, e];
/// `floatBits`: only a float's 24 significant bits, so that products are
/// exact in double, as the fold's are.
double randomDouble(SplitMix64 &rng, int e, bool floatBits) {
  uint64_t mantissa = rng.next() & ((uint64_t{1} << 52) - 1);
  if (floatBits)
    mantissa &= ~((uint64_t{1} << 29) - 1);
  const uint64_t r = rng.next();
  const int exponent = static_cast<int>(r % (2 * e + 1)) - e;
  const uint64_t bits =
      (r >> 63) << 63 | static_cast<uint64_t>(1023 + exponent) << 52 | mantissa;
  double x;
  std::memcpy(&x, &bits, 8);
  return x;
}

/// The premise of the fold on the FP64 tensor core (prologue.cu's
/// mmaF64m16n8k16 from sm_90, mmaF64m8n8k4 from sm_80): on this GPU a step
/// gives every output the bits of the FMA chain c = fma(A[r][k], B[k][n], c)
/// over its k in ascending order, which is the host's sum. A table
/// compared bit for bit would not show another order: double sums that
/// differ in their last bits almost never round to different floats. So
/// each step this GPU has is compared in double, on random tiles of
/// float-precision operands (the fold's) and of double ones, with
/// exponents near and far apart; the fragments are read back into
/// matrices with the layout prologue.cu's comments give, so a misread
/// layout fails too.
TEST_F(GpuDevicePrologue, Fp64MmaIsAnAscendingFmaChain) {
  if (gpu_->major < 8)
    GTEST_SKIP() << "no FP64 tensor core below sm_80: the fold sums with "
                    "FMAs there";
  const std::string source = DevicePrologue::source() + R"(
extern "C" __global__ void proofc_test_mma(const double *a, const double *b,
                                           double *c, int tiles, int k) {
  const int lane = threadIdx.x % 32;
  const int tile = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (tile >= tiles)
    return; // whole warps: the block is a multiple of 32
  const int f = tile * 32 + lane;
  double cf[4], af[8], bf[4];
  for (int i = 0; i < 4; ++i) {
    cf[i] = c[f * 4 + i];
    bf[i] = b[f * 4 + i];
  }
  for (int i = 0; i < 8; ++i)
    af[i] = a[f * 8 + i];
#if PROOFC_ATOM_LAYER_MMA == 16
  if (k == 16)
    mmaF64m16n8k16(cf, af, bf);
#endif
  if (k == 4)
    mmaF64m8n8k4(cf[0], cf[1], af[0], bf[0]);
  for (int i = 0; i < 4; ++i)
    c[f * 4 + i] = cf[i];
}
)";
  const CUmodule module = gpu_->load(Nvrtc::get().compileToCubin(
      source, "prologue_mma_test.cu", {}, gpu_->major, gpu_->minor));
  const CUfunction fn = gpu_->function(module, "proofc_test_mma");
  constexpr int kTiles = 1 << 13;
  SplitMix64 rng(29);
  std::vector<int> shapes = {4};
  if (gpu_->major >= 9)
    shapes.push_back(16);
  for (const int K : shapes)
    for (const bool floatBits : {true, false})
      for (const int e : {2, 30}) {
        // A lane's fragments (g = l / 4, t = l % 4): for K = 16, a[i] =
        // A[g + 8 (i % 2)][t + 4 (i / 2)], b[i] = B[t + 4 i][g], c[i] =
        // C[g + 8 (i / 2)][2 t + i % 2]; for K = 4, a[0] = A[g][t],
        // b[0] = B[t][g], c[i < 2] = C[g][2 t + i] (the rest untouched).
        std::vector<double> a(kTiles * 32 * 8), b(kTiles * 32 * 4),
            c(kTiles * 32 * 4);
        for (double &x : a)
          x = randomDouble(rng, e, floatBits);
        for (double &x : b)
          x = randomDouble(rng, e, floatBits);
        for (double &x : c)
          x = randomDouble(rng, e + 8, false);
        CUdeviceptr da = gpu_->upload(a), db = gpu_->upload(b),
                    dc = gpu_->upload(c);
        int tiles = kTiles, k = K;
        void *args[] = {&da, &db, &dc, &tiles, &k};
        PROOFC_CU(gpu_->drv, cuLaunchKernel, fn, kTiles / 4, 1, 1, 128, 1, 1, 0,
                  nullptr, args, nullptr);
        PROOFC_CU(gpu_->drv, cuCtxSynchronize);
        const std::vector<double> d = gpu_->download<double>(dc, c.size());
        int64_t differ = 0, outputs = 0;
        for (int tile = 0; tile < kTiles; ++tile) {
          double A[16][16], B[16][8];
          for (int l = 0; l < 32; ++l) {
            const int g = l / 4, t = l % 4, f = tile * 32 + l;
            for (int i = 0; i < (K == 16 ? 8 : 1); ++i)
              A[g + 8 * (i % 2)][t + 4 * (i / 2)] = a[f * 8 + i];
            for (int i = 0; i < (K == 16 ? 4 : 1); ++i)
              B[t + 4 * i][g] = b[f * 4 + i];
          }
          for (int l = 0; l < 32; ++l) {
            const int g = l / 4, t = l % 4, f = tile * 32 + l;
            for (int i = 0; i < 4; ++i) {
              double want = c[f * 4 + i];
              if (K == 16 || i < 2) {
                const int r = K == 16 ? g + 8 * (i / 2) : g,
                          n = K == 16 ? 2 * t + i % 2 : 2 * t + i;
                for (int kk = 0; kk < K; ++kk)
                  want = std::fma(A[r][kk], B[kk][n], want);
                ++outputs;
              }
              differ += std::memcmp(&want, &d[f * 4 + i], 8) != 0;
            }
          }
        }
        EXPECT_EQ(differ, 0) << "m" << (K == 16 ? 16 : 8) << "n8k" << K << ", "
                             << (floatBits ? "float" : "double")
                             << "-precision operands, exponents within +-" << e
                             << ": of " << outputs << " outputs";
      }
}

TEST_F(GpuDevicePrologue, BundleProloguesOnRealWeightsAreBitIdentical) {
  std::vector<std::pair<std::string, Bundle>> bundles;
  bundles.emplace_back("TestBundle.h", makeTestBundle(v10Program()));
  for (const std::string &path : compiledBundlePaths())
    bundles.emplace_back(path, readBundle(path));
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  int checked = 0;
  for (const char *dataset : {"countries_s1", "kinship", "wn18rr"}) {
    if (!std::filesystem::exists(weightsFile(dataset)))
      continue;
    const TensorMap weights = readSafetensors(weightsFile(dataset));
    for (const auto &[path, bundle] : bundles) {
      expectMatchesHost(*prologue, bundle.plan, weights,
                        planWeightOutputs(bundle.plan), streams_[checked % 2],
                        path + " on " + dataset);
      ++checked;
    }
  }
  if (checked == 0)
    GTEST_SKIP() << "no weights in " << sharedDir();
}

TEST_F(GpuDevicePrologue, RunsAgainOnAnotherStreamAndGrowsItsScratch) {
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  const PrologueCase small = handBuiltPrologueCase(8);
  // The same scratch from the other stream, then a plan whose intermediates
  // need more (every dst an intermediate but the last one's).
  expectMatchesHost(*prologue, small.plan, small.weights, small.outputs,
                    streams_[0], "first run");
  expectMatchesHost(*prologue, small.plan, handBuiltPrologueCase(9).weights,
                    small.outputs, streams_[1], "second stream");
  expectMatchesHost(*prologue, small.plan, small.weights,
                    {"f2.t", "lin2.t.tf32", "lin.copy.tf32"}, streams_[1],
                    "larger scratch");
  // A second object compiles nothing: the cubin comes from the cache.
  const KernelCacheStats before = cache_->stats();
  std::unique_ptr<DevicePrologue> again = makePrologue();
  EXPECT_EQ(cache_->stats().hits, before.hits + 1);
  EXPECT_EQ(cache_->stats().misses, before.misses);
  expectMatchesHost(*again, small.plan, small.weights, small.outputs,
                    streams_[0], "cached module");
}

TEST_F(GpuDevicePrologue, BadWeightsAreTheHostErrorBeforeAnyWork) {
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  PrologueCase c = handBuiltPrologueCase(10);
  c.weights["w"].shape = {6, 9};
  const std::string host =
      errorOf([&] { runPlanPrologue(c.plan, c.weights, "x.pcb"); });
  std::map<std::string, DeviceTensor> device;
  for (const auto &[name, t] : c.weights)
    device[name] = DeviceTensor{gpu_->upload(t.data), t.shape};
  EXPECT_EQ(errorOf([&] { prologue->run(c.plan, device, {}, streams_[0]); }),
            host);
  EXPECT_NE(host.find("x.pcb: plan.prologue[0] (fold_columns -> fold.bias): "
                      "weight 'w' must be [out, >= 10]"),
            std::string::npos)
      << host;
  // The object is still usable.
  const PrologueCase good = handBuiltPrologueCase(11);
  expectMatchesHost(*prologue, good.plan, good.weights, good.outputs,
                    streams_[0], "after an error");
}

TEST_F(GpuDevicePrologue, AnOutputTooLargeForItsBufferIsAnError) {
  std::unique_ptr<DevicePrologue> prologue = makePrologue();
  const PrologueCase c = handBuiltPrologueCase(12);
  std::map<std::string, DeviceTensor> device;
  for (const auto &[name, t] : c.weights)
    device[name] = DeviceTensor{gpu_->upload(t.data), t.shape};
  // lin.tf32 is 2 * 16 * 24 floats; its buffer has room for 4.
  const std::string e = errorOf([&] {
    prologue->run(c.plan, device, {{"lin.tf32", gpu_->alloc(16)}}, streams_[0]);
  });
  EXPECT_EQ(e.rfind("x.pcb: output 'lin.tf32' needs 3072 bytes, its device "
                    "allocation has ",
                    0),
            0u)
      << e;
}

} // namespace
} // namespace proofc::test

#else // !PROOFC_HAVE_CUDA

TEST(GpuDevicePrologue, EveryOpAtOddSizesIsBitIdenticalToTheHost) {
  GTEST_SKIP() << "built without the CUDA headers";
}

#endif // PROOFC_HAVE_CUDA
