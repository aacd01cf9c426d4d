//===- ValueBuffers.cpp - The buffers each eval value occupies ------------===//
//
// The component lists follow the kernels' signatures in docs/gpu-kernels.md;
// the knowledge base's and the pool's are the contract's tables
// (proofc/contract/BufferTables.h, with their run-time bindings).
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/ValueBuffers.h"
#include "proofc/contract/BundleNames.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::eval;

/// The components of the tables `tables` (BufferTables.h), in its order.
static SmallVector<BufferComponent>
tableComponents(ArrayRef<proofc::BufferTable> tables, MLIRContext *ctx) {
  SmallVector<BufferComponent> out;
  for (const proofc::BufferTable &t : tables) {
    BufferComponent c;
    c.role = std::string(t.buffer);
    c.dtype = t.dtype == proofc::DType::F32 ? Type(Float32Type::get(ctx))
                                            : IntegerType::get(ctx, 32);
    for (std::string_view factor : t.factors())
      c.elements.push_back(std::string(factor));
    c.init = std::string(t.binding);
    out.push_back(std::move(c));
  }
  return out;
}

FailureOr<SmallVector<BufferComponent>>
mlir::eval::getBufferComponents(Type type, StringRef tensorRole) {
  MLIRContext *ctx = type.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  using C = BufferComponent;
  if (isa<KnowledgeBaseType>(type))
    return tableComponents(proofc::kKbTables, ctx);
  if (isa<PoolType>(type))
    return tableComponents(proofc::kPoolTables, ctx);
  // B, S and A are the program's; the runtime binds the same values.
  if (isa<SlotsType>(type))
    return SmallVector<C>{{"state", i32, {"B", "A", "3"}, ""},
                          {"slot_cand", i32, {"B"}, ""},
                          {"depth", i32, {"B"}, ""},
                          {"logp", f32, {"B"}, ""}};
  if (isa<DerivedType>(type))
    return SmallVector<C>{{"derived", i32, {"B", "S", "A", "3"}, ""},
                          {"count", i32, {"B"}, ""}};
  if (type.isSignlessInteger(1))
    return SmallVector<C>{{"loop_flag", i32, {"1"}, ""}};
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    if (tensor.getRank() == 1 && (element == i32 || element == f32) &&
        !tensorRole.empty())
      return SmallVector<C>{{tensorRole.str(), element, {"B"}, ""}};
  }
  return failure();
}

/// The `eval.buffers` / `eval.arg_buffers` entry of `value`, or null.
static ArrayAttr getBufferList(Value value) {
  ArrayAttr lists;
  unsigned index;
  if (auto result = dyn_cast<OpResult>(value)) {
    lists = result.getOwner()->getAttrOfType<ArrayAttr>(kBuffersAttr);
    index = result.getResultNumber();
  } else {
    auto arg = cast<BlockArgument>(value);
    Operation *owner = arg.getOwner()->getParentOp();
    lists =
        owner ? owner->getAttrOfType<ArrayAttr>(kArgBuffersAttr) : ArrayAttr();
    index = arg.getArgNumber();
  }
  if (!lists || index >= lists.size())
    return {};
  return dyn_cast<ArrayAttr>(lists[index]);
}

FailureOr<SmallVector<BufferOp>> mlir::eval::getValueBuffers(Value value,
                                                             Operation *user) {
  ArrayAttr list = getBufferList(value);
  auto program = user->getParentOfType<ProgramOp>();
  if (!list || !program)
    return user->emitOpError()
           << "an operand has no buffers (run eval-plan-buffers first)";
  SmallVector<BufferOp> buffers;
  for (Attribute entry : list) {
    auto ref = dyn_cast<FlatSymbolRefAttr>(entry);
    auto buffer = ref ? dyn_cast_or_null<BufferOp>(
                            SymbolTable::lookupSymbolIn(program, ref.getAttr()))
                      : BufferOp();
    if (!buffer)
      return user->emitOpError()
             << "buffer " << entry << " of an operand is not an 'eval.buffer'";
    buffers.push_back(buffer);
  }
  return buffers;
}

FailureOr<BufferOp> mlir::eval::getWeightBuffer(ScoreSelectOp op,
                                                StringRef name) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kWeightBuffersAttr);
  auto ref = dict ? dyn_cast_or_null<FlatSymbolRefAttr>(dict.get(name))
                  : FlatSymbolRefAttr();
  auto program = op->getParentOfType<ProgramOp>();
  auto buffer = ref && program
                    ? dyn_cast_or_null<BufferOp>(
                          SymbolTable::lookupSymbolIn(program, ref.getAttr()))
                    : BufferOp();
  if (!buffer)
    return op.emitOpError() << "weight '" << name
                            << "' has no buffer (run eval-plan-buffers first)";
  return buffer;
}

std::string mlir::eval::sanitizeBufferName(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  return out;
}
