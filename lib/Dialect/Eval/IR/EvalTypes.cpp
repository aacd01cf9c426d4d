//===- EvalTypes.cpp - Types of the eval dialect --------------------------===//
//
// !eval.slots<BxA> and !eval.derived<BxSxA> are written like tensor shapes,
// so they parse with the dimension-list parser. B may be `?`: the program's
// B, which eval-specialize-shapes writes in (EvalTypes.td).
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

/// Parses `<` d0 `x` d1 ... `>` with exactly `names.size()` sizes, the
/// first (B) static or `?`, the others static.
static ParseResult parseSizes(AsmParser &parser, StringRef typeName,
                              ArrayRef<StringRef> names,
                              SmallVectorImpl<int64_t> &sizes) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(sizes, /*allowDynamic=*/true,
                                /*withTrailingX=*/false) ||
      parser.parseGreater())
    return failure();
  if (sizes.size() != names.size())
    return parser.emitError(loc)
           << "'!eval." << typeName << "' expects " << names.size()
           << " sizes (" << llvm::join(names, "x") << "), got " << sizes.size();
  for (size_t i = 1; i < sizes.size(); ++i)
    if (ShapedType::isDynamic(sizes[i]))
      return parser.emitError(loc)
             << "'!eval." << typeName << "' size " << names[i]
             << " must be a number; only B may be '?'";
  return success();
}

/// Every size positive; the first (B) may be `?` (kDynamic).
static LogicalResult
verifyPositive(function_ref<InFlightDiagnostic()> emitError, StringRef typeName,
               ArrayRef<StringRef> names, ArrayRef<int64_t> sizes) {
  for (auto [i, name, size] : llvm::enumerate(names, sizes))
    if (size <= 0 &&
        !(i == 0 && names.size() > 1 && ShapedType::isDynamic(size)))
      return emitError() << "'!eval." << typeName << "' size " << name
                         << " must be positive, got " << size;
  return success();
}

/// B as written: `?` or the number.
static void printSlots(AsmPrinter &printer, int64_t B) {
  if (ShapedType::isDynamic(B))
    printer << '?';
  else
    printer << B;
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
  printer << '<';
  printSlots(printer, getSlots());
  printer << 'x' << getAtoms() << '>';
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
  printer << '<';
  printSlots(printer, getSlots());
  printer << 'x' << getStates() << 'x' << getAtoms() << '>';
}

LogicalResult DerivedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t slots, int64_t states,
                                  int64_t atoms) {
  return verifyPositive(emitError, "derived", {"B", "S", "A"},
                        {slots, states, atoms});
}
