//===- Evaluator.cpp - proofc._core.Evaluator: a Session for Python -------===//
#include "Evaluator.h"

#include "Interruptible.h"
#include "Results.h"
#include "RolloutResults.h"

#include "proofc/runtime/Error.h"

#include <pybind11/stl.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace py = pybind11;

namespace proofc::python {

namespace {

/// Waits with the GIL released for a job that cannot be cancelled.
template <typename R> R waitReleased(std::future<R> &job) {
  {
    py::gil_scoped_release released;
    job.wait();
  }
  return job.get();
}

/// The CUDA ordinal an evaluator on the CUDA backend runs on: N of
/// "cuda:N", else 0 (Session.h: "cuda" and "auto" take device 0).
int cudaOrdinal(const std::string &device) {
  const std::string prefix = "cuda:";
  if (device.compare(0, prefix.size(), prefix) == 0)
    return std::atoi(device.c_str() + prefix.size());
  return 0;
}

py::tuple shapeTuple(const std::vector<int64_t> &shape) {
  py::tuple t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    t[i] = shape[i];
  return t;
}

} // namespace

Evaluator::Evaluator(const std::string &bundlePath, SessionOptions options)
    : worker_(std::make_unique<Worker>()) {
  auto job = worker_->submit([&] {
    return std::make_unique<Session>(bundlePath, std::move(options));
  });
  session_ = waitReleased(job);
  placement_.cuda = session_->backendName() == "cuda";
  placement_.ordinal =
      placement_.cuda ? cudaOrdinal(session_->options().device) : 0;
  expected_ = session_->expectedTensors();
  candidates_ = candidateColumns(session_->candidates());
  queries_ = queryArray(session_->candidates());
}

Evaluator::~Evaluator() {
  // The Session's CUDA state belongs to the worker's thread; the worker
  // never takes the GIL, so waiting here with it held cannot deadlock.
  if (session_)
    worker_->submit([this] { session_.reset(); }).wait();
}

void Evaluator::close() {
  if (!session_)
    return;
  deriver_.reset();
  auto job = worker_->submit([this] { session_.reset(); });
  waitReleased(job);
}

Session &Evaluator::session() const {
  if (!session_)
    throw Error("proofc.Evaluator: the evaluator is closed");
  return *session_;
}

py::dict Evaluator::expectedTensors() const {
  session();
  py::dict out;
  for (const TensorSpec &spec : expected_)
    out[py::str(spec.name)] = py::make_tuple(
        shapeTuple(spec.shape),
        spec.dtype == "F32" ? std::string("float32") : spec.dtype);
  return out;
}

py::list Evaluator::entities() const {
  return py::cast(session().dataset().entities.names());
}

py::list Evaluator::relations() const {
  return py::cast(session().dataset().relations.names());
}

std::string Evaluator::device() const {
  session();
  return placement_.name();
}

std::string Evaluator::deviceName() const { return session().deviceName(); }

std::string Evaluator::backend() const { return session().backendName(); }

py::dict Evaluator::program() const {
  const ProgramSpec &p = session().program();
  py::dict out;
  out["name"] = p.name;
  out["A"] = p.shape.A;
  out["S"] = p.shape.S;
  out["D"] = p.shape.D;
  out["B"] = p.shape.B;
  out["d"] = p.shape.d;
  out["L"] = p.shape.L;
  return out;
}

py::dict Evaluator::options() const {
  const SessionOptions &o = session().options();
  py::dict out;
  out["data"] = o.data;
  out["split"] = o.split;
  out["queries"] =
      o.queries < 0 ? py::object(py::none()) : py::object(py::int_(o.queries));
  out["corruptions"] = o.corruptions <= 0 ? py::object(py::none())
                                          : py::object(py::int_(o.corruptions));
  out["seed"] = o.seed;
  out["facts"] = o.factsIncludeValid ? "train+valid" : "train";
  out["device"] = o.device;
  out["workers_per_device"] = o.workersPerDevice;
  out["threads"] = o.threads;
  out["cond"] = o.cond;
  out["unroll"] = o.unroll;
  out["memo_entries"] = o.memoEntries;
  out["max_pool"] = o.maxPool;
  out["shared_lists"] = o.shareLists;
  out["hits"] = py::cast(o.rankMetrics.hits);
  out["per_relation"] = o.rankMetrics.perRelation;
  out["bootstrap"] = o.rankMetrics.bootstrapSamples;
  out["bootstrap_seed"] = o.rankMetrics.bootstrapSeed;
  return out;
}

int64_t Evaluator::numCandidates() const {
  return static_cast<int64_t>(session().candidates().candidates.size());
}

Evaluator::WeightsArgument
Evaluator::weightsArgument(py::handle weights) const {
  WeightsArgument given;
  const py::module_ os = py::module_::import("os");
  if (py::isinstance<py::str>(weights) ||
      py::isinstance(weights, os.attr("PathLike")))
    given.path = py::str(os.attr("fsdecode")(os.attr("fspath")(weights)));
  else if (py::hasattr(weights, "items"))
    given.borrowed = borrowTensors(weights, expected_, placement_);
  else
    throw py::type_error(
        "weights: pass a mapping name -> tensor (a state_dict, a dict of "
        "numpy arrays) or the path of a safetensors file, not a " +
        std::string(py::str(weights.get_type().attr("__name__"))));
  return given;
}

py::object Evaluator::evaluate(py::handle weights, py::object progress) {
  Session &s = session();
  std::atomic<bool> cancel{false};
  std::atomic<int64_t> done{-1}, total{0};
  EvaluateControl control;
  control.cancel = &cancel;
  control.progress = [&](int64_t d, int64_t t) {
    total.store(t);
    done.store(d);
  };

  const WeightsArgument given = weightsArgument(weights); // outlives the job
  std::future<SessionResult> job =
      given.path ? worker_->submit([&s, &given, &control] {
        return s.evaluateFile(*given.path, control);
      })
                 : worker_->submit([&s, &given, &control] {
                     return s.evaluate(given.borrowed.views(), control);
                   });

  int64_t shown = -1;
  std::function<void()> poll;
  if (!progress.is_none())
    poll = [&] {
      const int64_t d = done.load();
      if (d < 0 || d == shown)
        return;
      shown = d;
      progress(d, total.load());
    };
  SessionResult result = waitInterruptible(job, cancel, poll);
  if (poll)
    poll(); // the last count, when the call ended between two polls
  return py::cast(EvaluationResult(std::move(result), candidates_));
}

py::dict Evaluator::rollouts(py::handle weights, py::handle triples,
                             py::handle positive, int64_t episodes,
                             uint64_t seed, uint64_t episodeBase,
                             double temperature, bool sampled) {
  Session &s = session();
  using Int32Array =
      py::array_t<int32_t, py::array::c_style | py::array::forcecast>;
  using UInt8Array =
      py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;
  Int32Array tripleArray = Int32Array::ensure(triples);
  if (!tripleArray)
    throw py::type_error("triples: expected an integer array [N, 3]");
  UInt8Array positiveArray = UInt8Array::ensure(positive);
  if (!positiveArray)
    throw py::type_error("positive: expected a bool array [N]");
  const RolloutRequest request =
      rolloutRequest(tripleArray, positiveArray, episodes, seed, episodeBase,
                     temperature, sampled);
  std::atomic<bool> cancel{false};
  EvaluateControl control;
  control.cancel = &cancel;
  const WeightsArgument given = weightsArgument(weights); // outlives the job
  std::future<Trajectories> job =
      given.path
          ? worker_->submit([&s, &request, &given, &control] {
              return s.rollouts(request, s.loadWeights(*given.path), control);
            })
          : worker_->submit([&s, &request, &given, &control] {
              return s.rollouts(request, given.borrowed.views(), control);
            });
  const Trajectories result = waitInterruptible(job, cancel, {});
  return trajectoriesDict(result);
}

py::dict Evaluator::derive(py::handle states, py::handle triples) {
  const Session &s = session();
  using Int32Array =
      py::array_t<int32_t, py::array::c_style | py::array::forcecast>;
  const int64_t A = s.program().shape.A;
  Int32Array stateArray = Int32Array::ensure(states);
  if (!stateArray || stateArray.ndim() != 3 || stateArray.shape(1) != A ||
      stateArray.shape(2) != 3)
    throw py::type_error("states: expected an integer array [N, A = " +
                         std::to_string(A) + ", 3]");
  Int32Array tripleArray = Int32Array::ensure(triples);
  if (!tripleArray || tripleArray.ndim() != 2 || tripleArray.shape(1) != 3)
    throw py::type_error("triples: expected an integer array [N, 3]");
  const int64_t N = stateArray.shape(0);
  if (tripleArray.shape(0) != N)
    throw py::value_error("triples: " + std::to_string(tripleArray.shape(0)) +
                          " rows for " + std::to_string(N) + " states");
  std::vector<Atom> atoms(static_cast<size_t>(N * A));
  std::memcpy(atoms.data(), stateArray.data(), atoms.size() * sizeof(Atom));
  std::vector<Triple> candidates(static_cast<size_t>(N));
  const int32_t *t = tripleArray.data();
  for (int64_t i = 0; i < N; ++i)
    candidates[i] = Triple{t[3 * i], t[3 * i + 1], t[3 * i + 2]};
  const std::shared_ptr<const StateDeriver> deriver = stateDeriver();
  std::future<DerivedLists> job =
      worker_->submit([&deriver, &atoms, &candidates] {
        return deriver->derive(atoms, candidates);
      });
  const DerivedLists lists = waitReleased(job);
  const int64_t M = lists.numStates();
  py::array_t<int32_t> count(N);
  std::memcpy(count.mutable_data(), lists.count.data(),
              lists.count.size() * sizeof(int32_t));
  py::array_t<int32_t> out({M, A, int64_t(3)});
  static_assert(sizeof(Atom) == 3 * sizeof(int32_t));
  lists.copyStates(reinterpret_cast<Atom *>(out.mutable_data()));
  py::dict result;
  result["count"] = count;
  result["states"] = out;
  return result;
}

std::shared_ptr<const StateDeriver> Evaluator::stateDeriver() {
  if (!deriver_) {
    const Session &s = session();
    std::future<std::unique_ptr<StateDeriver>> made = worker_->submit([&s] {
      return std::make_unique<StateDeriver>(s.dataset(), s.program().shape,
                                            s.options().factsIncludeValid,
                                            s.options().threads);
    });
    deriver_ = waitReleased(made);
  }
  return deriver_;
}

std::unique_ptr<Search> Evaluator::proofSearch(py::handle triples, int32_t keep,
                                               int32_t maxDepth,
                                               int64_t pieceStates) {
  return makeSearch(stateDeriver(), triples, keep, maxDepth, pieceStates);
}

} // namespace proofc::python
