//===- OutcomesWriter.h - The outcomes TSV written block by block -*- C++
//-*-===//
//
// A streamed run writes its outcomes file as the blocks finish
// (Session.h, EvaluateControl::onBlock): the lines of a block are formatted
// on several threads, piece by piece of whole groups, and appended in order
// to the destination's temporary (OutputSet::open), while their SHA-256 is
// computed as they go. The bytes are those of outcomesTsv() over the whole
// pool (docs/report-schema.md); memory is bounded by the pieces in flight.
// The OutputSet's semantics are unchanged: nothing is visible before its
// commit, and a failure or an interrupt removes the temporary.
//
// The lines of part of a run (a shard, a checkpoint range, an MPI rank) are
// formatted the same way into any sink (a part file's rows, a rank's spool);
// the writer of the whole file then appends them as they are (appendRows):
// the lines of a list depend only on its own candidates, so the bytes are
// those of one process.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_OUTCOMESWRITER_H
#define PROOFC_RUNTIME_OUTCOMESWRITER_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/RankMetrics.h"
#include "support/OutputFiles.h"
#include "support/Sha256.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace proofc {

class OutcomesWriter {
public:
  /// Opens `path` in `set` (kept by reference) and writes the header;
  /// `threads` (>= 1) format the lines.
  OutcomesWriter(OutputSet &set, const std::string &path,
                 const Dataset &dataset, int threads);
  /// Formats the lines into `sink` only, without the header: the rows of
  /// part of a run. finish() then only returns their SHA-256.
  OutcomesWriter(std::function<void(std::string_view)> sink,
                 const Dataset &dataset, int threads);
  /// Appends the lines of `candidates`' groups (every one, in order; the
  /// blocks must come in candidate order), ranks from `pairs` (one per
  /// group).
  void write(const CandidateSet &candidates,
             const std::vector<Outcome> &outcomes,
             const std::vector<PairRanks> &pairs);
  /// Appends lines formatted before, by a writer of the other kind (a
  /// part's rows, a rank's), as they are.
  void appendRows(std::string_view rows);
  /// Closes the file (fsync); returns the SHA-256 of every byte written.
  std::string finish();

private:
  void emit(std::string_view bytes);

  OutputSet *set_ = nullptr;
  size_t handle_ = 0;
  std::function<void(std::string_view)> sink_;
  std::string path_;
  const Dataset &dataset_;
  int threads_;
  Sha256 hash_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_OUTCOMESWRITER_H
