//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// IREE-style dynamic loading: libcuda.so.1 is dlopen'ed, cuGetProcAddress is
// the only symbol taken with dlsym, and every other entry point is resolved
// through it at the API version of the ABI that cuda.h declares for it: the
// symbol table lists each name with the version of its cudaTypedefs.h
// PFN_<name>_v<version> typedef, and a static_assert checks that this PFN type
// IS the type of the declaration used here. (Resolving everything at
// CUDA_VERSION is wrong: CUDA 13 added cuCtxSynchronize(CUcontext) while
// cuda.h still declares cuCtxSynchronize(void).) So calls get exactly the ABI
// of the declarations, e.g. CUDA 12.3+'s cuGraphAddNode with edge data.
// Nothing links against libcuda: a binary built with only the headers runs
// — and reports a clear error — on a machine without a driver.
//
// Only the CUDA sources include this header (it needs cuda.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_CUDADRIVER_H
#define PROOFC_RUNTIME_CUDA_CUDADRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <memory>
#include <mutex>
#include <string>

namespace proofc {

// Required entry points (name, version of the declared ABI).
// cuGetErrorName/String come first: every later failure message uses them.
#define PROOFC_CUDA_REQUIRED_SYMBOLS(X)                                        \
  X(cuGetErrorName, 6000)                                                      \
  X(cuGetErrorString, 6000)                                                    \
  X(cuInit, 2000)                                                              \
  X(cuDriverGetVersion, 2020)                                                  \
  X(cuDeviceGetCount, 2000)                                                    \
  X(cuDeviceGet, 2000)                                                         \
  X(cuDeviceGetName, 2000)                                                     \
  X(cuDeviceGetAttribute, 2000)                                                \
  X(cuDeviceTotalMem, 3020)                                                    \
  X(cuDevicePrimaryCtxRetain, 7000)                                            \
  X(cuDevicePrimaryCtxRelease, 11000)                                          \
  X(cuCtxSetCurrent, 4000)                                                     \
  X(cuCtxSynchronize, 2000)                                                    \
  X(cuCtxGetDevice, 2000)                                                      \
  X(cuPointerGetAttribute, 4000)                                               \
  X(cuMemGetInfo, 3020)                                                        \
  X(cuMemGetAddressRange, 3020)                                                \
  X(cuMemAlloc, 3020)                                                          \
  X(cuMemFree, 3020)                                                           \
  X(cuMemHostAlloc, 2020)                                                      \
  X(cuMemFreeHost, 2000)                                                       \
  X(cuMemcpyHtoD, 3020)                                                        \
  X(cuMemcpyDtoH, 3020)                                                        \
  X(cuMemcpyDtoHAsync, 3020)                                                   \
  X(cuMemcpyHtoDAsync, 3020)                                                   \
  X(cuMemcpyDtoDAsync, 3020)                                                   \
  X(cuMemsetD8, 3020)                                                          \
  X(cuMemsetD8Async, 3020)                                                     \
  X(cuModuleLoadDataEx, 2010)                                                  \
  X(cuModuleUnload, 2000)                                                      \
  X(cuModuleGetFunction, 2000)                                                 \
  X(cuModuleGetGlobal, 3020)                                                   \
  X(cuFuncGetAttribute, 2020)                                                  \
  X(cuFuncSetAttribute, 9000)                                                  \
  X(cuLinkCreate, 6050)                                                        \
  X(cuLinkAddData, 6050)                                                       \
  X(cuLinkComplete, 5050)                                                      \
  X(cuLinkDestroy, 5050)                                                       \
  X(cuLaunchKernel, 4000)                                                      \
  X(cuStreamCreate, 2000)                                                      \
  X(cuStreamDestroy, 4000)                                                     \
  X(cuStreamSynchronize, 2000)                                                 \
  X(cuStreamWaitEvent, 3020)                                                   \
  X(cuEventCreate, 2000)                                                       \
  X(cuEventDestroy, 4000)                                                      \
  X(cuEventRecord, 2000)                                                       \
  X(cuEventSynchronize, 2000)                                                  \
  X(cuEventQuery, 2000)                                                        \
  X(cuEventElapsedTime, 2000)                                                  \
  X(cuGraphCreate, 10000)                                                      \
  X(cuGraphDestroy, 10000)                                                     \
  X(cuGraphAddNode, 12030)                                                     \
  X(cuGraphExecDestroy, 10000)

// Entry points a driver may lack; a null pointer means "unsupported".
// Conditional nodes (12.3), and the device-updatable kernel nodes of the
// step policy's grid (12.4; GraphBuilder.cpp).
#define PROOFC_CUDA_OPTIONAL_SYMBOLS(X)                                        \
  X(cuGraphConditionalHandleCreate, 12030)                                     \
  X(cuGraphKernelNodeSetAttribute, 11000)                                      \
  X(cuGraphKernelNodeGetAttribute, 11000)                                      \
  X(cuGraphNodeSetParams, 12020)

// The graph calls that are made one at a time in the process
// (CudaDriver::instantiateGraph, uploadGraph, launchGraph say why): private
// members, so that no caller reaches them past the serialization. Required,
// then optional (cuGraphUpload: canUploadGraph()).
#define PROOFC_CUDA_SERIALIZED_REQUIRED_SYMBOLS(X)                             \
  X(cuGraphInstantiateWithFlags, 11040)                                        \
  X(cuGraphLaunch, 10000)
#define PROOFC_CUDA_SERIALIZED_OPTIONAL_SYMBOLS(X) X(cuGraphUpload, 11010)

class CudaDriver {
public:
  /// The process-wide driver: loads libcuda.so.1 and resolves every symbol
  /// once, calls cuInit(0). Throws proofc::Error ("CUDA driver: ...") when the
  /// library or a required symbol is missing or cuInit fails.
  static CudaDriver &get();
  /// Whether get() would succeed, without throwing; `why` gets the reason.
  static bool available(std::string *why = nullptr);

  /// Throws proofc::Error "<call> failed: <CUDA_ERROR_NAME> (<string>)" when
  /// `result` is not CUDA_SUCCESS.
  void check(CUresult result, const char *call) const;
  std::string errorName(CUresult result) const;

  int version() const { return version_; } ///< cuDriverGetVersion

  /// The graph calls that NVIDIA's libraries deadlock on under CUPTI's
  /// activity API (Nsight Systems, bench/proto/kernel_timeline.cpp) when
  /// two threads make them at once: cuGraphInstantiateWithFlags,
  /// cuGraphUpload and cuGraphLaunch, one at a time in the process. The
  /// stacks of two hangs show the lock order: an instantiation or an upload
  /// enters CUPTI's callback (taking its mutex) and then wants libcuda's
  /// lock for writing, while an instantiation or a launch holds that lock
  /// for reading and waits on CUPTI's mutex -- two device workers' setups
  /// instantiating together (bench/results/2026-12-04c-h200-prefetch, call
  /// A), and an upload against an instantiation and a launch
  /// (bench/results/2026-12-04e-h200-stacks, call A). Every graph of the
  /// runtime is instantiated, uploaded and launched through these. An
  /// instantiation takes well under a millisecond, an upload or a launch
  /// (enqueued, not waited for) microseconds, a few per block run against a
  /// run of milliseconds to seconds; the wait was not measured apart.
  CUresult instantiateGraph(CUgraphExec *exec, CUgraph graph,
                            unsigned long long flags);
  CUresult uploadGraph(CUgraphExec exec, CUstream stream);
  CUresult launchGraph(CUgraphExec exec, CUstream stream);
  /// Whether the driver has cuGraphUpload (11.1+).
  bool canUploadGraph() const { return cuGraphUpload != nullptr; }

#define PROOFC_CUDA_DECLARE(name, version) decltype(&::name) name = nullptr;
  PROOFC_CUDA_REQUIRED_SYMBOLS(PROOFC_CUDA_DECLARE)
  PROOFC_CUDA_OPTIONAL_SYMBOLS(PROOFC_CUDA_DECLARE)

  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

private:
  CudaDriver();
  void *library_ = nullptr;
  int version_ = 0;
  std::mutex graphCalls_; ///< instantiateGraph's, uploadGraph's, launchGraph's
  PROOFC_CUDA_SERIALIZED_REQUIRED_SYMBOLS(PROOFC_CUDA_DECLARE)
  PROOFC_CUDA_SERIALIZED_OPTIONAL_SYMBOLS(PROOFC_CUDA_DECLARE)
#undef PROOFC_CUDA_DECLARE
};

/// Calls driver.<fn>(args...) and throws a proofc::Error naming `fn` on
/// failure: PROOFC_CU(drv, cuMemAlloc, &ptr, bytes).
#define PROOFC_CU(driver, fn, ...) (driver).check((driver).fn(__VA_ARGS__), #fn)

/// A JIT error log (CU_JIT_ERROR_LOG_BUFFER) as one line for an error
/// message: its trailing newlines and NULs dropped, the others spaces.
std::string jitLogLine(const char *log);

/// The parameters of a conditional node (IF or WHILE) on `handle` in
/// `ctx` with one body graph, which cuGraphAddNode returns in
/// conditional.phGraph_out[0]: the runtime's graphs, the probe below and
/// the GPU tests build their loops with it.
CUgraphNodeParams conditionalNodeParams(CUgraphConditionalNodeType type,
                                        CUgraphConditionalHandle handle,
                                        CUcontext ctx);

/// The capability probe: whether this driver and device run conditional
/// graph nodes (IF/WHILE, CUDA 12.3+): builds, instantiates and launches a
/// graph with a WHILE node whose default value is 0 in `ctx` (current).
/// `why` gets the reason when not.
bool probeConditionalNodes(CudaDriver &driver, CUcontext ctx, std::string *why);

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_CUDADRIVER_H
