//===- Checkpoint.h - Resumable runs: finished ranges on disk ---*- C++ -*-===//
//
// `--checkpoint DIR` (docs/scale-out.md): the run is cut into ranges of
// whole queries (splitRange, --checkpoint-every candidates each) and every
// finished range is recorded durably in DIR as a part file (PartFile.h,
// kind "range", named range-<first query>-<end query>.part: the range's
// tally, and its outcome rows when the run writes an outcomes file): written
// to an exclusive temporary as the range runs, fsync()ed, renamed, the
// directory fsync()ed (PartWriter). DIR/manifest.json binds the directory to
// one RunIdentity (program, weights' bytes, dataset fingerprint, split,
// queries, corruptions, seed, facts, shard) and is written the same way before
// the first range. A run that finds DIR's manifest reads every recorded range's
// tally, checks it, and runs only the queries no range covers: since an
// outcome depends only on its candidate, the assembled tallies and rows,
// hence the report and the outcomes TSV, equal an uninterrupted run's bit
// for bit. A range recorded without rows by a run that wrote no outcomes
// file is removed and run again by a run that writes one. A
// manifest of other inputs is refused, naming the field that differs.
// The process that opens DIR locks it (DirectoryLock.h) until the
// Checkpoint ends: a second process on DIR is refused at once, naming the
// holder's pid. Version 3: the ranges carry a checksum (PartFile.h);
// versions 1 and 2 are refused by name.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CHECKPOINT_H
#define PROOFC_RUNTIME_CHECKPOINT_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/QueryRanges.h"
#include "support/DirectoryLock.h"
#include "tooling/PartFile.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace proofc {

inline constexpr const char *kCheckpointSchema = "proofc-checkpoint";
inline constexpr int kCheckpointVersion = 3;

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

  /// Reads every recorded range's header and tally into `recorded` (in
  /// query order); returns the ranges still to run, each cut into ranges of
  /// about `every` candidates (splitRange), in query order. With `rows`
  /// (the run writes outcome rows), a range recorded without them is
  /// removed and run again. Throws proofc::Error naming a range file that
  /// is damaged, of other inputs, outside the scope, or overlapping another.
  std::vector<QueryRange> resume(int64_t every, bool rows,
                                 std::vector<PartFile> &recorded,
                                 int64_t &recordedCandidates);

  /// The writer of `range`'s file, its rows (with `rows`) appended while
  /// the range runs.
  std::unique_ptr<PartWriter> begin(const QueryRange &range, bool rows) const;
  /// Records `range`'s tally durably through `writer` (see the banner);
  /// returns the part as recorded (its rows' slice in the file).
  PartFile record(PartWriter &writer, const QueryRange &range,
                  std::vector<PairRanks> pairs, const OutcomeCounts &counts);

  const std::string &dir() const { return dir_; }
  /// The file record() writes `range` to (DIR/range-<first>-<end>.part).
  std::string rangeFile(const QueryRange &range) const;
  /// The ranges resume() read back, in query order, with their files.
  const std::vector<std::pair<QueryRange, std::string>> &resumed() const {
    return resumed_;
  }

private:
  std::string dir_;
  std::unique_ptr<DirectoryLock> lock_; ///< held while the run uses DIR
  RunIdentity identity_;
  const CandidateLayout &set_;
  QueryRange scope_;
  int64_t recorded_ = 0; ///< ranges recorded by this process
  std::vector<std::pair<QueryRange, std::string>> resumed_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CHECKPOINT_H
