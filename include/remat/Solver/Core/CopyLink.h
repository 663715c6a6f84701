//===- CopyLink.h - The device-host link that offload copies use ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Offload and Prefetch steps (Schedule.h) copy a tensor over a link with
// one stream per direction, each with its own bandwidth, and a latency per
// copy. Times are in the graph's time unit, whatever it is: the solver
// never converts them. The defaults are PCIe 5 x16 (about 64 GB/s each way)
// for graphs timed in nanoseconds, the unit of the IR's analytic cost model
// (one unit per arithmetic operation, about a nanosecond on the CPU path)
// and of calibrated cost tables: 64 GB/s = 64 bytes per ns, and about a
// microsecond to launch and set up one copy. Tools convert for other units
// (remat-plan --offload: --link-bandwidth in GB/s, --link-latency in us).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_COPYLINK_H
#define REMAT_SOLVER_CORE_COPYLINK_H

#include <cmath>
#include <cstdint>

namespace remat {

struct CopyLink {
  double toHostBytesPerTime = 64;   ///< Device-to-host (Offload).
  double toDeviceBytesPerTime = 64; ///< Host-to-device (Prefetch).
  double latency = 1000;            ///< Added to every copy.
  /// Whether a run waits for every copy to the host issued before it (their
  /// device bytes released before it starts): what -remat-lower-to-gpu
  /// runs today, since it frees an offloaded device buffer right after its
  /// copy and a device free waits for the copy. Default: runs overlap
  /// them, the device bytes held until each ends.
  bool offloadsBlock = false;

  /// Whether copies can be timed: positive bandwidths (infinite: a copy
  /// takes only the latency), a finite non-negative latency.
  bool usable() const {
    return !std::isnan(toHostBytesPerTime) && toHostBytesPerTime > 0 &&
           !std::isnan(toDeviceBytesPerTime) && toDeviceBytesPerTime > 0 &&
           std::isfinite(latency) && latency >= 0;
  }
  /// Copies that take no time: the memory a program holds when its
  /// buffers are allocated and freed in its own order, as the GPU lowering
  /// does (a device buffer freed right after its copy to the host, which
  /// the free waits for; a copy back allocated at its issue). An offload's
  /// device bytes go before the next run; a prefetch's count from its
  /// issue, as with any link.
  static CopyLink inOrder() {
    CopyLink l;
    l.toHostBytesPerTime = l.toDeviceBytesPerTime = INFINITY;
    l.latency = 0;
    return l;
  }
  /// A link given as users give it: `gbps` GB/s (10^9 B/s) each way and
  /// `us` microseconds per copy, for node times of `secondsPerTimeUnit`
  /// seconds each (1e-9 for the IR's nanoseconds).
  static CopyLink fromRates(double gbps, double us,
                            double secondsPerTimeUnit) {
    CopyLink l;
    // Bytes per time unit = (bytes per second) x (seconds per unit).
    l.toHostBytesPerTime = l.toDeviceBytesPerTime =
        gbps * 1e9 * secondsPerTimeUnit;
    l.latency = us * 1e-6 / secondsPerTimeUnit;
    return l;
  }
  double offloadTime(int64_t bytes) const {
    return latency + static_cast<double>(bytes) / toHostBytesPerTime;
  }
  double prefetchTime(int64_t bytes) const {
    return latency + static_cast<double>(bytes) / toDeviceBytesPerTime;
  }
};

/// The link's settings as tools and passes take them (remat-plan
/// --link-bandwidth/--link-latency, -remat-fit's link-bandwidth/
/// link-latency): the defaults, CopyLink's in GB/s and microseconds, and
/// one help text each.
struct CopyLinkOptionText {
  static constexpr double kBandwidthGBps = 64; ///< CopyLink{}: 64 B per ns.
  static constexpr double kLatencyUs = 1;      ///< CopyLink{}: 1,000 ns.
  static constexpr const char *kBandwidthHelp =
      "With offload: the device-host link's bandwidth in each direction, "
      "in GB/s (10^9 B/s; default 64, PCIe 5 x16), for node times in "
      "nanoseconds (a graph file's time unit is converted)";
  static constexpr const char *kLatencyHelp =
      "With offload: the time added to every copy, in microseconds "
      "(default 1: launching and setting up one copy)";
  static constexpr const char *kBlockingHelp =
      "With offload: plan copies to the host as -remat-lower-to-gpu runs "
      "them today, the computation after one waiting for it to end (the "
      "device buffer is freed right after its copy, and a device free waits "
      "for the copy), rather than overlapping it with the device buffer "
      "held until it ends (default off: the link's overlap, a run waiting "
      "for one copy only where the budget needs it; copies back overlap "
      "either way)";
  static constexpr const char *kHostBudgetHelp =
      "With offload: the host memory a plan may hold at once, a size with a "
      "unit (e.g. 8GiB; default: unbounded); plans keep their host copies "
      "within it and a budget only offload meets is refused below it";
  /// What is wrong with the two values, naming the option ("": nothing).
  static const char *check(double gbps, double us) {
    if (!std::isfinite(gbps) || gbps <= 0)
      return "link-bandwidth must be a positive number of GB/s";
    if (!std::isfinite(us) || us < 0)
      return "link-latency must be a non-negative number of microseconds";
    return "";
  }
};

} // namespace remat

#endif // REMAT_SOLVER_CORE_COPYLINK_H
