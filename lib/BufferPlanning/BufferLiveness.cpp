//===- BufferLiveness.cpp - Lifetimes and escapes of buffers --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/BufferPlanning/BufferLiveness.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace remat;

StringRef remat::describe(Escape escape) {
  switch (escape) {
  case Escape::None:
    return "does not escape";
  case Escape::Returned:
    return "returned";
  case Escape::Yielded:
    return "yielded out of its block";
  case Escape::Stored:
    return "stored into memory";
  case Escape::Captured:
    return "captured by an op or callee that may keep it";
  case Escape::UsedOutsideBlock:
    return "used outside its block";
  case Escape::Freed:
    return "already freed by the IR";
  }
  llvm_unreachable("unknown escape");
}

//===----------------------------------------------------------------------===//
// Aliases
//===----------------------------------------------------------------------===//

BufferAliases::BufferAliases(FunctionOpInterface func, CallSummaries &calls)
    : flow(func), calls(calls) {}

SmallVector<Value> BufferAliases::resolve(Value root) const {
  // The view-flow analysis assumes every result of a call may alias every
  // memref operand; drop the edges a callee summary rules out.
  auto follows = [&](Value from, Value to) {
    auto result = dyn_cast<OpResult>(to);
    auto call = result ? dyn_cast<CallOpInterface>(result.getOwner())
                       : CallOpInterface();
    if (!call)
      return true;
    const CallSummary *summary = calls.lookup(call);
    if (!summary)
      return true;
    for (auto [i, arg] : llvm::enumerate(call.getArgOperands()))
      if (arg == from && i < summary->argReturnedAt.size() &&
          llvm::is_contained(summary->argReturnedAt[i],
                             result.getResultNumber()))
        return true;
    return false;
  };

  SmallVector<Value> result;
  llvm::SmallPtrSet<Value, 16> seen;
  SmallVector<Value> worklist = {root};
  seen.insert(root);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    result.push_back(v);
    auto it = flow.find(v);
    if (it == flow.end())
      continue;
    for (Value dep : it->second)
      if (follows(v, dep) && seen.insert(dep).second)
        worklist.push_back(dep);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Liveness of one buffer
//===----------------------------------------------------------------------===//

/// How `user` treats the alias `v` it uses, when it makes the buffer escape.
static Escape classifyUse(Operation *user, Value v, bool inDefiningBlock,
                          CallSummaries &calls) {
  if (hasEffect<MemoryEffects::Free>(user, v))
    return Escape::Freed;
  if (inDefiningBlock && user->hasTrait<OpTrait::IsTerminator>()) {
    if (user->hasTrait<OpTrait::ReturnLike>() &&
        isa<FunctionOpInterface>(user->getParentOp()))
      return Escape::Returned;
    return Escape::Yielded;
  }
  if (auto store = dyn_cast<memref::StoreOp>(user))
    return store.getValueToStore() == v ? Escape::Stored : Escape::None;
  if (auto call = dyn_cast<CallOpInterface>(user)) {
    if (const CallSummary *summary = calls.lookup(call)) {
      for (auto [i, arg] : llvm::enumerate(call.getArgOperands()))
        if (arg == v &&
            (i >= summary->argCaptured.size() || summary->argCaptured[i]))
          return Escape::Captured;
      return Escape::None;
    }
    return calls.callsDeclaration(call) ? Escape::None : Escape::Captured;
  }
  // The buffer leaves the memref world: tensors or raw pointers.
  if (isa<bufferization::ToTensorOp, memref::ExtractAlignedPointerAsIndexOp>(
          user) ||
      user->getName().getDialectNamespace() == "llvm")
    return Escape::Captured;
  return Escape::None;
}

BufferInfo remat::analyzeBuffer(Value root, const BufferAliases &aliases,
                                CallSummaries &calls) {
  BufferInfo info;
  info.root = root;
  info.block = root.getParentBlock();
  info.aliases = aliases.resolve(root);

  auto noteEscape = [&](Escape e, Operation *op) {
    if (e == Escape::None)
      return;
    if (e == Escape::Returned)
      info.returned = true;
    // Any other reason outranks "returned": the caller's ownership alone
    // would not account for it.
    if (info.escape == Escape::None ||
        (info.escape == Escape::Returned && e != Escape::Returned)) {
      info.escape = e;
      info.escapeOp = op;
    }
  };

  for (Value v : info.aliases)
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      Operation *ancestor = info.block->findAncestorOpInBlock(*user);
      if (!ancestor) {
        noteEscape(Escape::UsedOutsideBlock, user);
        continue;
      }
      if (!info.firstUse || ancestor->isBeforeInBlock(info.firstUse))
        info.firstUse = ancestor;
      if (!info.lastUse || info.lastUse->isBeforeInBlock(ancestor))
        info.lastUse = ancestor;
      noteEscape(classifyUse(user, v, user == ancestor, calls), user);
    }
  return info;
}

//===----------------------------------------------------------------------===//
// Call summaries
//===----------------------------------------------------------------------===//

CallSummaries::CallSummaries() = default;
CallSummaries::~CallSummaries() = default;

FunctionOpInterface CallSummaries::resolve(CallOpInterface call) {
  return dyn_cast_or_null<FunctionOpInterface>(
      call.resolveCallableInTable(&symbols));
}

bool CallSummaries::callsDeclaration(CallOpInterface call) {
  FunctionOpInterface callee = resolve(call);
  return callee && callee.isExternal();
}

const BufferAliases &CallSummaries::aliases(FunctionOpInterface func) {
  std::unique_ptr<BufferAliases> &slot = analyses[func];
  if (!slot)
    slot = std::make_unique<BufferAliases>(func, *this);
  return *slot;
}

/// The return ops of `func`.
static SmallVector<Operation *> returnOps(FunctionOpInterface func) {
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  return returns;
}

const CallSummary *CallSummaries::lookup(CallOpInterface call) {
  FunctionOpInterface callee = resolve(call);
  if (!callee || callee.isExternal())
    return nullptr;
  auto it = summaries.find(callee);
  if (it != summaries.end())
    return it->second.get();
  if (!inProgress.insert(callee).second)
    return nullptr; // Recursion: the caller assumes the worst.

  auto summary = std::make_unique<CallSummary>();
  const BufferAliases &funcAliases = aliases(callee);
  SmallVector<Operation *> returns = returnOps(callee);
  unsigned numResults = callee.getNumResults();

  Block &entry = callee.getFunctionBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    summary->argReturnedAt.emplace_back();
    if (!isa<BaseMemRefType>(arg.getType())) {
      summary->argCaptured.push_back(false);
      continue;
    }
    BufferInfo info = analyzeBuffer(arg, funcAliases, *this);
    // Freeing an argument is as bad for the caller as keeping it.
    summary->argCaptured.push_back(info.escapes() &&
                                   info.escape != Escape::Returned);
    llvm::SmallPtrSet<Value, 16> aliasSet(info.aliases.begin(),
                                          info.aliases.end());
    for (unsigned r = 0; r < numResults; ++r)
      if (llvm::any_of(returns, [&](Operation *ret) {
            return r < ret->getNumOperands() &&
                   aliasSet.contains(ret->getOperand(r));
          }))
        summary->argReturnedAt.back().push_back(r);
  }

  for (unsigned r = 0; r < numResults; ++r) {
    bool fresh = !returns.empty();
    for (Operation *ret : returns) {
      Value v = r < ret->getNumOperands() ? ret->getOperand(r) : Value();
      auto alloc = v ? v.getDefiningOp<memref::AllocOp>() : nullptr;
      if (!alloc) {
        fresh = false;
        break;
      }
      BufferInfo info = analyzeBuffer(v, funcAliases, *this);
      if (info.escape != Escape::Returned) {
        fresh = false;
        break;
      }
      // Returned once: no other result may alias it.
      llvm::SmallPtrSet<Value, 16> aliasSet(info.aliases.begin(),
                                            info.aliases.end());
      for (Operation *other : returns)
        for (auto [k, operand] : llvm::enumerate(other->getOperands()))
          if (k != r && aliasSet.contains(operand))
            fresh = false;
    }
    summary->resultFresh.push_back(fresh);
  }

  inProgress.erase(callee);
  const CallSummary *result = summary.get();
  summaries[callee] = std::move(summary);
  return result;
}
