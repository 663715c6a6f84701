//===- RematAttrs.td - remat attributes --------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_ATTRS_TD
#define REMAT_ATTRS_TD

include "remat/Dialect/Remat/RematDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Remat_PolicyKeep : I32EnumAttrCase<"Keep", 0, "keep">;
def Remat_PolicyRecompute : I32EnumAttrCase<"Recompute", 1, "recompute">;
def Remat_Policy : I32EnumAttr<"Policy", "user hint for a forward value",
                               [Remat_PolicyKeep, Remat_PolicyRecompute]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::remat";
}

def Remat_PolicyAttr : EnumAttr<Remat_Dialect, Remat_Policy, "policy"> {
  let summary = "Keep or recompute the results of an op";
  let description = [{
    Attached to an op as `remat.policy`. `keep` pins the op's results in
    memory until their last backward use (ops with side effects or randomness
    are always kept); `recompute` asks the pass never to keep them across the
    forward/backward boundary. A budget that cannot be met with the hints is
    an error naming the hint.

    ```mlir
    %0 = linalg.matmul {remat.policy = #remat.policy<recompute>} ...
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Remat_CostAttr : AttrDef<Remat_Dialect, "Cost"> {
  let mnemonic = "cost";
  let summary = "Time and memory cost of one execution of an op";
  let description = [{
    `time` is in arbitrary but consistent units (the analytic model uses
    FLOPs, measured tables use microseconds); `bytes` is the size of all
    results; `workspace` the transient bytes the op needs while it runs. Every
    field is optional in the syntax and defaults to 0, keys in any order:

    ```mlir
    #remat.cost<time = 1.5e3, bytes = 4096, workspace = 512>
    ```
  }];
  let parameters = (ins APFloatParameter<"time">:$time, "int64_t":$bytes,
                        "int64_t":$workspace);
  let builders = [
    AttrBuilder<(ins "double":$time, "int64_t":$bytes,
                     CArg<"int64_t", "0">:$workspace), [{
      return $_get($_ctxt, ::llvm::APFloat(time), bytes, workspace);
    }]>
  ];
  let extraClassDeclaration = [{
    double getTimeValue() const { return getTime().convertToDouble(); }
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // REMAT_ATTRS_TD
