//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2"), then every entry
// point through cuGetProcAddress at CUDA_VERSION. Only built with the CUDA
// headers (PROOFC_HAVE_CUDA).
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaDriver.h"

#include "support/Fail.h"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

namespace proofc {
namespace {

using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult *);

struct DriverSingleton {
  std::once_flag once;
  std::unique_ptr<CudaDriver> driver;
  std::string error;
};

DriverSingleton &singleton() {
  static DriverSingleton s;
  return s;
}

} // namespace

CudaDriver::CudaDriver() {
  library_ = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_)
    fail("CUDA driver: cannot load libcuda.so.1 ({}): no NVIDIA driver on "
         "this machine?",
         ::dlerror());
  auto getProc = reinterpret_cast<GetProcAddress>(
      ::dlsym(library_, "cuGetProcAddress_v2"));
  if (!getProc)
    fail("CUDA driver: libcuda.so.1 has no cuGetProcAddress_v2: the driver "
         "is older than CUDA 12.0");
  auto resolve = [&](const char *name, int version, void **slot,
                     bool required) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r =
        getProc(name, slot, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !*slot) {
      *slot = nullptr;
      if (required)
        fail("CUDA driver: no entry point {} at API version {} (driver too "
             "old?)",
             name, version);
    }
  };
  // The version must be that of the declaration's ABI (see the header).
#define PROOFC_CUDA_CHECK_ABI(name, version)                                   \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##version>,    \
                #name ": the listed version is not the declared ABI");
  PROOFC_CUDA_REQUIRED_SYMBOLS(PROOFC_CUDA_CHECK_ABI)
  PROOFC_CUDA_OPTIONAL_SYMBOLS(PROOFC_CUDA_CHECK_ABI)
  PROOFC_CUDA_SERIALIZED_REQUIRED_SYMBOLS(PROOFC_CUDA_CHECK_ABI)
  PROOFC_CUDA_SERIALIZED_OPTIONAL_SYMBOLS(PROOFC_CUDA_CHECK_ABI)
#undef PROOFC_CUDA_CHECK_ABI
#define PROOFC_CUDA_RESOLVE_REQUIRED(name, version)                            \
  resolve(#name, version, reinterpret_cast<void **>(&this->name), true);
#define PROOFC_CUDA_RESOLVE_OPTIONAL(name, version)                            \
  resolve(#name, version, reinterpret_cast<void **>(&this->name), false);
  PROOFC_CUDA_REQUIRED_SYMBOLS(PROOFC_CUDA_RESOLVE_REQUIRED)
  PROOFC_CUDA_OPTIONAL_SYMBOLS(PROOFC_CUDA_RESOLVE_OPTIONAL)
  PROOFC_CUDA_SERIALIZED_REQUIRED_SYMBOLS(PROOFC_CUDA_RESOLVE_REQUIRED)
  PROOFC_CUDA_SERIALIZED_OPTIONAL_SYMBOLS(PROOFC_CUDA_RESOLVE_OPTIONAL)
#undef PROOFC_CUDA_RESOLVE_REQUIRED
#undef PROOFC_CUDA_RESOLVE_OPTIONAL
  PROOFC_CU(*this, cuInit, 0);
  PROOFC_CU(*this, cuDriverGetVersion, &version_);
}

CudaDriver &CudaDriver::get() {
  DriverSingleton &s = singleton();
  std::call_once(s.once, [&] {
    try {
      s.driver.reset(new CudaDriver());
    } catch (const Error &e) {
      s.error = e.what();
    }
  });
  if (!s.driver)
    throw Error(s.error);
  return *s.driver;
}

bool CudaDriver::available(std::string *why) {
  try {
    get();
    return true;
  } catch (const Error &e) {
    if (why)
      *why = e.what();
    return false;
  }
}

std::string CudaDriver::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

CUresult CudaDriver::instantiateGraph(CUgraphExec *exec, CUgraph graph,
                                      unsigned long long flags) {
  std::lock_guard<std::mutex> lock(graphCalls_);
  return cuGraphInstantiateWithFlags(exec, graph, flags);
}

CUresult CudaDriver::uploadGraph(CUgraphExec exec, CUstream stream) {
  std::lock_guard<std::mutex> lock(graphCalls_);
  return cuGraphUpload(exec, stream);
}

CUresult CudaDriver::launchGraph(CUgraphExec exec, CUstream stream) {
  std::lock_guard<std::mutex> lock(graphCalls_);
  return cuGraphLaunch(exec, stream);
}

void CudaDriver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return;
  const char *text = nullptr;
  if (!cuGetErrorString || cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  fail("{} failed: {} ({})", call, errorName(result),
       text ? text : "no description");
}

std::string jitLogLine(const char *log) {
  std::string text(log);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

CUgraphNodeParams conditionalNodeParams(CUgraphConditionalNodeType type,
                                        CUgraphConditionalHandle handle,
                                        CUcontext ctx) {
  CUgraphNodeParams params{};
  params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = 1;
  params.conditional.ctx = ctx;
  return params;
}

bool probeConditionalNodes(CudaDriver &drv, CUcontext ctx, std::string *why) {
  auto no = [&](const std::string &reason) {
    if (why)
      *why = reason;
    return false;
  };
  if (!drv.cuGraphConditionalHandleCreate)
    return no("the driver has no cuGraphConditionalHandleCreate (needs CUDA "
              "12.3+)");
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::string reason;
  auto attempt = [&](CUresult r, const char *what) {
    if (r != CUDA_SUCCESS && reason.empty())
      reason = std::string(what) + " failed: " + drv.errorName(r);
    return r == CUDA_SUCCESS;
  };
  bool ok = attempt(drv.cuGraphCreate(&graph, 0), "cuGraphCreate");
  CUgraphConditionalHandle handle = 0;
  ok = ok && attempt(drv.cuGraphConditionalHandleCreate(
                         &handle, graph, ctx, 0, CU_GRAPH_COND_ASSIGN_DEFAULT),
                     "cuGraphConditionalHandleCreate");
  CUgraphNodeParams params =
      conditionalNodeParams(CU_GRAPH_COND_TYPE_WHILE, handle, ctx);
  CUgraphNode node = nullptr;
  ok = ok &&
       attempt(drv.cuGraphAddNode(&node, graph, nullptr, nullptr, 0, &params),
               "cuGraphAddNode(WHILE)");
  if (ok) {
    CUgraphNodeParams empty{};
    empty.type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUgraphNode bodyNode = nullptr;
    ok =
        attempt(drv.cuGraphAddNode(&bodyNode, params.conditional.phGraph_out[0],
                                   nullptr, nullptr, 0, &empty),
                "cuGraphAddNode(empty body)");
  }
  ok = ok && attempt(drv.instantiateGraph(&exec, graph, 0),
                     "cuGraphInstantiateWithFlags");
  ok = ok && attempt(drv.launchGraph(exec, nullptr), "cuGraphLaunch");
  ok = ok && attempt(drv.cuCtxSynchronize(), "cuCtxSynchronize");
  if (exec)
    drv.cuGraphExecDestroy(exec);
  if (graph)
    drv.cuGraphDestroy(graph);
  return ok ? true : no(reason);
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
