//===- Nvrtc.h - NVRTC, loaded at run time ----------------------*- C++ -*-===//
//
// The CUDA C++ modules of a bundle (the kernel templates) are compiled at run
// time with NVRTC for the device's exact architecture (a cubin, so no driver
// JIT is involved). libnvrtc is dlopen'ed like libcuda: a build needs only
// nvrtc.h. Only the CUDA sources include this header.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_NVRTC_H
#define PROOFC_RUNTIME_CUDA_NVRTC_H

#include <nvrtc.h>

#include <string>
#include <vector>

namespace proofc {

#define PROOFC_NVRTC_SYMBOLS(X)                                                \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcVersion)                                                              \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcGetCUBINSize)                                                         \
  X(nvrtcGetCUBIN)

class Nvrtc {
public:
  /// The process-wide NVRTC: tries libnvrtc.so.<major of nvrtc.h>,
  /// libnvrtc.so, then $CUDA_HOME/lib64 and /usr/local/cuda/lib64. Throws
  /// proofc::Error ("NVRTC: ...") when none loads or a symbol is missing.
  static Nvrtc &get();

  /// "major.minor" of the loaded library.
  const std::string &version() const { return version_; }

  /// Compiles CUDA C++ `source` (`name` in messages) to a cubin for
  /// sm_<major><minor>, with `options` plus -arch and -std=c++17. Throws
  /// proofc::Error "NVRTC: <name>: compilation failed: <log>".
  std::string compileToCubin(const std::string &source, const std::string &name,
                             const std::vector<std::string> &options, int major,
                             int minor) const;

  /// The options compileToCubin adds (part of the cache key).
  static std::vector<std::string> implicitOptions(int major, int minor);

  /// "sm_<major><minor>": the architecture compiled for, as -arch and the
  /// kernel cache's key name it.
  static std::string arch(int major, int minor);

  Nvrtc(const Nvrtc &) = delete;
  Nvrtc &operator=(const Nvrtc &) = delete;

private:
  Nvrtc();
  void check(nvrtcResult result, const char *call,
             const std::string &name) const;

#define PROOFC_NVRTC_DECLARE(name) decltype(&::name) name = nullptr;
  PROOFC_NVRTC_SYMBOLS(PROOFC_NVRTC_DECLARE)
#undef PROOFC_NVRTC_DECLARE
  void *library_ = nullptr;
  std::string version_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_NVRTC_H
