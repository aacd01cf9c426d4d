//===- Nvrtc.cpp - NVRTC, loaded at run time
//-------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/Nvrtc.h"

#include "support/Fail.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace proofc {
namespace {

struct NvrtcSingleton {
  std::once_flag once;
  std::unique_ptr<Nvrtc> nvrtc;
  std::string error;
};

NvrtcSingleton &singleton() {
  static NvrtcSingleton s;
  return s;
}

} // namespace

Nvrtc::Nvrtc() {
  // nvrtc.h has no version macro; the library of this toolkit major comes
  // first (CUDA 13 here), then whatever "libnvrtc.so" is.
  std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so",
                                         "libnvrtc.so.12"};
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root) {
      candidates.push_back(std::string(root) + "/lib64/libnvrtc.so.13");
      candidates.push_back(std::string(root) + "/lib64/libnvrtc.so");
    }
  candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so.13");
  candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
  std::string errors;
  for (const std::string &path : candidates) {
    library_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_)
      break;
    errors += (errors.empty() ? "" : "; ") + std::string(::dlerror());
  }
  if (!library_)
    fail("NVRTC: cannot load libnvrtc ({}); set CUDA_HOME or "
         "LD_LIBRARY_PATH to the CUDA toolkit's lib64",
         errors);
#define PROOFC_NVRTC_RESOLVE(name)                                             \
  this->name =                                                                 \
      reinterpret_cast<decltype(this->name)>(::dlsym(library_, #name));        \
  if (!this->name)                                                             \
    fail("NVRTC: libnvrtc has no symbol {}", #name);
  PROOFC_NVRTC_SYMBOLS(PROOFC_NVRTC_RESOLVE)
#undef PROOFC_NVRTC_RESOLVE
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion", "libnvrtc");
  version_ = std::to_string(major) + "." + std::to_string(minor);
}

Nvrtc &Nvrtc::get() {
  NvrtcSingleton &s = singleton();
  std::call_once(s.once, [&] {
    try {
      s.nvrtc.reset(new Nvrtc());
    } catch (const Error &e) {
      s.error = e.what();
    }
  });
  if (!s.nvrtc)
    throw Error(s.error);
  return *s.nvrtc;
}

void Nvrtc::check(nvrtcResult result, const char *call,
                  const std::string &name) const {
  if (result != NVRTC_SUCCESS)
    fail("NVRTC: {}: {} failed: {}", name, call, nvrtcGetErrorString(result));
}

std::string Nvrtc::arch(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::vector<std::string> Nvrtc::implicitOptions(int major, int minor) {
  return {"-arch=" + arch(major, minor), "-std=c++17"};
}

std::string Nvrtc::compileToCubin(const std::string &source,
                                  const std::string &name,
                                  const std::vector<std::string> &options,
                                  int major, int minor) const {
  nvrtcProgram program = nullptr;
  check(nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr,
                           nullptr),
        "nvrtcCreateProgram", name);
  struct Destroy {
    const Nvrtc &n;
    nvrtcProgram &p;
    ~Destroy() { n.nvrtcDestroyProgram(&p); }
  } destroy{*this, program};

  std::vector<std::string> all = options;
  for (const std::string &o : implicitOptions(major, minor))
    all.push_back(o);
  std::vector<const char *> argv;
  for (const std::string &o : all)
    argv.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    log.resize(logSize);
    nvrtcGetProgramLog(program, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
    for (char &c : log) // the error is one line
      if (c == '\n')
        c = ' ';
  }
  if (compiled != NVRTC_SUCCESS)
    fail("NVRTC: {}: compilation failed ({}): {}", name,
         nvrtcGetErrorString(compiled), log.empty() ? "no log" : log);
  size_t size = 0;
  check(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize", name);
  std::string cubin(size, '\0');
  check(nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN", name);
  return cubin;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
