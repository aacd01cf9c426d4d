//===- WeightsSpecCommand.cpp - proofc weights-spec -----------------------===//
//
// The weights contract as JSON, for code that writes weights without proofc
// (a training script): every tensor the program needs on the dataset (name,
// shape, dtype: expectedTensors, the table checkWeights applies) and the
// "__metadata__" such a file should carry (weightsMetadata, what
// `proofc init-weights` writes). Schema "proofc-weights-spec", version 1,
// docs/weights.md; one tensor per line.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ProgramLoader.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

using namespace proofc;

namespace {

/// A tensor as one line of JSON: {"name": ..., "shape": [...], "dtype": ...}.
std::string tensorLine(const TensorSpec &tensor) {
  return fmt::format("{{\"name\": {}, \"shape\": [{}], \"dtype\": {}}}",
                     nlohmann::json(tensor.name).dump(),
                     fmt::join(tensor.shape, ", "),
                     nlohmann::json(tensor.dtype).dump());
}

} // namespace

int driver::weightsSpecCommand(const WeightsSpecOptions &o) {
  std::optional<ProgramSpec> program = loadProgramOrBundle(o.program);
  if (!program)
    return 1;
  Dataset dataset = loadDataset(o.data);
  const std::vector<TensorSpec> tensors = expectedTensors(*program, dataset);

  std::string text = "{\n";
  text += "  \"schema\": \"proofc-weights-spec\",\n";
  text += "  \"version\": 1,\n";
  text +=
      fmt::format("  \"program\": {},\n", nlohmann::json(program->name).dump());
  text += fmt::format("  \"entities\": {},\n", dataset.numEntities());
  text += fmt::format("  \"relations\": {},\n", dataset.numRelations());
  text += "  \"metadata\": {";
  bool first = true;
  for (const auto &[key, value] : weightsMetadata(*program, dataset)) {
    text +=
        fmt::format("{}\n    {}: {}", first ? "" : ",",
                    nlohmann::json(key).dump(), nlohmann::json(value).dump());
    first = false;
  }
  text += "\n  },\n";
  text += "  \"tensors\": [";
  for (size_t i = 0; i < tensors.size(); ++i)
    text +=
        fmt::format("{}\n    {}", i == 0 ? "" : ",", tensorLine(tensors[i]));
  text += tensors.empty() ? "]\n}\n" : "\n  ]\n}\n";
  fmt::print("{}", text);
  return 0;
}
