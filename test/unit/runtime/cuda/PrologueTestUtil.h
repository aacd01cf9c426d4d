//===- PrologueTestUtil.h - Plans and weights for the prologue tests -*- C++
//-*-===//
//
// Shared by the device prologue's CPU emulation test and its GPU test: a
// hand-built plan that uses every prologue op at odd sizes (with and without
// a bias, empty tables, no columns, a transpose and a plain copy feeding
// later ops through scratch, outputs written in place and copied), random
// weights that use every class of finite float (all mantissa bits, wide
// exponents, subnormals, zeros, both signs, TF32 rounding ties), the plan's
// "weights:<name>" outputs, and the bit-for-bit comparison with
// runPlanPrologue; and a plan of fold_atom_layer ops at small random sizes.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_PROLOGUETESTUTIL_H
#define PROOFC_TEST_UNIT_CUDA_PROLOGUETESTUTIL_H

#include "bundle/Bundle.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Safetensors.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace proofc::test {

inline uint32_t floatBitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// A random finite float: mostly normal values with random mantissas and
/// exponents over 2^-40..2^20, sometimes a subnormal, a zero, or a value
/// whose 13 low mantissa bits are exactly a TF32 rounding tie.
inline float randomFloat(SplitMix64 &rng) {
  const uint64_t r = rng.next();
  const uint32_t sign = static_cast<uint32_t>(r >> 63) << 31;
  uint32_t mantissa = static_cast<uint32_t>(r) & 0x7fffffu;
  uint32_t exponent = 127 - 40 + static_cast<uint32_t>((r >> 32) % 61);
  switch ((r >> 40) % 16) {
  case 0:
    exponent = 0;
    break; // subnormal
  case 1:
    exponent = 0, mantissa = 0;
    break; // +-0
  case 2:
    mantissa = (mantissa & ~0x1fffu) | 0x1000u;
    break; // a tie
  default:
    break;
  }
  const uint32_t bits = sign | (exponent << 23) | mantissa;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

inline Tensor randomTensor(std::vector<int64_t> shape, SplitMix64 &rng) {
  Tensor t;
  t.shape = std::move(shape);
  t.data.resize(static_cast<size_t>(t.numel()));
  for (float &x : t.data)
    x = randomFloat(rng);
  return t;
}

/// A plan, its weights and the tensors its buffers take ("weights:<name>").
struct PrologueCase {
  GpuPlan plan;
  TensorMap weights;
  std::vector<std::string> outputs;
};

inline PrologueOp prologueOp(std::string op, std::string dst, std::string table,
                             std::string weight = "", std::string bias = "",
                             int64_t colBegin = 0, int64_t cols = 0,
                             bool transpose = false) {
  PrologueOp p;
  p.op = std::move(op);
  p.dst = std::move(dst);
  p.table = std::move(table);
  p.weight = std::move(weight);
  p.bias = std::move(bias);
  p.colBegin = colBegin;
  p.cols = cols;
  p.transpose = transpose;
  return p;
}

/// Every op at odd sizes; some dsts are outputs, the others intermediates
/// that later ops read (from scratch, or aliased for a plain copy).
inline PrologueCase handBuiltPrologueCase(uint64_t seed) {
  SplitMix64 rng(seed);
  PrologueCase c;
  TensorMap &w = c.weights;
  w["tab"] = randomTensor({13, 7}, rng);
  w["w"] = randomTensor({5, 12}, rng);
  w["b"] = randomTensor({5}, rng);
  w["tab0"] = randomTensor({4, 0}, rng);  // no columns: the bias alone
  w["empty"] = randomTensor({0, 4}, rng); // no rows
  w["m"] = randomTensor({11, 6}, rng);
  w["w3"] = randomTensor({3, 13}, rng);
  w["b3"] = randomTensor({3}, rng);
  w["lin"] = randomTensor({16, 24}, rng);
  w["lin2"] = randomTensor({24, 8}, rng);
  w["lin16"] = randomTensor({8, 48}, rng);
  std::vector<PrologueOp> &p = c.plan.prologue;
  p.push_back(prologueOp("fold_columns", "fold.bias", "tab", "w", "b", 3, 7));
  p.push_back(prologueOp("fold_columns", "fold.nobias", "tab", "w", "", 0, 7));
  p.push_back(
      prologueOp("fold_columns", "fold.cols0", "tab0", "w", "b", 12, 0));
  p.push_back(prologueOp("fold_columns", "fold.empty", "empty", "w", "", 8, 4));
  p.push_back(prologueOp("copy", "m.t", "m", "", "", 0, 0, true));
  // An intermediate (scratch) folded, then transposed into an output.
  p.push_back(prologueOp("fold_columns", "f2", "m.t", "w3", "b3", 2, 11));
  p.push_back(prologueOp("copy", "f2.t", "f2", "", "", 0, 0, true));
  p.push_back(prologueOp("tf32_fragments", "lin.tf32", "lin"));
  p.push_back(prologueOp("copy", "lin2.t", "lin2", "", "", 0, 0, true));
  p.push_back(prologueOp("tf32_fragments", "lin2.t.tf32", "lin2.t"));
  // Plain copies: one only read (an alias), one an output.
  p.push_back(prologueOp("copy", "lin.copy", "lin"));
  p.push_back(prologueOp("tf32_fragments", "lin.copy.tf32", "lin.copy"));
  p.push_back(prologueOp("copy", "b.copy", "b"));
  p.push_back(prologueOp("f16_fragments", "lin16.f16", "lin16"));
  c.outputs = {"fold.bias",     "fold.nobias", "fold.cols0", "fold.empty",
               "m.t",           "f2.t",        "lin.tf32",   "lin2.t.tf32",
               "lin.copy.tf32", "b.copy",      "b",          "lin",
               "lin16.f16"};
  return c;
}

/// fold_atom_layer (docs/bundle.md) at small sizes drawn from `seed`: R
/// relations (pred_proj [R+2, w], itself a fold_columns intermediate in
/// scratch), E entities, V variable rows, width w, `out` outputs; the op with
/// and without relu (the second reading arg1_var through a plain copy), and
/// one past kernel_abi.h's budget (E = 4096, w = out = 1: 0 rows). Its
/// tensors: pp (pred_proj, the fold_columns dst), c0, c1 (the const args),
/// v0, v1 (the var args), W; the outputs "al.relu", "al.linear", "al.empty".
inline PrologueCase atomLayerPrologueCase(uint64_t seed) {
  SplitMix64 rng(seed);
  // Seeds past 6: widths and outputs past the device kernel's 64-wide tiles
  // (prologue.cu), with partial last tiles, on few rows.
  const bool wide = seed > 6;
  const int64_t R = static_cast<int64_t>(rng.next() % (wide ? 2 : 4)),
                E = 1 + static_cast<int64_t>(rng.next() % (wide ? 3 : 6)),
                V = 2 * (1 + static_cast<int64_t>(rng.next() % (wide ? 1 : 3))),
                w = wide ? 65 + static_cast<int64_t>(rng.next() % 80)
                         : 1 + static_cast<int64_t>(rng.next() % 9),
                out = wide ? 65 + static_cast<int64_t>(rng.next() % 80)
                           : 1 + static_cast<int64_t>(rng.next() % 7);
  PrologueCase c;
  TensorMap &t = c.weights;
  t["emb"] = randomTensor({R + 2, 5}, rng);
  t["wa"] = randomTensor({w, 8}, rng);
  t["ba"] = randomTensor({w}, rng);
  for (const char *name : {"c0", "c1"})
    t[name] = randomTensor({E, w}, rng);
  for (const char *name : {"v0", "v1"})
    t[name] = randomTensor({V, w}, rng);
  t["W"] = randomTensor({out, w}, rng);
  t["big.pp"] = randomTensor({2, 1}, rng);
  for (const char *name : {"big.c0", "big.c1"})
    t[name] = randomTensor({4096, 1}, rng);
  for (const char *name : {"big.v0", "big.v1"})
    t[name] = randomTensor({2, 1}, rng);
  t["big.W"] = randomTensor({1, 1}, rng);
  auto layer = [](std::string dst, std::string pred,
                  std::vector<std::string> args, std::string weight,
                  bool relu) {
    PrologueOp op = prologueOp("fold_atom_layer", std::move(dst),
                               std::move(pred), std::move(weight));
    op.args = std::move(args);
    op.relu = relu;
    return op;
  };
  std::vector<PrologueOp> &p = c.plan.prologue;
  p.push_back(prologueOp("fold_columns", "pp", "emb", "wa", "ba", 3, 5));
  p.push_back(layer("al.relu", "pp", {"c0", "c1", "v0", "v1"}, "W", true));
  p.push_back(prologueOp("copy", "v1.copy", "v1"));
  p.push_back(
      layer("al.linear", "pp", {"c0", "c1", "v0", "v1.copy"}, "W", false));
  p.push_back(layer("al.empty", "big.pp",
                    {"big.c0", "big.c1", "big.v0", "big.v1"}, "big.W", true));
  c.outputs = {"al.relu", "al.linear", "al.empty"};
  return c;
}

/// The tensors a plan's buffers take: each "weights:<name>" init's name.
inline std::vector<std::string> planWeightOutputs(const GpuPlan &plan) {
  std::set<std::string> names;
  for (const BufferDecl &b : plan.buffers)
    if (b.init.rfind("weights:", 0) == 0)
      names.insert(b.init.substr(8));
  return {names.begin(), names.end()};
}

/// `mine` equals `ref`'s data bit for bit.
inline void expectSameBits(const std::vector<float> &mine, const Tensor &ref,
                           const std::string &what) {
  ASSERT_EQ(mine.size(), ref.data.size()) << what;
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < mine.size(); ++i)
    if (floatBitsOf(mine[i]) != floatBitsOf(ref.data[i]) && differ++ == 0)
      first = i;
  EXPECT_EQ(differ, 0u) << what << ": first difference at element " << first
                        << ": " << mine[first] << " vs " << ref.data[first];
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_PROLOGUETESTUTIL_H
