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
/// `proofc train ARGS`: replaces the process by the Python package's
/// trainer (`python3 -m proofc.training ARGS`, docs/training.md); returns
/// only by throwing proofc::Error when that cannot start.
[[noreturn]] void trainCommand(int argc, char **argv);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_COMMANDS_H
