//===- ArenaPacking.cpp - Static offsets for buffers with lifetimes -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/BufferPlanning/ArenaPacking.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

using namespace remat::arena;

namespace {
int64_t roundUp(int64_t x, int64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

/// Buffers that share storage through in-place reuse, packed as one item.
struct Group {
  int64_t size = 0, start = 0, end = 0;
};

/// Greedy placement of `groups` in `order`: each goes to the smallest gap
/// (best fit) between the already placed groups it overlaps in time, or
/// above all of them.
std::vector<int64_t> placeGreedy(const std::vector<Group> &groups,
                                 const std::vector<size_t> &order) {
  std::vector<int64_t> offset(groups.size(), -1);
  std::vector<size_t> placed;
  std::vector<size_t> overlapping;
  for (size_t g : order) {
    overlapping.clear();
    for (size_t p : placed)
      if (groups[p].start <= groups[g].end && groups[g].start <= groups[p].end)
        overlapping.push_back(p);
    std::sort(overlapping.begin(), overlapping.end(), [&](size_t a, size_t b) {
      return offset[a] < offset[b] || (offset[a] == offset[b] && a < b);
    });
    int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t top = 0; // Highest end of the groups seen so far.
    for (size_t p : overlapping) {
      int64_t gap = offset[p] - top;
      if (gap >= groups[g].size && gap < bestGap) {
        best = top;
        bestGap = gap;
      }
      top = std::max(top, offset[p] + groups[p].size);
    }
    offset[g] = best >= 0 ? best : top;
    placed.push_back(g);
  }
  return offset;
}

int64_t extent(const std::vector<Group> &groups,
               const std::vector<int64_t> &offset) {
  int64_t size = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    size = std::max(size, offset[g] + groups[g].size);
  return size;
}

/// Max over positions of the bytes of the groups live there.
int64_t maxLiveBytes(const std::vector<Group> &groups) {
  std::vector<std::pair<int64_t, int64_t>> events; // (position, delta)
  for (const Group &g : groups) {
    events.push_back({g.start, g.size});
    events.push_back({g.end + 1, -g.size});
  }
  // At one position, frees come before allocations.
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (auto [pos, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}
} // namespace

Plan remat::arena::pack(const std::vector<Buffer> &buffers, int64_t alignment) {
  alignment = std::max<int64_t>(alignment, 1);
  size_t n = buffers.size();
  Plan plan;
  plan.offsets.assign(n, 0);
  plan.inPlace.assign(n, false);
  for (const Buffer &b : buffers)
    plan.sumOfSizes += b.size;

  // In-place chains, formed in order of start so an input's group exists
  // before its consumer joins it.
  std::vector<size_t> byStart(n);
  std::iota(byStart.begin(), byStart.end(), 0);
  std::stable_sort(byStart.begin(), byStart.end(), [&](size_t a, size_t b) {
    return buffers[a].start < buffers[b].start;
  });
  std::vector<int64_t> groupOf(n, -1);
  std::vector<bool> takenOver(n, false);
  std::vector<Group> groups;
  for (size_t i : byStart) {
    const Buffer &b = buffers[i];
    int64_t x = b.inPlaceOf;
    bool reuse = x >= 0 && static_cast<size_t>(x) < n &&
                 static_cast<size_t>(x) != i && !takenOver[x] &&
                 groupOf[x] >= 0 && buffers[x].end == b.start &&
                 buffers[x].start < buffers[x].end && buffers[x].size == b.size;
    if (reuse) {
      takenOver[x] = true;
      plan.inPlace[i] = true;
      groupOf[i] = groupOf[x];
      Group &g = groups[groupOf[i]];
      g.end = std::max(g.end, b.end);
      continue;
    }
    groupOf[i] = static_cast<int64_t>(groups.size());
    groups.push_back({roundUp(b.size, alignment), b.start, b.end});
  }

  // Several greedy orders; keep the smallest arena (the first on ties).
  // Largest first is usually best; earliest first mimics a run-time
  // allocator; longest-lived and largest-area first help when a few long
  // lifetimes fragment the arena.
  auto byKeys = [&](auto key) {
    std::vector<size_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return key(groups[a]) < key(groups[b]);
    });
    return order;
  };
  auto duration = [](const Group &g) { return g.end - g.start + 1; };
  std::vector<std::vector<size_t>> orders = {
      byKeys([](const Group &g) { return std::make_tuple(-g.size, g.start); }),
      byKeys([](const Group &g) { return std::make_tuple(g.start, -g.size); }),
      byKeys([&](const Group &g) {
        return std::make_tuple(-duration(g), -g.size, g.start);
      }),
      byKeys([&](const Group &g) {
        return std::make_tuple(-g.size * duration(g), g.start);
      })};
  std::vector<int64_t> offsets;
  int64_t best = std::numeric_limits<int64_t>::max();
  for (const std::vector<size_t> &order : orders) {
    std::vector<int64_t> candidate = placeGreedy(groups, order);
    int64_t size = extent(groups, candidate);
    if (size < best) {
      best = size;
      offsets = std::move(candidate);
    }
  }
  if (groups.empty())
    offsets.clear();

  for (size_t i = 0; i < n; ++i)
    plan.offsets[i] = offsets[groupOf[i]];
  plan.arenaSize = extent(groups, offsets);
  plan.lowerBound = maxLiveBytes(groups);
  return plan;
}

std::optional<Violation>
remat::arena::verify(const std::vector<Buffer> &buffers, const Plan &plan,
                     int64_t alignment) {
  size_t n = buffers.size();
  if (plan.offsets.size() != n || plan.inPlace.size() != n)
    return Violation{"plan has the wrong number of buffers"};
  auto one = [](std::string message, size_t i) {
    return Violation{std::move(message), static_cast<int64_t>(i)};
  };
  std::vector<int> takers(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t off = plan.offsets[i];
    if (off < 0 || off % std::max<int64_t>(alignment, 1) != 0)
      return one("offset " + std::to_string(off) + " is not aligned to " +
                     std::to_string(alignment),
                 i);
    if (off + buffers[i].size > plan.arenaSize)
      return one("buffer ends beyond the arena", i);
    if (!plan.inPlace[i])
      continue;
    int64_t x = buffers[i].inPlaceOf;
    if (x < 0 || static_cast<size_t>(x) >= n ||
        buffers[x].end != buffers[i].start ||
        buffers[x].size != buffers[i].size || ++takers[x] > 1)
      return one("buffer reuses an input in place that it may not reuse", i);
  }
  auto sharesInPlace = [&](size_t a, size_t b) {
    return plan.inPlace[b] && buffers[b].inPlaceOf == static_cast<int64_t>(a) &&
           plan.offsets[a] == plan.offsets[b];
  };
  auto range = [](int64_t off, int64_t size) {
    return "[" + std::to_string(off) + ", " + std::to_string(off + size) + ")";
  };
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const Buffer &a = buffers[i], &b = buffers[j];
      if (!lifetimesOverlap(a, b) || a.size == 0 || b.size == 0)
        continue;
      int64_t ai = plan.offsets[i], bj = plan.offsets[j];
      bool memoryOverlaps = ai < bj + b.size && bj < ai + a.size;
      if (memoryOverlaps && !sharesInPlace(i, j) && !sharesInPlace(j, i))
        return Violation{"bytes " + range(ai, a.size) + " and " +
                             range(bj, b.size) +
                             " overlap while both buffers are live",
                         static_cast<int64_t>(i), static_cast<int64_t>(j)};
    }
  return std::nullopt;
}
