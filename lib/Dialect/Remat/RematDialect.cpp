//===- RematDialect.cpp - Dialect registration and attribute checks ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Dialect/Remat/Remat.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace remat;

#include "remat/Dialect/Remat/RematDialect.cpp.inc"
#include "remat/Dialect/Remat/RematEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/RematAttrs.cpp.inc"

void RematDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/Remat/RematOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "remat/Dialect/Remat/RematAttrs.cpp.inc"
      >();
}

LogicalResult RematDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == kPolicyAttrName) {
    if (!isa<PolicyAttr>(value))
      return op->emitError() << "'" << name
                             << "' must be #remat.policy<keep|recompute>";
    if (op->getNumResults() == 0)
      return op->emitError() << "'" << name
                             << "' on an op without results has no effect";
    return success();
  }
  if (name == kCostAttrName) {
    if (!isa<CostAttr>(value))
      return op->emitError() << "'" << name << "' must be a #remat.cost<...>";
    return success();
  }
  if (name == kStageAttrName) {
    auto stage = dyn_cast<IntegerAttr>(value);
    if (!stage || stage.getType().isIndex() == false &&
                      !stage.getType().isSignlessInteger())
      return op->emitError() << "'" << name << "' must be an integer";
    if (stage.getValue().isNegative())
      return op->emitError() << "'" << name << "' must be non-negative";
    return success();
  }
  // The marks -remat-prepare puts on one kind of op only.
  auto markOn = [&](StringRef opName, bool valueFits,
                    StringRef what) -> LogicalResult {
    if (op->getName().getStringRef() != opName || !valueFits)
      return op->emitError() << "'" << name << "' is " << what << " on a "
                             << opName;
    return success();
  };
  if (name == kInitAttrName)
    return markOn("tensor.empty", isa<IntegerAttr>(value), "an integer");
  if (name == kOwnNodeAttrName) {
    if (isa<UnitAttr>(value) &&
        op->getName().getDialectNamespace() == "linalg")
      return success(); // An accumulation's update in place (OpGroups.h).
    return markOn("tensor.insert_slice", isa<UnitAttr>(value),
                  "a unit attribute");
  }
  if (name == kHostAttrName)
    return markOn("memref.alloc", isa<UnitAttr>(value), "a unit attribute");
  if (name == kLossAttrName)
    return op->emitError() << "'" << name
                           << "' belongs on a function result, not on an op";
  return op->emitError() << "unknown remat attribute '" << name << "'";
}

LogicalResult RematDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned region,
                                                        unsigned result,
                                                        NamedAttribute attr) {
  if (attr.getName() != kLossAttrName)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is not a remat result attribute";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << kLossAttrName << "' takes no value";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'" << kLossAttrName
                           << "' marks a function result";
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (i != result && func.getResultAttr(i, kLossAttrName))
      return op->emitError() << "results #" << std::min(i, result) << " and #"
                             << std::max(i, result) << " are both marked '"
                             << kLossAttrName << "'";
  return success();
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned region,
                                                     unsigned arg,
                                                     NamedAttribute attr) {
  if (attr.getName() != kBoundsAttrName)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' on argument #" << arg
                           << " is not a remat argument attribute (remat."
                              "bounds is)";
  // remat.bounds = array<i64: ...>: an upper bound per dimension of a ranked
  // tensor (or, once bufferized, memref) argument, equal to the size where
  // that is static.
  auto bounds = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto type =
      dyn_cast<ShapedType>(op->getRegion(region).getArgument(arg).getType());
  if (!bounds || !type || !type.hasRank() || bounds.size() != type.getRank())
    return op->emitError() << "'" << kBoundsAttrName << "' on argument #"
                           << arg
                           << " must be an array<i64: ...> with one bound "
                              "per dimension of a ranked tensor";
  for (auto [dim, bound] : llvm::enumerate(bounds.asArrayRef())) {
    if (bound < 0)
      return op->emitError() << "'" << kBoundsAttrName << "' on argument #"
                             << arg << ": dimension " << dim << " bound "
                             << bound << " is negative";
    if (!type.isDynamicDim(dim) && type.getDimSize(dim) != bound)
      return op->emitError()
             << "'" << kBoundsAttrName << "' on argument #" << arg
             << ": dimension " << dim << " is static (" << type.getDimSize(dim)
             << ") and bounded by " << bound;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CostAttr
//===----------------------------------------------------------------------===//

LogicalResult CostAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               llvm::APFloat time, int64_t bytes,
                               int64_t workspace) {
  if (time.isNegative() || time.isNaN() || time.isInfinity())
    return emitError() << "cost time must be finite and non-negative, got "
                       << time.convertToDouble();
  if (bytes < 0)
    return emitError() << "cost bytes must be non-negative, got " << bytes;
  if (workspace < 0)
    return emitError() << "cost workspace must be non-negative, got "
                       << workspace;
  return success();
}

Attribute CostAttr::parse(AsmParser &parser, Type) {
  double time = 0;
  int64_t bytes = 0, workspace = 0;
  bool seen[3] = {false, false, false};
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    do {
      SMLoc loc = parser.getCurrentLocation();
      StringRef key;
      if (parser.parseKeyword(&key) || parser.parseEqual())
        return {};
      int index = key == "time" ? 0 : key == "bytes" ? 1
                                  : key == "workspace" ? 2 : -1;
      if (index < 0) {
        parser.emitError(loc) << "unknown cost field '" << key
                              << "'; expected time, bytes or workspace";
        return {};
      }
      if (seen[index]) {
        parser.emitError(loc) << "cost field '" << key << "' given twice";
        return {};
      }
      seen[index] = true;
      ParseResult r = index == 0   ? parser.parseFloat(time)
                      : index == 1 ? parser.parseInteger(bytes)
                                   : parser.parseInteger(workspace);
      if (failed(r))
        return {};
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), llvm::APFloat(time), bytes,
                    workspace);
}

void CostAttr::print(AsmPrinter &printer) const {
  printer << "<time = ";
  printer.printFloat(getTime());
  printer << ", bytes = " << getBytes() << ", workspace = " << getWorkspace()
          << ">";
}
