//===- InitWeightsCommand.cpp - proofc init-weights -----------------------===//
//
// The tensors a program needs depend on the dataset (E and R size the
// embedding tables), so the dataset is loaded; the values come from the
// runtime's deterministic initWeights(program, dataset, seed), and the file's
// "__metadata__" from weightsMetadata (the program's name and the dataset's
// vocabulary fingerprint, which a run on another dataset is refused by).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ProgramLoader.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Safetensors.h"
#include "support/FileIO.h"
#include "support/SameFile.h"

#include <fmt/format.h>

using namespace proofc;

int driver::initWeightsCommand(const InitWeightsOptions &o) {
  checkWritable(o.output); // before the loading
  std::vector<CommandFile> inputs = {{o.program, "program", ""}};
  for (const char *name : {"train.tsv", "valid.tsv", "test.tsv", "rules.txt"})
    inputs.push_back(
        {o.data + "/" + name, std::string("dataset's ") + name, "--data"});
  checkOutputsApart({{o.output, "weights", "-o"}}, inputs);
  std::optional<ProgramSpec> program = loadProgramOrBundle(o.program);
  if (!program)
    return 1;
  Dataset dataset = loadDataset(o.data);
  TensorMap weights = initWeights(*program, dataset, o.seed);
  writeSafetensors(o.output, weights, weightsMetadata(*program, dataset));
  int64_t values = 0;
  for (const auto &entry : weights)
    values += entry.second.numel();
  // `-o -` owns stdout: the line goes to stderr.
  fmt::print(o.output == "-" ? stderr : stdout,
             "wrote {} tensors ({} values, seed {}) for @{} on {} to {}\n",
             weights.size(), values, o.seed, program->name, o.data, o.output);
  return 0;
}
