//===- Module.cpp - The proofc._core extension module ---------------------===//
//
// Bindings only: proofc.Error (every proofc::Error; proofc::Interrupted
// becomes KeyboardInterrupt), the Evaluator class with its keyword
// arguments, and the module's constants. The behaviour is in Evaluator.cpp
// and the files it names; the Python-facing documentation in
// docs/python.md.
//
//===----------------------------------------------------------------------===//
#include "Evaluator.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/RankMetrics.h"
#include "proofc/runtime/RunControl.h"

#include <pybind11/stl.h>

#include <algorithm>

namespace py = pybind11;
using proofc::SessionOptions;
using proofc::python::Evaluator;

namespace {

/// The Python keywords, mapped onto SessionOptions (which checks them).
SessionOptions sessionOptions(
    const py::object &data, const std::string &split, const py::object &queries,
    const py::object &corruptions, uint64_t seed, const std::string &facts,
    const std::string &device, int threads, const std::string &cond, int unroll,
    int64_t memoEntries, int64_t maxPool, const py::object &hits,
    bool perRelation, int64_t bootstrap, uint64_t bootstrapSeed) {
  const py::module_ os = py::module_::import("os");
  SessionOptions o;
  o.data = py::str(os.attr("fsdecode")(os.attr("fspath")(data)));
  o.split = split;
  o.queries = queries.is_none() ? -1 : queries.cast<int64_t>();
  o.corruptions = corruptions.is_none() ? 0 : corruptions.cast<int64_t>();
  if (!queries.is_none() && o.queries < 1)
    throw py::value_error("queries: " + std::to_string(o.queries) +
                          "; pass a positive count, or None for all");
  if (!corruptions.is_none() && o.corruptions < 1)
    throw py::value_error(
        "corruptions: " + std::to_string(o.corruptions) +
        "; pass a positive count, or None for every filtered corruption");
  o.seed = seed;
  if (facts != "train" && facts != "train+valid")
    throw py::value_error("facts: '" + facts +
                          "'; pass 'train' or 'train+valid'");
  o.factsIncludeValid = facts == "train+valid";
  o.device = device;
  o.threads = threads;
  o.cond = cond;
  o.unroll = unroll;
  o.memoEntries = memoEntries;
  o.maxPool = maxPool;
  if (!hits.is_none()) {
    o.rankMetrics.hits =
        proofc::normalizeHits(hits.cast<std::vector<int64_t>>(), "hits");
  }
  o.rankMetrics.perRelation = perRelation;
  o.rankMetrics.bootstrapSamples = bootstrap;
  o.rankMetrics.bootstrapSeed = bootstrapSeed;
  // The report's provenance names what ran: this interpreter's argv.
  py::module_ sys = py::module_::import("sys");
  if (py::hasattr(sys, "argv"))
    for (py::handle arg : sys.attr("argv"))
      o.commandLine.push_back(py::str(arg));
  return o;
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "proofc's runtime for Python: proofc.Evaluator binds a compiled "
            "program, a dataset, its candidates and a device once and "
            "evaluates any number of weight sets (docs/python.md).";

  // proofc.Error is the package's one exception (python/proofc/errors.py):
  // the runtime's errors are a subclass of it, so one `except proofc.Error`
  // catches both. Without errors.py, this class is proofc.Error.
  py::object base = py::reinterpret_borrow<py::object>(PyExc_Exception);
  try {
    base = py::module_::import("proofc.errors").attr("Error");
  } catch (py::error_already_set &e) {
    if (!e.matches(PyExc_ImportError))
      throw;
  }
  static py::exception<proofc::Error> error(m, "Error", base.ptr());
  error.doc() = "An error of proofc's runtime (bad input, I/O, device).";
  // Registered after Error's, so tried first: a cancelled call is Ctrl-C.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const proofc::Interrupted &e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const proofc::Error &e) {
      error(e.what());
    }
  });

  m.attr("STATUS_NAMES") = py::make_tuple("proved", "failed", "truncated");
  m.attr("MODE_NAMES") = py::make_tuple("head", "tail");

  py::class_<Evaluator>(m, "Evaluator", py::dynamic_attr())
      .def(py::init([](const py::object &bundle, const py::object &data,
                       const std::string &split, const py::object &queries,
                       const py::object &corruptions, uint64_t seed,
                       const std::string &facts, const std::string &device,
                       int threads, const std::string &cond, int unroll,
                       int64_t memoEntries, int64_t maxPool,
                       const py::object &hits, bool perRelation,
                       int64_t bootstrap, uint64_t bootstrapSeed) {
             const py::module_ os = py::module_::import("os");
             const std::string path =
                 py::str(os.attr("fsdecode")(os.attr("fspath")(bundle)));
             return std::make_unique<Evaluator>(
                 path, sessionOptions(data, split, queries, corruptions, seed,
                                      facts, device, threads, cond, unroll,
                                      memoEntries, maxPool, hits, perRelation,
                                      bootstrap, bootstrapSeed));
           }),
           py::arg("bundle"), py::kw_only(), py::arg("data"),
           py::arg("split") = "valid", py::arg("queries") = py::none(),
           py::arg("corruptions") = 100, py::arg("seed") = 0,
           py::arg("facts") = "train", py::arg("device") = "auto",
           py::arg("threads") = 0, py::arg("cond") = "native",
           py::arg("unroll") = 8, py::arg("memo_entries") = -1,
           py::arg("max_pool") = 0, py::arg("hits") = py::none(),
           py::arg("per_relation") = false, py::arg("bootstrap") = 0,
           py::arg("bootstrap_seed") = 0,
           "Binds the bundle (a .pcb written by `proofc compile`), the "
           "dataset directory `data`, the candidates and the device once.")
      .def("expected_tensors", &Evaluator::expectedTensors,
           "{name: (shape, 'float32')} of every tensor evaluate() needs.")
      .def("evaluate", &Evaluator::evaluate, py::arg("weights"),
           py::arg("progress") = py::none(),
           "Evaluates a mapping name -> tensor (numpy arrays, torch tensors "
           "on the CPU or the evaluator's GPU) or a safetensors path; "
           "returns the report dict with per-candidate 'outcomes' arrays.")
      .def("close", &Evaluator::close,
           "Releases the session (device memory included) now.")
      .def_property_readonly("closed", &Evaluator::closed)
      .def_property_readonly("entities", &Evaluator::entities)
      .def_property_readonly("relations", &Evaluator::relations)
      .def_property_readonly("device", &Evaluator::device,
                             "'cpu' or 'cuda:N' (usable as a torch device).")
      .def_property_readonly("device_name", &Evaluator::deviceName)
      .def_property_readonly("backend", &Evaluator::backend)
      .def_property_readonly("program", &Evaluator::program)
      .def_property_readonly("options", &Evaluator::options)
      .def_property_readonly("num_candidates", &Evaluator::numCandidates)
      .def_property_readonly("candidates", &Evaluator::candidates)
      .def_property_readonly("queries", &Evaluator::queries);
}
