//===- PipelineTime.cpp - A pipelined step's critical path ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/PipelineTime.h"
#include "remat/Analysis/Collectives.h"
#include "remat/Analysis/DevicePeaks.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>
#include <map>

using namespace mlir;

namespace remat {

namespace {

/// Ops all devices together may run in a replay before it is given up (a
/// step with long loops is not what this is for; about a second).
constexpr int64_t kMaxOpsRun = 8'000'000;

/// The largest tensor of integers a replay follows element by element (the
/// positions a checkpointed scan carries, `tensor<Kxindex>`).
constexpr int64_t kMaxTrackedElements = 64;

/// One thing a device does, in program order. A message is a rendezvous,
/// as the runtime's are (a synchronous send, a shift's send-receive): the
/// send and its receive end together, their time after both have started.
struct Event {
  enum Kind { Compute, Message, Group } kind;
  double time = 0;
  /// Message: the device sent to and the one received from (-1: none; a
  /// shift does both at once). Group: `to` is the group's key.
  int64_t to = -1, from = -1;
  int64_t groupSize = 0; ///< Group: its devices.
};

bool communicates(Operation *op) {
  return isa<shard::SendOp, shard::RecvOp, shard::ShiftOp>(op);
}

/// Runs one device's copy of the step (DevicePeaks.h's onDevice, sizes at
/// their bounds) and lists what it does.
class DeviceRun {
public:
  DeviceRun(const CostModel &costs, Operation *scope, ArrayRef<int64_t> shape,
            int64_t device, int64_t &opsRun)
      : costs(costs), scope(scope), shape(shape), opsRun(opsRun) {
    coords.resize(shape.size());
    for (int64_t a = static_cast<int64_t>(shape.size()) - 1; a >= 0; --a) {
      coords[a] = device % shape[a];
      device /= shape[a];
    }
  }

  LogicalResult run(func::FuncOp func) { return runBlock(func.getBody().front()); }

  std::vector<Event> events;
  /// Why the run failed.
  std::string why;

private:
  LogicalResult fail(Operation *op, const llvm::Twine &what) {
    std::string where;
    llvm::raw_string_ostream os(where);
    op->getLoc().print(os);
    why = (what + " (" + op->getName().getStringRef() + " at " + where + ")").str();
    return failure();
  }

  std::optional<int64_t> integer(Value v) const {
    if (auto a = dyn_cast_or_null<IntegerAttr>(known.lookup(v)))
      return a.getValue().getSExtValue();
    if (auto a = dyn_cast_or_null<BoolAttr>(known.lookup(v)))
      return a.getValue();
    return getConstantIntValue(v);
  }

  void compute(double time) {
    if (!events.empty() && events.back().kind == Event::Compute)
      events.back().time += time;
    else
      events.push_back({Event::Compute, time});
  }

  /// The linear index of the device at `coords` with `axes` set to `at`.
  int64_t deviceAt(ArrayRef<int64_t> axes, ArrayRef<int64_t> at) const {
    SmallVector<int64_t> c(coords);
    for (auto [a, v] : llvm::zip(axes, at))
      c[a] = v;
    int64_t linear = 0;
    for (auto [a, v] : llvm::enumerate(c))
      linear = linear * shape[a] + v;
    return linear;
  }

  /// Binds `to` to what is known of `from` (scalars only matter).
  void bind(ValueRange to, ValueRange from) {
    for (auto [t, f] : llvm::zip(to, from)) {
      Attribute a = known.lookup(f);
      if (!a)
        if (std::optional<int64_t> c = getConstantIntValue(f))
          a = IntegerAttr::get(t.getType().isIntOrIndex() ? t.getType()
                                                          : f.getType(),
                               *c);
      if (a)
        known[t] = a;
      else
        known.erase(t);
    }
  }

  /// Runs `block` up to its terminator; `yielded` gets the terminator.
  LogicalResult runBlock(Block &block, Operation **yielded = nullptr) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        if (yielded)
          *yielded = &op;
        return success();
      }
      if (failed(runOp(&op)))
        return failure();
    }
    return success();
  }

  LogicalResult runRegion(Region &region, ValueRange results) {
    if (region.empty())
      return success();
    Operation *yield = nullptr;
    if (failed(runBlock(region.front(), &yield)))
      return failure();
    if (yield && yield->getNumOperands() == results.size())
      bind(results, yield->getOperands());
    return success();
  }

  LogicalResult runFor(scf::ForOp loop) {
    std::optional<int64_t> lb = integer(loop.getLowerBound()),
                           ub = integer(loop.getUpperBound()),
                           step = integer(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return fail(loop, "a loop's trip count is not decided by the device "
                        "index and the loop counters");
    Block &body = *loop.getBody();
    bind(loop.getRegionIterArgs(), loop.getInitArgs());
    for (int64_t i = *lb; i < *ub; i += *step) {
      known[loop.getInductionVar()] =
          IntegerAttr::get(loop.getInductionVar().getType(), i);
      Operation *yield = nullptr;
      if (failed(runBlock(body, &yield)))
        return failure();
      bind(loop.getRegionIterArgs(), yield->getOperands());
    }
    bind(loop.getResults(), loop.getRegionIterArgs());
    return success();
  }

  /// An scf.while (online checkpointing's): run while its condition, known
  /// from the device index and the counters, holds.
  LogicalResult runWhile(scf::WhileOp loop) {
    bind(loop.getBeforeArguments(), loop.getInits());
    while (true) {
      Operation *cond = nullptr;
      if (failed(runBlock(loop.getBefore().front(), &cond)))
        return failure();
      auto condition = cast<scf::ConditionOp>(cond);
      std::optional<int64_t> holds = integer(condition.getCondition());
      if (!holds)
        return fail(loop, "a loop's condition is not decided by the device "
                          "index and the loop counters");
      if (!*holds) {
        bind(loop.getResults(), condition.getArgs());
        return success();
      }
      bind(loop.getAfterArguments(), condition.getArgs());
      Operation *yield = nullptr;
      if (failed(runBlock(loop.getAfter().front(), &yield)))
        return failure();
      bind(loop.getBeforeArguments(), yield->getOperands());
    }
  }

  /// Small tensors of integers are followed element by element: a
  /// checkpointed scan keeps its positions in one (tensor.empty, insert,
  /// extract; extract folds).
  void track(Operation *op) {
    if (op->getNumResults() != 1)
      return;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrIndex() ||
        type.getNumElements() > kMaxTrackedElements)
      return;
    Value result = op->getResult(0);
    if (isa<tensor::EmptyOp>(op)) {
      // Its elements are undefined; zeros stand for them.
      known[result] = DenseElementsAttr::get(
          type, IntegerAttr::get(type.getElementType(), 0));
      return;
    }
    if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      auto dest = dyn_cast_or_null<DenseElementsAttr>(known.lookup(insert.getDest()));
      std::optional<int64_t> scalar = integer(insert.getScalar());
      SmallVector<int64_t> at;
      for (Value i : insert.getIndices())
        if (std::optional<int64_t> v = integer(i))
          at.push_back(*v);
      known.erase(result);
      if (!dest || !scalar || at.size() != insert.getIndices().size())
        return;
      int64_t linear = 0;
      for (auto [d, v] : llvm::zip(type.getShape(), at)) {
        if (v < 0 || v >= d)
          return;
        linear = linear * d + v;
      }
      SmallVector<APInt> values(dest.getValues<APInt>());
      values[linear] = APInt(values[linear].getBitWidth(), *scalar, true);
      known[result] = DenseElementsAttr::get(type, values);
      return;
    }
    fold(op);
  }

  LogicalResult runOp(Operation *op) {
    if (++opsRun > kMaxOpsRun)
      return fail(op, "more than " + llvm::Twine(kMaxOpsRun) + " ops run");
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runFor(loop);
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return runWhile(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      std::optional<int64_t> taken = integer(branch.getCondition());
      if (!taken)
        return fail(op, "a branch is not decided by the device index and "
                        "the loop counters");
      return runRegion(*taken ? branch.getThenRegion() : branch.getElseRegion(),
                       branch.getResults());
    }
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
      std::optional<int64_t> arg = integer(sw.getArg());
      if (!arg)
        return fail(op, "a switch is not decided by the device index and "
                        "the loop counters");
      for (auto [c, region] : llvm::zip(sw.getCases(), sw.getCaseRegions()))
        if (c == *arg)
          return runRegion(region, sw.getResults());
      return runRegion(sw.getDefaultRegion(), sw.getResults());
    }
    if (isa<scf::ExecuteRegionOp, RecomputeOp>(op))
      return runRegion(op->getRegion(0), op->getResults());
    if (auto send = dyn_cast<shard::SendOp>(op))
      return message(op, /*isSend=*/true, send.getDestination(),
                     send.getDestinationDynamic());
    if (auto recv = dyn_cast<shard::RecvOp>(op)) {
      if (!recv.getSource())
        return fail(op, "a receive without a source");
      return message(op, /*isSend=*/false, *recv.getSource(),
                     recv.getSourceDynamic());
    }
    if (isa<shard::ShiftOp>(op))
      return shift(op);
    if (std::optional<CollectiveInfo> c = collectiveInfo(op, scope))
      return group(op, *c);
    // Any other op is one cost (a loop without messages as the cost model
    // prices it); one that holds messages cannot be.
    bool nested = false;
    op->walk([&](Operation *inner) {
      nested |= inner != op && (communicates(inner) ||
                                collectiveInfo(inner, scope).has_value());
    });
    if (nested)
      return fail(op, "messages inside an op that is not replayed");
    // Scalars: known where their operands are (the schedule's arithmetic).
    if (llvm::none_of(op->getResultTypes(), llvm::IsaPred<ShapedType>)) {
      if (op->getNumRegions() == 0)
        fold(op);
      return success();
    }
    if (op->getNumRegions() == 0)
      track(op);
    FailureOr<OpCost> cost = costs.cost(op, scope);
    if (failed(cost))
      return fail(op, "an op without a cost");
    compute(cost->time);
    return success();
  }

  void fold(Operation *op) {
    SmallVector<Attribute> operands;
    for (Value v : op->getOperands()) {
      Attribute a = known.lookup(v);
      if (!a)
        matchPattern(v, m_Constant(&a));
      operands.push_back(a);
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) ||
        results.size() != op->getNumResults())
      return;
    for (auto [r, f] : llvm::zip(op->getResults(), results)) {
      Attribute a = dyn_cast<Attribute>(f);
      if (!a)
        a = known.lookup(cast<Value>(f));
      if (a)
        known[r] = a;
    }
  }

  LogicalResult message(Operation *op, bool isSend,
                        ArrayRef<int64_t> staticPeer, ValueRange dynamicPeer) {
    auto axesAttr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
    if (!axesAttr || axesAttr.size() != static_cast<int64_t>(staticPeer.size()))
      return fail(op, "its partner is not one index per grid axis");
    SmallVector<int64_t> axes(axesAttr.asArrayRef()), at;
    unsigned next = 0;
    for (int64_t p : staticPeer) {
      if (!ShapedType::isDynamic(p)) {
        at.push_back(p);
        continue;
      }
      if (next >= dynamicPeer.size())
        return fail(op, "its partner is not one index per grid axis");
      std::optional<int64_t> v = integer(dynamicPeer[next++]);
      if (!v)
        return fail(op, "its partner is not decided by the device index and "
                        "the loop counters");
      at.push_back(*v);
    }
    for (auto [a, v] : llvm::zip(axes, at))
      if (a < 0 || a >= static_cast<int64_t>(shape.size()) || v < 0 ||
          v >= shape[a])
        return fail(op, "its partner is not a device of the grid");
    FailureOr<OpCost> cost = costs.cost(op, scope);
    if (failed(cost))
      return fail(op, "an op without a cost");
    int64_t peer = deviceAt(axes, at);
    events.push_back({Event::Message, cost->time, isSend ? peer : -1,
                      isSend ? -1 : peer});
    return success();
  }

  LogicalResult shift(Operation *op) {
    std::optional<CollectiveInfo> c = collectiveInfo(op, scope);
    FailureOr<OpCost> cost = costs.cost(op, scope);
    if (!c || failed(cost))
      return fail(op, "a shift without a cost");
    int64_t n = shape[c->axis], here = coords[c->axis];
    auto along = [&](int64_t to) -> std::optional<int64_t> {
      if (c->rotate)
        return ((to % n) + n) % n;
      if (to < 0 || to >= n)
        return std::nullopt;
      return to;
    };
    std::optional<int64_t> to = along(here + c->offset),
                           from = along(here - c->offset);
    Event e{Event::Message, cost->time};
    if (to && *to != here)
      e.to = deviceAt({c->axis}, {*to});
    if (from && *from != here)
      e.from = deviceAt({c->axis}, {*from});
    if (e.to >= 0 || e.from >= 0)
      events.push_back(e);
    return success();
  }

  LogicalResult group(Operation *op, const CollectiveInfo &c) {
    FailureOr<OpCost> cost = costs.cost(op, scope);
    if (failed(cost))
      return fail(op, "a collective without a cost");
    // The group: the devices that agree with this one off its axes.
    SmallVector<int64_t> zeros(c.gridAxes.size(), 0);
    events.push_back({Event::Group, cost->time, deviceAt(c.gridAxes, zeros),
                      -1, c.groupSize});
    return success();
  }

  const CostModel &costs;
  Operation *scope;
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> coords;
  DenseMap<Value, Attribute> known;
  int64_t &opsRun; ///< By every device's run so far.
};

/// The replay of every device's events together: where each device is in
/// its events, and what its messages and collectives have met so far.
struct Replay {
  /// Per (from, to): when each message's send and its receive started.
  struct Channel {
    std::vector<double> sends, receives;
  };

  explicit Replay(const std::vector<std::vector<Event>> &devices)
      : devices(devices), n(devices.size()), next(n, 0), groupsMet(n),
        started(n, false), sendIndex(n), receiveIndex(n) {
    out.finish.assign(n, 0);
    out.busy.assign(n, 0);
  }

  Channel &channel(int64_t from, int64_t to) { return channels[{from, to}]; }

  /// Starts device d's message at `clock` (once) and moves the clock to when
  /// both ends have started; false while an end has not.
  bool message(size_t d, const Event &e, double &clock) {
    const int64_t self = static_cast<int64_t>(d);
    if (!started[d]) {
      if (e.to >= 0) {
        sendIndex[d] = channel(self, e.to).sends.size();
        channel(self, e.to).sends.push_back(clock);
      }
      if (e.from >= 0) {
        receiveIndex[d] = channel(e.from, self).receives.size();
        channel(e.from, self).receives.push_back(clock);
      }
      started[d] = true;
    }
    double begin = clock;
    if (e.to >= 0) {
      Channel &c = channel(self, e.to);
      if (c.receives.size() <= sendIndex[d])
        return false;
      begin = std::max(begin, c.receives[sendIndex[d]]);
    }
    if (e.from >= 0) {
      Channel &c = channel(e.from, self);
      if (c.sends.size() <= receiveIndex[d])
        return false;
      begin = std::max(begin, c.sends[receiveIndex[d]]);
    }
    clock = begin;
    return true;
  }

  /// Device d arrives at its collective at `clock` (once) and the clock
  /// moves to the last arrival; false while the group is not all there.
  bool meet(size_t d, const Event &e, double &clock) {
    auto key = std::make_pair(e.to, groupsMet[d][e.to]);
    std::vector<double> &times = meetings[key];
    if (!started[d]) {
      times.push_back(clock);
      started[d] = true;
    }
    if (static_cast<int64_t>(times.size()) < e.groupSize)
      return false;
    clock = *llvm::max_element(times);
    ++groupsMet[d][e.to];
    return true;
  }

  /// Runs device d's events until one waits; whether any ran.
  bool advance(size_t d) {
    bool progress = false;
    double &clock = out.finish[d];
    while (next[d] < devices[d].size()) {
      const Event &e = devices[d][next[d]];
      if (e.kind == Event::Message) {
        if (!message(d, e, clock))
          break;
      } else if (e.kind == Event::Group) {
        if (!meet(d, e, clock))
          break;
      }
      started[d] = false;
      clock += e.time;
      out.busy[d] += e.time;
      ++next[d];
      progress = true;
    }
    return progress;
  }

  /// Every device that waits forever, and for what.
  SmallVector<std::string> stuck() {
    SmallVector<std::string> out;
    for (size_t d = 0; d < n; ++d) {
      if (next[d] == devices[d].size())
        continue;
      const Event &e = devices[d][next[d]];
      const int64_t self = static_cast<int64_t>(d);
      if (e.kind == Event::Group)
        out.push_back(llvm::formatv("device {0} waits in a collective that "
                                    "not every device of its group runs",
                                    d));
      else if (e.to >= 0 &&
               channel(self, e.to).receives.size() <= sendIndex[d])
        out.push_back(llvm::formatv("device {0} sends device {1} a message "
                                    "it never receives",
                                    d, e.to));
      else
        out.push_back(llvm::formatv("device {0} waits for a message from "
                                    "device {1} that is never sent",
                                    d, e.from));
    }
    return out;
  }

  const std::vector<std::vector<Event>> &devices;
  size_t n;
  PipelineTime out;
  std::vector<size_t> next;
  std::map<std::pair<int64_t, int64_t>, Channel> channels;
  /// Per (group, how many of its collectives before): arrival times.
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> meetings;
  std::vector<std::map<int64_t, int64_t>> groupsMet;
  /// The current event's place in its channels or meeting, once started.
  std::vector<bool> started;
  std::vector<size_t> sendIndex, receiveIndex;
};

/// Replays every device's events together; std::nullopt when some wait
/// forever, with `why` saying which.
std::optional<PipelineTime>
replay(const std::vector<std::vector<Event>> &devices, std::string &why) {
  Replay r(devices);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t d = 0; d < r.n; ++d)
      progress |= r.advance(d);
  }
  // Every device that waits forever, and for what (the first few).
  SmallVector<std::string> stuck = r.stuck();
  if (!stuck.empty()) {
    constexpr size_t kSaid = 4;
    why = llvm::join(ArrayRef<std::string>(stuck).take_front(kSaid), "; ");
    if (stuck.size() > kSaid)
      why += llvm::formatv(" (and {0} more devices)", stuck.size() - kSaid);
    return std::nullopt;
  }
  r.out.criticalPath = *llvm::max_element(r.out.finish);
  return std::move(r.out);
}

} // namespace

std::optional<PipelineTime> pipelineTime(func::FuncOp func,
                                         const CostModel &costs,
                                         Operation *symbolScope,
                                         std::string *whyNot,
                                         bool *hangs) {
  std::string ignored;
  std::string &why = whyNot ? *whyNot : ignored;
  why.clear();
  if (hangs)
    *hangs = false;
  if (!symbolScope)
    symbolScope = func->getParentOp();
  bool pipelined = false;
  func.walk([&](Operation *op) { pipelined |= communicates(op); });
  if (!pipelined)
    return std::nullopt;
  SmallVector<Operation *> indexes;
  shard::GridOp grid = indexedGrid(func, symbolScope, indexes);
  if (!grid) {
    why = "it does not read the device index of one grid";
    return std::nullopt;
  }
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t devices = 1;
  for (int64_t d : shape) {
    if (d <= 0 || devices * d > kMaxDevicePeaks) {
      why = llvm::formatv("its grid has more than {0} devices",
                          kMaxDevicePeaks)
                .str();
      return std::nullopt;
    }
    devices *= d;
  }
  // A copy that cannot be replayed is no answer, not the user's error.
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  std::vector<std::vector<Event>> events;
  int64_t opsRun = 0;
  for (int64_t device = 0; device < devices; ++device) {
    OwningOpRef<func::FuncOp> copy = onDevice(func, shape, device);
    FailureOr<BoundedCopy> bounded;
    func::FuncOp sized = *copy;
    if (hasDynamicShapes(sized)) {
      bounded = boundedCopy(sized, symbolScope);
      if (failed(bounded)) {
        why = "a size has no bound";
        return std::nullopt;
      }
      sized = *bounded->copy;
    }
    DeviceRun run(costs, symbolScope, shape, device, opsRun);
    if (failed(run.run(sized))) {
      why = llvm::formatv("on device {0}: {1}", device, run.why).str();
      return std::nullopt;
    }
    events.push_back(std::move(run.events));
  }
  std::optional<PipelineTime> time = replay(events, why);
  if (!time && hangs)
    *hangs = true;
  return time;
}

} // namespace remat
