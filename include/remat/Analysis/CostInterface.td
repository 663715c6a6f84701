//===- CostInterface.td - Analytic cost of an op -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_ANALYSIS_COSTINTERFACE_TD
#define REMAT_ANALYSIS_COSTINTERFACE_TD

include "mlir/IR/OpBase.td"

def RematCostOpInterface : OpInterface<"RematCostOpInterface"> {
  let cppNamespace = "::remat";
  let description = [{
    The analytic cost of one execution of an op, used by the
    rematerialization planner when no `#remat.cost` attribute or measured
    cost table entry applies. Time is in FLOPs (an arithmetic operation on
    one element); the size of results comes from their types and is not part
    of the interface. Upstream ops get it through external models (linalg
    structured ops, tensor, arith and math ops).
  }];
  let methods = [
    InterfaceMethod<"Estimated time of one execution, in FLOPs.",
                    "double", "getRematTime">,
    InterfaceMethod<"Transient bytes the op needs while it runs.",
                    "int64_t", "getRematWorkspace", (ins), [{}],
                    [{ return 0; }]>,
  ];
}

#endif // REMAT_ANALYSIS_COSTINTERFACE_TD
