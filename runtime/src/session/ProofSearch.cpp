//===- ProofSearch.cpp - The imitation warm start's shortest-proof search -===//
//
// ProofSearch.h says what is searched and why the caller draws the ties. A
// piece holds its triples' states to expand, their tree nodes, and the keys
// (triple, state) each of its triples kept so far, one RowTable
// (support/RowTable.h) per count of goal atoms g, whose rows are the triple
// and the g atoms, without the padding that follows them. A key is dropped
// once nothing can meet it again: its triple stopped searching, or its g
// atoms no longer fit in the steps left (a state of g atoms is collected
// only at depths up to maxDepth - g): fb15k-237's whole search peaked at
// 9.2 GiB with every key kept at full width, 4.6 GiB so (docs/training.md).
// expand() walks the engine's lists twice, on the deriver's threads, each
// over a range of whole triples with its own key set: the first pass
// records the level's first [TRUE] of each triple, the second collects the
// states still worth expanding; the ranges' collections, concatenated, are
// in the engine's order. select() keeps the first `keep` of each triple by
// (goal atoms, tie, the engine's order): what a stable sort by (triple, goal
// atoms, tie) puts first. Every step is that of the numpy search it replaced
// (python/tests/search_reference.py), which the tests compare it with.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/ProofSearch.h"

#include "host/Engine.h"
#include "support/Fail.h"
#include "support/HostThreads.h"
#include "support/RowTable.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>

namespace proofc {
namespace {

/// A state expand() collected: where it came from and what select() sorts
/// it by; its key (triple, atoms) is in Impl::levels[part] at `key`.
struct Collected {
  int64_t parent; ///< index into the piece's front
  int32_t action; ///< its index in the parent's derived list
  int32_t atoms;  ///< its goal atoms
  int32_t part;   ///< the thread's range of triples that collected it
  size_t key;     ///< its key's row in Impl::levels[part]
};

struct Piece {
  int64_t lo = 0, hi = 0;  ///< its triples
  std::vector<Atom> front; ///< the states to expand, grouped by triple
  std::vector<int64_t> frontTriple, frontNode;
  /// [g]: the keys of the kept states of g goal atoms that can still be
  /// met (1 + 3 g words: the triple, then the atoms), of the triples still
  /// searching.
  std::vector<RowTable> visited;

  explicit Piece(int32_t A) {
    visited.reserve(static_cast<size_t>(A) + 1);
    for (int32_t g = 0; g <= A; ++g)
      visited.emplace_back(1 + 3 * g, 1 + 3 * g);
  }
};

} // namespace

struct ProofSearch::Impl {
  const StateDeriver &deriver;
  std::vector<Triple> triples;
  int32_t keep, maxDepth, A, R, width;
  int64_t perPiece;
  int32_t started = 0; ///< levels started
  std::vector<Piece> pieces;
  /// The search tree's kept states: node n was reached from node parent[n]
  /// by action[n]; the start states are the nodes 0..N-1.
  std::vector<int64_t> parent;
  std::vector<int32_t> action;
  /// A proof: the node whose derived list holds the triple's first [TRUE],
  /// and that state's index in it.
  std::vector<int64_t> proofParent;
  std::vector<int32_t> proofAction;
  /// Between expand(p) and select(p): the piece, the keys of the states
  /// collected (a set per thread's range of whole triples, reused for
  /// every piece), and the states, in the engine's order.
  int64_t expanded = -1;
  std::vector<RowTable> levels;
  std::vector<Collected> collected;

  Impl(const StateDeriver &d, std::vector<Triple> t, int32_t k, int32_t depth)
      : deriver(d), triples(std::move(t)), keep(k), maxDepth(depth),
        A(d.shape().A), R(d.numRelations()), width(1 + 3 * d.shape().A) {}

  /// The key of a state of triple `triple`, written to `scratch` (width
  /// words): the triple's index, then the state's atoms (as the numpy
  /// search's rows: int32 triple, then p, a, b).
  const int32_t *key(int64_t triple, const Atom *state,
                     std::vector<int32_t> &scratch) const {
    scratch[0] = static_cast<int32_t>(triple);
    std::memcpy(scratch.data() + 1, state, sizeof(Atom) * A);
    return scratch.data();
  }

  /// Whether a state of `atoms` goal atoms kept at level `level` can be
  /// derived again by a later level: expand() collects a state of depth d
  /// only when d + atoms <= maxDepth, and the later levels' depths are at
  /// least level + 1.
  bool canMeet(int32_t atoms, int32_t level) const {
    return level + 1 + atoms <= maxDepth;
  }
};

namespace {
/// The fewest parents a thread of expand() filters: below that, a thread
/// costs more than it saves (derive()'s own rule, N / 64).
constexpr size_t kParentsPerThread = 64;
} // namespace

ProofSearch::ProofSearch(const StateDeriver &deriver,
                         std::vector<Triple> triples, int32_t keep,
                         int32_t maxDepth, int64_t pieceStates) {
  if (keep < 1)
    fail("search: keep = {} must be at least 1", keep);
  if (maxDepth < 0)
    fail("search: max_depth = {} must be at least 0", maxDepth);
  if (pieceStates < 1)
    fail("search: piece_states = {} must be at least 1", pieceStates);
  const int32_t E = deriver.numEntities(), R = deriver.numRelations();
  for (size_t i = 0; i < triples.size(); ++i) {
    const Triple &c = triples[i];
    if (c.h < 0 || c.h >= E || c.t < 0 || c.t >= E || c.r < 0 || c.r >= R)
      fail("search: triple {} ({}, {}, {}) is outside the dataset (E = {}, "
           "R = {})",
           i, c.h, c.r, c.t, E, R);
  }
  static_assert(sizeof(Atom) == 3 * sizeof(int32_t));
  impl_ = std::make_unique<Impl>(deriver, std::move(triples), keep, maxDepth);
  Impl &s = *impl_;
  const int64_t N = static_cast<int64_t>(s.triples.size());
  s.perPiece = std::max<int64_t>(1, std::min<int64_t>(N, pieceStates / keep));
  s.parent.assign(static_cast<size_t>(N), -1);
  s.action.assign(static_cast<size_t>(N), -1);
  s.proofParent.assign(static_cast<size_t>(N), -1);
  s.proofAction.assign(static_cast<size_t>(N), -1);
  std::vector<int32_t> scratch(static_cast<size_t>(s.width));
  for (int64_t lo = 0; lo < N; lo += s.perPiece) {
    Piece &p = s.pieces.emplace_back(s.A);
    p.lo = lo;
    p.hi = std::min(N, lo + s.perPiece);
    for (int64_t i = p.lo; i < p.hi; ++i) {
      const Triple &c = s.triples[static_cast<size_t>(i)];
      // canon([(r, h, t)]): the triple's atom, then padding.
      const size_t at = p.front.size();
      p.front.resize(at + static_cast<size_t>(s.A), Atom{kPadPred, 0, 0});
      p.front[at] = Atom{c.r, c.h, c.t};
      p.frontTriple.push_back(i);
      p.frontNode.push_back(i);
      if (s.canMeet(/*atoms=*/1, /*level=*/0)) {
        RowTable &visited = p.visited[1];
        const int32_t *k = s.key(i, p.front.data() + at, scratch);
        visited.insert(k, visited.hash(k));
      }
    }
  }
}

ProofSearch::~ProofSearch() = default;

int64_t ProofSearch::numPieces() const {
  return static_cast<int64_t>(impl_->pieces.size());
}

int32_t ProofSearch::levels() const { return impl_->started; }

bool ProofSearch::nextLevel() {
  Impl &s = *impl_;
  if (s.started >= s.maxDepth)
    return false;
  if (std::none_of(s.pieces.begin(), s.pieces.end(),
                   [](const Piece &p) { return !p.frontTriple.empty(); }))
    return false;
  ++s.started;
  return true;
}

int64_t ProofSearch::expand(int64_t index) {
  Impl &s = *impl_;
  if (index < 0 || index >= numPieces())
    fail("search: piece {} of {}", index, numPieces());
  Piece &p = s.pieces[static_cast<size_t>(index)];
  s.expanded = index;
  s.collected.clear();
  if (p.frontTriple.empty())
    return 0;
  std::vector<Triple> candidates;
  candidates.reserve(p.frontTriple.size());
  for (int64_t t : p.frontTriple)
    candidates.push_back(s.triples[static_cast<size_t>(t)]);
  const DerivedLists lists = s.deriver.derive(p.front, candidates);
  // The derived states are filtered on the deriver's threads, each over a
  // range of whole triples (the front is grouped by triple), so that a
  // triple's states meet one thread's key set in the engine's order; the
  // ranges' states, concatenated in order, are then those of one thread.
  const size_t n = p.frontTriple.size();
  const size_t threads = std::max<size_t>(
      1, std::min<size_t>(static_cast<size_t>(s.deriver.threads()),
                          n / kParentsPerThread));
  std::vector<size_t> bounds(threads + 1, n);
  bounds[0] = 0;
  for (size_t w = 1; w < threads; ++w) {
    size_t b = std::max(n * w / threads, bounds[w - 1]);
    while (b > 0 && b < n && p.frontTriple[b] == p.frontTriple[b - 1])
      ++b;
    bounds[w] = b;
  }
  while (s.levels.size() < threads)
    s.levels.emplace_back(s.width, s.width);
  std::vector<std::vector<Collected>> parts(threads);
  const int32_t depth = s.started; // the derived states' depth
  auto body = [&](int thread) {
    const size_t w = static_cast<size_t>(thread);
    RowTable &level = s.levels[w];
    level.clear();
    std::vector<int32_t> scratch(static_cast<size_t>(s.width));
    // The first [TRUE] of each triple, in the engine's order.
    lists.forEachStateOf(
        bounds[w], bounds[w + 1], s.A,
        [&](size_t parent, int32_t action, const Atom *state) {
          const int64_t t = p.frontTriple[parent];
          if (state[0].p == s.R && s.proofParent[static_cast<size_t>(t)] < 0) {
            s.proofParent[static_cast<size_t>(t)] = p.frontNode[parent];
            s.proofAction[static_cast<size_t>(t)] = action;
          }
        });
    // The states still worth expanding: goals left (not TRUE or FALSE), the
    // triple not proved, within the depth (each step removes at most one
    // goal), kept before by none of the triple's levels, the first of equal
    // ones at this level.
    lists.forEachStateOf(
        bounds[w], bounds[w + 1], s.A,
        [&](size_t parent, int32_t action, const Atom *state) {
          if (state[0].p < 0 || state[0].p >= s.R)
            return;
          const int64_t t = p.frontTriple[parent];
          if (s.proofParent[static_cast<size_t>(t)] >= 0)
            return;
          const int32_t atoms = stateSize(state, s.A);
          if (depth + atoms > s.maxDepth)
            return;
          const int32_t *k = s.key(t, state, scratch);
          const uint64_t h = level.hash(k);
          const RowTable &kept = p.visited[static_cast<size_t>(atoms)];
          if ((kept.size() > 0 && kept.find(k, kept.hash(k)) >= 0) ||
              !level.insert(k, h))
            return;
          parts[w].push_back(Collected{static_cast<int64_t>(parent), action,
                                       atoms, thread, level.size() - 1});
        });
  };
  std::atomic<bool> abort{false}; // raised on a throw; no range polls it
  runHostWorkers(static_cast<int>(threads), abort, body);
  size_t total = 0;
  for (const std::vector<Collected> &part : parts)
    total += part.size();
  s.collected.reserve(total);
  for (const std::vector<Collected> &part : parts)
    s.collected.insert(s.collected.end(), part.begin(), part.end());
  return static_cast<int64_t>(s.collected.size());
}

void ProofSearch::select(int64_t index, const double *ties, int64_t numTies) {
  Impl &s = *impl_;
  if (index != s.expanded)
    fail("search: select({}) must follow expand({})", index, index);
  Piece &p = s.pieces[static_cast<size_t>(index)];
  const std::vector<Collected> &collected = s.collected;
  const size_t n = collected.size();
  if (numTies != static_cast<int64_t>(n))
    fail("search: piece {}: {} ties for {} collected states", index, numTies,
         n);
  s.expanded = -1;
  auto tripleOf = [&](const Collected &c) {
    return p.frontTriple[static_cast<size_t>(c.parent)];
  };
  // The states are grouped by triple, in the engine's order (the front is):
  // each group's first `keep` by (goal atoms, tie), equal pairs in that
  // order, as a stable sort of the whole list by (triple, atoms, tie) puts
  // them.
  auto before = [&](size_t x, size_t y) {
    const Collected &a = collected[x], &b = collected[y];
    if (a.atoms != b.atoms)
      return a.atoms < b.atoms;
    if (ties[x] != ties[y])
      return ties[x] < ties[y];
    return x < y;
  };
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  for (size_t g = 0; g < n;) {
    size_t end = g + 1;
    while (end < n && tripleOf(collected[end]) == tripleOf(collected[g]))
      ++end;
    const size_t take = std::min(end - g, static_cast<size_t>(s.keep));
    std::partial_sort(order.begin() + static_cast<long>(g),
                      order.begin() + static_cast<long>(g + take),
                      order.begin() + static_cast<long>(end), before);
    std::fill(order.begin() + static_cast<long>(g + take),
              order.begin() + static_cast<long>(end), n);
    g = end;
  }
  std::vector<Atom> front;
  std::vector<int64_t> frontTriple, frontNode;
  std::vector<const Collected *> kept;
  for (size_t i : order) {
    if (i == n) // past its triple's `keep`
      continue;
    const Collected &c = collected[i];
    const int32_t *k = s.levels[static_cast<size_t>(c.part)].row(c.key);
    const size_t at = front.size();
    front.resize(at + static_cast<size_t>(s.A));
    std::memcpy(front.data() + at, k + 1, sizeof(Atom) * s.A);
    frontTriple.push_back(tripleOf(c));
    frontNode.push_back(static_cast<int64_t>(s.parent.size()));
    s.parent.push_back(p.frontNode[static_cast<size_t>(c.parent)]);
    s.action.push_back(c.action);
    kept.push_back(&c);
  }
  // Only the triples that go on can meet their kept states again.
  std::vector<uint8_t> searching(static_cast<size_t>(p.hi - p.lo), 0);
  for (int64_t t : frontTriple)
    searching[static_cast<size_t>(t - p.lo)] = 1;
  for (int32_t g = 1; g <= s.A; ++g) {
    RowTable &visited = p.visited[static_cast<size_t>(g)];
    if (!s.canMeet(g, s.started))
      visited = RowTable(1 + 3 * g, 1 + 3 * g); // its memory too
    else
      visited.retain(
          [&](const int32_t *k) { return searching[k[0] - p.lo] != 0; });
  }
  for (const Collected *c : kept) {
    if (!s.canMeet(c->atoms, s.started))
      continue;
    RowTable &visited = p.visited[static_cast<size_t>(c->atoms)];
    const int32_t *k = s.levels[static_cast<size_t>(c->part)].row(c->key);
    visited.insert(k, visited.hash(k));
  }
  p.front = std::move(front);
  p.frontTriple = std::move(frontTriple);
  p.frontNode = std::move(frontNode);
  s.collected.clear();
  for (RowTable &level : s.levels)
    level.clear();
}

std::vector<std::optional<std::vector<int32_t>>> ProofSearch::paths() const {
  const Impl &s = *impl_;
  std::vector<std::optional<std::vector<int32_t>>> out(s.triples.size());
  for (size_t i = 0; i < s.triples.size(); ++i) {
    if (s.proofParent[i] < 0)
      continue;
    std::vector<int32_t> path{s.proofAction[i]};
    for (int64_t n = s.proofParent[i]; s.parent[static_cast<size_t>(n)] >= 0;
         n = s.parent[static_cast<size_t>(n)])
      path.push_back(s.action[static_cast<size_t>(n)]);
    std::reverse(path.begin(), path.end());
    out[i] = std::move(path);
  }
  return out;
}

} // namespace proofc
