//===- RolloutResults.cpp - Trajectories as Python objects ----------------===//
#include "RolloutResults.h"

#include "proofc/runtime/Error.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace py = pybind11;

namespace proofc::python {

namespace {

/// numpy's and __cuda_array_interface__'s type string of a Trajectories
/// dtype, and its element size.
std::pair<const char *, size_t> typeOf(const std::string &dtype) {
  if (dtype == "I32")
    return {"<i4", 4};
  if (dtype == "U8")
    return {"|u1", 1};
  if (dtype == "F32")
    return {"<f4", 4};
  throw Error("rollouts: a trajectory tensor has dtype '" + dtype + "'");
}

py::object tensorObject(const TensorView &view) {
  const auto [typestr, itemSize] = typeOf(view.dtype);
  std::vector<py::ssize_t> shape(view.shape.begin(), view.shape.end());
  size_t count = 1;
  for (int64_t n : view.shape)
    count *= static_cast<size_t>(n);
  if (view.memory == MemoryKind::Cuda) {
    py::dict d;
    d["ptr"] = reinterpret_cast<uintptr_t>(view.data);
    // A tuple of ints built here: this file has no pybind11/stl.h, and
    // py::cast of a std::vector without it fails at run time (it did on
    // the first GPU run).
    py::tuple dims(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      dims[i] = py::int_(shape[i]);
    d["shape"] = std::move(dims);
    d["typestr"] = typestr;
    d["device"] = view.device;
    return std::move(d);
  }
  py::array array(py::dtype(typestr), shape);
  if (count > 0)
    std::memcpy(array.mutable_data(), view.data, count * itemSize);
  return std::move(array);
}

} // namespace

RolloutRequest rolloutRequest(
    const py::array_t<int32_t, py::array::c_style | py::array::forcecast>
        &triples,
    const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>
        &positive,
    int64_t episodes, uint64_t seed, uint64_t episodeBase, double temperature,
    bool sampled) {
  if (triples.ndim() != 2 || triples.shape(1) != 3)
    throw py::value_error("triples: expected shape [N, 3] (head, relation, "
                          "tail), got " +
                          std::to_string(triples.ndim()) + " dimensions");
  const py::ssize_t n = triples.shape(0);
  if (positive.ndim() != 1 || positive.shape(0) != n)
    throw py::value_error("positive: expected shape [" + std::to_string(n) +
                          "], one flag per triple");
  if (episodes < 1 || episodes > std::numeric_limits<int32_t>::max())
    throw py::value_error("episodes: must be at least 1, got " +
                          std::to_string(episodes));
  if (!(temperature > 0) || !std::isfinite(temperature) ||
      temperature > std::numeric_limits<float>::max())
    throw py::value_error("temperature: must be positive and finite");
  RolloutRequest request;
  request.triples.resize(static_cast<size_t>(n));
  request.positive.resize(static_cast<size_t>(n));
  const int32_t *t = triples.data();
  const uint8_t *p = positive.data();
  for (py::ssize_t i = 0; i < n; ++i) {
    request.triples[i] = {t[3 * i], t[3 * i + 1], t[3 * i + 2]};
    request.positive[i] = p[i] ? 1 : 0;
  }
  request.episodesPerTriple = static_cast<int32_t>(episodes);
  request.seed = seed;
  request.episodeBase = episodeBase;
  request.temperature = static_cast<float>(temperature);
  request.mode = sampled ? SelectMode::Sampled : SelectMode::Greedy;
  return request;
}

py::dict trajectoriesDict(const Trajectories &t) {
  py::dict out;
  out["status"] = tensorObject(t.status);
  out["depth"] = tensorObject(t.depth);
  out["triple"] = tensorObject(t.triple);
  out["positive"] = tensorObject(t.positive);
  out["logp"] = tensorObject(t.logp);
  out["states"] = tensorObject(t.states);
  out["step_episode"] = tensorObject(t.stepEpisode);
  out["step_state"] = tensorObject(t.stepState);
  out["step_derived"] = tensorObject(t.stepDerived);
  out["step_count"] = tensorObject(t.stepCount);
  out["step_action"] = tensorObject(t.stepAction);
  out["step_logp"] = tensorObject(t.stepLogp);
  out["episodes"] = t.episodes;
  out["num_states"] = t.numStates;
  out["steps"] = t.steps;
  out["run_seconds"] = t.runSeconds;
  out["call_seconds"] = t.callSeconds;
  return out;
}

} // namespace proofc::python
