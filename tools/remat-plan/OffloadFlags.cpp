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
      results("offload-results",
              cl::desc("With --offload: a required output may also be "
                       "copied to the host once nothing reads it again and "
                       "stay there (returned from host memory, as "
                       "ZeRO-Offload moves gradients)"),
              cl::cat(category)),
      bandwidth("link-bandwidth", cl::value_desc("GB/s"),
                cl::init(CopyLinkOptionText::kBandwidthGBps),
                cl::desc(CopyLinkOptionText::kBandwidthHelp),
                cl::cat(category)),
      latency("link-latency", cl::value_desc("us"),
              cl::init(CopyLinkOptionText::kLatencyUs),
              cl::desc(CopyLinkOptionText::kLatencyHelp), cl::cat(category)),
      blocking("offload-blocking",
               cl::desc(CopyLinkOptionText::kBlockingHelp), cl::cat(category)),
      host("host-budget", cl::value_desc("size"),
           cl::desc(CopyLinkOptionText::kHostBudgetHelp), cl::cat(category)) {}

llvm::Expected<std::optional<int64_t>>
OffloadFlags::hostBudget(const Units &units) const {
  if (!host.getNumOccurrences())
    return std::nullopt;
  if (!offload)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--host-budget needs --offload: without it nothing goes to the host");
  llvm::Expected<int64_t> bytes = parseBytes(host, units, "--host-budget");
  if (!bytes)
    return bytes.takeError();
  return std::optional<int64_t>(*bytes);
}

bool OffloadFlags::enabled() const { return offload; }

bool OffloadFlags::resultsMayLeave() const { return results; }

bool OffloadFlags::blocks() const { return blocking; }

llvm::Expected<CopyLink> OffloadFlags::link(llvm::StringRef timeUnit) const {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (const char *wrong = CopyLinkOptionText::check(bandwidth, latency);
      *wrong)
    return error(llvm::Twine("--") + wrong);
  std::optional<double> seconds = secondsPerTimeUnit(timeUnit);
  if (!seconds)
    return error("--offload needs node times in seconds: the graph's time "
                 "unit '" + timeUnit +
                 "' is none of s, ms, us, ns, flop or table");
  CopyLink link = CopyLink::fromRates(bandwidth, latency, *seconds);
  link.offloadsBlock = blocking;
  return link;
}

} // namespace remat
