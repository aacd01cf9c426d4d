//===- DeviceWorkersTest.cpp - Several device workers equal one -----------===//
//
// --devices (docs/scale-out.md, "Every GPU of a host"): one device worker
// per backend takes blocks from a shared queue (BlockPipeline.h). Whatever
// the number of workers, their speeds and the block size, the outcomes, the
// outcomes file's bytes and the report's metrics are those of one backend;
// progress over the workers only grows and ends at the pool; the first
// error in block order is the one raised; and --devices' list is checked.
// The workers here are host backends (the CUDA ones are checked on a GPU by
// GpuStreamingTest).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "runtime/session/InstantBackend.h"
#include "session/Devices.h"

#include "bundle/Bundle.h"
#include "cuda/CudaBackend.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Session.h"
#include "session/BlockPipeline.h"
#include "support/FileIO.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>

namespace proofc::test {
namespace {

TEST(DeviceWorkers, AnyNumberOfWorkersEqualsOneBitForBit) {
  TempDir dir;
  RunSessionOptions base = sessionOptions("nations", 30);
  base.rankMetrics.perRelation = true;
  base.rankMetrics.bootstrapSamples = 10;
  base.threads = 2;
  HostBackend one(HostBackendOptions{2});
  RunSessionOptions o = base;
  o.report = dir.file("one.json");
  o.outcomes = dir.file("one.tsv");
  RunSession reference(v10Program(), one, "cpu", o);
  const RunOutput expected = reference.evaluate();
  reference.writeOutputs(expected, stdout);
  ASSERT_GT(expected.report.metrics.proved, 0);

  for (int workers : {2, 3}) {
    for (int64_t block : {int64_t{1}, int64_t{300}}) {
      SCOPED_TRACE(fmt::format("{} workers, blocks of {}", workers, block));
      std::vector<std::unique_ptr<HostBackend>> owned;
      std::vector<Backend *> backends;
      for (int w = 0; w < workers; ++w) {
        owned.push_back(std::make_unique<HostBackend>(HostBackendOptions{1}));
        backends.push_back(owned.back().get());
      }
      o = base;
      o.blockCandidates = block;
      o.report = dir.file(fmt::format("w{}b{}.json", workers, block));
      o.outcomes = dir.file(fmt::format("w{}b{}.tsv", workers, block));
      RunSession session(v10Program(), backends, "cpu", o);
      const RunOutput out = session.evaluate();
      session.writeOutputs(out, stdout);
      expectSameOutcomes(expected.outcomes, out.outcomes);
      EXPECT_EQ(readFile(dir.file("one.tsv")), readFile(o.outcomes));
      for (const char *key : {"metrics", "rank_metrics", "pykeen"})
        EXPECT_EQ(sectionOf(dir.file("one.json"), key),
                  sectionOf(o.report, key))
            << key;
    }
  }
}

TEST(DeviceWorkers, AFasterWorkerTakesMoreBlocksAndProgressOnlyGrows) {
  // Worker 0 is slow: the fast one takes most blocks, the results stay.
  RunSessionOptions o = sessionOptions("kinship", 40);
  o.keepOutcomes = true;
  o.blockCandidates = 200;
  o.threads = 2;
  InstantBackend plain;
  RunSession one(v10Program(), plain, "cpu", o);
  const RunOutput expected = one.evaluate();
  const int64_t total = one.layout().candidateCount();

  SlowBackend slow(std::chrono::milliseconds(40));
  SlowBackend fast(std::chrono::milliseconds(0));
  fast.after = &slow.started; // the slow worker has a block (it failed
                              // under load: the fast one took them all)
  std::mutex mutex;
  std::vector<int64_t> seen;
  std::atomic<int> inside{0};
  bool overlapped = false;
  o.onProgress = [&](int64_t done) {
    if (inside.fetch_add(1) != 0)
      overlapped = true;
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen.push_back(done);
    }
    inside.fetch_sub(1);
  };
  o.quiet = true;
  RunSession session(v10Program(), std::vector<Backend *>{&slow, &fast}, "cpu",
                     o);
  const RunOutput out = session.evaluate();
  expectSameOutcomes(expected.outcomes, out.outcomes);
  EXPECT_EQ(out.report.metrics.both.mrr, expected.report.metrics.both.mrr);
  EXPECT_GT(slow.runs, 0);
  EXPECT_GT(fast.runs, slow.runs);
  EXPECT_FALSE(overlapped);
  ASSERT_FALSE(seen.empty());
  for (size_t i = 1; i < seen.size(); ++i)
    EXPECT_LE(seen[i - 1], seen[i]) << i;
  EXPECT_EQ(seen.back(), total);
}

TEST(DeviceWorkers, TheFirstErrorInBlockOrderIsRaised) {
  // From query 7 on some logits are NaN: with one worker or three (one of
  // them slow, so that later blocks fail first), the same candidate is
  // named.
  std::string first;
  for (int workers : {1, 3}) {
    std::vector<std::unique_ptr<InstantBackend>> owned;
    std::vector<Backend *> backends;
    for (int w = 0; w < workers; ++w) {
      owned.push_back(
          w == 0 ? std::make_unique<SlowBackend>(std::chrono::milliseconds(30))
                 : std::make_unique<InstantBackend>());
      owned.back()->nanQuery = 7;
      backends.push_back(owned.back().get());
    }
    RunSessionOptions o = sessionOptions("nations", 20);
    o.blockCandidates = 1;
    o.keepOutcomes = false;
    RunSession session(v10Program(), backends, "cpu", o);
    const std::string error = errorOf([&] { session.evaluate(); });
    EXPECT_NE(error.find(": query 7 ("), std::string::npos) << error;
    if (first.empty())
      first = error;
    EXPECT_EQ(error, first) << workers;
  }
}

TEST(DeviceWorkers, ThePipelineStopsTakingBlocksAfterAFailedOne) {
  // Blocks 0..19; block 5 fails on its worker. Nothing after block 5 is
  // consumed, and the error is block 5's.
  std::vector<QueryRange> blocks;
  for (int64_t i = 0; i < 20; ++i)
    blocks.push_back(QueryRange{i, i + 1, i, i + 1});
  std::mutex mutex;
  std::vector<int64_t> consumed;
  PipelineStages stages;
  stages.build = [](const QueryRange &) { return CandidateSet{}; };
  stages.run = [](PipelineBlock &block, int) {
    if (block.index == 5)
      throw Error("block 5 failed");
  };
  stages.consume = [&](PipelineBlock &block) {
    std::lock_guard<std::mutex> lock(mutex);
    consumed.push_back(block.index);
  };
  const std::string error =
      errorOf([&] { runBlockPipeline(blocks, stages, 2, 4, 2, nullptr); });
  EXPECT_EQ(error, "block 5 failed");
  EXPECT_EQ(consumed, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(DeviceWorkers, TheDeviceListIsChecked) {
  EXPECT_EQ(parseDeviceList("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parseDeviceList("2,0", 3), (std::vector<int>{2, 0}));
  EXPECT_EQ(parseDeviceList("1", 2), (std::vector<int>{1}));
  EXPECT_EQ(errorOf([] { parseDeviceList("0,1,1", 4, "--devices"); }),
            "--devices 0,1,1: device 1 is named twice");
  EXPECT_EQ(errorOf([] { parseDeviceList("0,2", 2, "--devices"); }),
            "--devices 0,2: there is no CUDA device 2 (the driver sees 2: 0 "
            "to 1)");
  for (const char *bad : {"", "0,", ",1", "0,,1", "a", "-1", "1.5", "99999"})
    EXPECT_NE(errorOf([&] {
                parseDeviceList(bad, 4, "--devices");
              }).find("expected all or CUDA device ordinals"),
              std::string::npos)
        << bad;
}

TEST(DeviceWorkers, SeveralDevicesAreCudaDevices) {
  Bundle bundle;
  bundle.program = v10Program();
  SessionOptions options;
  options.device = "cpu";
  options.devices = "0,1";
  EXPECT_EQ(errorOf([&] {
              openDevices(bundle, "p.pcb", options, "--device", "--devices");
            }),
            "--devices 0,1 with --device cpu: several devices are CUDA "
            "devices; give --device cuda (or leave it out)");
  if (!cudaDeviceAvailable()) {
    options.device = "auto";
    EXPECT_NE(errorOf([&] {
                openDevices(bundle, "p.pcb", options, "--device", "--devices");
              }).find("--devices 0,1: no usable CUDA device: "),
              std::string::npos);
  }
}

TEST(DeviceWorkers, SeveralWorkersPerDeviceAreForCudaDevices) {
  auto asked = [](int workers) {
    BackendOptions o;
    o.workersPerDevice = workers;
    return o;
  };
  const std::string flag = "--workers-per-device";
  EXPECT_EQ(resolveWorkersPerDevice(asked(0), true, flag), 2);
  EXPECT_EQ(resolveWorkersPerDevice(asked(0), false, flag), 1);
  EXPECT_EQ(resolveWorkersPerDevice(asked(1), true, flag), 1);
  EXPECT_EQ(resolveWorkersPerDevice(asked(1), false, flag), 1);
  EXPECT_EQ(resolveWorkersPerDevice(asked(3), true, flag), 3);
  EXPECT_EQ(errorOf([&] { resolveWorkersPerDevice(asked(2), false, flag); }),
            "--workers-per-device 2: several workers share a CUDA device; "
            "the host backend runs one block at a time on all its threads "
            "(give 1, or 0 for auto)");
  for (int bad : {-1, 9})
    EXPECT_EQ(
        errorOf([&] { resolveWorkersPerDevice(asked(bad), true, flag); }),
        fmt::format("--workers-per-device {}: expected 0 (auto) to 8", bad));

  // Through openDevices: the host backend once, whatever auto says.
  Bundle bundle;
  bundle.program = v10Program();
  SessionOptions options;
  options.device = "cpu";
  options.threads = 1;
  EXPECT_EQ(openDevices(bundle, "p.pcb", options).size(), 1u);
  options.workersPerDevice = 2;
  EXPECT_EQ(errorOf([&] { openDevices(bundle, "p.pcb", options); }),
            "workers_per_device 2: several workers share a CUDA device; the "
            "host backend runs one block at a time on all its threads (give "
            "1, or 0 for auto)");
}

/// A worker that tells of its device as the CUDA backend does
/// (Backend::info), and counts the session's clearInfo() calls.
class DescribedBackend : public InstantBackend {
public:
  explicit DescribedBackend(int ordinal) : ordinal(ordinal) {}
  BackendInfo info() const override {
    BackendInfo i;
    i.model = "Test GPU (sm_00)";
    i.cond = "emulated";
    i.condFellBack = true;
    i.device = "Test GPU (sm_00), cond emulated (fallback)";
    i.ordinal = ordinal;
    i.modulesSeconds = 0.25 * ordinal;
    i.detailsJson = fmt::format(R"({{"device_bytes": {}}})", 100 + ordinal);
    return i;
  }
  void clearInfo() override { ++clears; }
  int ordinal;
  int clears = 0;
};

TEST(DeviceWorkers, TheReportTellsWhatTheBackendsSayOfThemselves) {
  RunSessionOptions o = sessionOptions("nations", 20);
  o.quiet = true;
  DescribedBackend first(3), second(5);
  RunSession one(v10Program(), first, "cuda:3", o);
  const RunOutput alone = one.evaluate();
  EXPECT_EQ(alone.report.device, "Test GPU (sm_00), cond emulated (fallback)");
  EXPECT_EQ(alone.report.backendDetails,
            nlohmann::json::parse(R"({"device_bytes": 103})"));
  EXPECT_EQ(first.clears, 1); // each call describes itself

  RunSession two(v10Program(), std::vector<Backend *>{&first, &second},
                 "cuda:3,cuda:5", o);
  const RunOutput both = two.evaluate();
  EXPECT_EQ(both.report.device,
            "Test GPU (sm_00) x2 (cuda:3, cuda:5), cond emulated (fallback)");
  EXPECT_EQ(both.report.backendDetails,
            nlohmann::json::parse(R"({"device_bytes": 103, "workers": [
              {"device_bytes": 103, "ordinal": 3},
              {"device_bytes": 105, "ordinal": 5}]})"));
  EXPECT_EQ(first.clears, 2);
  EXPECT_EQ(second.clears, 1);

  // Two workers of one device: the device named once, the workers told.
  DescribedBackend again(3);
  RunSession shared(v10Program(), std::vector<Backend *>{&first, &again},
                    "cuda:3", o);
  const RunOutput sharedRun = shared.evaluate();
  EXPECT_EQ(sharedRun.report.device, "Test GPU (sm_00), cond emulated "
                                     "(fallback), 2 workers per device");
  EXPECT_EQ(sharedRun.report.backendDetails,
            nlohmann::json::parse(R"({"device_bytes": 103, "workers": [
              {"device_bytes": 103, "ordinal": 3},
              {"device_bytes": 103, "ordinal": 3}]})"));
  // Two devices with two workers each.
  DescribedBackend fourth(5);
  RunSession four(v10Program(),
                  std::vector<Backend *>{&first, &second, &again, &fourth},
                  "cuda:3,cuda:5", o);
  EXPECT_EQ(four.evaluate().report.device,
            "Test GPU (sm_00) x2 (cuda:3, cuda:5), cond emulated (fallback), "
            "2 workers per device");

  // Backends without details (the host's): the session's device name.
  InstantBackend plain;
  RunSession host(v10Program(), plain, "cpu (1 thread)", o);
  const RunOutput hosted = host.evaluate();
  EXPECT_EQ(hosted.report.device, "cpu (1 thread)");
  EXPECT_TRUE(hosted.report.backendDetails.is_null());
}

} // namespace
} // namespace proofc::test
