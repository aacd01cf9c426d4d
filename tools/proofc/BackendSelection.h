//===- BackendSelection.h - --device to a runtime backend -------*- C++ -*-===//
#ifndef PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H
#define PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H

#include "proofc/runtime/Evaluation.h"

#include <memory>
#include <string>

namespace proofc::driver {

struct SelectedBackend {
  std::unique_ptr<Backend> backend;
  std::string
      device; ///< for the summary and the report, e.g. "cpu (2 threads)"
};

/// `device` is cpu, cuda or auto (auto: cuda when a device is usable, else
/// cpu); `threads` (0: all) is for the host backend, which uses at most
/// `slots` of them. The CUDA backend gets the bundle of `program`, compiled
/// in memory. Throws proofc::Error when the requested backend is not
/// available or the program does not compile.
SelectedBackend selectBackend(const std::string &device, int threads,
                              int slots, const std::string &program);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H
