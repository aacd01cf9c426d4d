//===- ModuleLoader.cpp - the modules' cubins, compiled and loaded
//----------===//
//
// Every module's cubin, all at once: from the disk kernel cache, else
// NVRTC (CUDA C++) or the driver's PTX JIT, linking the relocatable
// modules it names (slot.cu into the persistent policy kernel); then each
// cubin loaded. A cold program waits for the slowest module, not for all:
// each module's own time is reported (module_compile_seconds).
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "cuda/Nvrtc.h"
#include "support/Fail.h"

#include <exception>
#include <future>
#include <thread>

namespace proofc {

namespace {

std::string oneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

} // namespace

std::string CudaRunner::compileModule(const KernelModule &m,
                                      KernelCache &cache) {
  KernelKey key;
  key.code = m.source;
  key.arch = arch_;
  key.driverVersion = dev_.drv.version();
  key.proofcVersion = PROOFC_VERSION;
  const std::string name = path_ + ": module '" + m.name + "'";
  if (m.format == "cuda") {
    const Nvrtc &nvrtc = Nvrtc::get();
    key.options = m.options;
    for (const std::string &o : Nvrtc::implicitOptions(major_, minor_))
      key.options.push_back(o);
    key.compilerVersion = "nvrtc " + nvrtc.version();
    return cache.get(key, [&] {
      return nvrtc.compileToCubin(m.source, name, m.options, major_, minor_);
    });
  }
  key.compilerVersion = "ptx-jit";
  // Modules linked in: relocatable NVRTC cubins; their sources and options
  // are part of the key.
  std::vector<const KernelModule *> linked;
  for (const std::string &l : m.link) {
    const KernelModule &c = moduleNamed(l);
    linked.push_back(&c);
    key.code += "\n// link " + c.name + "\n" + c.source;
    for (const std::string &o : relocatableOptions(c))
      key.options.push_back(c.name + ": " + o);
  }
  if (!linked.empty())
    key.compilerVersion += " + nvrtc " + Nvrtc::get().version();
  return cache.get(key, [&] {
    // NVRTC compiles the linked modules while the driver JITs the PTX.
    std::vector<std::future<std::string>> objects;
    for (const KernelModule *c : linked)
      objects.push_back(std::async(std::launch::async, [this, c] {
        return Nvrtc::get().compileToCubin(
            c->source, path_ + ": module '" + c->name + "'",
            relocatableOptions(*c), major_, minor_);
      }));
    return linkPtx(m.source, name, objects);
  });
}

const KernelModule &CudaRunner::moduleNamed(const std::string &name) const {
  if (const KernelModule *m = findModule(bundle_, name))
    return *m;
  fail("{}: no module '{}'", path_, name); // the bundle verifier checks
}

std::vector<std::string>
CudaRunner::relocatableOptions(const KernelModule &m) const {
  std::vector<std::string> options = m.options;
  options.push_back("-rdc=true");
  return options;
}

bool CudaRunner::isLinked(const std::string &name) const {
  return isLinkedModule(bundle_, name);
}

std::string
CudaRunner::linkPtx(const std::string &ptx, const std::string &name,
                    std::vector<std::future<std::string>> &objects) {
  CudaDriver &drv = dev_.drv;
  std::vector<char> log(16384, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
  CUlinkState state = nullptr;
  PROOFC_CU(drv, cuLinkCreate, 2, opts, values, &state);
  struct Destroy {
    CudaDriver &d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{drv, state};
  CUresult r = drv.cuLinkAddData(
      state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()), ptx.size() + 1,
      name.c_str(), 0, nullptr, nullptr);
  std::vector<std::string> cubins;
  for (std::future<std::string> &object : objects)
    cubins.push_back(object.get()); // rethrows an NVRTC error
  for (size_t i = 0; r == CUDA_SUCCESS && i < cubins.size(); ++i)
    r = drv.cuLinkAddData(state, CU_JIT_INPUT_CUBIN,
                          const_cast<char *>(cubins[i].data()),
                          cubins[i].size(), name.c_str(), 0, nullptr, nullptr);
  void *cubin = nullptr;
  size_t size = 0;
  if (r == CUDA_SUCCESS)
    r = drv.cuLinkComplete(state, &cubin, &size);
  if (r != CUDA_SUCCESS)
    fail("{}: PTX JIT failed: {}: {}", name, drv.errorName(r),
         oneLine(log.data()));
  return std::string(static_cast<const char *>(cubin), size);
}

void CudaRunner::loadModules() {
  KernelCache cache(options_.cache);
  CudaDriver &drv = dev_.drv;
  const Clock::time_point start = Clock::now();
  const size_t n = bundle_.modules.size();
  std::vector<std::string> cubins(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<double> seconds(n, -1);
  auto compileOne = [&](size_t i) {
    if (isLinked(bundle_.modules[i].name))
      return; // compiled into the module that links it
    try {
      const Clock::time_point begin = Clock::now();
      // The PTX JIT links in the calling thread's context.
      PROOFC_CU(drv, cuCtxSetCurrent, dev_.ctx);
      cubins[i] = compileModule(bundle_.modules[i], cache);
      seconds[i] = secondsSince(begin);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  for (size_t i = 1; i < n; ++i)
    workers.emplace_back(compileOne, i);
  if (n > 0)
    compileOne(0);
  for (std::thread &w : workers)
    w.join();
  for (const std::exception_ptr &e : errors) // the first module's error
    if (e)
      std::rethrow_exception(e);

  for (size_t i = 0; i < n; ++i) {
    const KernelModule &m = bundle_.modules[i];
    if (isLinked(m.name))
      continue;
    std::vector<char> log(16384, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(
                                      static_cast<uintptr_t>(log.size()))};
    CUmodule module = nullptr;
    CUresult r =
        drv.cuModuleLoadDataEx(&module, cubins[i].data(), 2, opts, values);
    if (r != CUDA_SUCCESS)
      fail("{}: module '{}': cuModuleLoadDataEx failed: {}: {}", path_, m.name,
           drv.errorName(r), oneLine(log.data()));
    dev_.modules.push_back(module);
    modules_[m.name] = module;
  }
  info_.cache = cache.stats();
  for (size_t i = 0; i < n; ++i)
    if (seconds[i] >= 0)
      info_.moduleCompileSeconds[bundle_.modules[i].name] = seconds[i];
  info_.moduleSeconds = secondsSince(start);
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
