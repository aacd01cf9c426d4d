//===- MergeCommand.cpp - proofc merge ------------------------------------===//
//
// The parts of a sharded run become its report and outcomes: the runtime's
// mergeParts (Merge.h), the same code proofc-merge runs without MLIR.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "tooling/Merge.h"

#include <cstdio>

int proofc::driver::mergeCommand(const MergeOptions &o) {
  // `--report -` / `--outcomes -` / `--proofs -` own stdout: the text goes
  // to stderr.
  mergeParts(o, o.report == "-" || o.outcomes == "-" || o.proofs == "-"
                    ? stderr
                    : stdout);
  return 0;
}
