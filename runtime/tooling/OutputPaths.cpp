//===- OutputPaths.cpp - A run's destinations, checked before it starts ---===//
//
// checkOutputPaths (RunSession.h): every output a run will write is
// writable and distinct, and the flags that go together do, before
// anything slow happens. Apart from RunSession.cpp, which runs and writes.
//
//===----------------------------------------------------------------------===//
#include "tooling/RunSession.h"

#include "outputs/ProofFormats.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"
#include "support/OutputFiles.h"
#include "support/SameFile.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

void checkOutputPaths(const RunSessionOptions &options,
                      std::vector<CommandFile> inputs) {
  // What the run reads: no output may replace it (SameFile.h).
  inputs.push_back({options.weights, "weights", "--weights"});
  for (const char *name : {"train.tsv", "valid.tsv", "test.tsv", "rules.txt"})
    if (!options.data.empty())
      inputs.push_back({(std::filesystem::path(options.data) / name).string(),
                        std::string("dataset's ") + name, "--data"});
  // An MPI rank's shard goes to rank 0, not to a part (mpiRanks).
  if (options.shardCount > 0 && options.mpiRanks == 0) {
    if (options.part.empty())
      fail("--shard {}/{}: give --part FILE, where the shard's outcomes go "
           "(`proofc merge` combines the parts into the report and the "
           "outcomes)",
           options.shardIndex, options.shardCount);
    if (!options.report.empty() || !options.outcomes.empty())
      fail("--shard {}/{}: --report and --outcomes are written by `proofc "
           "merge` from every part; give --part FILE only",
           options.shardIndex, options.shardCount);
    checkWritable(options.part);
    if (!options.proofs.empty()) {
      // The shard's proofs part (ProofParts.h): `proofc merge --proofs`
      // writes the proofs file from every shard's.
      if (options.proofs == options.part || options.proofs == "-" ||
          sameFile(options.proofs, options.part, true, true))
        fail("--proofs {}: with --shard {}/{} it names the shard's proofs "
             "part, a file of its own beside --part (e.g. {}.proofs)",
             escapeForMessage(options.proofs), options.shardIndex,
             options.shardCount, escapeForMessage(options.part));
      parseProofFormat(options.proofsFormat, "--proofs-format");
      parseProofSelection(options.proofsOf, "--proofs-of");
      checkWritable(options.proofs);
    }
    checkOutputsApart({{options.part, "part", "--part"},
                       {options.proofs, "proofs part", "--proofs"}},
                      inputs);
    return;
  }
  if (!options.part.empty())
    fail("--part {}: a part is written only with --shard i/n",
         escapeForMessage(options.part));
  if (options.outcomeRows && options.mpiRanks == 0)
    fail("--part-outcomes: the outcome rows go to a part, written only with "
         "--shard i/n --part FILE (a whole run writes them with --outcomes)");
  // Two outputs reaching one file, or an input, through any path.
  const std::vector<CommandFile> outputs = {
      {options.report, "report", "--report"},
      {options.outcomes, "outcomes", "--outcomes"},
      {options.proofs, "proofs", "--proofs"}};
  checkOutputsApart(outputs, inputs);
  if (!options.proofs.empty()) {
    parseProofFormat(options.proofsFormat, "--proofs-format");
    parseProofSelection(options.proofsOf, "--proofs-of");
  }
  for (const CommandFile &o : outputs)
    if (!o.path.empty())
      checkWritable(o.path);
}

} // namespace proofc
