//===- Results.h - A SessionResult as Python objects ------------*- C++ -*-===//
//
// What evaluate() returns: the report (`proofc run --report`'s JSON, parsed
// by Python's json module, so the fields are the report's by definition)
// with "outcomes" added: one numpy array per column of the outcomes TSV, in
// candidate order. Also the candidate columns, built once per Evaluator.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_RESULTS_H
#define PROOFC_PYTHON_RESULTS_H

#include "proofc/runtime/Session.h"

#include <pybind11/pybind11.h>

namespace proofc::python {

/// {"query": int32, "mode": int8 (0 head, 1 tail), "entity": int32,
/// "positive": bool}, read-only arrays indexed like set.candidates.
pybind11::dict candidateColumns(const CandidateSet &set);

/// set.queries as a read-only int32 array [N, 3] (head, relation, tail).
pybind11::object queryArray(const CandidateSet &set);

/// The report dict plus "outcomes": the candidate columns and "status"
/// (int8: 0 proved, 1 failed, 2 truncated), "depth" (int32), "logp"
/// (float32).
pybind11::dict resultDict(const SessionResult &result,
                          const pybind11::dict &candidates);

} // namespace proofc::python

#endif // PROOFC_PYTHON_RESULTS_H
