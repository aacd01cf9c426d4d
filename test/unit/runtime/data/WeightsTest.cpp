//===- WeightsTest.cpp - The weights contract: tensors and metadata -------===//
#include "TestUtil.h"

#include "outputs/Provenance.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Evaluation.h"
#include "support/MessageText.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace proofc;
using proofc::test::v10Program;

namespace {

/// A dataset with E entities and R relations and nothing else: the weight
/// shapes depend only on those counts.
Dataset datasetWithCounts(int32_t entities, int32_t relations) {
  std::vector<std::string> e, r;
  for (int32_t i = 0; i < entities; ++i)
    e.push_back(fmt::format("e{:05}", i));
  for (int32_t i = 0; i < relations; ++i)
    r.push_back(fmt::format("r{:05}", i));
  Dataset ds;
  ds.entities = Vocab(e);
  ds.relations = Vocab(r);
  return ds;
}

std::string checkError(const ProgramSpec &program, const Dataset &ds,
                       const TensorMap &weights) {
  try {
    checkWeights(program, ds, weights, "W.safetensors");
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

Tensor zeros(std::vector<int64_t> shape) {
  Tensor t;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(t.numel()), 0.f);
  return t;
}

} // namespace

TEST(Weights, PolicyOpNames) {
  EXPECT_STREQ(policyOpName(PolicyOpKind::AtomEmbed), "atom_embed");
  EXPECT_STREQ(policyOpName(PolicyOpKind::Relu), "relu");
  EXPECT_STREQ(policyOpName(PolicyOpKind::SumAtoms), "sum_atoms");
  EXPECT_STREQ(policyOpName(PolicyOpKind::Linear), "linear");
  EXPECT_STREQ(policyOpName(PolicyOpKind::LayerNorm), "layer_norm");
}

class SharedWeights : public ::testing::TestWithParam<const char *> {};

TEST_P(SharedWeights, MatchTheV10Program) {
  std::string name = GetParam();
  Dataset ds = loadDataset(proofc::test::dataDir(name));
  std::string path = proofc::test::weightsFile(name);
  TensorMap weights = readSafetensors(path);
  EXPECT_NO_THROW(checkWeights(v10Program(), ds, weights, path));
  // Spec §4 table, spelled out.
  EXPECT_EQ(weights.size(), 13u);
  EXPECT_EQ(weights.at("pred_emb").shape,
            (std::vector<int64_t>{ds.numRelations() + 2, 64}));
  EXPECT_EQ(weights.at("const_emb").shape,
            (std::vector<int64_t>{ds.numEntities(), 64}));
  EXPECT_EQ(weights.at("var_emb").shape, (std::vector<int64_t>{12, 64}));
  EXPECT_EQ(weights.at("atom.weight").shape, (std::vector<int64_t>{64, 192}));
  EXPECT_EQ(weights.at("mlp.1.ln.bias").shape, (std::vector<int64_t>{64}));
  for (const auto &[tensorName, tensor] : weights)
    for (float v : tensor.data)
      ASSERT_TRUE(std::isfinite(v)) << tensorName;
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedWeights,
                         ::testing::Values("countries_s1", "countries_s2",
                                           "countries_s3", "kinship", "nations",
                                           "umls"));

TEST(Weights, WeightsForAnotherDatasetAreRejected) {
  Dataset nations = loadDataset(proofc::test::dataDir("nations"));
  std::string path = proofc::test::weightsFile("umls");
  TensorMap umls = readSafetensors(path);
  try {
    checkWeights(v10Program(), nations, umls, path);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ": tensor 'pred_emb' has shape [48, 64], expected [57, 64]");
  }
}

TEST(Weights, MissingMisshapenAndExtraTensors) {
  Dataset ds = datasetWithCounts(10, 3);
  ProgramSpec program = v10Program();
  TensorMap weights = initWeights(program, ds, 0);
  EXPECT_EQ(checkError(program, ds, weights), "(no error)");

  TensorMap missing = weights;
  missing.erase("atom.bias");
  EXPECT_EQ(checkError(program, ds, missing),
            "W.safetensors: missing tensor 'atom.bias' (shape [64])");

  TensorMap misshapen = weights;
  misshapen["mlp.0.weight"] = zeros({64, 32});
  EXPECT_EQ(checkError(program, ds, misshapen),
            "W.safetensors: tensor 'mlp.0.weight' has shape [64, 32], "
            "expected [64, 64]");
  misshapen = weights;
  misshapen["const_emb"] = zeros({11, 64});
  EXPECT_EQ(checkError(program, ds, misshapen),
            "W.safetensors: tensor 'const_emb' has shape [11, 64], expected "
            "[10, 64]");
  misshapen = weights;
  misshapen["mlp.1.ln.weight"] = zeros({1, 64});
  EXPECT_EQ(checkError(program, ds, misshapen),
            "W.safetensors: tensor 'mlp.1.ln.weight' has shape [1, 64], "
            "expected [64]");

  TensorMap extra = weights;
  extra["mlp.2.weight"] = zeros({64, 64});
  EXPECT_EQ(checkError(program, ds, extra),
            "W.safetensors: unexpected tensor 'mlp.2.weight': program 'v10' "
            "does not use it (weights for another program?)");

  // A one-layer program given two-layer weights: the extra layer is named.
  ProgramSpec oneLayer = program;
  oneLayer.policy.encoder.resize(oneLayer.policy.encoder.size() - 3);
  EXPECT_EQ(checkError(oneLayer, ds, weights),
            "W.safetensors: unexpected tensor 'mlp.1.bias': program 'v10' does "
            "not use it (weights for another program?)");
}

TEST(Weights, SharedTensorNamesMustAgree) {
  Dataset ds = datasetWithCounts(4, 2);
  ProgramSpec program = v10Program();
  // Tie both layers' LayerNorm weights: fine, one tensor.
  program.policy.encoder[7].weight = "mlp.0.ln.weight";
  TensorMap weights = initWeights(program, ds, 1);
  EXPECT_EQ(weights.count("mlp.1.ln.weight"), 0u);
  EXPECT_EQ(checkError(program, ds, weights), "(no error)");
  // Tying tensors of different shapes is a program error.
  program.policy.encoder[3].bias = "mlp.0.weight";
  EXPECT_EQ(checkError(program, ds, weights),
            "program 'v10': encoder op 3 (linear): tensor 'mlp.0.weight' is "
            "shared with shape [64, 64] and [64]");
}

TEST(Weights, InconsistentProgramsAreErrors) {
  Dataset ds = datasetWithCounts(4, 2);
  ProgramSpec program = v10Program();
  program.policy.encoder[0].in = 100;
  EXPECT_EQ(checkError(program, ds, {}),
            "program 'v10': encoder op 0 (atom_embed): in = 100 must be 3 x "
            "the embedding width and out = 64 positive");
  program = v10Program();
  program.policy.encoder[3].in = 32;
  EXPECT_EQ(checkError(program, ds, {}),
            "program 'v10': encoder op 3 (linear): expects width 32, but the "
            "previous ops yield 64");
  program = v10Program();
  program.policy.encoder[4].out = 32;
  EXPECT_EQ(checkError(program, ds, {}),
            "program 'v10': encoder op 4 (layer_norm): in = 64 and out = 32 "
            "differ");
  program = v10Program();
  program.policy.encoder.erase(program.policy.encoder.begin());
  EXPECT_EQ(checkError(program, ds, {}),
            "program 'v10': encoder op 0 (relu): comes before any atom_embed");
  program = v10Program();
  program.policy.encoder[0].varTable.clear();
  EXPECT_EQ(checkError(program, ds, {}),
            "program 'v10': encoder op 0 (atom_embed): has an empty tensor "
            "name");
  EXPECT_THROW(initWeights(program, ds, 0), Error);
}

TEST(Weights, InitIsDeterministicAndFollowsTheDocumentedDraws) {
  Dataset ds = datasetWithCounts(50, 7);
  ProgramSpec program = v10Program();
  TensorMap a = initWeights(program, ds, 0);
  TensorMap b = initWeights(program, ds, 0);
  TensorMap c = initWeights(program, ds, 1);
  ASSERT_EQ(a.size(), 13u);
  EXPECT_NO_THROW(checkWeights(program, ds, a, "init"));
  for (const auto &[name, tensor] : a) {
    EXPECT_EQ(tensor.data, b.at(name).data) << name;
    EXPECT_EQ(tensor.shape, c.at(name).shape) << name;
  }
  EXPECT_NE(a.at("pred_emb").data, c.at("pred_emb").data);
  EXPECT_NE(a.at("mlp.1.weight").data, c.at("mlp.1.weight").data);

  // The first value: 0.5 * Box-Muller (cosine) of the first two draws.
  SplitMix64 rng(0);
  double u1 = (rng.next() >> 11) * 0x1.0p-53;
  double u2 = (rng.next() >> 11) * 0x1.0p-53;
  float first = static_cast<float>(0.5 * std::sqrt(-2.0 * std::log(1.0 - u1)) *
                                   std::cos(2 * M_PI * u2));
  EXPECT_EQ(a.at("pred_emb").data[0], first);

  // Constants, bounds and spreads.
  for (const char *name : {"atom.bias", "mlp.0.bias", "mlp.1.bias",
                           "mlp.0.ln.bias", "mlp.1.ln.bias"})
    for (float v : a.at(name).data)
      ASSERT_EQ(v, 0.f) << name;
  for (const char *name : {"mlp.0.ln.weight", "mlp.1.ln.weight"})
    for (float v : a.at(name).data)
      ASSERT_EQ(v, 1.f) << name;
  auto checkUniform = [&](const char *name, double bound) {
    const std::vector<float> &v = a.at(name).data;
    double lo = 0, hi = 0, sum = 0;
    for (float x : v) {
      lo = std::min(lo, double(x));
      hi = std::max(hi, double(x));
      sum += x;
    }
    EXPECT_GE(lo, -bound) << name;
    EXPECT_LT(hi, bound) << name;
    EXPECT_LT(lo, -0.9 * bound) << name; // fills the range
    EXPECT_GT(hi, 0.9 * bound) << name;
    EXPECT_NEAR(sum / v.size(), 0.0, 0.05 * bound) << name;
  };
  checkUniform("atom.weight", std::sqrt(6.0 / (192 + 64)));
  checkUniform("mlp.0.weight", std::sqrt(6.0 / (64 + 64)));
  const std::vector<float> &emb = a.at("const_emb").data; // 3200 values
  double sum = 0, sumSq = 0;
  for (float x : emb) {
    sum += x;
    sumSq += double(x) * x;
  }
  double mean = sum / emb.size();
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(std::sqrt(sumSq / emb.size() - mean * mean), 0.5, 0.03);
}

TEST(Weights, ExpectedTensorsIsTheSpecTableInEncoderOrder) {
  Dataset ds = datasetWithCounts(10, 3);
  std::vector<TensorSpec> specs = expectedTensors(v10Program(), ds);
  // Spec §4 with E = 10, R = 3, A = 6, d = 64, L = 2.
  const std::vector<std::pair<std::string, std::vector<int64_t>>> table = {
      {"pred_emb", {5, 64}},   {"const_emb", {10, 64}},
      {"var_emb", {12, 64}},   {"atom.weight", {64, 192}},
      {"atom.bias", {64}},     {"mlp.0.weight", {64, 64}},
      {"mlp.0.bias", {64}},    {"mlp.0.ln.weight", {64}},
      {"mlp.0.ln.bias", {64}}, {"mlp.1.weight", {64, 64}},
      {"mlp.1.bias", {64}},    {"mlp.1.ln.weight", {64}},
      {"mlp.1.ln.bias", {64}}};
  ASSERT_EQ(specs.size(), table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(specs[i].name, table[i].first) << i;
    EXPECT_EQ(specs[i].shape, table[i].second) << specs[i].name;
    EXPECT_EQ(specs[i].dtype, "F32") << specs[i].name;
  }
  // initWeights draws exactly these tensors; a tied name is listed once.
  TensorMap init = initWeights(v10Program(), ds, 3);
  ASSERT_EQ(init.size(), specs.size());
  for (const TensorSpec &spec : specs)
    EXPECT_EQ(init.at(spec.name).shape, spec.shape) << spec.name;
  ProgramSpec tied = v10Program();
  tied.policy.encoder[7].weight = "mlp.0.ln.weight";
  EXPECT_EQ(expectedTensors(tied, ds).size(), table.size() - 1);
  // An inconsistent program is the same error as checkWeights gives.
  tied.policy.encoder[3].in = 32;
  EXPECT_THROW(expectedTensors(tied, ds), Error);
}

namespace {

std::string metadataError(const SafetensorsMetadata &metadata,
                          const Dataset &ds) {
  try {
    checkWeightsMetadata(metadata, v10Program(), ds, "W.safetensors");
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(WeightsMetadata, NamesTheProgramAndTheVocabulary) {
  Dataset ds = datasetWithCounts(3, 2);
  EXPECT_EQ(
      weightsMetadata(v10Program(), ds),
      (SafetensorsMetadata{{"format", "pt"},
                           {"proofc.program", "v10"},
                           {"proofc.vocabulary", vocabularyFingerprint(ds)}}));
  EXPECT_EQ(metadataError(weightsMetadata(v10Program(), ds), ds), "(no error)");
}

TEST(WeightsMetadata, AnotherVocabularyIsRefusedNamingBoth) {
  Dataset ours = datasetWithCounts(3, 2);
  ours.dir = "data/ours";
  // Same E and R, one entity renamed: every shape fits, the rows do not.
  Dataset theirs = ours;
  theirs.entities = Vocab({"e00000", "e00001", "x"});
  const std::string a = vocabularyFingerprint(ours);
  const std::string b = vocabularyFingerprint(theirs);
  ASSERT_NE(a, b);
  EXPECT_EQ(metadataError(weightsMetadata(v10Program(), theirs), ours),
            "W.safetensors: the weights were written for another dataset: "
            "the file's proofc.vocabulary is " +
                b + ", but dataset data/ours has " + a +
                " (other entity or relation names: the embedding rows of "
                "program 'v10' would belong to other names)");
  // A relation renamed counts the same.
  theirs = ours;
  theirs.relations = Vocab({"r00000", "s"});
  EXPECT_NE(metadataError(weightsMetadata(v10Program(), theirs), ours),
            "(no error)");
}

TEST(WeightsMetadata, WithoutTheKeyOrForAnotherProgramIsAccepted) {
  Dataset ds = datasetWithCounts(3, 2);
  // No metadata (trained elsewhere), or only a writer's own keys.
  EXPECT_EQ(metadataError({}, ds), "(no error)");
  EXPECT_EQ(metadataError({{"format", "pt"}, {"epochs", "40"}}, ds),
            "(no error)");
  // Another program's name: the tensors' names and shapes are the contract
  // (checkWeights), and a program compiled with another B fits the same
  // weights.
  SafetensorsMetadata other = weightsMetadata(v10Program(), ds);
  other["proofc.program"] = "v10_batch64";
  EXPECT_EQ(metadataError(other, ds), "(no error)");
}

TEST(WeightsMetadata, MalformedVocabularyIsRefused) {
  Dataset ds = datasetWithCounts(3, 2);
  const std::string good = vocabularyFingerprint(ds);
  for (const std::string &bad :
       {std::string(""), good.substr(7), good.substr(0, 70),
        "SHA256:" + good.substr(7), "sha256:" + std::string(64, 'A'),
        good + "0", std::string("sha256:\x1b[2J")}) {
    EXPECT_EQ(metadataError({{"proofc.vocabulary", bad}}, ds),
              "W.safetensors: '__metadata__': 'proofc.vocabulary' is '" +
                  escapeForMessage(bad) +
                  "', expected 'sha256:' and 64 lowercase hex digits")
        << bad;
  }
}
