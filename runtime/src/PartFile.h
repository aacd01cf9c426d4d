//===- PartFile.h - Partial results: shards and checkpoint ranges -*- C++ -*-===//
//
// The one file format of a partial run (docs/scale-out.md): the outcomes of
// one query range (QueryRanges.h) with a header that says which inputs made
// them. `--shard i/n --part FILE` writes one ("kind": "shard", with the
// shard's own report); `--checkpoint DIR` writes one per finished range
// ("kind": "range"); `proofc merge` reads shards back. Layout, version 1:
//
//   proofc-part 1\n
//   <header: one line of JSON>\n
//   <outcomes: 9 bytes per candidate, in candidate order: status (uint8,
//    0 proved, 1 failed, 2 truncated), depth (int32 LE), logp (float32 LE)>
//
// The header holds the RunIdentity (every input that determines an
// outcome, and its SHA-256), the range, the pool's size and the SHA-256 of
// the outcome bytes; a reader checks all of it and names the file and the
// field that is wrong.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PARTFILE_H
#define PROOFC_RUNTIME_PARTFILE_H

#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

inline constexpr const char *kPartMagic = "proofc-part";
inline constexpr int kPartVersion = 1;

/// Every input that determines the outcomes of a (partial) run. Two runs
/// with equal identities give equal outcomes for every candidate.
struct RunIdentity {
  std::string programSha256; ///< of programJson(program).dump()
  std::string weightsSha256; ///< of the weights file's bytes
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
  std::vector<Outcome> outcomes; ///< range.candidates() of them
};

/// The bytes of `part` in the layout above.
std::string serializePart(const PartFile &part);

/// Parses and checks the bytes of a part file. Throws proofc::Error("<path>:
/// ...") naming what is wrong (magic, version, a header field, the outcome
/// bytes' size or SHA-256, a status byte).
PartFile parsePart(const std::string &bytes, const std::string &path);

/// readFile() then parsePart().
PartFile readPart(const std::string &path);

} // namespace proofc

#endif // PROOFC_RUNTIME_PARTFILE_H
