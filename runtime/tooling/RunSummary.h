//===- RunSummary.h - The human-readable summary of a run -------*- C++ -*-===//
//
// What `proofc run` and `proofc-run` print on stdout after a run: program and
// device, dataset, candidates, MRR/Hits per mode, outcome counts, mean depth
// and time; and for the CUDA backend one more line (device memory, kernel
// cache, graph launches). The machine-readable twin is the JSON report
// (Report.h, docs/report-schema.md).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RUNSUMMARY_H
#define PROOFC_RUNTIME_RUNSUMMARY_H

#include "outputs/Report.h"
#include "proofc/runtime/Evaluation.h"

#include <cstdio>

namespace proofc {

/// Program, dataset, candidates, metrics table, outcomes and time lines.
void printRunSummary(std::FILE *out, const ReportInputs &run);

/// The backend's summary line (Backend::info()), if it has one: "cuda
/// N bytes on device; kernels: ... ; K graph launches, ...".
void printBackendInfo(std::FILE *out, const Backend &backend);

} // namespace proofc

#endif // PROOFC_RUNTIME_RUNSUMMARY_H
