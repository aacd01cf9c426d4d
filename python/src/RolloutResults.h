//===- RolloutResults.h - Trajectories as Python objects --------*- C++ -*-===//
//
// What Evaluator.rollouts() returns to python/proofc/rollouts.py: one entry
// per tensor of proofc::Trajectories (docs/rollouts.md), by its Python name.
// Host tensors become numpy arrays (copied: the session's buffers are
// reused by its next call); CUDA tensors a dict {"ptr", "shape", "typestr",
// "device"} that rollouts.py wraps with __cuda_array_interface__ and copies
// on the device. Also the request built from the Python arguments.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_ROLLOUTRESULTS_H
#define PROOFC_PYTHON_ROLLOUTRESULTS_H

#include "proofc/runtime/Rollouts.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace proofc::python {

/// The request for triples [N, 3] int32 and positive [N] (any dtype numpy
/// casts to uint8); errors name the argument.
RolloutRequest rolloutRequest(
    const pybind11::array_t<int32_t, pybind11::array::c_style |
                                         pybind11::array::forcecast> &triples,
    const pybind11::array_t<uint8_t, pybind11::array::c_style |
                                         pybind11::array::forcecast> &positive,
    int64_t episodes, uint64_t seed, uint64_t episodeBase, double temperature,
    bool sampled);

/// {"status", "depth", "triple", "positive", "logp", "states",
/// "step_episode", "step_state", "step_derived", "step_count",
/// "step_action", "step_logp": arrays or CUDA descriptions; "episodes",
/// "num_states", "steps", "run_seconds", "call_seconds"}.
pybind11::dict trajectoriesDict(const Trajectories &t);

} // namespace proofc::python

#endif // PROOFC_PYTHON_ROLLOUTRESULTS_H
