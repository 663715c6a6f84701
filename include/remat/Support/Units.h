//===- Units.h - Memory units, sizes and number formatting ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Graph files state their units ({"time":"ms","memory":"MB"}); internally
// every size is an int64 number of bytes. Decimal units are powers of 1000
// (KB, MB, GB), binary ones powers of 1024 (KiB, MiB, GiB). Times are never
// converted: the time unit is a label echoed in results.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SUPPORT_UNITS_H
#define REMAT_SUPPORT_UNITS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

struct Units {
  std::string time = "ms";
  std::string memory = "B";
  double bytesPerUnit = 1; ///< Bytes in one `memory` unit.
};

/// Bytes in one unit ("B", "KB", "KiB", "MB", "MiB", "GB", "GiB"), or
/// std::nullopt for anything else.
std::optional<double> memoryUnitBytes(llvm::StringRef unit);

/// Converts `value` units to bytes, rounded to the nearest byte. Fails on
/// negative, non-finite or too large values; `what` names the field.
llvm::Expected<int64_t> toBytes(double value, double bytesPerUnit,
                                llvm::StringRef what);

/// A budget as given on the command line: bytes, or a percentage of the
/// no-remat peak.
struct SizeSpec {
  bool percent = false;
  /// The budget "min": the smallest one the strategy meets (parseBudget).
  bool minimum = false;
  double value = 0; ///< Percent when `percent`, else bytes.
};

/// Parses "90", "90MB", "1.5GiB", "80%". A bare number is in `fileUnits`.
/// A size in bytes must be whole and fit in int64.
llvm::Expected<SizeSpec> parseSize(llvm::StringRef text,
                                   const Units &fileUnits);

/// A size as parseSize() reads it, in bytes; a percentage is refused (it
/// has nothing to be a percentage of). `what` names the option in errors.
llvm::Expected<int64_t> parseBytes(llvm::StringRef text,
                                   const Units &fileUnits,
                                   llvm::StringRef what);

/// A budget: a size as parseSize() reads it, or "min" (the smallest budget
/// the strategy meets, which the planner searches).
llvm::Expected<SizeSpec> parseBudget(llvm::StringRef text,
                                     const Units &fileUnits);

/// The budget in bytes: the size itself, or its percentage of `peakBytes`
/// (rounded down). Fails, naming the value, when it does not fit in int64,
/// and for "min", which only a planner can resolve.
llvm::Expected<int64_t> resolveBudget(const SizeSpec &size,
                                      int64_t peakBytes);

/// A JSON number with at most 12 significant digits, so sums of measured
/// times print as 47.42 rather than 47.420000000000002.
std::string formatNumber(double v);

} // namespace remat

#endif // REMAT_SUPPORT_UNITS_H
