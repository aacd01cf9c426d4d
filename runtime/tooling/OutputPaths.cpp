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

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

void checkOutputPaths(const RunSessionOptions &options) {
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
      if (options.proofs == options.part || options.proofs == "-")
        fail("--proofs {}: with --shard {}/{} it names the shard's proofs "
             "part, a file of its own beside --part (e.g. {}.proofs)",
             escapeForMessage(options.proofs), options.shardIndex,
             options.shardCount, escapeForMessage(options.part));
      parseProofFormat(options.proofsFormat, "--proofs-format");
      parseProofSelection(options.proofsOf, "--proofs-of");
      checkWritable(options.proofs);
    }
    return;
  }
  if (!options.part.empty())
    fail("--part {}: a part is written only with --shard i/n",
         escapeForMessage(options.part));
  if (options.outcomeRows && options.mpiRanks == 0)
    fail("--part-outcomes: the outcome rows go to a part, written only with "
         "--shard i/n --part FILE (a whole run writes them with --outcomes)");
  struct Output {
    const std::string &path;
    const char *what, *flag;
  };
  const Output outputs[] = {{options.report, "report", "--report"},
                            {options.outcomes, "outcomes", "--outcomes"},
                            {options.proofs, "proofs", "--proofs"}};
  namespace fs = std::filesystem;
  for (size_t i = 0; i < std::size(outputs); ++i)
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const Output &a = outputs[i], &b = outputs[j];
      if (a.path.empty() || b.path.empty())
        continue;
      std::error_code e1, e2;
      const fs::path pa = fs::weakly_canonical(a.path, e1);
      const fs::path pb = fs::weakly_canonical(b.path, e2);
      if (a.path == b.path || (!e1 && !e2 && pa == pb))
        fail("{}: the {} and the {} would overwrite each other ({} and {} "
             "name the same file)",
             a.path, a.what, b.what, a.flag, b.flag);
    }
  if (!options.proofs.empty()) {
    parseProofFormat(options.proofsFormat, "--proofs-format");
    parseProofSelection(options.proofsOf, "--proofs-of");
  }
  for (const Output &o : outputs)
    if (!o.path.empty())
      checkWritable(o.path);
}

} // namespace proofc
