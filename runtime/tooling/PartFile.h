//===- PartFile.h - Partial results: shards and checkpoint ranges -*- C++
//-*-===//
//
// The one file format of a partial run (docs/scale-out.md): the **tally** of
// one query range (QueryRanges.h) -- every list's ranks (PairRanks) and the
// outcome counts, all the metrics, rank metrics, per-relation and bootstrap
// need -- with a header that says which inputs made them, and, only when
// the outcomes file is asked, the range's outcome rows (the lines of the
// outcomes TSV, formatted by the run that made them, which a merge or a
// resume copies without reading them). `--shard i/n --part FILE` writes one
// ("kind": "shard", with the shard's own report); `--checkpoint DIR` writes
// one per finished range ("kind": "range"); `proofc merge` reads shards back;
// an MPI rank sends one (without rows) to rank 0. Layout, version 3:
//
//   proofc-part 3\n
//   <rows: the TSV lines of the range's candidates, header.rows.bytes bytes;
//    none when header.rows is null>
//   <tally: 2 records per query, in list order, 41 bytes each: query (int32
//    LE), mode (uint8, 0 head, 1 tail), relation (int32 LE), list size
//    (int64 LE), optimistic, pessimistic, realistic rank (float64 LE)>
//   <header: one line of JSON>\n
//   proofc-part-header <the header's offset: 20 decimal digits> <checksum>\n
//
// The rows come first so that a run writes its part in one pass as its
// blocks finish (PartWriter): nothing of the size of its candidates is held.
// The header holds the RunIdentity (every input that determines an outcome,
// and its SHA-256), the range, the pool's size, the counts and the SHA-256s
// of the tally and the rows; the checksum (Checksum.h, "xxh3:" and 32 hex
// digits) covers the magic line, the header line and the trailer before it,
// hence, through the SHA-256s, every byte. A reader checks all of it --
// the checksum first, every size and offset against the file's real size
// without overflow, the rows' SHA-256 and their counts (RowCounts.h) as it
// copies them (RowSlice) -- and names the file and the field that is wrong.
// Versions 1 (9 bytes an outcome) and 2 (no checksum) are refused by name.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PARTFILE_H
#define PROOFC_RUNTIME_PARTFILE_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"
#include "support/OutputFiles.h"
#include "support/Sha256.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

inline constexpr const char *kPartMagic = "proofc-part";
inline constexpr int kPartVersion = 3;

/// Every input that determines the outcomes of a (partial) run. Two runs
/// with equal identities give equal outcomes for every candidate.
struct RunIdentity {
  std::string programSha256;      ///< of programJson(program).dump()
  std::string weightsSha256;      ///< of the weights file's bytes
  std::string datasetFingerprint; ///< datasetFingerprint()
  std::string split;
  int64_t corruptions = 0;
  uint64_t seed = 0;
  int64_t queries = -1;
  bool factsIncludeValid = false;
  int64_t shardIndex = 0, shardCount = 1; ///< 0/1: not sharded

  nlohmann::json json() const;
  /// "sha256:" + SHA-256 of json().dump().
  std::string sha256() const;
  /// Parses json(); throws proofc::Error naming `path` on a bad field.
  static RunIdentity fromJson(const nlohmann::json &j, const std::string &path);
  /// "" when equal, else the first differing field as "<field> is <a> in
  /// <aName>, <b> in <bName>" (shard index and count included unless
  /// `ignoreShardIndex`).
  static std::string difference(const RunIdentity &a, const std::string &aName,
                                const RunIdentity &b, const std::string &bName,
                                bool ignoreShardIndex = false);
};

/// The words that say what an identity binds (for error messages).
inline constexpr const char *kIdentityWords =
    "the program, the weights' bytes, the dataset's fingerprint, --split, "
    "--queries, --corruptions, --seed, --facts and --shard";

/// Where a range's outcome rows are on disk: `bytes` bytes of `path` from
/// `offset` (a part's rows section, a rank's spool).
struct RowSlice {
  std::string path;
  uint64_t offset = 0, bytes = 0;
  /// Their SHA-256 (hex) when known (a part's); checked by copyRows.
  std::string sha256;
  /// With checkCounts (a part's rows), copyRows counts the rows and
  /// refuses them unless they are `counts` (RowCounts.h).
  OutcomeCounts counts;
  bool checkCounts = false;
};

/// Calls `sink` with the bytes of `slices`, in order, in pieces of at most
/// `piece` bytes (one buffer: memory is bounded by `piece`). Throws
/// proofc::Error naming the file when it is shorter than a slice, a
/// slice's SHA-256 is not its `sha256` or its rows' counts are not its
/// `counts`.
void copyRows(const std::vector<RowSlice> &slices,
              const std::function<void(std::string_view)> &sink,
              size_t piece = size_t{16} << 20);

struct PartFile {
  std::string kind; ///< "shard" or "range"
  RunIdentity identity;
  QueryRange range; ///< in the whole pool's numbering
  int64_t totalQueries = 0, totalCandidates = 0;
  /// kind "shard": the rank metric options of the run (merge's report).
  RankMetricOptions rankMetrics;
  /// kind "shard": the shard's own report (its metrics over its queries);
  /// null for a range.
  nlohmann::json report;
  /// The tally: every list's ranks (2 per query, in list order) and the
  /// outcome counts of the range.
  std::vector<PairRanks> pairs;
  OutcomeCounts counts;
  /// Whether the part carries its outcome rows, and where they are
  /// (readPart: in the file; set by PartWriter when it writes them).
  bool hasRows = false;
  RowSlice rows;
};

/// Throws proofc::Error("<path>: ...") unless `part`'s tally is that of
/// its range of `layout`: every list's size and relation, and the counts'
/// candidates.
void checkTally(const CandidateLayout &layout, const PartFile &part,
                const std::string &path);

/// The bytes of `part` without rows (an MPI rank's part, tests).
std::string serializePart(const PartFile &part);

/// Parses and checks the bytes of a part file held in memory (without rows
/// or with them: their SHA-256 is checked here). Throws
/// proofc::Error("<path>: ...") naming what is wrong (magic, version, a
/// header field, the tally's size or SHA-256, a record).
PartFile parsePart(const std::string &bytes, const std::string &path);

/// `bytes` with the checksum in their trailer made that of their magic
/// line, header line and trailer, as a writer would make it; unchanged when
/// they have no trailer where a part has it. For a fuzzer (test/fuzz), to
/// reach past the checksum into the checks behind it.
std::string withPartChecksum(std::string bytes);

/// The same for a file, reading its header and tally only: `rows` names
/// the rows' slice of the file, checked when copied (copyRows).
PartFile readPart(const std::string &path);

/// Writes a part file in one pass: the rows as they come (appendRows), then
/// commit() adds the tally and the header and makes the file visible
/// (OutputSet: an exclusive temporary, fsync()ed, renamed, the directory
/// fsync()ed; nothing is visible before, and a writer destroyed before
/// commit() removes its temporary).
class PartWriter {
public:
  /// `rows`: the part carries outcome rows (possibly none, for an empty
  /// range); false: appendRows() must not be called.
  PartWriter(const std::string &path, bool rows);
  void appendRows(std::string_view bytes);
  /// Writes `part`'s tally and header, commits; sets part.hasRows and
  /// part.rows (the rows' slice of the committed file) to this writer's.
  void commit(PartFile &part);

private:
  std::string path_;
  OutputSet set_;
  size_t handle_ = 0;
  bool rows_ = false;
  uint64_t rowsBytes_ = 0;
  Sha256 rowsHash_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_PARTFILE_H
