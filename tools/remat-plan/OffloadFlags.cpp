//===- OffloadFlags.cpp ---------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "OffloadFlags.h"

#include <cmath>

namespace remat {

namespace cl = llvm::cl;

std::optional<double> secondsPerTimeUnit(llvm::StringRef unit) {
  if (unit == "s")
    return 1.0;
  if (unit == "ms")
    return 1e-3;
  if (unit == "us")
    return 1e-6;
  if (unit == "ns" || unit == "flop" || unit == "table")
    return 1e-9;
  return std::nullopt;
}

OffloadFlags::OffloadFlags(cl::OptionCategory &category)
    : offload("offload",
              cl::desc("Plan with host memory too: the strategy "
                       "offload-greedy (or --strategy=checkmate-milp-offload, "
                       "its MILP) keeps, recomputes, or copies a tensor "
                       "to the host and back; the result adds an \"offload\" "
                       "object (device and host peaks, stall, each "
                       "offloaded tensor with its bytes, copy times and "
                       "whether its copies are hidden)"),
              cl::cat(category)),
      bandwidth("link-bandwidth", cl::value_desc("GB/s"), cl::init(64),
                cl::desc("--offload: the device-host link's bandwidth in "
                         "each direction, in GB/s (10^9 B/s; default 64, "
                         "PCIe 5 x16), converted with the graph file's time "
                         "unit"),
                cl::cat(category)),
      latency("link-latency", cl::value_desc("us"), cl::init(1),
              cl::desc("--offload: the time added to every copy, in "
                       "microseconds (default 1: launching and setting up "
                       "one copy)"),
              cl::cat(category)) {}

bool OffloadFlags::enabled() const { return offload; }

llvm::Expected<CopyLink> OffloadFlags::link(llvm::StringRef timeUnit) const {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (!std::isfinite(bandwidth) || bandwidth <= 0)
    return error("--link-bandwidth must be a positive number of GB/s");
  if (!std::isfinite(latency) || latency < 0)
    return error("--link-latency must be a non-negative number of us");
  std::optional<double> seconds = secondsPerTimeUnit(timeUnit);
  if (!seconds)
    return error("--offload needs node times in seconds: the graph's time "
                 "unit '" + timeUnit +
                 "' is none of s, ms, us, ns, flop or table");
  CopyLink l;
  // Bytes per time unit = (bytes per second) x (seconds per unit).
  l.toHostBytesPerTime = l.toDeviceBytesPerTime = bandwidth * 1e9 * *seconds;
  l.latency = latency * 1e-6 / *seconds;
  return l;
}

} // namespace remat
