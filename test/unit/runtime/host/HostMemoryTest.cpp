//===- HostMemoryTest.cpp - Sizes that do not fit are refused up front ----===//
//
// A program or pool too large for the machine used to end as "internal
// error: std::bad_alloc". Each allocation's size is now checked first,
// against the memory available: PROOFC_TEST_MEMORY_BYTES (test-only) fixes
// that amount so the refusals are exact and the inputs tiny.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "runtime/host/HostTestUtil.h"

#include "data/MemoryBudget.h"
#include "host/HostBackend.h"
#include "host/StepMemo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace proofc::test {
namespace {

/// Sets PROOFC_TEST_MEMORY_BYTES for the scope.
class FakeMemory {
public:
  explicit FakeMemory(uint64_t bytes) {
    ::setenv("PROOFC_TEST_MEMORY_BYTES", std::to_string(bytes).c_str(), 1);
  }
  ~FakeMemory() { ::unsetenv("PROOFC_TEST_MEMORY_BYTES"); }
};

constexpr uint64_t kGiB = uint64_t{1} << 30;

/// Three entities, one relation, a rule: a pool of a few candidates.
struct Tiny {
  Dataset dataset =
      makeDataset({"a", "b", "c"}, {"r"}, {{"a", "r", "b"}, {"b", "r", "c"}},
                  "r(X,Y) :- r(Y,X).\n");
  ProgramSpec program = v10Program();
  TensorMap weights;
  CandidateSet candidates;
  Tiny() {
    dataset.test = dataset.train;
    weights = initWeights(program, dataset, 1);
    CandidateOptions o;
    o.split = "train";
    candidates = buildCandidates(dataset, o);
  }
  std::vector<Outcome> run(const ProgramSpec &p) const {
    HostBackend backend(HostBackendOptions{2});
    BackendTimings t;
    return backend.run(EvalInputs{p, dataset, weights, candidates}, t);
  }
};

} // namespace

TEST(MemoryBudget, FormatsAndSaturates) {
  EXPECT_EQ(formatBytes(17), "17 B");
  EXPECT_EQ(formatBytes(3 * 1024), "3.0 KiB");
  EXPECT_EQ(formatBytes(24 * kGiB + kGiB / 2), "24.5 GiB");
  EXPECT_EQ(formatCount(1600000000), "1,600,000,000");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(saturatingBytes(uint64_t{1} << 62, 16), UINT64_MAX);
  EXPECT_EQ(saturatingAdd(UINT64_MAX, 1), UINT64_MAX);
  FakeMemory fake(12345);
  EXPECT_EQ(availableMemoryBytes(), 12345u);
}

// S = 10^9 on 3 entities: the per-thread scratch ([S][A] derived states,
// [S][d] child encodings) is refused before any of it is allocated.
TEST(HostMemory, HugeSIsRefusedBeforeAllocating) {
  Tiny tiny;
  FakeMemory fake(64 * kGiB);
  for (int32_t S : {1'000'000'000, INT32_MAX}) {
    ProgramSpec p = tiny.program;
    p.shape.S = S;
    std::string error = errorOf([&] { tiny.run(p); });
    EXPECT_EQ(error.rfind(fmt::format("host backend: the proof-loop scratch "
                                      "for S = {}, A = 6, d = 64 needs ",
                                      S),
                          0),
              0u)
        << error;
    EXPECT_NE(error.find("; 64.0 GiB of memory is available"),
              std::string::npos)
        << error;
  }
}

// B = 2^31 - 1 slots over a pool of a dozen candidates: only as many slots
// as candidates can hold one, and B changes only the speed, so the run
// allocates those and gives the outcomes of B = 4 (it used to be
// std::bad_alloc).
TEST(HostMemory, HugeBRunsWithOneSlotPerCandidate) {
  Tiny tiny;
  ProgramSpec small = tiny.program, huge = tiny.program;
  small.shape.B = 4;
  huge.shape.B = INT32_MAX;
  std::vector<Outcome> expected = tiny.run(small);
  std::vector<Outcome> got;
  {
    FakeMemory fake(kGiB); // 2^31 slots would need ~700 GiB
    got = tiny.run(huge);
  }
  ASSERT_EQ(got.size(), tiny.candidates.candidates.size());
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].status, expected[i].status);
    EXPECT_EQ(got[i].depth, expected[i].depth);
    EXPECT_EQ(std::memcmp(&got[i].logp, &expected[i].logp, 4), 0);
  }
}

// The step memo grows with the steps it keeps, at most one a step past a
// candidate's start: a requested size is checked against what the run's
// steps could fill (N x (D - 1) entries of StepMemo::entryBytes), up front,
// and one error says so instead of a std::bad_alloc mid-run.
TEST(HostMemory, RequestedStepMemoIsCheckedForTheStepsTheRunHas) {
  const TrainedWorkload w = trainedWorkload("kinship", 4);
  const ProgramSpec program = v10Program();
  const uint64_t n = w.set.candidates.size();
  const uint64_t steps = n * static_cast<uint64_t>(program.shape.D - 1);
  const uint64_t entry = StepMemo::entryBytes(program.shape.A);
  auto run = [&](int64_t memo, uint64_t memory) {
    FakeMemory fake(memory);
    return errorOf([&] {
      BackendTimings t;
      HostBackend(HostBackendOptions{2, memo})
          .run(EvalInputs{program, w.ds, w.weights, w.set}, t);
    });
  };
  // 2^28 entries asked: no more than the run's steps are counted.
  EXPECT_EQ(run(int64_t{1} << 28, steps * entry), "(no error)");
  const std::string error = run(int64_t{1} << 28, steps * entry - 1);
  EXPECT_EQ(error.rfind(fmt::format("host backend: the step memo "
                                    "(--memo-entries 268435456) needs {} (up "
                                    "to {} steps × {}); ",
                                    formatBytes(steps * entry),
                                    formatCount(steps), formatBytes(entry)),
                        0),
            0u)
      << error;
  // A smaller table than the steps: its own size.
  ASSERT_GT(steps, 4096u);
  EXPECT_EQ(run(4096, 4096 * entry), "(no error)");
  EXPECT_NE(run(4096, 4096 * entry - 1), "(no error)");
  // Auto stays within a quarter of the memory, but never below 2^12
  // entries: where even those do not fit, the message says it was auto.
  const std::string autoError = run(-1, 4096 * entry - 1);
  EXPECT_EQ(autoError.rfind("host backend: the step memo (4096 entries, "
                            "auto) needs ",
                            0),
            0u)
      << autoError;
  // Off: nothing to check.
  EXPECT_EQ(run(0, 4096 * entry - 1), "(no error)");
}

// The candidate pool's size is computed before it is built, exactly: a pool
// of N candidates fits in N x sizeof(Candidate) bytes and not in one less.
TEST(HostMemory, CandidatePoolIsCheckedBeforeBuilding) {
  Tiny tiny;
  CandidateOptions o;
  o.split = "train";
  const uint64_t n = tiny.candidates.candidates.size();
  ASSERT_GT(n, 0u);
  {
    FakeMemory fake(n * sizeof(Candidate));
    EXPECT_EQ(buildCandidates(tiny.dataset, o).candidates.size(), n);
  }
  FakeMemory fake(n * sizeof(Candidate) - 1);
  EXPECT_EQ(errorOf([&] { buildCandidates(tiny.dataset, o); }),
            fmt::format("the candidate pool of the train split needs {} B ({} "
                        "candidates × {} B); {} B of memory is available",
                        n * sizeof(Candidate), n, sizeof(Candidate),
                        n * sizeof(Candidate) - 1));
  // Sampling bounds the pool: K = 1 gives 2 candidates per group.
  o.corruptions = 1;
  EXPECT_EQ(errorOf([&] { buildCandidates(tiny.dataset, o); }), "(no error)");
}

// init-weights for a width no machine holds (d = 2^20: 2^40 values per
// matrix) is refused before drawing a value.
TEST(HostMemory, InitWeightsForAHugeWidthIsRefused) {
  Tiny tiny;
  ProgramSpec p = tiny.program;
  const int32_t d = 1 << 20;
  p.shape.d = d;
  for (PolicyOp &op : p.policy.encoder) {
    if (op.kind == PolicyOpKind::AtomEmbed) {
      op.in = 3 * d;
      op.out = d;
    } else if (op.kind == PolicyOpKind::Linear ||
               op.kind == PolicyOpKind::LayerNorm) {
      op.in = op.out = d;
    }
  }
  FakeMemory fake(64 * kGiB);
  std::string error = errorOf([&] { initWeights(p, tiny.dataset, 1); });
  EXPECT_EQ(error.rfind("initializing the weights of program 'v10' (E = 3, "
                        "R = 1) needs 20.0 TiB (",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("; 64.0 GiB of memory is available"), std::string::npos)
      << error;
}

// writeSafetensors builds the whole file in memory before its atomic write.
TEST(HostMemory, WritingWeightsIsChecked) {
  TempDir dir;
  TensorMap t;
  t["a"] = {{256}, std::vector<float>(256, 1.0f)};
  FakeMemory fake(1000);
  EXPECT_EQ(
      errorOf([&] { writeSafetensors(dir.path() + "/w.safetensors", t); }),
      dir.path() + "/w.safetensors: writing the weights needs 1.1 KiB "
                   "(1,024 bytes of tensor data); 1000 B of memory is "
                   "available");
  EXPECT_TRUE(listDir(dir.path()).empty());
}

// The engine's hash table holds a power of two >= 2S entries: for S past
// 2^30 that is 2^32, which the 32-bit rounding wrapped to 0 (an endless
// loop). Its size is now computed in 64 bits, and checked like the rest.
TEST(HostMemory, DerivedSetSizeForTheLargestS) {
  ShapeParams shape;
  shape.A = 6;
  shape.S = INT32_MAX;
  EXPECT_EQ(DerivedSet::bytesFor(shape),
            uint64_t{INT32_MAX} * (6 * sizeof(Atom) + sizeof(int32_t)) +
                (uint64_t{1} << 32) * 8);
  shape.S = 120;
  // The states, each state's origin (the proofs' replay), the hash table.
  EXPECT_EQ(DerivedSet::bytesFor(shape),
            120u * (6 * sizeof(Atom) + sizeof(int32_t)) + 256u * 8);
}

} // namespace proofc::test
