//===- Results.h - A SessionResult as Python objects ------------*- C++ -*-===//
//
// What evaluate() returns to python/proofc/results.py: the call's
// SessionResult, made into Python objects only when asked (issue 28: the
// whole report as a dict cost about 1.1 ms a call, more than the rest of
// the binding; an in-loop caller reads the MRR). The report's sections
// come from its JSON text, parsed by Python's json module, so the fields
// are the report's by definition; "metrics" and "timings" are made alone
// (SessionResult::reportSectionJson), the rest with the whole report; the
// outcomes, one numpy array per column of the outcomes TSV in candidate
// order. Also the candidate columns, built once per Evaluator.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_RESULTS_H
#define PROOFC_PYTHON_RESULTS_H

#include "proofc/runtime/Session.h"

#include <pybind11/pybind11.h>

#include <string>

namespace proofc::python {

/// {"query": int32, "mode": int8 (0 head, 1 tail), "entity": int32,
/// "positive": bool}, read-only arrays indexed like set.candidates.
pybind11::dict candidateColumns(const CandidateSet &set);

/// set.queries as a read-only int32 array [N, 3] (head, relation, tail).
pybind11::object queryArray(const CandidateSet &set);

/// proofc._core.EvaluationResult: one call's result, for
/// proofc.results.Result to make into its dict on demand.
class EvaluationResult {
public:
  EvaluationResult(SessionResult result, pybind11::dict candidates)
      : result_(std::move(result)), candidates_(std::move(candidates)) {}
  /// The report's value at top-level `key` (a dict, list or scalar);
  /// KeyError for a key the report lacks.
  pybind11::object section(const std::string &key) const;
  /// The whole report as a dict (without "outcomes").
  pybind11::dict report() const;
  /// The candidate columns and "status" (int8: 0 proved, 1 failed, 2
  /// truncated), "depth" (int32), "logp" (float32): new arrays each call.
  pybind11::dict outcomes() const;

private:
  SessionResult result_;
  pybind11::dict candidates_;
};

/// Registers EvaluationResult in module `m`.
void defineEvaluationResult(pybind11::module_ &m);

} // namespace proofc::python

#endif // PROOFC_PYTHON_RESULTS_H
