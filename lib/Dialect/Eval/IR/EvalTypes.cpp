//===- EvalTypes.cpp - Types of the eval dialect --------------------------===//
//
// !eval.slots<BxA> and !eval.derived<BxSxA> are written like tensor shapes,
// so they parse with the dimension-list parser (static sizes only).
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/EvalTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::eval;

#define GET_TYPEDEF_CLASSES
#include "proofc/Dialect/Eval/EvalOpsTypes.cpp.inc"

void EvalDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "proofc/Dialect/Eval/EvalOpsTypes.cpp.inc"
      >();
}

/// Parses `<` d0 `x` d1 ... `>` with exactly `names.size()` static sizes.
static ParseResult parseSizes(AsmParser &parser, StringRef typeName,
                              ArrayRef<StringRef> names,
                              SmallVectorImpl<int64_t> &sizes) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(sizes, /*allowDynamic=*/false,
                                /*withTrailingX=*/false) ||
      parser.parseGreater())
    return failure();
  if (sizes.size() == names.size())
    return success();
  return parser.emitError(loc)
         << "'!eval." << typeName << "' expects " << names.size() << " sizes ("
         << llvm::join(names, "x") << "), got " << sizes.size();
}

static LogicalResult
verifyPositive(function_ref<InFlightDiagnostic()> emitError, StringRef typeName,
               ArrayRef<StringRef> names, ArrayRef<int64_t> sizes) {
  for (auto [name, size] : llvm::zip_equal(names, sizes))
    if (size <= 0)
      return emitError() << "'!eval." << typeName << "' size " << name
                         << " must be positive, got " << size;
  return success();
}

LogicalResult StateType::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t atoms) {
  return verifyPositive(emitError, "state", {"A"}, {atoms});
}

Type SlotsType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 2> sizes;
  if (failed(parseSizes(parser, "slots", {"B", "A"}, sizes)))
    return {};
  return parser.getChecked<SlotsType>(loc, parser.getContext(), sizes[0],
                                      sizes[1]);
}

void SlotsType::print(AsmPrinter &printer) const {
  printer << '<' << getSlots() << 'x' << getAtoms() << '>';
}

LogicalResult SlotsType::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t slots, int64_t atoms) {
  return verifyPositive(emitError, "slots", {"B", "A"}, {slots, atoms});
}

Type DerivedType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 3> sizes;
  if (failed(parseSizes(parser, "derived", {"B", "S", "A"}, sizes)))
    return {};
  return parser.getChecked<DerivedType>(loc, parser.getContext(), sizes[0],
                                        sizes[1], sizes[2]);
}

void DerivedType::print(AsmPrinter &printer) const {
  printer << '<' << getSlots() << 'x' << getStates() << 'x' << getAtoms()
          << '>';
}

LogicalResult DerivedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t slots, int64_t states,
                                  int64_t atoms) {
  return verifyPositive(emitError, "derived", {"B", "S", "A"},
                        {slots, states, atoms});
}
