//===- SharedLists.h - Lists of the same corruptions, run once -*- C++ -*-===//
//
// A candidate's outcome is a function of its triple alone (spec §5: the
// engine, the policy and the terminal check see nothing else of it), and a
// list that takes every filtered corruption is fixed by its mode, relation
// and kept entity (spec §6): the queries of a split that share (r, t) share
// their head lists' corruptions, those that share (h, r) their tail lists'.
// In fb15k-237's test split with every corruption that is 253.6 M of the
// 585.6 M candidates (332.0 M remain); in wn18rr's 22.5 M of 256.5 M; with
// sampled corruptions only the lists short enough to be taken whole can
// share (V10: 910 of 18,745).
//
// A streamed call therefore runs such a list's corruptions once, with the
// first list of the call that holds them (its source), and gives every
// later list of the same key (a copy) the source's outcomes and actions;
// each list's positive always runs. The blocks are cut by the candidates
// that run, the run's outcomes are put back into the whole pool's order by
// the consumer, in block order, so ranks, counts, the outcomes file, the
// proofs and checkpoints see exactly what an unshared run gives, bit for
// bit, whichever list was the source (an outcome does not depend on the
// candidate's neighbours: docs/scale-out.md, "Shared lists").
//
// A source whose copies are in later blocks is kept (its outcomes, 8 B
// each, and its actions when they are recorded) until its last copy is
// consumed. A call that keeps no outcome and hands no block on (the tools'
// runs without an outcomes file or proofs) needs only each list's ranks and
// the outcome counts: it tallies instead (tally()), keeping of a source
// only its corruptions' counts and their finite scores, sorted, and never
// builds the whole block. What may be kept at once is bounded up front, in
// list order, by a quarter of the host's available memory (counted at 8 B
// a corruption either way): a source that would pass it is not kept, and
// the next list of its key becomes a source again (runs its corruptions).
//
// Across shards (an MPI launch, whose ranks run the shards r/N of one
// pool): a key whose lists lie in several shards is given to one of them,
// its owner (acrossShards(): the shards' work balanced, the same on every
// rank), which runs its corruptions once and exports the source's tally; in
// the other shards every list of the key is a remote copy: its positive
// runs, its pair is pending until the owner's tally arrives
// (takeCrossShard(), then resolveCrossShard() with the tallies the tool
// exchanged). Only a tallying call shares across shards. A checkpointed
// run's ranges share the same way in one process, each key run by the
// first range that holds it (RunSession::evaluateRanges).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SHAREDLISTS_H
#define PROOFC_RUNTIME_SHAREDLISTS_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace proofc {

/// The keys of a pool whose lists lie in more than one of its shards
/// (shardRange(layout, r, N), or a run's checkpoint ranges), each with its
/// owner and the shards that hold it: what SharedLists::acrossRanges()
/// plans, identically on every rank.
struct ShardSharing {
  int64_t shardCount = 0; ///< the ranges it was planned over
  struct Key {
    int32_t owner = 0;            ///< the shard that runs its corruptions
    std::vector<int32_t> holders; ///< every shard with a list of it, sorted
  };
  std::unordered_map<int64_t, Key> keys;
};

/// A source's tally as one shard exports it to the others (its key's
/// corruptions' counts and finite scores, ascending).
struct SharedTally {
  int64_t key = -1;
  OutcomeCounts counts;
  std::vector<double> finite;
  uint64_t bytes() const { return finite.size() * sizeof(double); }
};

/// What a shard's call leaves for the exchange: the tallies it owes the
/// other shards (in list order), and its remote copies, whose pairs
/// (placeholders in the call's pairs) and counts wait for their tallies.
struct CrossShardTallies {
  struct Pending {
    int64_t list = 0; ///< 2 * query + mode
    int64_t key = 0;
    int64_t listSize = 0; ///< the whole list's, the positive included
    double score = 0;     ///< the positive's
  };
  struct Export {
    SharedTally tally;
    std::vector<int32_t> to; ///< the other shards with lists of its key
  };
  std::vector<Export> exports;
  std::vector<Pending> pending;
};

/// A call that shares across shards: the pool's plan, the call's shard,
/// and where its exchange goes (Session::State::stream).
struct CrossShardCall {
  const ShardSharing *sharing = nullptr;
  int32_t shard = 0;
  CrossShardTallies *out = nullptr;
};

class SharedLists {
public:
  /// The plan for the queries of `range`: no list shares when `enabled` is
  /// false. `actionSteps`: the steps recorded per candidate (ActionTrace::D)
  /// when actions are recorded, else 0 (they are kept with the outcomes).
  /// `keepBytes`: what the kept sources may hold at once. With `across`
  /// (`range` is shard `shard` of its shardCount), the keys it lists are
  /// run by their owner only (see the banner).
  SharedLists(const CandidateBuilder &builder, const QueryRange &range,
              bool enabled, int32_t actionSteps, uint64_t keepBytes,
              const ShardSharing *across = nullptr, int32_t shard = 0);

  /// Who runs a key that several ranges hold: the holder with the least
  /// work so far (the ranks of an MPI launch, which run at once), or the
  /// first (the ranges of one process, run in order: a later range takes
  /// the tallies of the earlier ones).
  enum class Owner { LeastLoaded, First };
  /// The keys whose lists lie in more than one of `ranges` (disjoint, in
  /// query order: the shards of a pool, or a run's checkpoint ranges), each
  /// given to a range that holds one of its lists by `owner`; LeastLoaded
  /// takes the keys in order of their corruptions (most first, then by
  /// key) and each range's work as its candidates less what sharing within
  /// it saves. A deterministic function of the pool and the ranges, so
  /// every rank plans alike.
  static ShardSharing acrossRanges(const CandidateBuilder &builder,
                                   const std::vector<QueryRange> &ranges,
                                   Owner owner);
  /// acrossRanges() over the pool's `shardCount` shards
  /// (shardRange(layout, r, shardCount)), LeastLoaded.
  static ShardSharing acrossShards(const CandidateBuilder &builder,
                                   int64_t shardCount);

  /// A quarter of availableMemoryBytes() (MemoryBudget.h).
  static uint64_t defaultKeepBytes();

  /// Whether any list of the range takes another's outcomes, or gives them
  /// to another shard.
  bool any() const { return copies_ > 0 || !exported_.empty(); }
  /// The corruptions that do not run (the copies' lists less their
  /// positives).
  int64_t sharedCandidates() const { return shared_; }

  /// The pool's layout counting what runs: a copy's list is its positive
  /// alone (lists outside the range keep their sizes). Cut this into
  /// blocks, then take each block's queries in the whole layout.
  const CandidateLayout &runLayout() const { return runLayout_; }

  /// Whether only the positive of the list of (`query`, `mode`) runs (a
  /// copy): CandidateBuilder::build's `positiveOnly` for the candidates that
  /// run; each of their lists is a prefix of the whole one.
  bool positiveOnly(int64_t query, Mode mode) const {
    return copies(2 * query + static_cast<int64_t>(mode));
  }
  /// The candidates of the queries [queryBegin, queryEnd) that run.
  CandidateSet runSet(const CandidateBuilder &builder, int64_t queryBegin,
                      int64_t queryEnd, int64_t reserve) const;

  /// Puts the run's outcomes of `block` (runSet's order; actions too when
  /// recorded) into the block's whole order: a copy's corruptions from its
  /// source, in this block or kept from an earlier one. Called by the
  /// consumer, on every block of the range, in order.
  void expand(const CandidateSet &block, std::vector<Outcome> &outcomes,
              ActionTrace *actions);

  /// The ranks of every list of `run` (runSet's candidates of a block; its
  /// outcomes in `outcomes`) appended to `pairs`, and their outcome counts
  /// to `counts`, as rankPairs and OutcomeCounts::add give for the whole
  /// block, bit for bit: a copy's from its positive and its source's kept
  /// tally. Called by the consumer, on every block of the range, in order,
  /// instead of expand().
  void tally(const CandidateSet &run, const std::vector<Outcome> &outcomes,
             std::vector<PairRanks> &pairs, OutcomeCounts &counts);

  /// Drops whatever is kept: a call starts with nothing kept (a call that
  /// ended early may have left sources of other weights).
  void forgetKept() {
    kept_.clear();
    keptTallies_.clear();
    keptBytes_ = 0;
    cross_ = {};
  }

  /// What tally() left for the exchange (moved out; the call's exports are
  /// complete once every block was tallied).
  CrossShardTallies takeCrossShard() { return std::move(cross_); }
  /// Fills the pending pairs of `pairs` (the range's, in list order from
  /// list `firstList`) and adds their sources' counts to `counts`, from
  /// `imported` (every tally the other shards sent this one): the ranks and
  /// counts an unshared run gives, bit for bit. Throws proofc::Error when a
  /// tally is missing or does not fit its list.
  static void resolveCrossShard(const CrossShardTallies &pending,
                                std::vector<SharedTally> imported,
                                int64_t firstList,
                                std::vector<PairRanks> &pairs,
                                OutcomeCounts &counts);
  /// The same with the tallies by key (a process's earlier ranges').
  static void
  resolveCrossShard(const CrossShardTallies &pending,
                    const std::unordered_map<int64_t, SharedTally> &byKey,
                    int64_t firstList, std::vector<PairRanks> &pairs,
                    OutcomeCounts &counts);

  /// What this shard sends each of the `shardCount` shards: the tallies of
  /// `cross.exports` they need, as bytes (native byte order: the ranks of
  /// one launch run one build); no bytes where none is owed (itself).
  static std::vector<std::string> bytesForShards(const CrossShardTallies &cross,
                                                 int64_t shardCount);
  /// The tallies of bytesForShards()' bytes; `what` names them in an error.
  static std::vector<SharedTally> parseTallies(std::string_view bytes,
                                               const std::string &what);

  /// What is kept now (a test's view of the bound).
  uint64_t keptBytes() const { return keptBytes_; }

private:
  /// An outcome as kept: 8 B instead of Outcome's 12 (fb15k-237's kept
  /// sources peak at 47.7 M outcomes).
  struct KeptOutcome {
    float logp;
    uint32_t depthAndStatus; ///< depth << 2 | status
    static KeptOutcome pack(const Outcome &o);
    Outcome unpack() const {
      return {static_cast<ProofStatus>(depthAndStatus & 3),
              static_cast<int32_t>(depthAndStatus >> 2), logp};
    }
  };
  /// What expand() keeps of a source: its corruptions' outcomes (and
  /// actions).
  struct Kept {
    std::vector<KeptOutcome> outcomes;
    std::vector<int32_t> actions;
    uint64_t bytes() const {
      return outcomes.size() * sizeof(KeptOutcome) +
             actions.size() * sizeof(int32_t);
    }
  };
  /// What tally() keeps of a source (and exports to other shards).
  using KeptTally = SharedTally;
  int64_t listIndex(const CandidateGroup &g) const {
    return 2 * static_cast<int64_t>(g.query) + static_cast<int64_t>(g.mode);
  }
  bool copies(int64_t list) const;
  int64_t source(int64_t list) const;
  /// source() of a list whose key another shard owns.
  static constexpr int64_t kRemote = -2;
  /// The last list of the range that takes `list`'s corruptions, or -1.
  int64_t lastCopy(int64_t list) const {
    return lastCopy_[static_cast<size_t>(list - firstList_)];
  }
  /// What `kept` holds of `src`, which `list` takes from: an error when
  /// it was not kept.
  template <class Map>
  const typename Map::mapped_type &keptFor(const Map &kept, int64_t src,
                                           int64_t list) const;
  /// Stores what is kept of `list` in `kept` (keptBytes_ counts it).
  template <class Map>
  void keep(Map &kept, int64_t list, typename Map::mapped_type value);
  /// Drops from `kept` every source whose last copy is at or before `last`
  /// (the last list of the block just consumed).
  template <class Map> void dropConsumed(Map &kept, int64_t last);

  int64_t firstList_ = 0; ///< 2 * the range's first query
  /// Per list of the range: the list whose corruptions it takes, or -1.
  std::vector<int64_t> source_;
  /// Per list of the range: the last list that takes its corruptions, or -1.
  std::vector<int64_t> lastCopy_;
  int64_t copies_ = 0, shared_ = 0;
  /// Across shards: per list of the range, its key; the sources whose
  /// tallies go to other shards; the remote copies' whole sizes (list ->
  /// size); what tally() gathered for the exchange.
  std::vector<int64_t> key_;
  std::unordered_set<int64_t> exported_;
  std::unordered_map<int64_t, int64_t> remoteSize_;
  const ShardSharing *across_ = nullptr;
  int32_t shard_ = 0;
  CrossShardTallies cross_;
  int32_t actionSteps_ = 0;
  CandidateLayout runLayout_;
  std::unordered_map<int64_t, Kept> kept_;
  std::unordered_map<int64_t, KeptTally> keptTallies_;
  uint64_t keptBytes_ = 0;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SHAREDLISTS_H
