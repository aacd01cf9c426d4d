//===- RunSessionTest.cpp - Chunked pools, progress and interrupts --------===//
//
// A RunSession on real datasets with the trained weights and the host
// backend: a pool run in chunks of 7 equals one pass bit for bit; the chunk
// size follows --max-pool and the backend's capacity; a run cancelled after
// k progress callbacks ends with Interrupted and writes no file, and the
// next run is unaffected.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "support/FileIO.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {
namespace fs = std::filesystem;

TEST(RunSession, ChunksOfSevenEqualOnePassBitForBit) {
  TempDir dir;
  RunSessionOptions one = sessionOptions("nations", 25);
  one.shareLists = false; // every candidate runs: the chunks count them all
  one.report = dir.file("one.json");
  one.outcomes = dir.file("one.tsv");
  RunSessionOptions seven = one;
  seven.maxPool = 7;
  seven.report = dir.file("seven.json");
  seven.outcomes = dir.file("seven.tsv");

  HostBackend backend(HostBackendOptions{2});
  RunSession a(v10Program(), backend, "cpu", one);
  const RunOutput whole = a.evaluate();
  a.writeOutputs(whole, stdout);
  RunSession b(v10Program(), backend, "cpu", seven);
  const RunOutput chunked = b.evaluate();
  b.writeOutputs(chunked, stdout);

  const int64_t n = static_cast<int64_t>(a.candidates().candidates.size());
  ASSERT_GT(n, 100);
  EXPECT_EQ(whole.chunks, 1);
  EXPECT_EQ(whole.chunkSize, n);
  EXPECT_EQ(chunked.chunkSize, 7);
  EXPECT_EQ(chunked.chunks, (n + 6) / 7);
  // A workload with every kind of outcome, so equality means something.
  const Metrics &m = whole.report.metrics;
  EXPECT_GT(m.proved, 0);
  EXPECT_GT(m.failed + m.truncated, 0);
  expectSameOutcomes(whole.outcomes, chunked.outcomes);
  EXPECT_EQ(readFile(one.outcomes), readFile(seven.outcomes));
  const Metrics &c = chunked.report.metrics;
  EXPECT_EQ(c.both.mrr, m.both.mrr);
  EXPECT_EQ(c.head.hits10, m.head.hits10);
  EXPECT_EQ(c.tail.hits1, m.tail.hits1);
  EXPECT_EQ(c.meanDepth, m.meanDepth);
  // Every chunk's steps and times are counted.
  EXPECT_GT(chunked.report.timings.steps, whole.report.timings.steps);
}

TEST(RunSession, ChunkSizeIsTheSmallerOfMaxPoolAndCapacity) {
  EXPECT_EQ(chunkSizeFor(100, 0, 0), 100);
  EXPECT_EQ(chunkSizeFor(100, -3, 0), 100);
  EXPECT_EQ(chunkSizeFor(100, 7, 0), 7);
  EXPECT_EQ(chunkSizeFor(100, 0, 30), 30);
  EXPECT_EQ(chunkSizeFor(100, 7, 30), 7);
  EXPECT_EQ(chunkSizeFor(100, 40, 30), 30);
  EXPECT_EQ(chunkSizeFor(100, 500, 0), 100);
  EXPECT_EQ(chunkSizeFor(0, 0, 0), 1);
}

/// A backend whose outcome is a function of the candidate alone, that
/// records the chunks it is given and announces a capacity.
class RecordingBackend : public Backend {
public:
  explicit RecordingBackend(int64_t capacity) : capacity_(capacity) {}
  std::string name() const override { return "recording"; }
  int64_t poolCapacity(const EvalInputs &) override { return capacity_; }
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    const std::vector<Candidate> &pool = inputs.candidates.candidates;
    sizes.push_back(static_cast<int64_t>(pool.size()));
    std::vector<Outcome> out;
    for (const Candidate &c : pool)
      out.push_back(expected(c));
    timings.steps = 1;
    if (dropOne && !out.empty())
      out.pop_back();
    return out;
  }
  static Outcome expected(const Candidate &c) {
    return {static_cast<ProofStatus>((c.entity + c.query) % 3),
            c.entity + 1000 * c.query + (c.mode == Mode::Tail ? 500 : 0),
            -0.25f * static_cast<float>(c.triple.r)};
  }
  std::vector<int64_t> sizes;
  bool dropOne = false;

private:
  int64_t capacity_;
};

TEST(RunSession, BackendCapacityAndMaxPoolSetTheChunks) {
  RunSessionOptions o = sessionOptions("nations", 3);
  for (const auto &[maxPool, capacity, chunk] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {0, 0, -1}, {0, 5, 5}, {3, 5, 3}, {11, 0, 11}, {0, 1, 1}}) {
    o.maxPool = maxPool;
    RecordingBackend backend(capacity);
    RunSession session(v10Program(), backend, "", o);
    const std::vector<Candidate> &pool = session.candidates().candidates;
    const int64_t n = static_cast<int64_t>(pool.size());
    ASSERT_GT(n, 20);
    const RunOutput out = session.evaluate();
    const int64_t size = chunk < 0 ? n : chunk;
    EXPECT_EQ(out.chunkSize, size);
    std::vector<int64_t> sizes(static_cast<size_t>(n / size), size);
    if (n % size)
      sizes.push_back(n % size);
    EXPECT_EQ(backend.sizes, sizes) << maxPool << " " << capacity;
    EXPECT_EQ(out.report.timings.steps, static_cast<int64_t>(sizes.size()));
    ASSERT_EQ(out.outcomes.size(), pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      const Outcome e = RecordingBackend::expected(pool[i]);
      ASSERT_EQ(out.outcomes[i].depth, e.depth) << i;
      ASSERT_EQ(out.outcomes[i].status, e.status) << i;
    }
  }
}

TEST(RunSession, ABackendReturningTooFewOutcomesIsAnError) {
  RunSessionOptions o = sessionOptions("nations", 2);
  o.maxPool = 4;
  RecordingBackend backend(0);
  backend.dropOne = true;
  RunSession session(v10Program(), backend, "", o);
  try {
    session.evaluate();
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "recording backend: 3 outcomes for the 4 candidates 0..3");
  }
}

TEST(RunSession, LoadErrorsNameTheFile) {
  TempDir dir;
  RunSessionOptions o = sessionOptions("nations", 2);
  o.weights = weightsFile("countries_s2"); // E = 271, nations has 14
  HostBackend backend;
  EXPECT_THROW(RunSession session(v10Program(), backend, "cpu", o), Error);
  o.weights = dir.file("missing.safetensors");
  try {
    RunSession session(v10Program(), backend, "cpu", o);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(o.weights + ": ", 0), 0u) << e.what();
  }
}

struct sigaction currentAction(int sig) {
  struct sigaction now;
  ::sigaction(sig, nullptr, &now);
  return now;
}

/// Raises SIGINT (as Ctrl-C would) at the k-th progress report; the session's
/// handler turns it into the cancellation flag.
TEST(RunSession, InterruptedAfterKProgressReportsWritesNothing) {
  TempDir dir;
  RunSessionOptions o = sessionOptions("nations", 25);
  o.report = dir.file("r.json");
  o.outcomes = dir.file("o.tsv");
  const auto oldInt = currentAction(SIGINT);
  const auto oldTerm = currentAction(SIGTERM);

  // Twice: inside one backend run (the host backend's progress between
  // steps, two threads) and between chunks (a backend that never reports:
  // only the session's report after each chunk).
  for (const bool betweenChunks : {false, true}) {
    SCOPED_TRACE(betweenChunks ? "between chunks" : "inside a run");
    RunSessionOptions interrupted = o;
    interrupted.maxPool = betweenChunks ? 16 : 0;
    constexpr int k = 3;
    std::atomic<int> calls{0};
    std::atomic<int64_t> doneAtSignal{0}, lastDone{0};
    interrupted.onProgress = [&](int64_t done) {
      lastDone = done;
      if (++calls == k) {
        doneAtSignal = done;
        ::raise(SIGINT);
      }
    };
    HostBackend host(HostBackendOptions{2});
    RecordingBackend recording(0);
    Backend &backend = betweenChunks ? static_cast<Backend &>(recording) : host;
    int64_t total = 0;
    try {
      RunSession session(v10Program(), backend, "cpu", interrupted);
      total = static_cast<int64_t>(session.candidates().candidates.size());
      RunOutput out = session.evaluate();
      session.writeOutputs(out, stdout);
      FAIL() << "not interrupted";
    } catch (const Interrupted &e) {
      EXPECT_EQ(e.signal(), SIGINT);
      EXPECT_EQ(e.exitCode(), 130);
      EXPECT_EQ(std::string(e.what()), "interrupted by SIGINT");
    }
    if (betweenChunks) {
      EXPECT_EQ(calls.load(), k) << "no chunk after the interrupt";
      EXPECT_EQ(recording.sizes, std::vector<int64_t>(k, 16));
    } else {
      // The other worker may finish the step it is in and report it.
      EXPECT_LE(calls.load(), k + 1);
      EXPECT_LE(lastDone.load() - doneAtSignal.load(), 256);
    }
    EXPECT_LT(lastDone.load(), total) << "interrupted mid-run";
    EXPECT_TRUE(listDir(dir.path()).empty()) << "no file, not even a temporary";
    // The handlers in place before the session are back.
    EXPECT_EQ(currentAction(SIGINT).sa_handler, oldInt.sa_handler);
    EXPECT_EQ(currentAction(SIGTERM).sa_handler, oldTerm.sa_handler);
  }

  // The next run is unaffected: complete, files written, same outcomes as a
  // run that was never interrupted next to it.
  HostBackend backend(HostBackendOptions{2});
  RunSession session(v10Program(), backend, "cpu", o);
  const RunOutput out = session.evaluate();
  session.writeOutputs(out, stdout);
  EXPECT_EQ(listDir(dir.path()), (std::vector<std::string>{"o.tsv", "r.json"}));
  RunSessionOptions quiet = o;
  quiet.report.clear();
  quiet.outcomes.clear();
  RunSession reference(v10Program(), backend, "cpu", quiet);
  expectSameOutcomes(out.outcomes, reference.evaluate().outcomes);
}

TEST(RunSession, ProgressReachesTheTotalAndIsNonDecreasing) {
  // Four workers and ten runs: the host backend's workers race to report
  // (one at a time, the others' adds carried by the next report), which
  // once let a smaller total follow a larger one.
  for (int run = 0; run < 10; ++run) {
    RunSessionOptions o = sessionOptions("nations", 10);
    o.maxPool = 50;
    std::vector<int64_t> seen;
    o.onProgress = [&](int64_t done) { seen.push_back(done); };
    HostBackend backend(HostBackendOptions{4});
    RunSession session(v10Program(), backend, "", o);
    const RunOutput out = session.evaluate();
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "run " << run;
    EXPECT_EQ(seen.back(), static_cast<int64_t>(out.outcomes.size()));
    // More reports than chunks: the host backend reports between steps.
    EXPECT_GT(static_cast<int64_t>(seen.size()), out.chunks);
  }
}

TEST(RunSession, SummaryAndOutputs) {
  TempDir dir;
  RunSessionOptions o = sessionOptions("nations", 4);
  o.maxPool = 10;
  o.report = dir.file("r.json");
  HostBackend backend(HostBackendOptions{1});
  RunSession session(v10Program(), backend, "cpu (1 thread)", o);
  RunOutput out = session.evaluate();
  out.report.compileSeconds = 0.5;
  char *buffer = nullptr;
  size_t size = 0;
  std::FILE *mem = ::open_memstream(&buffer, &size);
  session.printSummary(mem, out);
  session.writeOutputs(out, mem);
  std::fclose(mem);
  const std::string text(buffer, size);
  std::free(buffer);
  EXPECT_EQ(text.rfind("program   @v10 (A=6 S=120 D=20 B=256 d=64 L=2) on host "
                       "[cpu (1 thread)]\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("dataset   nations: 14 entities, 55 relations"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("queries   test split, first 4 queries, all corruptions"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("pool      {} chunks of at most 10 "
                                  "candidates\n",
                                  out.chunks)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("report    " + o.report + "\n"), std::string::npos);
  EXPECT_EQ(text.find("outcomes  /"), std::string::npos); // not asked for
  const nlohmann::json j = nlohmann::json::parse(readFile(o.report));
  EXPECT_EQ(j.at("dataset").at("name"), "nations");
  EXPECT_EQ(j.at("device"), "cpu (1 thread)");
  EXPECT_EQ(j.at("timings").at("compile_seconds"), 0.5);
  EXPECT_EQ(j.at("metrics").at("candidates"),
            static_cast<int64_t>(out.outcomes.size()));
}

} // namespace
} // namespace proofc::test
