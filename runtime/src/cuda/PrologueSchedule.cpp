//===- PrologueSchedule.cpp - The plan prologue, checked and scheduled ----===//
//
// The checks are those runPlanPrologue always made, on shapes alone, so the
// host and the device executors reject the same weights with the same
// message. The schedule places tensors: in place in an output buffer, in
// scratch, or (a plain copy) at its source.
//
//===----------------------------------------------------------------------===//
#include "PrologueSchedule.h"

#include "cuda/kernels/prologue_ops.h"
#include "proofc/contract/kernel_abi.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>

#include <algorithm>

namespace proofc {
namespace {

const std::vector<int64_t> &shapeOf(const ShapeMap &shapes,
                                    const std::string &name,
                                    const std::string &what) {
  auto it = shapes.find(name);
  if (it == shapes.end())
    fail("{}: no tensor '{}'", what, name);
  return it->second;
}

void resolveFoldColumns(const PrologueOp &op, const ShapeMap &shapes,
                        ResolvedPrologueOp &r) {
  const std::string &what = r.what;
  const std::vector<int64_t> &table = shapeOf(shapes, op.table, what);
  const std::vector<int64_t> &weight = shapeOf(shapes, op.weight, what);
  if (table.size() != 2 || table[1] != op.cols)
    fail("{}: table '{}' must be [rows, {}]", what, op.table, op.cols);
  if (weight.size() != 2 || weight[1] < op.colBegin + op.cols)
    fail("{}: weight '{}' must be [out, >= {}]", what, op.weight,
         op.colBegin + op.cols);
  r.rows = table[0];
  r.out = weight[0];
  r.in = weight[1];
  r.cols = op.cols;
  r.colBegin = op.colBegin;
  if (!op.bias.empty()) {
    const std::vector<int64_t> &bias = shapeOf(shapes, op.bias, what);
    if (bias.size() != 1 || bias[0] != r.out)
      fail("{}: bias '{}' must be [{}]", what, op.bias, r.out);
    r.bias = true;
  }
  r.dstShape = {r.rows, r.out};
}

void resolveCopy(const PrologueOp &op, const ShapeMap &shapes,
                 ResolvedPrologueOp &r) {
  const std::vector<int64_t> &src = shapeOf(shapes, op.table, r.what);
  if (!op.transpose) {
    r.dstShape = src;
    return;
  }
  if (src.size() != 2)
    fail("{}: transpose needs a 2-D tensor, '{}' has {} dimensions", r.what,
         op.table, src.size());
  r.kind = PrologueKind::Transpose;
  r.rows = src[0];
  r.cols = src[1];
  r.dstShape = {r.cols, r.rows};
}

/// tf32_fragments (`f16` false) and f16_fragments: the weight [rows = out,
/// cols = in] in kernel_abi.h's mma tiles, the table its words.
void resolveFragments(const PrologueOp &op, const ShapeMap &shapes,
                      ResolvedPrologueOp &r, bool f16) {
  using namespace proofc_abi;
  const std::vector<int64_t> &w = shapeOf(shapes, op.table, r.what);
  if (w.size() != 2 || w[0] % kMmaN != 0 || w[1] % mmaK(f16) != 0 ||
      w[0] == 0 || w[1] == 0) {
    if (mmaK(f16) == kMmaN)
      fail("{}: '{}' must be a 2-D weight whose sizes are multiples of {}",
           r.what, op.table, kMmaN);
    fail("{}: '{}' must be a 2-D weight [out, in] with out a multiple of {} "
         "and in of {}",
         r.what, op.table, kMmaN, mmaK(f16));
  }
  r.rows = w[0];
  r.cols = w[1];
  r.dstShape = {fragmentWordsPerElement(f16) * r.rows * r.cols};
}

/// pred_proj [R+2, w], the argument tables, W [out, w]: the table's rows are
/// kernel_abi.h's atomLayerRows (0 past its budget).
void resolveFoldAtomLayer(const PrologueOp &op, const ShapeMap &shapes,
                          ResolvedPrologueOp &r) {
  const std::string &what = r.what;
  if (op.args.size() != 4)
    fail("{}: fold_atom_layer needs 4 args (arg0_const, arg1_const, "
         "arg0_var, arg1_var), not {}",
         what, op.args.size());
  const std::vector<int64_t> &pred = shapeOf(shapes, op.table, what);
  if (pred.size() != 2 || pred[0] < 2)
    fail("{}: table '{}' must be [R+2, width] with R >= 0", what, op.table);
  const int64_t width = pred[1];
  const std::vector<int64_t> &const0 = shapeOf(shapes, op.args[0], what);
  if (const0.size() != 2 || const0[1] != width)
    fail("{}: '{}' must be [E, {}]", what, op.args[0], width);
  const std::vector<int64_t> &const1 = shapeOf(shapes, op.args[1], what);
  if (const1 != const0)
    fail("{}: '{}' must be [{}, {}], as '{}'", what, op.args[1], const0[0],
         width, op.args[0]);
  const std::vector<int64_t> &var0 = shapeOf(shapes, op.args[2], what);
  if (var0.size() != 2 || var0[1] != width || var0[0] <= 0 || var0[0] % 2 != 0)
    fail("{}: '{}' must be [V, {}] with V even and > 0", what, op.args[2],
         width);
  const std::vector<int64_t> &var1 = shapeOf(shapes, op.args[3], what);
  if (var1 != var0)
    fail("{}: '{}' must be [{}, {}], as '{}'", what, op.args[3], var0[0], width,
         op.args[2]);
  const std::vector<int64_t> &weight = shapeOf(shapes, op.weight, what);
  if (weight.size() != 2 || weight[1] != width)
    fail("{}: weight '{}' must be [out, {}]", what, op.weight, width);
  r.rows = pred[0];
  r.cols = width;
  r.consts = const0[0];
  r.vars = var0[0];
  r.out = weight[0];
  r.in = width;
  r.argRows = proofc_abi::atomLayerArgRows(r.vars, r.consts);
  r.dstShape = {proofc_abi::atomLayerRows(r.rows - 2, r.consts, r.vars, r.out),
                r.out};
}

constexpr uint32_t kBlock = 256;

uint32_t gridFor(int64_t threads) {
  return static_cast<uint32_t>(std::min<int64_t>(
      (threads + kBlock - 1) / kBlock, prologue::kPrologueMaxGrid));
}

} // namespace

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

namespace {

/// The elements of `shape`, which must be sizes >= 0 whose product is at
/// most 2^40; `tensor` names it in errors after `what`.
int64_t checkedCount(const std::vector<int64_t> &shape, const std::string &what,
                     const std::string &tensor) {
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0)
      fail("{}: {} has a negative size ({})", what, tensor, s);
    if (s != 0 && n > kMaxElements / s)
      fail("{}: {} has more than 2^40 elements", what, tensor);
    n *= s;
  }
  return n;
}

void checkWeightShapes(const ShapeMap &shapes, const std::string &bundlePath) {
  for (const auto &[name, shape] : shapes)
    checkedCount(shape, bundlePath, "weight '" + escapeForMessage(name) + "'");
}

} // namespace

std::vector<ResolvedPrologueOp> resolvePrologue(const GpuPlan &plan,
                                                ShapeMap &shapes,
                                                const std::string &bundlePath) {
  std::vector<ResolvedPrologueOp> ops;
  ops.reserve(plan.prologue.size());
  for (size_t i = 0; i < plan.prologue.size(); ++i) {
    const PrologueOp &op = plan.prologue[i];
    ResolvedPrologueOp r;
    r.op = &op;
    r.index = i;
    r.what = fmt::format("{}: plan.prologue[{}] ({} -> {})", bundlePath, i,
                         op.op, op.dst);
    if (shapes.count(op.dst))
      fail("{}: dst '{}' already names a tensor", r.what, op.dst);
    if (op.op == "fold_columns") {
      r.kind = PrologueKind::FoldColumns;
      resolveFoldColumns(op, shapes, r);
    } else if (op.op == "copy") {
      r.kind = PrologueKind::Copy;
      resolveCopy(op, shapes, r);
    } else if (op.op == "tf32_fragments") {
      r.kind = PrologueKind::Tf32Fragments;
      resolveFragments(op, shapes, r, /*f16=*/false);
    } else if (op.op == "f16_fragments") {
      r.kind = PrologueKind::F16Fragments;
      resolveFragments(op, shapes, r, /*f16=*/true);
    } else if (op.op == "fold_atom_layer") {
      r.kind = PrologueKind::FoldAtomLayer;
      resolveFoldAtomLayer(op, shapes, r);
    } else {
      fail("{}: unknown prologue op", r.what);
    }
    r.dstElements = checkedCount(r.dstShape, r.what, "dst '" + op.dst + "'");
    shapes.emplace(op.dst, r.dstShape);
    ops.push_back(std::move(r));
  }
  return ops;
}

ShapeMap prologueShapes(const GpuPlan &plan, ShapeMap weightShapes,
                        const std::string &bundlePath) {
  checkWeightShapes(weightShapes, bundlePath);
  resolvePrologue(plan, weightShapes, bundlePath);
  return weightShapes;
}

PrologueSchedule
schedulePrologue(const GpuPlan &plan,
                 const std::map<std::string, AddressedTensor> &weights,
                 const std::map<std::string, uint64_t> &outputs,
                 const std::string &bundlePath) {
  PrologueSchedule schedule;
  std::map<std::string, StepAddress> where;
  for (const auto &[name, tensor] : weights) {
    schedule.shapes.emplace(name, tensor.shape);
    where[name] = StepAddress{false, tensor.address};
  }
  checkWeightShapes(schedule.shapes, bundlePath);
  for (const auto &[name, tensor] : weights) // an empty one needs none
    if (tensor.address == 0 && elementCount(tensor.shape) != 0)
      fail("{}: weight '{}' has a null device address", bundlePath,
           escapeForMessage(name));
  for (const auto &[name, address] : outputs)
    if (address == 0)
      fail("{}: output '{}' has a null device address", bundlePath,
           escapeForMessage(name));
  const std::vector<ResolvedPrologueOp> ops =
      resolvePrologue(plan, schedule.shapes, bundlePath);
  for (const auto &[name, address] : outputs)
    if (!schedule.shapes.count(name))
      fail("{}: output '{}': no weight or prologue table of that name",
           bundlePath, escapeForMessage(name));

  for (const ResolvedPrologueOp &r : ops) {
    const PrologueOp &op = *r.op;
    const StepAddress src = where.at(op.table);
    auto out = outputs.find(op.dst);
    if (r.kind == PrologueKind::Copy && out == outputs.end()) {
      where[op.dst] = src; // nothing moves until an output needs it
      continue;
    }
    StepAddress dst;
    if (out != outputs.end()) {
      dst = StepAddress{false, out->second};
    } else {
      dst = StepAddress{true, schedule.scratchBytes};
      const uint64_t bytes = static_cast<uint64_t>(r.dstElements) * 4;
      schedule.scratchBytes += (bytes + 255) / 256 * 256;
    }
    where[op.dst] = dst;
    if (r.dstElements == 0)
      continue; // nothing to compute (no launch of 0)
    PrologueStep step;
    step.tensor = op.dst;
    step.what = r.what;
    step.dst = dst;
    step.src = src;
    step.elements = r.dstElements;
    step.rows = r.rows;
    step.cols = r.cols;
    step.block = kBlock;
    switch (r.kind) {
    case PrologueKind::FoldColumns:
      step.kind = PrologueStep::Kind::FoldColumns;
      step.weight = where.at(op.weight);
      if (r.bias) {
        step.hasBias = true;
        step.bias = where.at(op.bias);
      }
      step.out = r.out;
      step.in = r.in;
      step.colBegin = r.colBegin;
      step.grid = gridFor(r.dstElements);
      break;
    case PrologueKind::Copy:
      step.kind = PrologueStep::Kind::Copy;
      step.block = 0;
      break;
    case PrologueKind::Transpose:
      step.kind = PrologueStep::Kind::Transpose;
      step.grid = gridFor(r.dstElements);
      break;
    case PrologueKind::Tf32Fragments:
    case PrologueKind::F16Fragments:
      step.kind = r.kind == PrologueKind::Tf32Fragments
                      ? PrologueStep::Kind::Tf32Fragments
                      : PrologueStep::Kind::F16Fragments;
      step.grid = gridFor(r.dstElements / 4); // a thread per fragment
      break;
    case PrologueKind::FoldAtomLayer:
      step.kind = PrologueStep::Kind::FoldAtomLayer;
      step.weight = where.at(op.weight);
      for (size_t a = 0; a < 4; ++a)
        step.args[a] = where.at(op.args[a]);
      step.relu = op.relu;
      step.out = r.out;
      step.in = r.in;
      step.consts = r.consts;
      step.vars = r.vars;
      step.argRows = r.argRows;
      // The tiled kernel: a pass of kAtomLayerRowsPerPass rows a block of
      // kAtomLayerThreads threads (prologue_ops.h).
      step.block = static_cast<uint32_t>(prologue::kAtomLayerThreads);
      step.grid = static_cast<uint32_t>(prologue::atomLayerGrid(r.dstShape[0]));
      break;
    }
    schedule.steps.push_back(std::move(step));
  }

  // Outputs not written in place: weights (or plain copies of them).
  for (const auto &[name, address] : outputs) {
    const StepAddress dst{false, address};
    const StepAddress src = where.at(name);
    if (src == dst)
      continue;
    const int64_t n = elementCount(schedule.shapes.at(name));
    if (n == 0)
      continue;
    PrologueStep step;
    step.kind = PrologueStep::Kind::Copy;
    step.tensor = name;
    step.what =
        fmt::format("{}: output '{}'", bundlePath, escapeForMessage(name));
    step.dst = dst;
    step.src = src;
    step.elements = n;
    schedule.steps.push_back(std::move(step));
  }
  return schedule;
}

} // namespace proofc
