//===- HostPolicyTest.cpp - The folded float32 policy vs spec §4 ----------===//
//
// HostPolicy (folded tables, float32 SIMD kernels) against the reference
// prover's double-precision §4 formulas on random weights and states, the
// batch and ISA invariance the backends rely on, the §4 action rule on
// near-ties, and the errors for weights that do not fit the program.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "runtime/host/HostTestUtil.h"

#include "host/HostPolicy.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace proofc::test {
namespace {

using reference::State;

/// The spec §4 `mlp-dot` program for width d, L layers and A atoms.
ProgramSpec mlpDotProgram(int32_t d, int32_t L, int32_t A) {
  ProgramSpec program = v10Program();
  program.shape.d = d;
  program.shape.L = L;
  program.shape.A = A;
  auto &enc = program.policy.encoder;
  enc.resize(3); // AtomEmbed, Relu, SumAtoms
  enc[0].in = 3 * d;
  enc[0].out = d;
  for (int l = 0; l < L; ++l) {
    const std::string prefix = "mlp." + std::to_string(l);
    PolicyOp linear{PolicyOpKind::Linear};
    linear.weight = prefix + ".weight";
    linear.bias = prefix + ".bias";
    linear.in = linear.out = d;
    PolicyOp norm{PolicyOpKind::LayerNorm};
    norm.weight = prefix + ".ln.weight";
    norm.bias = prefix + ".ln.bias";
    norm.in = norm.out = d;
    enc.push_back(linear);
    enc.push_back(norm);
    enc.push_back(PolicyOp{PolicyOpKind::Relu});
  }
  program.policy.scoreScale = static_cast<float>(1.0 / std::sqrt(double(d)));
  return program;
}

/// Random values in every tensor, biases and LayerNorm parameters included.
TensorMap randomWeights(const ProgramSpec &program, int32_t E, int32_t R,
                        uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  const int64_t d = program.shape.d, A = program.shape.A;
  TensorMap w;
  auto make = [&](const std::string &name, std::vector<int64_t> shape,
                  float scale, float offset = 0.f) {
    Tensor t;
    t.shape = shape;
    t.data.resize(static_cast<size_t>(t.numel()));
    for (float &v : t.data)
      v = offset + scale * normal(rng);
    w[name] = std::move(t);
  };
  make("pred_emb", {R + 2, d}, 0.5f);
  make("const_emb", {E, d}, 0.5f);
  make("var_emb", {2 * A, d}, 0.5f);
  make("atom.weight", {d, 3 * d}, 1.f / std::sqrt(float(3 * d)));
  make("atom.bias", {d}, 0.1f);
  for (int l = 0; l < program.shape.L; ++l) {
    const std::string p = "mlp." + std::to_string(l);
    make(p + ".weight", {d, d}, 1.f / std::sqrt(float(d)));
    make(p + ".bias", {d}, 0.1f);
    make(p + ".ln.weight", {d}, 0.2f, 1.f);
    make(p + ".ln.bias", {d}, 0.1f);
  }
  return w;
}

class HostPolicyTest : public ::testing::TestWithParam<int32_t> {
protected:
  void SetUp() override {
    const int32_t d = GetParam();
    program_ = mlpDotProgram(d, d == 64 ? 2 : 3, 6);
    ds_ = makeDataset({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
                      {"p", "q", "r", "s"}, {{"a", "p", "b"}}, "");
    weights_ = randomWeights(program_, ds_.numEntities(), ds_.numRelations(),
                             1000 + d);
    policy_ = std::make_unique<HostPolicy>(
        program_, weights_, ds_.numEntities(), ds_.numRelations());
    ref_ = std::make_unique<reference::ReferenceProver>(ds_, &weights_,
                                                        program_.shape);
  }

  /// Random canonical states; every tenth is TRUE or FALSE.
  std::vector<State> randomStates(int count, uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int32_t>(rng() % n); };
    const int32_t R = ds_.numRelations(), A = program_.shape.A;
    std::vector<State> states;
    for (int i = 0; i < count; ++i) {
      if (i % 10 == 9) {
        states.push_back({{R + pick(2), 0, 0}});
        continue;
      }
      State s;
      for (int j = 0, n = 1 + pick(A); j < n; ++j) {
        auto term = [&] { return pick(2) ? -(1 + pick(2 * A)) : pick(10); };
        s.push_back({pick(R), term(), term()});
      }
      states.push_back(reference::canonical(s));
    }
    return states;
  }

  std::vector<Atom> padded(const std::vector<State> &states) const {
    const int32_t A = program_.shape.A;
    std::vector<Atom> out(states.size() * A, kPadAtom);
    for (size_t i = 0; i < states.size(); ++i)
      std::copy(states[i].begin(), states[i].end(), out.begin() + i * A);
    return out;
  }

  ProgramSpec program_;
  Dataset ds_;
  TensorMap weights_;
  std::unique_ptr<HostPolicy> policy_;
  std::unique_ptr<reference::ReferenceProver> ref_;
};

TEST_P(HostPolicyTest, EncodeMatchesDoublePrecisionReference) {
  double worst = 0;
  for (const State &s : randomStates(400, 1)) {
    const std::vector<float> host = policy_->encode(s);
    const std::vector<double> ref = ref_->encode(s);
    ASSERT_EQ(host.size(), ref.size());
    double scale = 1;
    for (double v : ref)
      scale = std::max(scale, std::fabs(v));
    for (size_t j = 0; j < ref.size(); ++j)
      worst = std::max(worst, std::fabs(host[j] - ref[j]) / scale);
  }
  EXPECT_LT(worst, 2e-5);
  EXPECT_GT(worst, 0.0); // float32 does differ: the comparison is real
}

TEST_P(HostPolicyTest, LogitsMatchDoublePrecisionReference) {
  const std::vector<State> states = randomStates(41, 2);
  const State parent = states[0];
  const std::vector<State> children(states.begin() + 1, states.end());
  std::vector<std::vector<float>> childEnc;
  for (const State &c : children)
    childEnc.push_back(policy_->encode(c));
  const std::vector<float> host =
      policy_->logits(policy_->encode(parent), childEnc);
  const std::vector<double> ref = ref_->logits(parent, children);
  ASSERT_EQ(host.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_NEAR(host[i], ref[i], 1e-4 * std::max(1.0, std::fabs(ref[i])))
        << "child " << i;
}

TEST_P(HostPolicyTest, BatchRowsEqualSingleEncodesBitwise) {
  const std::vector<State> states = randomStates(13, 3);
  const std::vector<Atom> atoms = padded(states);
  const int32_t W = policy_->width(), A = program_.shape.A;
  std::vector<float> scratch(policy_->scratchSize());
  for (int32_t k = 1; k <= 13; ++k) {
    std::vector<float> batch(size_t(k) * W);
    policy_->encodeBatch(atoms.data(), k, A, batch.data(), scratch.data());
    for (int32_t i = 0; i < k; ++i) {
      const std::vector<float> single = policy_->encode(states[i]);
      ASSERT_EQ(std::memcmp(single.data(), batch.data() + size_t(i) * W,
                            sizeof(float) * W),
                0)
          << "row " << i << " of a batch of " << k;
    }
  }
}

TEST_P(HostPolicyTest, EveryIsaGivesBitwiseEqualResults) {
  const std::vector<State> states = randomStates(37, 4);
  const std::vector<Atom> atoms = padded(states);
  const int32_t k = static_cast<int32_t>(states.size());
  const int32_t A = program_.shape.A, W = policy_->width();
  std::vector<float> expectedEnc, expectedLogits;
  const std::vector<std::string> isas = HostPolicy::availableIsas();
  ASSERT_FALSE(isas.empty());
  for (const std::string &isa : isas) {
    HostPolicy policy(program_, weights_, ds_.numEntities(), ds_.numRelations(),
                      isa);
    EXPECT_EQ(isa, policy.isa());
    std::vector<float> scratch(policy.scratchSize());
    std::vector<float> enc(size_t(k) * W), logits(k);
    policy.encodeBatch(atoms.data(), k, A, enc.data(), scratch.data());
    policy.logits(enc.data(), enc.data(), k, logits.data());
    if (expectedEnc.empty()) {
      expectedEnc = enc;
      expectedLogits = logits;
      continue;
    }
    EXPECT_EQ(
        std::memcmp(enc.data(), expectedEnc.data(), sizeof(float) * enc.size()),
        0)
        << isa << " encodings differ from " << isas[0];
    EXPECT_EQ(
        std::memcmp(logits.data(), expectedLogits.data(), sizeof(float) * k), 0)
        << isa << " logits differ from " << isas[0];
  }
  EXPECT_THROW(HostPolicy(program_, weights_, ds_.numEntities(),
                          ds_.numRelations(), "sparc"),
               Error);
}

INSTANTIATE_TEST_SUITE_P(Widths, HostPolicyTest, ::testing::Values(64, 20),
                         [](const auto &info) {
                           return "d" + std::to_string(info.param);
                         });

TEST(HostPolicyAction, NearTiesGoToTheSmallestIndex) {
  auto act = [](std::vector<float> logits) {
    return selectAction(logits.data(), static_cast<int32_t>(logits.size()));
  };
  // Within 1e-5 * max(1, |m|) of the maximum: the first such index wins.
  EXPECT_EQ(act({1.f, 1.f + 5e-6f, 0.5f}).index, 0);
  EXPECT_EQ(act({1.f, 1.f + 3e-5f, 0.5f}).index, 1);
  EXPECT_EQ(act({0.2f, 1000.f, 1000.005f}).index, 1); // relative at |m| > 1
  EXPECT_EQ(act({0.2f, 1000.f, 1000.02f}).index, 2);
  EXPECT_EQ(act({-3.f + 2e-5f, -3.f}).index, 0);
  EXPECT_EQ(act({-3.f, -3.f + 4e-5f}).index, 1);
  EXPECT_EQ(act({0.f, 1e-6f, -1e-6f}).index, 0); // absolute below |m| = 1
  EXPECT_EQ(act({2.f, 2.f, 2.f}).index, 0);
  // k = 1: action 0 with log-probability 0.
  EXPECT_EQ(act({7.f}).index, 0);
  EXPECT_EQ(act({7.f}).logp, 0.0);
}

TEST(HostPolicyAction, LogProbabilityIsStableLogSoftmax) {
  const Action a = selectAction(std::vector<float>{1.f, 3.f, 2.f}.data(), 3);
  EXPECT_EQ(a.index, 1);
  const double expected =
      3.0 - std::log(std::exp(1.0) + std::exp(3.0) + std::exp(2.0));
  EXPECT_NEAR(a.logp, expected, 1e-12);
  // Large logits do not overflow.
  const Action big =
      selectAction(std::vector<float>{1000.f, 999.f, 0.f}.data(), 3);
  EXPECT_EQ(big.index, 0);
  EXPECT_NEAR(big.logp, -std::log1p(std::exp(-1.0)), 1e-9);
  // Against the reference rule on random logits with planted near-ties.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 3.f);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<float> logits(1 + rng() % 20);
    for (float &l : logits)
      l = normal(rng);
    if (logits.size() > 2 && trial % 2)
      logits[rng() % logits.size()] =
          *std::max_element(logits.begin(), logits.end()) - 1e-6f;
    const Action host =
        selectAction(logits.data(), static_cast<int32_t>(logits.size()));
    const reference::Choice ref =
        reference::choose(std::vector<double>(logits.begin(), logits.end()));
    ASSERT_EQ(host.index, ref.index) << "trial " << trial;
    ASSERT_NEAR(host.logp, ref.logp, 1e-9) << "trial " << trial;
  }
  EXPECT_THROW(selectAction(nullptr, 0), Error);
}

TEST(HostPolicyErrors, WeightsThatDoNotFitTheProgramNameTheTensor) {
  const ProgramSpec program = mlpDotProgram(16, 1, 4);
  const TensorMap good = randomWeights(program, 5, 3, 9);
  auto message = [&](const TensorMap &w, const ProgramSpec &p) -> std::string {
    try {
      HostPolicy policy(p, w, 5, 3);
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message(good, program), "no error");
  TensorMap missing = good;
  missing.erase("atom.bias");
  EXPECT_EQ(message(missing, program),
            "policy weights: missing tensor 'atom.bias'");
  TensorMap wrong = good;
  wrong["mlp.0.weight"].shape = {16, 8};
  wrong["mlp.0.weight"].data.resize(128);
  EXPECT_EQ(message(wrong, program), "policy weights: tensor 'mlp.0.weight' "
                                     "has shape [16, 8], expected [16, 16]");
  TensorMap vars = good;
  vars["var_emb"].shape = {4, 16};
  vars["var_emb"].data.resize(64);
  EXPECT_NE(message(vars, program).find("'var_emb'"), std::string::npos);

  ProgramSpec noSum = program;
  noSum.policy.encoder.resize(2); // AtomEmbed, Relu
  EXPECT_EQ(message(good, noSum), "policy: the encoder has no sum_atoms op");
  ProgramSpec perAtom = program;
  perAtom.policy.encoder.erase(perAtom.policy.encoder.begin() + 2);
  EXPECT_EQ(message(good, perAtom),
            "policy: op 2 (linear) is not supported per atom (only relu is)");
  ProgramSpec widths = program;
  widths.policy.encoder[3].in = 8;
  EXPECT_NE(message(good, widths).find("op 3 (linear) has in = 8"),
            std::string::npos);
  // An id outside the tables is an error, not a read out of bounds.
  HostPolicy policy(program, good, 5, 3);
  EXPECT_THROW(policy.encode({{0, 5, 1}}), Error);
  EXPECT_THROW(policy.encode({{0, -9, 1}}), Error);
  EXPECT_THROW(policy.encode({{6, 0, 0}}), Error);
}

} // namespace
} // namespace proofc::test
