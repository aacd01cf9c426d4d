//===- Results.cpp - A SessionResult as Python objects --------------------===//
#include "Results.h"

#include "proofc/runtime/Error.h"

#include <pybind11/numpy.h>

#include <cstring>

namespace py = pybind11;

namespace proofc::python {

namespace {

template <typename T> py::array_t<T> column(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}

/// Arrays shared by every result are frozen so that no caller edits another's.
py::object frozen(py::array array) {
  array.attr("setflags")(py::arg("write") = false);
  return std::move(array);
}

} // namespace

py::dict candidateColumns(const CandidateSet &set) {
  const size_t n = set.candidates.size();
  auto query = column<int32_t>(n);
  auto mode = column<int8_t>(n);
  auto entity = column<int32_t>(n);
  auto positive = column<bool>(n);
  int32_t *q = query.mutable_data();
  int8_t *m = mode.mutable_data();
  int32_t *e = entity.mutable_data();
  bool *p = positive.mutable_data();
  for (size_t i = 0; i < n; ++i) {
    const Candidate &c = set.candidates[i];
    q[i] = c.query;
    m[i] = static_cast<int8_t>(c.mode);
    e[i] = c.entity;
    p[i] = false;
  }
  for (const CandidateGroup &g : set.groups)
    p[g.begin] = true;
  py::dict columns;
  columns["query"] = frozen(query);
  columns["mode"] = frozen(mode);
  columns["entity"] = frozen(entity);
  columns["positive"] = frozen(positive);
  return columns;
}

py::object queryArray(const CandidateSet &set) {
  const py::ssize_t n = static_cast<py::ssize_t>(set.queries.size());
  py::array_t<int32_t> queries({n, py::ssize_t(3)});
  int32_t *q = queries.mutable_data();
  for (py::ssize_t i = 0; i < n; ++i) {
    q[3 * i] = set.queries[i].h;
    q[3 * i + 1] = set.queries[i].r;
    q[3 * i + 2] = set.queries[i].t;
  }
  return frozen(queries);
}

py::object EvaluationResult::section(const std::string &key) const {
  std::string text;
  bool found = true;
  {
    // Any key but "metrics" and "timings" makes the report (PyKEEN's set,
    // the bootstrap): other Python threads run meanwhile.
    py::gil_scoped_release released;
    try {
      text = result_.reportSectionJson(key);
    } catch (const Error &) {
      found = false;
    }
  }
  if (!found)
    throw py::key_error(key);
  return py::module_::import("json").attr("loads")(text);
}

py::dict EvaluationResult::report() const {
  const std::string *text = nullptr;
  {
    py::gil_scoped_release released;
    text = &result_.reportJson();
  }
  return py::module_::import("json").attr("loads")(*text);
}

py::dict EvaluationResult::outcomes() const {
  const size_t n = result_.outcomes.size();
  auto status = column<int8_t>(n);
  auto depth = column<int32_t>(n);
  auto logp = column<float>(n);
  int8_t *s = status.mutable_data();
  int32_t *d = depth.mutable_data();
  float *l = logp.mutable_data();
  for (size_t i = 0; i < n; ++i) {
    const Outcome &o = result_.outcomes[i];
    s[i] = static_cast<int8_t>(o.status);
    d[i] = o.depth;
    l[i] = o.logp;
  }
  py::dict outcomes;
  for (auto item : candidates_)
    outcomes[item.first] = item.second;
  outcomes["status"] = status;
  outcomes["depth"] = depth;
  outcomes["logp"] = logp;
  return outcomes;
}

void defineEvaluationResult(py::module_ &m) {
  py::class_<EvaluationResult>(
      m, "EvaluationResult",
      "One evaluate() call's result, made into Python objects when asked "
      "(proofc.results.Result wraps it).")
      .def("section", &EvaluationResult::section, py::arg("key"),
           "The report's value at a top-level key ('metrics' and 'timings' "
           "are made without the rest of the report).")
      .def("report", &EvaluationResult::report,
           "The whole report as a dict, without 'outcomes'.")
      .def("outcomes", &EvaluationResult::outcomes,
           "The per-candidate columns: new numpy arrays each call.");
}

} // namespace proofc::python
