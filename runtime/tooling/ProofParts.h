//===- ProofParts.h - The proofs of a query range, on their own -*- C++ -*-===//
//
// docs/proofs.md, "Shards, checkpoints and MPI ranks". A run by ranges
// writes the proofs of each range next to that range's outcomes, in a file
// of its own, so that the part and checkpoint formats (PartFile.h) stay as
// they are: `--shard i/n --part PART --proofs FILE` writes FILE, a proofs
// part; `--checkpoint DIR` writes `<range file>.proofs` beside each range's
// part file, before it; an MPI rank sends its proofs part to rank 0. The
// proofs file of the whole run is the header (proofsFileHeader) and the
// parts' lines in query order: a proof line depends only on its candidate,
// its outcome and its actions (ProofLineWriter), so that file is byte for
// byte the one a run of one process writes. Layout, version 2:
//
//   proofc-proofs 2 <checksum of the rest of the file>\n
//   <header: one line of JSON>\n
//   <the proof lines of the range's proved candidates, in candidate order>
//
// The header holds the RunIdentity (and its SHA-256), the range (queries
// and candidates, in the pool's numbering), the proofs' format, its version
// (kProofsFormatVersion), the selection, the number of lines and their
// SHA-256; the checksum (Checksum.h, XXH3-128) covers the header and the
// lines. A reader checks all of it, the checksum first, and names the file
// and what is wrong; version 1 (no checksum) is refused by name.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROOFPARTS_H
#define PROOFC_RUNTIME_PROOFPARTS_H

#include "proofc/runtime/QueryRanges.h"
#include "tooling/PartFile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

inline constexpr const char *kProofsPartMagic = "proofc-proofs";
/// 3: the header names the proof lines' format version "version" (as the
/// report's "proofs" does; it was "format_version"). 2: a checksum.
inline constexpr int kProofsPartVersion = 3;

struct ProofsPart {
  RunIdentity identity;
  QueryRange range;   ///< in the whole pool's numbering
  std::string format; ///< as --proofs-format spells it: json | prolog
  std::string of;     ///< as --proofs-of spells it: all | positives
  /// The proof lines of the range (no file header), each ending in '\n'.
  std::string lines;
};

/// The bytes of `part` in the layout above.
std::string serializeProofsPart(const ProofsPart &part);

/// True when `bytes` start as a proofs part does (any version).
bool looksLikeProofsPart(const std::string &bytes);

/// Parses and checks the bytes of a proofs part. Throws
/// proofc::Error("<path>: ...") naming what is wrong (magic, version, a
/// header field, the proofs format's version, the lines' count or SHA-256).
ProofsPart parseProofsPart(const std::string &bytes, const std::string &path);

/// `bytes` with the checksum of their first line made that of the rest, as
/// a writer would make it; unchanged unless they start as this version's
/// proofs part does. For tests, to reach the checks behind the checksum.
std::string withProofsPartChecksum(std::string bytes);

/// readFile() then parseProofsPart().
ProofsPart readProofsPart(const std::string &path);

/// Throws proofc::Error("<path>: ...") unless `part` holds the proofs of
/// `range` of a run of `identity` (the shard index aside when
/// `ignoreShardIndex`) in `format` and of `of`; `remedy` ends the message
/// (what to do).
void checkProofsPart(const ProofsPart &part, const std::string &path,
                     const RunIdentity &identity, const QueryRange &range,
                     const std::string &format, const std::string &of,
                     bool ignoreShardIndex, const std::string &remedy);

/// Moves the files of `files` that are proofs parts (by their first bytes;
/// a file that cannot be read stays, for its reader to name) to the result,
/// in order: `proofc merge` takes parts and proofs parts alike.
std::vector<std::string> takeProofsParts(std::vector<std::string> &files);

/// What a shard's part says about the run (Merge.cpp): its identity and
/// its range.
struct ShardOfRun {
  RunIdentity identity;
  QueryRange range;
};

/// The proofs file of a merged run (`proofc merge --proofs FILE`).
struct MergedProofs {
  std::string text;       ///< the file: header, then every shard's lines
  std::string format, of; ///< the shards' --proofs-format and --proofs-of
  int64_t count = 0;      ///< the proofs in it
};

/// The proofs file of the run whose shards' parts say `shards` (by shard
/// index), from `paths`: one proofs part per shard, in any order, each of
/// its shard's identity and range, all of one format and selection; their
/// lines in shard (= query) order after proofsFileHeader(). `output` is
/// --proofs (empty: `paths` are refused, as they would go nowhere).
MergedProofs mergeProofsParts(const std::string &output,
                              const std::vector<std::string> &paths,
                              const std::vector<ShardOfRun> &shards);

/// Where a checkpoint keeps the proofs of the range whose part file is
/// `rangeFile`: `<rangeFile>.proofs`.
std::string checkpointProofsPath(const std::string &rangeFile);

} // namespace proofc

#endif // PROOFC_RUNTIME_PROOFPARTS_H
