//===- OpGroups.h - Which ops form one planner node -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The planner's nodes follow what bufferization will allocate:
//  - a destination-passing op (linalg, tensor.insert_slice) writes into the
//    buffer of its destination operand; when that destination is produced by
//    a pure op used only there (tensor.empty, linalg.fill, linalg.broadcast,
//    ...), the producer is *absorbed* into the consumer's node: together
//    they make one buffer, the consumer's result;
//  - a value computed from parameters only (a transposed or flipped weight,
//    a tensor.empty used as a pooling window) and read by one op is a
//    buffer that lives while that op runs: absorbed as workspace;
//  - a computed value that a linalg op updates in place (`outs(%acc)`, a
//    gradient accumulated step by step) is a node of its own; the update's
//    result aliases it (updatedInPlace); so is one that slices are inserted
//    into one at a time, each slice computed after the insert before it (a
//    gradient stacked per layer; `-remat-prepare` pins it with
//    `remat.own_node`, since a plan may compute the slice earlier), while
//    slices inserted all at once (concatenation, padding) form one node
//    with their destination;
//  - constants (scalars, dense tensors: globals after bufferization) are
//    *free values*: no node, no bytes, always available; recomputations
//    clone them.
// `-remat-prepare` makes the IR match this model (one init chain per use,
// each chain right before its consumer).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_OPGROUPS_H
#define REMAT_ANALYSIS_OPGROUPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace remat {

/// Values an op reads: its operands and the values its regions capture.
llvm::SmallVector<mlir::Value> valuesRead(mlir::Operation *op);

/// Constants: values without inputs that cost no bytes at run time.
bool isConstantValue(mlir::Operation *op);

/// Values the planner treats as inputs (no node, no bytes): constants, and
/// pure scalar ops computed only from constants and function arguments
/// (sizes of dynamic arguments). Recomputations clone constants and take
/// the others as operands.
bool isFreeValue(mlir::Operation *op);

/// Operands an op writes its result into (DPS inits, insert_slice dest,
/// scf.for inits).
llvm::SmallVector<mlir::OpOperand *> destinationOperands(mlir::Operation *op);

/// The op whose node `op` belongs to, when `op` is absorbed (see above);
/// nullptr when `op` is a node of its own.
mlir::Operation *absorbingUser(mlir::Operation *op);

/// Whether `insert`, writing into the result of `previous`, inserts its
/// slice one at a time: the slice is computed after `previous`, or
/// -remat-prepare saw it so (`remat.own_node`). Then `insert` is an update
/// in place of its own, not part of `previous`'s node.
bool insertsOneAtATime(mlir::Operation *previous,
                       mlir::tensor::InsertSliceOp insert);

/// Whether `op` is a linalg op whose every destination is a buffer made
/// for it: a tensor.empty, or an initial value absorbed into its node (a
/// fill, a broadcast of a bias). An update in place of its result may form
/// one node with it (updatesOneAtATime).
bool writesIntoFreshBuffers(mlir::Operation *op);

/// Whether `update`, a linalg op writing into the result of `previous`,
/// reads a value computed after `previous` (an accumulation chain), or
/// -remat-prepare saw it so (`remat.own_node`). Then it is an update in
/// place of its own, not part of `previous`'s node.
bool updatesOneAtATime(mlir::Operation *previous, mlir::Operation *update);

/// Whether `op` computes from parameters only: a pure op whose inputs are
/// block arguments or free values and whose destinations are themselves
/// computed from parameters only (tensor.empty, fills, broadcasts and
/// transposes of parameters). Such values may be duplicated per use.
bool isParameterOnly(mlir::Operation *op);

/// Whether the order of the ops is the one that will run (the timeline of
/// the IR as it is) or one a planner may still change.
enum class OpOrder { MayChange, Final };

/// The destination operand `result` is written into in place (One-Shot
/// Bufferize reuses its buffer, so the result owns no bytes of its own):
/// a value computed by its own node in the same block and read nowhere else
/// (an accumulation `outs(%acc)`, a loop's init), or an enclosing loop's
/// iteration argument whose old value is not read after the write. With
/// the order final, a computed value may also have plain readers before
/// the writer (One-Shot Bufferize's rule: no read of the old value after
/// the write); a planner could move them after it, so it never assumes so.
/// nullptr otherwise.
mlir::OpOperand *updatedInPlace(mlir::OpResult result,
                                OpOrder order = OpOrder::MayChange);

/// The value whose buffer `v` was written into through a chain of
/// destinations (inserts, linalg inits, scf.if branches that all write into
/// it, loops updating their init in place); `v` itself when it owns one.
/// With `stop`, the first value on that chain (`v` included) for which it
/// holds, or the end of the chain.
mlir::Value inPlaceTarget(mlir::Value v,
                          llvm::function_ref<bool(mlir::Value)> stop = nullptr);

/// Whether every path of `v`'s chain of destinations (a destination-passing
/// op's init, an insert's destination, a loop's init; both branches of an
/// scf.if) reaches `buffer`; the destinations of the writes on it that are
/// not in place (updatedInPlace with the order final: One-Shot Bufferize
/// copies them first) go to `copied`. inPlaceTarget follows one such chain
/// without asking whether each write is in place.
bool destinationsReach(mlir::Value v, mlir::Value buffer,
                       llvm::SmallVectorImpl<mlir::OpOperand *> &copied);

/// The buffer every branch of an scf.if yields `r` in (a value from outside
/// the op, written in place), or null when `r` is a buffer of its own.
mlir::Value branchesWriteInto(mlir::OpResult r);

/// Whether `use` is a destination operand (the owner writes into it).
bool isDestinationUse(mlir::OpOperand &use);

/// A while whose condition passes its arguments on unchanged, in order:
/// argument k of either block, and result k, are iteration k's value of
/// init k, in one buffer (as an scf.for's iter_args are).
bool passesArgumentsOn(mlir::scf::WhileOp loop);

} // namespace remat

#endif // REMAT_ANALYSIS_OPGROUPS_H
