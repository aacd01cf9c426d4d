//===- Search.h - proofc._core.ProofSearch, the warm start's search -*- C++
//-*-===//
//
// The binding of proofc::ProofSearch (ProofSearch.h), which
// python/proofc/training/search.py drives level by level and piece by piece,
// drawing the ties itself. The search shares the evaluator's StateDeriver,
// so it stays usable after the evaluator is closed; expand() runs the engine
// with the GIL released, so each call takes the search's mutex: two Python
// threads driving one search take turns instead of racing on its level.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_SEARCH_H
#define PROOFC_PYTHON_SEARCH_H

#include "proofc/runtime/ProofSearch.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>

namespace proofc::python {

struct Search {
  std::shared_ptr<const StateDeriver> deriver; ///< what `search` expands with
  std::unique_ptr<ProofSearch> search;
  std::mutex turn; ///< held by each call (expand's without the GIL)
};

/// A search of `triples` (an integer array [N, 3] of head, relation, tail
/// ids) over `deriver`; a TypeError for another shape.
std::unique_ptr<Search> makeSearch(std::shared_ptr<const StateDeriver> deriver,
                                   pybind11::handle triples, int32_t keep,
                                   int32_t maxDepth, int64_t pieceStates);

/// Registers proofc._core.ProofSearch.
void bindSearch(pybind11::module_ &m);

} // namespace proofc::python

#endif // PROOFC_PYTHON_SEARCH_H
