//===- session_bench.cpp - What one Session::evaluate costs ---------------===//
//
// The embedding API's benchmark (issue 15): one Session binds the V10
// workload once, then evaluates CALLS new weight sets in a loop, the way a
// training loop evaluates every epoch. Each call is timed whole (weights'
// upload and folding, the proof loop, the readback, the metrics and the
// report's inputs) against the bare run time of the same call (the proof
// loop alone: BackendTimings::runSeconds): the ratio, and the per-call
// overhead (call - run, in ms: what the embedding adds to the run it wraps;
// issue 28's targets are call <= 1.1 x run with device weights, <= 1.2 x
// with host weights). What a call leaves for later, the rank metrics and
// the report's text (made on request, SessionReport.h), is asked for after
// the call and timed apart.
//
// Weights: the trained file, scaled by (1 + 1e-3 i) for call i, so that
// every call has new values; given as host tensors (--weights-on host) or
// already on the GPU (device, as torch CUDA tensors are: uploaded before the
// loop, outside the timing, and read in place). Prints one JSON object.
//
//   proofc-session-bench BUNDLE --data DIR --weights W [--queries 100]
//     [--corruptions 100] [--calls 20] [--device cuda] [--weights-on device]
//     [--workers-per-device 0] [--block N] [--sessions 1]
//
// --block cuts each call into blocks of whole queries, run side by side by
// the device workers; --sessions N evaluates N sessions of the same options
// at once from N threads, the probe of what a second proof loop on the same
// GPU costs (docs/performance.md, "Not kept": two loops side by side).
//
// On a machine without a GPU: --device cpu --weights-on host (the host
// backend; the overhead is then the CPU side's alone).
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaDriver.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Notices.h"
#include "proofc/runtime/Session.h"
#include "tooling/StderrNotices.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>

using namespace proofc;

namespace {

struct Options {
  std::string bundle, data, weights, device = "cuda", weightsOn = "device";
  bool cancelToken = false;
  int64_t queries = 100, corruptions = 100;
  int calls = 20;
  int workersPerDevice = 0;
  int unroll = 8;
  int64_t memoEntries = -1;
  int64_t blockCandidates = kDefaultBlockCandidates;
  int sessions = 1;
  bool shareLists = true;
};

TensorMap scaled(const TensorMap &weights, double factor) {
  TensorMap out = weights;
  for (auto &[name, t] : out)
    for (float &v : t.data)
      v = static_cast<float>(v * factor);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Device copies of every tensor, freed at the end (the driver's context is
/// the session's: the primary context of device 0).
class DeviceCopies {
public:
  explicit DeviceCopies(const TensorMap &weights) : drv_(CudaDriver::get()) {
    CUdevice device = 0;
    PROOFC_CU(drv_, cuDeviceGet, &device, 0);
    PROOFC_CU(drv_, cuDevicePrimaryCtxRetain, &ctx_, device);
    PROOFC_CU(drv_, cuCtxSetCurrent, ctx_);
    for (const auto &[name, t] : weights) {
      CUdeviceptr p = 0;
      PROOFC_CU(drv_, cuMemAlloc, &p, std::max<size_t>(4, t.data.size() * 4));
      PROOFC_CU(drv_, cuMemcpyHtoD, p, t.data.data(), t.data.size() * 4);
      pointers_.push_back(p);
      TensorView v{reinterpret_cast<const void *>(p), t.shape};
      v.memory = MemoryKind::Cuda;
      views_[name] = v;
    }
  }
  ~DeviceCopies() {
    for (CUdeviceptr p : pointers_)
      drv_.cuMemFree(p);
    CUdevice device = 0;
    drv_.cuDeviceGet(&device, 0);
    drv_.cuDevicePrimaryCtxRelease(device);
  }
  const TensorViews &views() const { return views_; }

private:
  CudaDriver &drv_;
  CUcontext ctx_ = nullptr;
  std::vector<CUdeviceptr> pointers_;
  TensorViews views_;
};

/// --sessions N: N sessions of the same options, each call evaluating all
/// of them at once from N threads with the same new weights: on the GPU
/// (each session's backend has a stream of its own), or host tensors with
/// --weights-on host, so that the host backend runs it too (lit:
/// session-bench.test). A probe of the GPU's spare capacity: if N proof
/// loops side by side take about N times one, the GPU has none to give a
/// second loop (docs/performance.md, "Not kept": two proof loops side by
/// side).
///
/// Prints the median wall of a round (the threads released together, the
/// last call returned), each session's median run and its last MRR.
int runSideBySide(const Options &o, const SessionOptions &so) {
  std::vector<std::unique_ptr<Session>> sessions;
  for (int s = 0; s < o.sessions; ++s)
    sessions.push_back(std::make_unique<Session>(o.bundle, so));
  const WeightsFile trained = sessions.front()->loadWeights(o.weights);
  std::vector<double> wall;
  std::vector<std::vector<double>> runs(static_cast<size_t>(o.sessions));
  // Each session's MRR at the last call: all equal, the same pool and
  // weights (session-bench.test).
  std::vector<double> mrr(static_cast<size_t>(o.sessions));
  for (int i = 0; i <= o.calls; ++i) { // call 0: each session's setup
    const TensorMap weights = scaled(trained.tensors, 1.0 + 1e-3 * i);
    std::optional<DeviceCopies> copies;
    if (o.weightsOn == "device")
      copies.emplace(weights);
    std::vector<SessionResult> results(static_cast<size_t>(o.sessions));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(o.sessions));
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int s = 0; s < o.sessions; ++s)
      threads.emplace_back([&, s] {
        ++ready;
        while (!go.load())
          ;
        try {
          Session &session = *sessions[static_cast<size_t>(s)];
          results[static_cast<size_t>(s)] =
              copies ? session.evaluate(copies->views())
                     : session.evaluate(weights);
        } catch (...) { // rethrown below, after every thread joined
          errors[static_cast<size_t>(s)] = std::current_exception();
        }
      });
    while (ready.load() < o.sessions)
      ;
    const auto start = std::chrono::steady_clock::now();
    go = true;
    for (std::thread &t : threads)
      t.join();
    for (const std::exception_ptr &e : errors)
      if (e)
        std::rethrow_exception(e);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (i == 0)
      continue;
    wall.push_back(seconds * 1e3);
    for (size_t s = 0; s < results.size(); ++s) {
      runs[s].push_back(results[s].runSeconds);
      mrr[s] = results[s].metrics.both.mrr;
    }
  }
  nlohmann::json perSession = nlohmann::json::array();
  for (const std::vector<double> &r : runs)
    perSession.push_back(median(r) * 1e3);
  const nlohmann::json out = {
      {"bundle", o.bundle},
      {"sessions", o.sessions},
      {"candidates_each", sessions.front()->candidates().candidates.size()},
      {"median_round_ms", median(wall)},
      {"median_run_ms_each", perSession},
      {"rounds_ms", wall},
      {"mrr_each", mrr}};
  fmt::print("{}\n", out.dump(2));
  return 0;
}

int run(const Options &o) {
  SessionOptions so;
  so.data = o.data;
  so.queries = o.queries;
  so.corruptions = o.corruptions;
  so.device = o.device;
  so.workersPerDevice = o.workersPerDevice;
  so.unroll = o.unroll;
  so.memoEntries = o.memoEntries;
  so.shareLists = o.shareLists;
  so.blockCandidates = o.blockCandidates;
  if (o.sessions > 1)
    return runSideBySide(o, so);
  const auto openStart = std::chrono::steady_clock::now();
  Session session(o.bundle, so);
  const WeightsFile trained = session.loadWeights(o.weights);
  const double openSeconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - openStart)
                                 .count();
  // The first call sets the device up (modules from the kernel cache,
  // buffers, graph; for device weights the prologue's module): timed apart.
  SessionResult first;
  if (o.weightsOn == "device") {
    const DeviceCopies copies(trained.tensors);
    first = session.evaluate(copies.views());
  } else {
    first = session.evaluate(trained);
  }

  nlohmann::json calls = nlohmann::json::array();
  std::vector<double> call, bare, ratio, overhead;
  // As the Python package does: a cancel token on every call (the CUDA
  // backend then watches it from a thread during the loop).
  std::atomic<bool> cancel{false};
  EvaluateControl control;
  if (o.cancelToken)
    control.cancel = &cancel;
  for (int i = 1; i <= o.calls; ++i) {
    const TensorMap weights = scaled(trained.tensors, 1.0 + 1e-3 * i);
    SessionResult r;
    if (o.weightsOn == "device") {
      const DeviceCopies copies(weights); // outside the timing
      r = session.evaluate(copies.views(), control);
    } else {
      r = session.evaluate(weights, control);
    }
    // What the call leaves for later (SessionReport.h), timed apart: the
    // rank metrics (PyKEEN's whole set), then the report's JSON text.
    const auto rankStart = std::chrono::steady_clock::now();
    (void)r.rankMetrics();
    const auto textStart = std::chrono::steady_clock::now();
    (void)r.reportJson();
    const auto asked = std::chrono::steady_clock::now();
    const double rankMs =
        std::chrono::duration<double, std::milli>(textStart - rankStart)
            .count();
    const double textMs =
        std::chrono::duration<double, std::milli>(asked - textStart).count();
    call.push_back(r.callSeconds);
    bare.push_back(r.runSeconds);
    ratio.push_back(r.callSeconds / r.runSeconds);
    overhead.push_back(r.callSeconds - r.runSeconds);
    calls.push_back({{"call_ms", r.callSeconds * 1e3},
                     {"overhead_ms", (r.callSeconds - r.runSeconds) * 1e3},
                     {"setup_ms", r.setupSeconds * 1e3},
                     {"run_ms", r.runSeconds * 1e3},
                     {"readback_ms", r.readbackSeconds * 1e3},
                     {"report_ms", r.reportSeconds * 1e3},
                     {"rank_metrics_on_request_ms", rankMs},
                     {"report_text_on_request_ms", textMs},
                     {"mrr", r.metrics.both.mrr}});
  }
  const nlohmann::json out = {
      {"bundle", o.bundle},
      {"data", o.data},
      {"device", session.deviceName()},
      {"weights_on", o.weightsOn},
      {"cancel_token", o.cancelToken},
      {"shared_lists", o.shareLists},
      {"candidates", session.candidates().candidates.size()},
      {"open_s", openSeconds},
      {"first_call_ms", first.callSeconds * 1e3},
      {"first_run_ms", first.runSeconds * 1e3},
      {"median_call_ms", median(call) * 1e3},
      {"median_run_ms", median(bare) * 1e3},
      {"median_call_over_run", median(ratio)},
      {"median_overhead_ms", median(overhead) * 1e3},
      {"max_call_over_run", *std::max_element(ratio.begin(), ratio.end())},
      {"calls", calls}};
  fmt::print("{}\n", out.dump(2));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  setNoticeHandler(printNoticeToStderr);
  CLI::App app{"proofc-session-bench: the cost of Session::evaluate in a loop"};
  Options o;
  app.add_option("bundle", o.bundle, "Compiled program (.pcb)")->required();
  app.add_option("--data", o.data, "Dataset directory")->required();
  app.add_option("--weights", o.weights, "Trained weights")->required();
  app.add_option("--queries", o.queries)->capture_default_str();
  app.add_option("--corruptions", o.corruptions)->capture_default_str();
  app.add_option("--calls", o.calls)
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--device", o.device)->capture_default_str();
  app.add_option("--weights-on", o.weightsOn)
      ->check(CLI::IsMember({"host", "device"}))
      ->capture_default_str();
  app.add_option("--workers-per-device", o.workersPerDevice,
                 "Device workers per GPU (0: auto, as proofc-run's flag; a "
                 "one-block call runs on the first)")
      ->check(CLI::Range(0, static_cast<int>(kMaxWorkersPerDevice)))
      ->capture_default_str();
  app.add_option("--unroll", o.unroll,
                 "Steps per WHILE iteration (proofc-run's flag)")
      ->check(CLI::Range(1, static_cast<int>(kMaxUnroll)))
      ->capture_default_str();
  app.add_option("--memo-entries", o.memoEntries,
                 "Step memo entries (proofc-run's flag: -1 sized from "
                 "the pool, 0 off, else a power of two)")
      ->check(CLI::Range(int64_t{-1}, kMaxMemoEntries))
      ->capture_default_str();
  app.add_option("--block", o.blockCandidates,
                 "Candidates per block of the streamed call (proofc-run's "
                 "flag): with several workers, blocks run side by side")
      ->check(CLI::Range(int64_t{1}, kMaxBlockCandidates))
      ->capture_default_str();
  app.add_option("--sessions", o.sessions,
                 "Sessions evaluated side by side, a thread each (the "
                 "median round and each session's run)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  app.add_flag("!--no-shared-lists", o.shareLists,
               "Run every list's own corruptions (proofc-run's flag)");
  app.add_flag("--cancel-token", o.cancelToken,
               "Pass a cancel token to every call, as the Python package does");
  CLI11_PARSE(app, argc, argv);
  if (o.weightsOn == "device" && o.device == "cpu") {
    fmt::print(stderr, "proofc-session-bench: error: --weights-on device "
                       "needs a CUDA --device; give --weights-on host with "
                       "--device cpu\n");
    return 2;
  }
  try {
    return run(o);
  } catch (const Error &e) {
    fmt::print(stderr, "proofc-session-bench: error: {}\n", e.what());
    return 1;
  }
}
