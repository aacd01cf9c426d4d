//===- Search.cpp - proofc._core.ProofSearch ------------------------------===//
//
// Search.h says what it binds. The arrays cross as numpy arrays: the triples
// in, the ties (float64, one per state expand() collected) in, the paths out
// as lists.
//
//===----------------------------------------------------------------------===//
#include "Search.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

namespace py = pybind11;

namespace proofc::python {

std::unique_ptr<Search> makeSearch(std::shared_ptr<const StateDeriver> deriver,
                                   py::handle triples, int32_t keep,
                                   int32_t maxDepth, int64_t pieceStates) {
  using Int32Array =
      py::array_t<int32_t, py::array::c_style | py::array::forcecast>;
  Int32Array array = Int32Array::ensure(triples);
  if (!array || array.ndim() != 2 || array.shape(1) != 3)
    throw py::type_error("triples: expected an integer array [N, 3]");
  std::vector<Triple> list(static_cast<size_t>(array.shape(0)));
  const int32_t *t = array.data();
  for (size_t i = 0; i < list.size(); ++i)
    list[i] = Triple{t[3 * i], t[3 * i + 1], t[3 * i + 2]};
  auto out = std::make_unique<Search>();
  out->search = std::make_unique<ProofSearch>(*deriver, std::move(list), keep,
                                              maxDepth, pieceStates);
  out->deriver = std::move(deriver);
  return out;
}

void bindSearch(py::module_ &m) {
  py::class_<Search>(m, "ProofSearch",
                     "The shortest-proof search of the imitation warm start "
                     "(proofc.training.search; docs/training.md).")
      .def_property_readonly(
          "pieces", [](const Search &s) { return s.search->numPieces(); })
      .def_property_readonly("levels",
                             [](Search &s) {
                               std::lock_guard<std::mutex> lock(s.turn);
                               return s.search->levels();
                             })
      .def(
          "next_level",
          [](Search &s) {
            std::lock_guard<std::mutex> lock(s.turn);
            return s.search->nextLevel();
          },
          "Starts the next level; False once max_depth levels ran or no "
          "piece has states left.")
      .def(
          "expand",
          [](Search &s, int64_t piece) {
            // The GIL first, then the turn: a thread waiting for the turn
            // holds no GIL that the expanding thread would need.
            py::gil_scoped_release released;
            std::lock_guard<std::mutex> lock(s.turn);
            return s.search->expand(piece);
          },
          py::arg("piece"),
          "Expands the piece's states of this level; returns how many "
          "states it collected (the ties select() takes).")
      .def(
          "select",
          [](Search &s, int64_t piece, py::handle ties) {
            using Float64Array =
                py::array_t<double, py::array::c_style | py::array::forcecast>;
            Float64Array array = Float64Array::ensure(ties);
            if (!array || array.ndim() != 1)
              throw py::type_error("ties: expected a float array [n]");
            std::lock_guard<std::mutex> lock(s.turn);
            s.search->select(piece, array.data(), array.shape(0));
          },
          py::arg("piece"), py::arg("ties"),
          "Keeps per triple the `keep` collected states with the fewest "
          "goal atoms, ties by `ties` (lower first).")
      .def(
          "paths",
          [](Search &s) {
            std::lock_guard<std::mutex> lock(s.turn);
            return s.search->paths();
          },
          "Per triple, the actions of its proof, or None.");
}

} // namespace proofc::python
