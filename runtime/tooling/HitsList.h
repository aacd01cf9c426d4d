//===- HitsList.h - The --hits list of the tools ----------------*- C++ -*-===//
//
// Command-line vocabulary, so the tooling's and not the runtime's: an
// embedder sets RankMetricOptions::hits (checked by normalizeHits,
// proofc/runtime/RankMetrics.h); `proofc run` and `proofc-run` parse their
// --hits text here.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLING_HITSLIST_H
#define PROOFC_TOOLING_HITSLIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

/// Parses a --hits list ("1,3,10"): positive integers, sorted and
/// deduplicated (normalizeHits). Throws proofc::Error("--hits: ...").
std::vector<int64_t> parseHitsList(const std::string &text);

} // namespace proofc

#endif // PROOFC_TOOLING_HITSLIST_H
