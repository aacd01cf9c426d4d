//===- RowCounts.h - A part's counts against its rows -----------*- C++ -*-===//
//
// A part or a checkpoint range that carries its outcome rows (PartFile.h)
// says its counts twice: in its header (candidates, proved, failed,
// truncated, depth_sum: what merge and a resume add up) and in the rows
// themselves (one line a candidate, its status and depth in the 4th and 5th
// columns, docs/report-schema.md). copyRows() counts the rows as it copies
// them and refuses a part whose header says otherwise, so that counts
// forged or damaged against the rows they describe never reach a report.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ROWCOUNTS_H
#define PROOFC_RUNTIME_ROWCOUNTS_H

#include "proofc/runtime/RankMetrics.h"

#include <string>
#include <string_view>
#include <utility>

namespace proofc {

/// Counts outcome rows given in pieces of any size.
class RowCounter {
public:
  /// `path` names the rows' file in messages.
  explicit RowCounter(std::string path) : path_(std::move(path)) {}
  /// Counts the lines completed in `bytes`. Throws proofc::Error("<path>:
  /// outcome row N: ...") for a row without a known status or a depth.
  void update(std::string_view bytes);
  /// Throws proofc::Error("<path>: the part's counts (...) are not those
  /// of its outcome rows (...)") unless `header` equals the rows' counts
  /// (or the rows end in a line without its '\n').
  void check(const OutcomeCounts &header) const;

private:
  void line(std::string_view text);
  std::string path_;
  std::string partial_; ///< the last line's bytes so far
  OutcomeCounts counts_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_ROWCOUNTS_H
