//===- OffloadSimulatorTest.cpp - Offload and Prefetch in the Simulator ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every expected number is worked out by hand in the comments from the time
// model of Simulator.h.

#include "remat/Solver/Core/Simulator.h"

#include "GradientFirst.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

// x -> f1 -> a (100 B) -> f2 -> b -> f3 -> c -> f4 (long) -> e; bw reads a
// and e. a is the tensor worth moving: read at the start and at the end.
struct LongMiddle {
  TrainingGraph g;
  TensorId x, a, b, c, e, d;
  NodeId f1, f2, f3, f4, bw;
  LongMiddle() {
    x = g.addInput("x", 0);
    f1 = g.addNode("f1", NodeKind::Forward, 10, {x}, {100});
    a = g.node(f1).outputs[0];
    f2 = g.addNode("f2", NodeKind::Forward, 10, {a}, {10});
    b = g.node(f2).outputs[0];
    f3 = g.addNode("f3", NodeKind::Forward, 10, {b}, {10});
    c = g.node(f3).outputs[0];
    f4 = g.addNode("f4", NodeKind::Forward, 100, {c}, {10});
    e = g.node(f4).outputs[0];
    bw = g.addNode("bw", NodeKind::Backward, 10, {a, e}, {1});
    d = g.node(bw).outputs[0];
    g.markRequired(d);
  }
};

/// 10 bytes per time unit each way, no latency: a's copies take 10 each.
SimulatorOptions link10() {
  SimulatorOptions o;
  o.link.toHostBytesPerTime = 10;
  o.link.toDeviceBytesPerTime = 10;
  o.link.latency = 0;
  o.recordTimeline = true;
  return o;
}

// f1, f2, offload a, f3, free b, f4, free c, prefetch a, bw.
Schedule lateprefetch(const LongMiddle &m) {
  Schedule s;
  s.run(m.f1);
  s.run(m.f2);
  s.offload(m.a);
  s.run(m.f3);
  s.free(m.b);
  s.run(m.f4);
  s.free(m.c);
  s.prefetch(m.a);
  s.run(m.bw);
  return s;
}

// The same with the prefetch issued before f4, whose 100 units hide it.
Schedule earlyPrefetch(const LongMiddle &m) {
  Schedule s;
  s.run(m.f1);
  s.run(m.f2);
  s.offload(m.a);
  s.run(m.f3);
  s.free(m.b);
  s.prefetch(m.a);
  s.run(m.f4);
  s.free(m.c);
  s.run(m.bw);
  return s;
}

TEST(OffloadSimulator, KeepEverythingIsUnchanged) {
  LongMiddle m;
  SimulationResult r = simulate(m.g, keepEverythingSchedule(m.g), link10());
  ASSERT_TRUE(r.valid) << r.error;
  // During f3 and f4: a + two 10 B values.
  EXPECT_EQ(r.peak, 120);
  EXPECT_DOUBLE_EQ(r.time, 140);
  EXPECT_EQ(r.hostPeak, 0);
  EXPECT_TRUE(r.hostCopies.empty());
}

TEST(OffloadSimulator, DeviceBytesAreReleasedWhenTheOffloadEnds) {
  LongMiddle m;
  SimulationResult r = simulate(m.g, lateprefetch(m), link10());
  ASSERT_TRUE(r.valid) << r.error;
  // The offload runs 20..30. f3 starts at 20, before it ends: a still
  // counts (100 + b + c). f4 starts at 30: a is gone (c + e).
  ASSERT_EQ(r.usageDuringStep.size(), 9u);
  EXPECT_EQ(r.usageDuringStep[3], 120); // f3
  EXPECT_EQ(r.usageDuringStep[5], 20);  // f4
  EXPECT_EQ(r.peak, 120);
  EXPECT_EQ(r.peakStep, 3);
  EXPECT_EQ(r.hostPeak, 100);
}

TEST(OffloadSimulator, InOrderCopiesFreeBeforeTheNextRun) {
  // CopyLink::inOrder(): copies take no time, as the MLIR lowering runs
  // them (in order with the computations). The offload after f2 has ended
  // when f3 starts: f3 holds b + c only, f4 c + e; the prefetch holds a
  // from its issue, during bw (a + e + d = 111, the peak; f2 holds 110).
  LongMiddle m;
  SimulatorOptions o;
  o.link = CopyLink::inOrder();
  o.recordTimeline = true;
  SimulationResult r = simulate(m.g, lateprefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  ASSERT_EQ(r.usageDuringStep.size(), 9u);
  EXPECT_EQ(r.usageDuringStep[3], 20);  // f3
  EXPECT_EQ(r.usageDuringStep[5], 20);  // f4
  EXPECT_EQ(r.usageDuringStep[8], 111); // bw
  EXPECT_EQ(r.peak, 111);
  EXPECT_EQ(r.hostPeak, 100);
  EXPECT_DOUBLE_EQ(r.time, 140); // The runs alone: nothing waits.
  EXPECT_DOUBLE_EQ(r.stall, 0);
  // The overlapped link (10 B per unit) holds a during f3: never lower.
  EXPECT_GE(simulate(m.g, lateprefetch(m), link10()).peak, r.peak);
}

TEST(OffloadSimulator, BlockingOffloadsMakeTheNextRunWait) {
  // CopyLink::offloadsBlock, as -remat-lower-to-gpu runs copies to the
  // host: f3 (ready at 20) waits for a's offload (20..30), which releases
  // a first: f3 holds b + c (20, not 120), 30..40; f4 40..140; the copy
  // back (early: issued at 40 after f3, 40..50) hides in f4; bw 140..150.
  // The wait is a's: 10 units, not hidden.
  LongMiddle m;
  SimulatorOptions o = link10();
  o.link.offloadsBlock = true;
  SimulationResult r = simulate(m.g, earlyPrefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.usageDuringStep[3], 20);  // f3
  EXPECT_EQ(r.usageDuringStep[6], 120); // f4: a (back) + c + e
  EXPECT_EQ(r.peak, 120);
  EXPECT_DOUBLE_EQ(r.time, 150);
  EXPECT_DOUBLE_EQ(r.stall, 10);
  ASSERT_EQ(r.hostCopies.size(), 1u);
  EXPECT_DOUBLE_EQ(r.hostCopies[0].stall, 10);
  EXPECT_DOUBLE_EQ(r.hostCopies[0].prefetchStart, 40);
  EXPECT_FALSE(r.hostCopies[0].hidden);
  // Overlapped (the default), f3 runs 20..30 with a still leaving (120).
  SimulationResult overlapped = simulate(m.g, earlyPrefetch(m), link10());
  EXPECT_EQ(overlapped.usageDuringStep[3], 120);
  EXPECT_DOUBLE_EQ(overlapped.time, 140);
}

TEST(OffloadSimulator, AnAwaitMakesTheNextRunWaitForThatCopy) {
  // f1, f2, offload a, await a, f3, ..., the late prefetch: f3 (ready at
  // 20) waits for a's offload (20..30), which releases a first: f3 holds
  // b + c (20), 30..40; f4 40..140; the prefetch, issued at 140, lands at
  // 150, so bw waits 10 more: 150..160. Both waits are a's (20), and the
  // peak is bw's a + e + d (111), not the 120 of f3 with a still leaving.
  LongMiddle m;
  std::vector<Step> steps = lateprefetch(m).steps();
  steps.insert(steps.begin() + 3, Step::await(m.a));
  SimulationResult r = simulate(m.g, Schedule(steps), link10());
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.usageDuringStep[4], 20); // f3
  EXPECT_EQ(r.peak, 111);
  EXPECT_DOUBLE_EQ(r.time, 160);
  EXPECT_DOUBLE_EQ(r.stall, 20);
  ASSERT_EQ(r.hostCopies.size(), 1u);
  EXPECT_TRUE(r.hostCopies[0].awaited);
  EXPECT_DOUBLE_EQ(r.hostCopies[0].stall, 20);
  EXPECT_FALSE(r.hostCopies[0].hidden);
  // Awaited after f3 instead, the copy has ended when f4 would start (30):
  // no wait, and f3 holds a's bytes as without the await.
  steps = lateprefetch(m).steps();
  steps.insert(steps.begin() + 5, Step::await(m.a)); // After free b.
  r = simulate(m.g, Schedule(steps), link10());
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.usageDuringStep[3], 120);
  EXPECT_DOUBLE_EQ(r.stall, 10); // bw's wait for the prefetch only.
  EXPECT_TRUE(r.hostCopies[0].awaited);
  // Eager frees leave it where it is: after f3's free of b, before f4.
  std::vector<Step> eager = Schedule(steps).withEagerFrees(m.g).steps();
  auto at = std::find(eager.begin(), eager.end(), Step::await(m.a));
  ASSERT_NE(at, eager.end());
  EXPECT_EQ(*(at - 1), Step::free(m.b));
  EXPECT_EQ(*(at + 1), Step::run(m.f4));
}

TEST(OffloadSimulator, AnAwaitNeedsACopyOnItsWayOrOnTheHost) {
  LongMiddle m;
  // Never offloaded.
  Schedule s;
  s.run(m.f1);
  s.steps().push_back(Step::await(m.a));
  EXPECT_FALSE(simulate(m.g, s, link10()).valid);
  // Already back on the device.
  std::vector<Step> steps = lateprefetch(m).steps();
  steps.insert(steps.end() - 1, Step::await(m.a)); // After the prefetch.
  SimulationResult r = simulate(m.g, Schedule(steps), link10());
  EXPECT_FALSE(r.valid);
  EXPECT_NE(r.error.find("awaits a copy to the host"), std::string::npos)
      << r.error;
}

TEST(OffloadSimulator, ALatePrefetchStallsItsConsumer) {
  LongMiddle m;
  SimulationResult r = simulate(m.g, lateprefetch(m), link10());
  ASSERT_TRUE(r.valid) << r.error;
  // Compute ends f4 at 130; the prefetch is issued then and lands at 140;
  // bw waits 10 and ends at 150.
  EXPECT_DOUBLE_EQ(r.stall, 10);
  EXPECT_DOUBLE_EQ(r.time, 150);
  ASSERT_EQ(r.hostCopies.size(), 1u);
  const HostCopy &c = r.hostCopies[0];
  EXPECT_EQ(c.tensor, m.a);
  EXPECT_EQ(c.bytes, 100);
  EXPECT_DOUBLE_EQ(c.offloadStart, 20);
  EXPECT_DOUBLE_EQ(c.offloadEnd, 30);
  EXPECT_DOUBLE_EQ(c.prefetchStart, 130);
  EXPECT_DOUBLE_EQ(c.prefetchEnd, 140);
  EXPECT_DOUBLE_EQ(c.stall, 10);
  EXPECT_FALSE(c.hidden);
  // During bw: a (back) + e + d.
  EXPECT_EQ(r.usageDuringStep[8], 111);
}

TEST(OffloadSimulator, PrefetchHoldsDeviceBytesFromItsIssue) {
  LongMiddle m;
  SimulationResult r = simulate(m.g, earlyPrefetch(m), link10());
  ASSERT_TRUE(r.valid) << r.error;
  // Issued at 30 (after f3), it lands at 40, during f4; f4 counts it from
  // its start: a + c + e.
  EXPECT_EQ(r.usageDuringStep[5], 110); // The prefetch step: a + c.
  EXPECT_EQ(r.usageDuringStep[6], 120); // f4
  EXPECT_DOUBLE_EQ(r.stall, 0);
  EXPECT_DOUBLE_EQ(r.time, 140); // Hidden: the program's time.
  ASSERT_EQ(r.hostCopies.size(), 1u);
  EXPECT_TRUE(r.hostCopies[0].hidden);
}

TEST(OffloadSimulator, ASlowLinkStallsAndHoldsBothBuffers) {
  LongMiddle m;
  SimulatorOptions o = link10();
  o.link.toHostBytesPerTime = 1; // The offload takes 100: 20..120.
  SimulationResult r = simulate(m.g, earlyPrefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  // The prefetch, issued at 30, waits for the offload: 120..130. Until 120
  // the offloaded buffer still counts, so at the prefetch (30) and during
  // f4 (30..130) both copies of a are on the device: 100 + 100 + c (+ e).
  EXPECT_EQ(r.usageDuringStep[5], 210);
  EXPECT_EQ(r.usageDuringStep[6], 220);
  EXPECT_EQ(r.peak, 220);
  // f4 ends at 130 when a lands: no stall; the time is still 140.
  EXPECT_DOUBLE_EQ(r.stall, 0);
  EXPECT_DOUBLE_EQ(r.time, 140);

  o.link.toHostBytesPerTime = 0.5; // Offload 20..220, prefetch 220..230.
  r = simulate(m.g, earlyPrefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_DOUBLE_EQ(r.stall, 100); // bw waits from 130 to 230.
  EXPECT_DOUBLE_EQ(r.time, 240);
  EXPECT_FALSE(r.hostCopies[0].hidden);
}

TEST(OffloadSimulator, LatencyAddsToEveryCopy) {
  LongMiddle m;
  SimulatorOptions o = link10();
  o.link.latency = 5; // Offload 20..35: f4 starts at 30, a still counts.
  SimulationResult r = simulate(m.g, lateprefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.usageDuringStep[5], 120); // f4: a + c + e.
  // Prefetch 130..145: bw waits 15.
  EXPECT_DOUBLE_EQ(r.stall, 15);
  EXPECT_DOUBLE_EQ(r.time, 155);
}

TEST(OffloadSimulator, OneStreamPerDirectionRunsCopiesInOrder) {
  // Two 100 B tensors offloaded back to back share the to-host stream:
  // the second starts when the first ends.
  TrainingGraph g;
  TensorId x = g.addInput("x", 0);
  NodeId p = g.addNode("p", NodeKind::Forward, 1, {x}, {100});
  TensorId a = g.node(p).outputs[0];
  NodeId q = g.addNode("q", NodeKind::Forward, 1, {a}, {100});
  TensorId b = g.node(q).outputs[0];
  NodeId w = g.addNode("w", NodeKind::Forward, 100, {x}, {1});
  TensorId c = g.node(w).outputs[0];
  NodeId bw = g.addNode("bw", NodeKind::Backward, 1, {a, b, c}, {1});
  g.markRequired(g.node(bw).outputs[0]);
  Schedule s;
  s.run(p);
  s.run(q);
  s.offload(a);
  s.offload(b);
  s.run(w);
  s.prefetch(a);
  s.prefetch(b);
  s.run(bw);
  SimulationResult r = simulate(g, s, link10());
  ASSERT_TRUE(r.valid) << r.error;
  ASSERT_EQ(r.hostCopies.size(), 2u);
  // Offloads 2..12 and 12..22; both on the host at once.
  EXPECT_DOUBLE_EQ(r.hostCopies[1].offloadStart, 12);
  EXPECT_DOUBLE_EQ(r.hostCopies[1].offloadEnd, 22);
  EXPECT_EQ(r.hostPeak, 200);
  // w runs 2..102; prefetches 102..112 and 112..122; bw waits for b.
  EXPECT_DOUBLE_EQ(r.hostCopies[1].prefetchEnd, 122);
  EXPECT_DOUBLE_EQ(r.stall, 20);
  EXPECT_DOUBLE_EQ(r.hostCopies[1].stall, 20);
  EXPECT_DOUBLE_EQ(r.hostCopies[0].stall, 0);
  EXPECT_DOUBLE_EQ(r.time, 123);
  // w starts at 2, before either offload ends: a + b + c = 201 on the
  // device; bw holds a + b + c and its output: 202.
  EXPECT_EQ(r.usageDuringStep[4], 201);
  EXPECT_EQ(r.peak, 202);
}

TEST(OffloadSimulator, TheHostCopyIsReleasedWhenThePrefetchEnds) {
  LongMiddle m;
  SimulatorOptions o = link10();
  // Offload a, bring it back, offload it again: the host never holds two.
  Schedule s;
  s.run(m.f1);
  s.offload(m.a);  // 10..20
  s.run(m.f2);     // f2 reads a: not while it is away.
  SimulationResult r = simulate(m.g, s, o);
  EXPECT_FALSE(r.valid);
  EXPECT_NE(r.error.find("reads 'f1', which is not live"), std::string::npos)
      << r.error;

  Schedule t;
  t.run(m.f1);
  t.run(m.f2);
  t.offload(m.a);  // 20..30
  t.run(m.f3);     // 20..30
  t.prefetch(m.a); // 30..40
  t.run(m.f4);     // 30..130
  t.offload(m.a);  // 130..140: the first host copy ended at 40.
  t.prefetch(m.a); // 140..150
  t.run(m.bw);
  r = simulate(m.g, t.withEagerFrees(m.g), o);
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.hostPeak, 100);
  ASSERT_EQ(r.hostCopies.size(), 2u);
}

TEST(OffloadSimulator, EagerFreesKeepCopySteps) {
  LongMiddle m;
  Schedule runsAndCopies;
  runsAndCopies.run(m.f1);
  runsAndCopies.run(m.f2);
  runsAndCopies.offload(m.a);
  runsAndCopies.run(m.f3);
  runsAndCopies.run(m.f4);
  runsAndCopies.prefetch(m.a);
  runsAndCopies.run(m.bw);
  // a is not freed before its offload (which releases it), b and c after
  // their reads, the prefetched a and e after bw.
  Schedule expected = lateprefetch(m);
  expected.free(m.a);
  expected.free(m.e);
  EXPECT_EQ(runsAndCopies.withEagerFrees(m.g), expected);
}

TEST(OffloadSimulator, AResultMayLeaveForTheHost) {
  GradientFirst p;
  EXPECT_EQ(simulate(p.g, keepEverythingSchedule(p.g), link10()).peak, 410);
  // g1 leaves after bw1 (20..30 at 10 B per unit) and never comes back:
  // mid still holds it (a + g1 + m = 210), bw2 starting at 40 does not
  // (a + m + r = 310). The result stays on the host: valid, returned there.
  Schedule s;
  s.run(p.f1);
  s.run(p.bw1);
  s.offload(p.g1);
  s.run(p.mid);
  s.run(p.bw2);
  SimulationResult r = simulate(p.g, s, link10());
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_EQ(r.peak, 310);
  EXPECT_EQ(r.hostPeak, 100);
  EXPECT_DOUBLE_EQ(r.time, 50); // 10 + 10 + 20 + 10: the copy hides.
  ASSERT_EQ(r.hostCopies.size(), 1u);
  EXPECT_EQ(r.hostCopies[0].tensor, p.g1);
  EXPECT_EQ(r.hostCopies[0].prefetchStep, -1);
  EXPECT_TRUE(r.hostCopies[0].hidden);
  // Brought back after a and m are freed, it is on the device at the end
  // (r + g1 = 300): valid too, the peak still bw2's.
  Schedule back = s;
  back.prefetch(p.g1);
  SimulationResult b = simulate(p.g, back.withEagerFrees(p.g), link10());
  ASSERT_TRUE(b.valid) << b.error;
  EXPECT_EQ(b.peak, 310);
  EXPECT_EQ(b.hostCopies[0].prefetchStep >= 0, true);
  // A result freed (not offloaded) is still an error.
  Schedule freed;
  freed.run(p.f1);
  freed.run(p.bw1);
  freed.free(p.g1);
  EXPECT_FALSE(simulate(p.g, freed, link10()).valid);
}

TEST(OffloadSimulator, RejectsWrongCopies) {
  LongMiddle m;
  auto error = [&](Schedule s, SimulatorOptions o = link10()) {
    SimulationResult r = simulate(m.g, s, o);
    EXPECT_FALSE(r.valid);
    return r.error;
  };
  Schedule in;
  in.offload(m.x);
  EXPECT_NE(error(in).find("offloads input 'x'"), std::string::npos);

  Schedule notLive;
  notLive.offload(m.a);
  EXPECT_NE(error(notLive).find("which is not live"), std::string::npos);

  Schedule notOnHost;
  notOnHost.run(m.f1);
  notOnHost.prefetch(m.a);
  EXPECT_NE(error(notOnHost).find("which is not on the host"),
            std::string::npos);

  Schedule recompute;
  recompute.run(m.f1);
  recompute.offload(m.a);
  recompute.run(m.f1);
  EXPECT_NE(error(recompute).find("while it is on the host"),
            std::string::npos);

  Schedule freeAway;
  freeAway.run(m.f1);
  freeAway.offload(m.a);
  freeAway.free(m.a);
  EXPECT_NE(error(freeAway).find("which is not live"), std::string::npos);

  SimulatorOptions noLink = link10();
  noLink.link.toDeviceBytesPerTime = 0;
  EXPECT_NE(error(lateprefetch(m), noLink).find("usable copy link"),
            std::string::npos);
  // Without copies the link does not matter.
  EXPECT_TRUE(simulate(m.g, keepEverythingSchedule(m.g), noLink).valid);
}

TEST(OffloadSimulator, LiveAtPeakCountsAnOffloadInFlight) {
  LongMiddle m;
  SimulatorOptions o = link10();
  o.recordLiveAtPeak = true;
  SimulationResult r = simulate(m.g, lateprefetch(m), o);
  ASSERT_TRUE(r.valid) << r.error;
  // The peak is f3's: a (leaving), b, c (and the empty input).
  std::vector<TensorId> expected{m.x, m.a, m.b, m.c};
  EXPECT_EQ(r.liveAtPeak, expected);
}

} // namespace
