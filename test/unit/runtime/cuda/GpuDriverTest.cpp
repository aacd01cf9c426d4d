//===- GpuDriverTest.cpp - Driver probe, NVRTC and the cache on a GPU -----===//
//
// Skipped ("no CUDA driver") where libcuda cannot load or no device exists.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "TestUtil.h"
#include "cuda/KernelCache.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "support/FileIO.h"

#include <iostream>

namespace proofc::test {
namespace {

TEST(GpuDriver, LoadsResolvesAndProbesConditionalNodes) {
  PROOFC_REQUIRE_GPU();
  CudaDriver &drv = CudaDriver::get();
  EXPECT_GE(drv.version(), 12030) << "conditional nodes need CUDA 12.3+";
  GpuContext gpu;
  char name[256] = {};
  PROOFC_CU(drv, cuDeviceGetName, name, 255, gpu.device);
  std::string why;
  const bool conditional = probeConditionalNodes(drv, gpu.ctx, &why);
  std::cout << "[ gpu      ] " << name << " " << gpu.arch() << ", driver "
            << drv.version() << ", conditional nodes: "
            << (conditional ? "yes" : "no (" + why + ")") << "\n";
  EXPECT_TRUE(conditional) << why; // CUDA 13 / driver 580 on the H100
  // A failing call names the call and the CUDA error.
  try {
    PROOFC_CU(drv, cuModuleGetFunction, nullptr, nullptr, "nope");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleGetFunction failed: CUDA_"),
              std::string::npos)
        << e.what();
  }
}

TEST(GpuNvrtc, CompilesTheKernelTemplatesForTheDevice) {
  PROOFC_REQUIRE_GPU();
  GpuContext gpu;
  const Nvrtc &nvrtc = Nvrtc::get();
  struct Case {
    std::string source;
    std::vector<std::string> options;
    const char *entries[3];
  };
  const Case cases[] = {
      {kernelTemplate("engine.cu"),
       {"-DPROOFC_A=6", "-DPROOFC_S=120"},
       {"proofc_engine", nullptr, nullptr}},
      {kernelTemplate("step.cu"),
       {"-DPROOFC_A=6", "-DPROOFC_S=120"},
       {"proofc_init", "proofc_advance", "proofc_advance_engine"}},
      {readFile(sourceDir() + "/test/unit/runtime/cuda/fixtures/policy.cu"),
       {"-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_DIM=64"},
       {"proofc_policy", nullptr, nullptr}},
  };
  for (const Case &c : cases) {
    std::string cubin = nvrtc.compileToCubin(c.source, "template.cu", c.options,
                                             gpu.major, gpu.minor);
    CUmodule m = gpu.load(cubin); // also resolves cudaGraphSetConditional
    for (const char *entry : c.entries)
      if (entry)
        EXPECT_NE(gpu.function(m, entry), nullptr) << entry;
  }
  // A compile error carries NVRTC's log (file and line) on one line.
  try {
    nvrtc.compileToCubin("extern \"C\" __global__ void k() { undeclared(); }",
                         "broken.cu", {}, gpu.major, gpu.minor);
    FAIL() << "no error";
  } catch (const Error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("NVRTC: broken.cu: compilation failed"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("undeclared"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  // A missing -DPROOFC_A is a clear #error.
  try {
    nvrtc.compileToCubin(kernelTemplate("engine.cu"), "engine.cu", {},
                         gpu.major, gpu.minor);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("compile with -DPROOFC_A"),
              std::string::npos);
  }
}

TEST(GpuKernelCache, ColdCompileThenWarmHitLoadsOnTheDevice) {
  PROOFC_REQUIRE_GPU();
  GpuContext gpu;
  TempDir dir;
  KernelCacheOptions options;
  options.dir = dir.path();
  const Nvrtc &nvrtc = Nvrtc::get();
  const std::string source = kernelTemplate("engine.cu");
  KernelKey key{source,
                {"-DPROOFC_A=6", "-DPROOFC_S=120"},
                gpu.arch(),
                "nvrtc " + nvrtc.version(),
                CudaDriver::get().version(),
                "test"};
  auto compile = [&] {
    return nvrtc.compileToCubin(source, "engine.cu", key.options, gpu.major,
                                gpu.minor);
  };
  KernelCache cold(options);
  std::string a = cold.get(key, compile);
  KernelCache warm(options);
  std::string b = warm.get(key, compile);
  EXPECT_EQ(a, b);
  EXPECT_EQ(cold.stats().misses, 1);
  EXPECT_EQ(warm.stats().hits, 1);
  EXPECT_EQ(warm.stats().misses, 0);
  std::cout << "[ cache    ] engine.cu cold compile "
            << cold.stats().compileSeconds << " s, warm load "
            << warm.stats().loadSeconds << " s\n";
  EXPECT_LT(warm.stats().loadSeconds, cold.stats().compileSeconds);
  CUmodule m = gpu.load(b);
  EXPECT_NE(gpu.function(m, "proofc_engine"), nullptr);
}

} // namespace
} // namespace proofc::test

#else // !PROOFC_HAVE_CUDA

TEST(GpuDriver, LoadsResolvesAndProbesConditionalNodes) {
  EXPECT_FALSE(proofc::cudaDeviceAvailable());
  GTEST_SKIP() << "no CUDA driver: built without the CUDA headers";
}

#endif // PROOFC_HAVE_CUDA
