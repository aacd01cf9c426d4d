//===- TestUtil.h - Shared helpers for the runtime unit tests ---*- C++ -*-===//
//
// sharedDir() (the read-only shared/ folder with data/ and weights/),
// v10Program() (the reference policy of spec §4 with the V10 shapes),
// TempDir (a scratch directory removed with everything in it at scope exit)
// and kUnderAddressSanitizer.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_TESTUTIL_H
#define PROOFC_TEST_UNIT_TESTUTIL_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/RunControl.h"
#include "proofc/runtime/Safetensors.h"
#include "support/FileIO.h"
#include "tooling/RunSession.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Whether this build runs under AddressSanitizer (gcc defines
// __SANITIZE_ADDRESS__; clang answers __has_feature): for the tests whose
// cost or measurement ASan changes (the sanitized build of
// scripts/test-sanitizers.sh).
#if defined(__SANITIZE_ADDRESS__)
#define PROOFC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROOFC_TEST_ASAN 1
#endif
#endif
#ifndef PROOFC_TEST_ASAN
#define PROOFC_TEST_ASAN 0
#endif

namespace proofc::test {

inline constexpr bool kUnderAddressSanitizer = PROOFC_TEST_ASAN != 0;

/// The message of the proofc::Error that `fn` throws, or "(no error)".
inline std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

/// $PROOFC_SHARED_DIR when set, else the path CMake compiled in.
inline std::string sharedDir() {
  if (const char *env = std::getenv("PROOFC_SHARED_DIR"); env && *env)
    return env;
  return PROOFC_SHARED_DIR;
}

inline std::string dataDir(const std::string &dataset) {
  return sharedDir() + "/data/" + dataset;
}

inline std::string weightsFile(const std::string &dataset) {
  return sharedDir() + "/weights/" + dataset + ".safetensors";
}

/// The reference `mlp-dot` policy (spec §4) with A=6, S=120, D=20, B=256,
/// d=64, L=2 and the tensor names of the shared weight files.
/// The entries of directory `dir`, sorted by name.
inline std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Expects two runs' outcomes to be equal bit for bit (status, depth and the
/// log-probability's bits), naming the first candidate that differs.
inline void expectSameOutcomes(const std::vector<Outcome> &a,
                               const std::vector<Outcome> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].status, b[i].status) << "candidate " << i;
    ASSERT_EQ(a[i].depth, b[i].depth) << "candidate " << i;
    ASSERT_EQ(std::memcmp(&a[i].logp, &b[i].logp, sizeof(float)), 0)
        << "candidate " << i << ": " << a[i].logp << " vs " << b[i].logp;
  }
}

/// A quiet run of the first `queries` queries of a shared dataset with its
/// trained weights.
inline RunSessionOptions sessionOptions(const std::string &dataset,
                                        int64_t queries) {
  RunSessionOptions o;
  o.data = dataDir(dataset);
  o.weights = weightsFile(dataset);
  o.queries = queries;
  o.quiet = true;
  return o;
}

/// A Session over the first `queries` test queries of a shared dataset,
/// `corruptions` per query and side, the corruption sampler seeded `seed`.
inline SessionOptions splitSession(const std::string &dataset, int64_t queries,
                                   int64_t corruptions, uint64_t seed) {
  SessionOptions o;
  o.data = dataDir(dataset);
  o.queries = queries;
  o.corruptions = corruptions;
  o.seed = seed;
  return o;
}

inline ProgramSpec v10Program() {
  ProgramSpec program;
  program.name = "v10";
  program.shape = ShapeParams{}; // A=6, S=120, D=20, B=256, d=64, L=2
  const int32_t d = program.shape.d;
  auto &enc = program.policy.encoder;

  PolicyOp atom{PolicyOpKind::AtomEmbed};
  atom.predTable = "pred_emb";
  atom.constTable = "const_emb";
  atom.varTable = "var_emb";
  atom.weight = "atom.weight";
  atom.bias = "atom.bias";
  atom.in = 3 * d;
  atom.out = d;
  enc.push_back(atom);
  enc.push_back(PolicyOp{PolicyOpKind::Relu});
  enc.push_back(PolicyOp{PolicyOpKind::SumAtoms});
  for (int l = 0; l < program.shape.L; ++l) {
    std::string prefix = "mlp." + std::to_string(l);
    PolicyOp linear{PolicyOpKind::Linear};
    linear.weight = prefix + ".weight";
    linear.bias = prefix + ".bias";
    linear.in = d;
    linear.out = d;
    enc.push_back(linear);
    PolicyOp norm{PolicyOpKind::LayerNorm};
    norm.weight = prefix + ".ln.weight";
    norm.bias = prefix + ".ln.bias";
    norm.in = d;
    norm.out = d;
    norm.eps = 1e-5f;
    enc.push_back(norm);
    enc.push_back(PolicyOp{PolicyOpKind::Relu});
  }
  program.policy.scoreScale = 0.125f; // 1 / sqrt(64)
  return program;
}

/// An onProgress for a child process that a test signals: writes one byte
/// to `fd` at the first progress report (the run is under way) and closes it.
inline std::function<void(int64_t)> readyOnFirstProgress(int fd) {
  auto shared = std::make_shared<int>(fd);
  return [shared](int64_t) {
    if (*shared < 0)
      return;
    const char byte = 'r';
    (void)!::write(*shared, &byte, 1);
    ::close(*shared);
    *shared = -1;
  };
}

/// Runs `session` (a child process's whole run: evaluate, write outputs)
/// and ends the process as a tool would: 128 + the signal on Interrupted,
/// 1 on another error (printed), else 0, stdout flushed.
[[noreturn]] inline void
exitAfterChildRun(const std::function<void()> &session) {
  try {
    session();
  } catch (const Interrupted &e) {
    std::fflush(stdout);
    ::_exit(e.exitCode());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    ::_exit(1);
  }
  std::fflush(stdout);
  ::_exit(0);
}

/// A fresh directory under $TMPDIR (or /tmp), removed recursively on
/// destruction.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/proofc-test-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  /// Writes `bytes` to path()/name (binary, exactly) and returns the path.
  std::string write(const std::string &name, std::string_view bytes) const {
    std::string p = file(name);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
      throw std::runtime_error("cannot write " + p);
    return p;
  }

private:
  std::string path_;
};

/// Writes a complete dataset directory (spec §1.1) into `dir`: the three
/// splits and the rules, `rules` one valid rule unless given.
inline void writeDataset(const TempDir &dir, const std::string &train,
                         const std::string &valid = "a\tr\tb\n",
                         const std::string &test = "b\tr\tc\n",
                         const std::string &rules = "r(X,Y) :- r(Y,X).\n") {
  dir.write("train.tsv", train);
  dir.write("valid.tsv", valid);
  dir.write("test.tsv", test);
  dir.write("rules.txt", rules);
}

/// The report at `reportPath` (a run's --report) at top-level `key`, as
/// compact JSON text: what two runs' reports are compared by, section by
/// section.
inline std::string sectionOf(const std::string &reportPath, const char *key) {
  return nlohmann::json::parse(readFile(reportPath))[key].dump();
}

/// A training set where the step memo must key a step by its candidate
/// (memo.cu's makeKey; spec §3: a candidate never uses its own triple as a
/// fact), and its candidates: the training split's, every corruption.
/// Facts r(a, b), s(x, a), s(a, a), s(y, x) and the rule
/// r(X, Y) :- s(X, Z), r(Z, Y): every step has one child, and three of the
/// candidates reach the state [r(a, b)] past their start, where only the
/// fact r(a, b) proves it. r(a, b), the fact itself, may not use it and
/// loops through [s(a, V1), r(V1, b)] to the depth bound (truncated at D);
/// r(x, b) reaches it at depth 2 and r(y, b) at depth 4, and both are
/// proved from it (depths 3 and 5). A memo that shared that state's step
/// among them would hand one the other's. The real datasets' workloads
/// never show the difference: a relevant step's children rarely hold the
/// candidate's own fact.
struct RelevantSteps {
  Dataset ds;
  CandidateSet set;
};

/// RelevantSteps' dataset written to `dir` and loaded, with its candidates.
inline RelevantSteps relevantSteps(const TempDir &dir) {
  dir.write("train.tsv", "a\tr\tb\nx\ts\ta\na\ts\ta\ny\ts\tx\n");
  dir.write("valid.tsv", "");
  dir.write("test.tsv", "");
  dir.write("rules.txt", "r(X,Y) :- s(X,Z), r(Z,Y).\n");
  RelevantSteps out{loadDataset(dir.path()), {}};
  CandidateOptions opts;
  opts.split = "train";
  out.set = buildCandidates(out.ds, opts);
  return out;
}

/// RelevantSteps' scenario in `outcomes` (a run over its candidates, D the
/// program's): r(a, b) truncated at D, r(x, b) proved at depth 3, r(y, b)
/// at depth 5.
inline void expectRelevantStepsScenario(const RelevantSteps &w,
                                        const std::vector<Outcome> &outcomes,
                                        int32_t D) {
  auto outcomeOf = [&](const char *h, const char *tail) {
    const Triple want{w.ds.entities.find(h), w.ds.relations.find("r"),
                      w.ds.entities.find(tail)};
    for (size_t i = 0; i < w.set.candidates.size(); ++i)
      if (w.set.candidates[i].triple == want)
        return outcomes.at(i);
    ADD_FAILURE() << "no candidate r(" << h << ", " << tail << ")";
    return Outcome{};
  };
  EXPECT_EQ(outcomeOf("a", "b").status, ProofStatus::Truncated);
  EXPECT_EQ(outcomeOf("a", "b").depth, D);
  EXPECT_EQ(outcomeOf("x", "b").status, ProofStatus::Proved);
  EXPECT_EQ(outcomeOf("x", "b").depth, 3);
  EXPECT_EQ(outcomeOf("y", "b").status, ProofStatus::Proved);
  EXPECT_EQ(outcomeOf("y", "b").depth, 5);
}

/// A shared dataset with its trained weights and its candidates: the first
/// `queries` test queries, `corruptions` per query and side (seed 0).
struct TrainedWorkload {
  Dataset ds;
  TensorMap weights;
  CandidateSet set;
};

inline TrainedWorkload trainedWorkload(const std::string &dataset,
                                       int64_t queries,
                                       int64_t corruptions = 100) {
  TrainedWorkload w{
      loadDataset(dataDir(dataset)), readSafetensors(weightsFile(dataset)), {}};
  CandidateOptions opts;
  opts.queries = queries;
  opts.corruptions = corruptions;
  w.set = buildCandidates(w.ds, opts);
  return w;
}

/// Sets an environment variable for the scope of the test.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_TESTUTIL_H
