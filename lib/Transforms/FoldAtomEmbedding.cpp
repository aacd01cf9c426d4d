//===- FoldAtomEmbedding.cpp - eval-fold-atom-embedding -------------------===//
//
// atom(p, a, b) = W · [pred[p]; term(a); term(b)] + bias splits by W's column
// blocks into (bias + W0·pred[p]) + W1·term(a) + W2·term(b): three lookups
// into tables projected once when the weights load. Constants and variables
// get separate argument tables; TRUE/FALSE atoms have zero argument terms,
// so they add no argument rows (eval.folded_atom_embed says so).
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

namespace mlir::eval {
#define GEN_PASS_DEF_EVALFOLDATOMEMBEDDINGPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

/// The five tables of one atom embedding, named after its weight.
struct FoldedNames {
  std::string predProj, arg0Const, arg1Const, arg0Var, arg1Var;
};

FoldedNames foldedNames(StringRef weight) {
  std::string prefix = weight.str();
  if (StringRef(prefix).ends_with(".weight"))
    prefix.resize(prefix.size() - strlen(".weight"));
  return {prefix + ".pred_proj", prefix + ".arg0_const", prefix + ".arg1_const",
          prefix + ".arg0_var", prefix + ".arg1_var"};
}

/// The weight names the program's ops read (other than the folded tables).
llvm::StringSet<> usedWeightNames(ProgramOp program) {
  llvm::StringSet<> names;
  program.walk([&](Operation *op) {
    if (auto embed = dyn_cast<AtomEmbedOp>(op)) {
      for (StringRef name :
           {embed.getPreds(), embed.getConsts(), embed.getVars(),
            embed.getWeight(), embed.getBias()})
        names.insert(name);
    } else if (auto linear = dyn_cast<LinearOp>(op)) {
      names.insert(linear.getWeight());
      names.insert(linear.getBias());
    } else if (auto norm = dyn_cast<LayerNormOp>(op)) {
      names.insert(norm.getWeight());
      names.insert(norm.getBias());
    }
  });
  return names;
}

struct EvalFoldAtomEmbeddingPass
    : public eval::impl::EvalFoldAtomEmbeddingPassBase<
          EvalFoldAtomEmbeddingPass> {
  void runOnOperation() override {
    ProgramOp program = getOperation();
    llvm::StringSet<> weights = usedWeightNames(program);
    SmallVector<AtomEmbedOp> embeds;
    program.walk([&](AtomEmbedOp op) { embeds.push_back(op); });

    Block &body = program.getBody().front();
    OpBuilder prologue = OpBuilder::atBlockBegin(&body);
    for (AtomEmbedOp embed : embeds) {
      FoldedNames names = foldedNames(embed.getWeight());
      int64_t e = embed.getEmbeddingWidth();
      int64_t width = embed.getType().getDimSize(1);
      int64_t varRows = 2 * embed.getState().getType().getAtoms();
      struct Fold {
        const std::string &dst;
        StringRef table;
        int64_t colBegin;
        StringRef bias;
        std::string rows;
      } folds[] = {
          {names.predProj, embed.getPreds(), 0, embed.getBias(), "R2"},
          {names.arg0Const, embed.getConsts(), e, "", "E"},
          {names.arg1Const, embed.getConsts(), 2 * e, "", "E"},
          {names.arg0Var, embed.getVars(), e, "", std::to_string(varRows)},
          {names.arg1Var, embed.getVars(), 2 * e, "", std::to_string(varRows)},
      };
      for (const Fold &fold : folds) {
        if (weights.contains(fold.dst)) {
          embed.emitOpError() << "cannot fold: the folded table '" << fold.dst
                              << "' would shadow a weight the program reads";
          return signalPassFailure();
        }
        // Two embeddings with the same weights share their tables.
        FoldColumnsOp existing;
        for (auto op : body.getOps<FoldColumnsOp>())
          if (op.getDst() == fold.dst)
            existing = op;
        if (existing) {
          if (existing.getTable() != fold.table ||
              existing.getWeight() != embed.getWeight() ||
              existing.getBias() != fold.bias ||
              existing.getColBeginAttr().getInt() != fold.colBegin ||
              existing.getColsAttr().getInt() != e ||
              existing.getWidthAttr().getInt() != width) {
            embed.emitOpError() << "cannot fold: table '" << fold.dst
                                << "' is already folded from other inputs";
            return signalPassFailure();
          }
          continue;
        }
        FoldColumnsOp::create(prologue, embed.getLoc(), fold.dst, fold.table,
                              embed.getWeight(), fold.bias, fold.colBegin, e,
                              width, fold.rows);
      }

      OpBuilder builder(embed);
      auto folded = FoldedAtomEmbedOp::create(
          builder, embed.getLoc(), embed.getType(), embed.getState(),
          names.predProj, names.arg0Const, names.arg1Const, names.arg0Var,
          names.arg1Var);
      embed.replaceAllUsesWith(folded.getResult());
      embed.erase();
    }
  }
};

} // namespace
