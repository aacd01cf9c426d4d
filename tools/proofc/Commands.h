//===- Commands.h - The subcommands of the proofc driver --------*- C++ -*-===//
//
// Each returns the process exit code; runtime failures propagate as
// proofc::Error and are printed by main.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_COMMANDS_H
#define PROOFC_TOOLS_PROOFC_COMMANDS_H

#include "DriverOptions.h"

namespace proofc::driver {

int runCommand(const RunOptions &options);
int initWeightsCommand(const InitWeightsOptions &options);
int weightsSpecCommand(const WeightsSpecOptions &options);
/// `proofc merge`: the runtime's mergeParts (docs/scale-out.md).
int mergeCommand(const MergeOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_COMMANDS_H
