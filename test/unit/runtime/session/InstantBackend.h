//===- InstantBackend.h - Test backends that answer at once ---*- C++ -*-===//
//
// The streamed run's tests (StreamingTest, DeviceWorkersTest) need pools of
// millions of candidates run in a second and backends that behave like the
// CUDA one (runs of one size) or like a slow device: outcomes here are a
// function of the candidate alone, so any split of the pool, over blocks or
// over device workers, or shared between lists of the same corruptions
// (SharedLists.h), must give the same outcomes bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_RUNTIME_INSTANTBACKEND_H
#define PROOFC_TEST_UNIT_RUNTIME_INSTANTBACKEND_H

#include "proofc/runtime/Evaluation.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace proofc::test {

/// Outcomes from the candidate's triple alone (as a real backend's: spec
/// §5), at once: a pool of millions runs in a second. From query `nanQuery`
/// on, the candidates whose entity is a multiple of 5 get a NaN.
class InstantBackend : public Backend {
public:
  std::string name() const override { return "instant"; }
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    std::vector<Outcome> out;
    out.reserve(inputs.candidates.candidates.size());
    for (const Candidate &c : inputs.candidates.candidates) {
      const int64_t key =
          int64_t{c.triple.h} * 7919 + int64_t{c.triple.r} * 131 + c.triple.t;
      Outcome o{static_cast<ProofStatus>(key % 3),
                static_cast<int32_t>(key % 20),
                -0.001f * static_cast<float>(key * 31 % 997)};
      if (o.status != ProofStatus::Proved)
        o.logp = -std::numeric_limits<float>::infinity();
      if (nanQuery >= 0 && c.query >= nanQuery && c.entity % 5 == 0)
        o.logp = std::nanf("");
      out.push_back(o);
    }
    if (inputs.control)
      inputs.control->report(static_cast<int64_t>(out.size()));
    timings.steps = 1;
    return out;
  }
  int64_t nanQuery = -1; ///< from this query on, some candidates are NaN
};

/// InstantBackend that asks for runs of one size (as the CUDA backend
/// does) and records each run's size and EvalInputs::shapeId.
class OneSizeBackend : public InstantBackend {
public:
  bool prefersOneRunSize() const override { return true; }
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    sizes.push_back(static_cast<int64_t>(inputs.candidates.candidates.size()));
    shapes.push_back(inputs.shapeId);
    return InstantBackend::run(inputs, timings);
  }
  std::vector<int64_t> sizes;
  std::vector<uint64_t> shapes;
};

/// InstantBackend that takes `delay` per run, like a slower device; counts
/// its runs.
class SlowBackend : public InstantBackend {
public:
  explicit SlowBackend(std::chrono::milliseconds delay) : delay(delay) {}
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    started.store(true);
    // A test that needs another worker to have a block before this one
    // takes any (under load a thread may start after the others are done)
    // points `after` at that worker's `started`; bounded, so that a broken
    // schedule fails the test's expectations instead of hanging.
    if (after && runs == 0)
      for (int i = 0; i < 10000 && !after->load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(delay);
    ++runs;
    return InstantBackend::run(inputs, timings);
  }
  std::chrono::milliseconds delay;
  int runs = 0;
  std::atomic<bool> started{false};
  const std::atomic<bool> *after = nullptr;
};

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_RUNTIME_INSTANTBACKEND_H
