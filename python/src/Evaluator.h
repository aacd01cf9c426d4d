//===- Evaluator.h - proofc._core.Evaluator: a Session for Python -*- C++
//-*-===//
//
// The C++ side of proofc.Evaluator (python/proofc/_evaluator.py adds the
// program handling): a proofc::Session driven from one worker thread
// (Worker.h), its static facts (tensors, vocabularies, candidates) as Python
// objects built once, and evaluate(), which borrows the caller's tensors
// (TensorBorrow.h), runs the Session with the GIL released and Ctrl-C
// honoured (Interruptible.h), and returns the call's result, made into
// Python objects on demand (Results.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_EVALUATOR_H
#define PROOFC_PYTHON_EVALUATOR_H

#include "Search.h"
#include "TensorBorrow.h"
#include "Worker.h"

#include "proofc/runtime/Derive.h"
#include "proofc/runtime/Session.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace proofc::python {

class Evaluator {
public:
  /// Binds the bundle at `bundlePath` (Session's constructor, run on the
  /// worker with the GIL released). Throws proofc::Error.
  Evaluator(const std::string &bundlePath, SessionOptions options);
  /// Releases the Session (device memory included) on the worker.
  ~Evaluator();
  Evaluator(const Evaluator &) = delete;
  Evaluator &operator=(const Evaluator &) = delete;

  /// {name: (shape tuple, "float32")}, in name order.
  pybind11::dict expectedTensors() const;
  pybind11::list entities() const;
  pybind11::list relations() const;
  /// "cpu" or "cuda:N" (a torch device string), and the device in words.
  std::string device() const;
  std::string deviceName() const;
  /// "host" or "cuda".
  std::string backend() const;
  /// {"name", "A", "S", "D", "B", "d", "L"}.
  pybind11::dict program() const;
  /// The options the evaluator was made with, by their Python names.
  pybind11::dict options() const;
  int64_t numCandidates() const;
  /// The candidate columns (read-only numpy arrays, candidate order):
  /// "query", "mode", "entity", "positive".
  pybind11::dict candidates() const { return candidates_; }
  /// The queries as an int32 array [N, 3] of (head, relation, tail) ids.
  pybind11::object queries() const { return queries_; }

  /// Evaluates `weights`: a mapping name -> tensor, or a str / os.PathLike
  /// naming a safetensors file. `progress`, when not None, is called as
  /// progress(done, total) from the calling thread while the call runs.
  /// Returns the call's EvaluationResult (Results.h): nothing of the report
  /// is made into Python objects yet.
  pybind11::object evaluate(pybind11::handle weights,
                            pybind11::object progress);

  /// Session::rollouts() for the request rolloutRequest() builds from the
  /// arguments; `weights` as for evaluate(). Returns trajectoriesDict().
  pybind11::dict rollouts(pybind11::handle weights, pybind11::handle triples,
                          pybind11::handle positive, int64_t episodes,
                          uint64_t seed, uint64_t episodeBase,
                          double temperature, bool sampled);

  /// StateDeriver::derive() (built on the first call): the derived lists of
  /// `states` [N, A, 3] (int32, docs/rollouts.md's encoding) as steps of
  /// candidates `triples` [N, 3]. Returns {"count": int32 [N], "states": int32
  /// [Σ count, A, 3]}.
  pybind11::dict derive(pybind11::handle states, pybind11::handle triples);

  /// A ProofSearch (Search.h) of `triples` [N, 3] over the engine derive()
  /// runs, with its bounds.
  std::unique_ptr<Search> proofSearch(pybind11::handle triples, int32_t keep,
                                      int32_t maxDepth, int64_t pieceStates);

  /// Releases the Session now; every later call but close() raises.
  void close();
  bool closed() const { return !session_; }

private:
  Session &session() const;
  /// The StateDeriver of derive() and proofSearch(), made on first use.
  std::shared_ptr<const StateDeriver> stateDeriver();

  /// The weights evaluate() and rollouts() take: the path of a safetensors
  /// file (a str or os.PathLike), or a mapping name -> tensor borrowed in
  /// place (which must outlive the call that reads it); anything else is a
  /// TypeError.
  struct WeightsArgument {
    std::optional<std::string> path;
    BorrowedTensors borrowed;
  };
  WeightsArgument weightsArgument(pybind11::handle weights) const;

  std::unique_ptr<Worker> worker_;
  std::unique_ptr<Session> session_;
  std::shared_ptr<const StateDeriver> deriver_; ///< made by stateDeriver()
  Placement placement_;
  std::vector<TensorSpec> expected_;
  pybind11::dict candidates_;
  pybind11::object queries_;
};

} // namespace proofc::python

#endif // PROOFC_PYTHON_EVALUATOR_H
