//===- RunSummary.h - The summary printed by proofc run ---------*- C++ -*-===//
#ifndef PROOFC_TOOLS_PROOFC_RUNSUMMARY_H
#define PROOFC_TOOLS_PROOFC_RUNSUMMARY_H

#include "proofc/runtime/Report.h"

#include <cstdio>

namespace proofc::driver {

/// A few lines: program, dataset, candidates, MRR/Hits per mode, outcome
/// counts, mean depth and time.
void printRunSummary(std::FILE *out, const ReportInputs &run);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_RUNSUMMARY_H
