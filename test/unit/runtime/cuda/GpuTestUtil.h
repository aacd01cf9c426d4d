//===- GpuTestUtil.h - Driver-level helpers for the GPU tests ---*- C++ -*-===//
//
// GPU tests skip (GTEST_SKIP) when no CUDA driver or device is present, so
// the suite passes on CPU-only machines. Only compiled with the CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_GPUTESTUTIL_H
#define PROOFC_TEST_UNIT_CUDA_GPUTESTUTIL_H

#include "TestUtil.h"
#include "cuda/CudaBackend.h"
#include "cuda/CudaDriver.h"
#include "cuda/Nvrtc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

/// Skips the current test unless a CUDA device can be used.
#define PROOFC_REQUIRE_GPU()                                                   \
  do {                                                                         \
    std::string proofcWhyNot;                                                  \
    if (!::proofc::cudaDeviceAvailable(&proofcWhyNot))                         \
      GTEST_SKIP() << "no CUDA driver: " << proofcWhyNot;                      \
  } while (0)

namespace proofc::test {

/// Device 0's primary context, current for the test's lifetime.
class GpuContext {
public:
  GpuContext() : drv(CudaDriver::get()) {
    PROOFC_CU(drv, cuDeviceGet, &device, 0);
    PROOFC_CU(drv, cuDevicePrimaryCtxRetain, &ctx, device);
    PROOFC_CU(drv, cuCtxSetCurrent, ctx);
    PROOFC_CU(drv, cuDeviceGetAttribute, &major,
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    PROOFC_CU(drv, cuDeviceGetAttribute, &minor,
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  }
  ~GpuContext() {
    for (CUmodule m : modules)
      drv.cuModuleUnload(m);
    for (CUdeviceptr p : allocations)
      drv.cuMemFree(p);
    drv.cuDevicePrimaryCtxRelease(device);
  }

  std::string arch() const {
    return "sm_" + std::to_string(major) + std::to_string(minor);
  }

  CUmodule load(const std::string &cubin) {
    CUmodule m = nullptr;
    PROOFC_CU(drv, cuModuleLoadDataEx, &m, cubin.data(), 0, nullptr, nullptr);
    modules.push_back(m);
    return m;
  }

  CUfunction function(CUmodule m, const char *name) {
    CUfunction f = nullptr;
    PROOFC_CU(drv, cuModuleGetFunction, &f, m, name);
    return f;
  }

  /// A device copy of `data` (at least 4 bytes).
  template <typename T> CUdeviceptr upload(const std::vector<T> &data) {
    CUdeviceptr p = alloc(data.size() * sizeof(T));
    if (!data.empty())
      PROOFC_CU(drv, cuMemcpyHtoD, p, data.data(), data.size() * sizeof(T));
    return p;
  }

  CUdeviceptr alloc(size_t bytes) {
    CUdeviceptr p = 0;
    PROOFC_CU(drv, cuMemAlloc, &p, bytes < 4 ? 4 : bytes);
    allocations.push_back(p);
    return p;
  }

  template <typename T> std::vector<T> download(CUdeviceptr p, size_t n) {
    std::vector<T> out(n);
    PROOFC_CU(drv, cuMemcpyDtoH, out.data(), p, n * sizeof(T));
    return out;
  }

  CudaDriver &drv;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  int major = 0, minor = 0;
  std::vector<CUmodule> modules;
  std::vector<CUdeviceptr> allocations;
};

/// The test-name suffix of a CondMode parameter (`/native`, `/emulated`,
/// `/host`), for INSTANTIATE_TEST_SUITE_P.
inline std::string
condModeParamName(const ::testing::TestParamInfo<CondMode> &info) {
  return condModeName(info.param);
}

/// $PROOFC_TEST_BUNDLE's paths, else the build's compiled bundles that exist
/// (PROOFC_COMPILED_BUNDLES: one per schedule). A path named by
/// $PROOFC_TEST_BUNDLE is kept even when missing, so that the test loading
/// it fails rather than skips.
inline std::vector<std::string> compiledBundlePaths() {
  std::string list;
  if (const char *env = std::getenv("PROOFC_TEST_BUNDLE"); env && *env)
    list = env;
#ifdef PROOFC_COMPILED_BUNDLES
  else
    list = PROOFC_COMPILED_BUNDLES;
#endif
  std::vector<std::string> paths;
  std::istringstream words(list);
  for (std::string path; words >> path;)
    if (std::getenv("PROOFC_TEST_BUNDLE") || std::filesystem::exists(path))
      paths.push_back(path);
  return paths;
}

/// CUDA backend options for `mode` with two steps per graph iteration and a
/// kernel cache shared by the test binary's backends (later ones hit it).
inline CudaBackendOptions cachedOptionsFor(CondMode mode) {
  static TempDir cacheDir;
  CudaBackendOptions options;
  options.cond = mode;
  options.unroll = 2;
  options.cache.dir = cacheDir.path();
  options.cache.disabled = false;
  return options;
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_GPUTESTUTIL_H
