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

  /// Whether copies can be timed: positive finite bandwidths, a finite
  /// non-negative latency.
  bool usable() const {
    return std::isfinite(toHostBytesPerTime) && toHostBytesPerTime > 0 &&
           std::isfinite(toDeviceBytesPerTime) && toDeviceBytesPerTime > 0 &&
           std::isfinite(latency) && latency >= 0;
  }
  double offloadTime(int64_t bytes) const {
    return latency + static_cast<double>(bytes) / toHostBytesPerTime;
  }
  double prefetchTime(int64_t bytes) const {
    return latency + static_cast<double>(bytes) / toDeviceBytesPerTime;
  }
};

} // namespace remat

#endif // REMAT_SOLVER_CORE_COPYLINK_H
