//===- Checkpoint.h - Resumable runs: finished ranges on disk ---*- C++ -*-===//
//
// `--checkpoint DIR` (docs/scale-out.md): the run is cut into ranges of
// whole queries (splitRange, --checkpoint-every candidates each) and every
// finished range is recorded durably in DIR as a part file (PartFile.h,
// kind "range", named range-<first query>-<end query>.part): written to an
// exclusive temporary, fsync()ed, renamed, the directory fsync()ed
// (OutputSet). DIR/manifest.json binds the directory to one RunIdentity
// (program, weights' bytes, dataset fingerprint, split, queries,
// corruptions, seed, facts, shard) and is written the same way before the
// first range. A run that finds DIR's manifest reads every recorded range,
// checks it, and runs only the queries no range covers: since an outcome
// depends only on its candidate, the assembled outcomes, hence the report
// and the outcomes TSV, equal an uninterrupted run's bit for bit. A
// manifest of other inputs is refused, naming the field that differs.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CHECKPOINT_H
#define PROOFC_RUNTIME_CHECKPOINT_H

#include "PartFile.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/QueryRanges.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace proofc {

inline constexpr const char *kCheckpointSchema = "proofc-checkpoint";
inline constexpr int kCheckpointVersion = 1;

/// Test-only: when set to N > 0, the process kills itself with SIGKILL right
/// after recording its N-th range (a deterministic "kill -9 mid-run").
inline constexpr const char *kCheckpointKillEnv =
    "PROOFC_TEST_CHECKPOINT_KILL_AFTER";

class Checkpoint {
public:
  /// Opens DIR (created when missing, its parent must exist) for a run of
  /// `identity` over `scope` of `set`: an existing manifest must be of the
  /// same identity, else proofc::Error("DIR: ..."); a missing one is
  /// written. Leftover temporaries of a killed run are removed.
  Checkpoint(std::string dir, const RunIdentity &identity,
             const CandidateLayout &set, const QueryRange &scope);

  /// Reads every recorded range and copies its outcomes into `outcomes`
  /// (indexed from scope.candidateBegin); returns the ranges still to run,
  /// each cut into ranges of about `every` candidates (splitRange), in query
  /// order. Throws proofc::Error naming a range file that is damaged, of
  /// other inputs, outside the scope, or overlapping another.
  std::vector<QueryRange> resume(std::vector<Outcome> &outcomes,
                                 int64_t every, int64_t &recordedCandidates);

  /// Records `range`'s outcomes durably (see the banner).
  void record(const QueryRange &range, const std::vector<Outcome> &outcomes);

  const std::string &dir() const { return dir_; }
  /// The file record() writes `range` to (DIR/range-<first>-<end>.part).
  std::string rangeFile(const QueryRange &range) const;
  /// The ranges resume() read back, in query order, with their files.
  const std::vector<std::pair<QueryRange, std::string>> &resumed() const {
    return resumed_;
  }

private:
  std::string dir_;
  RunIdentity identity_;
  const CandidateLayout &set_;
  QueryRange scope_;
  int64_t recorded_ = 0; ///< ranges recorded by this process
  std::vector<std::pair<QueryRange, std::string>> resumed_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CHECKPOINT_H
