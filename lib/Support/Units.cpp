//===- Units.cpp ----------------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Support/Units.h"
#include "remat/Support/CheckedArithmetic.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>

namespace remat {

/// An error with a plain message (messages quote user data, which may
/// contain '%').
static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::make_error<llvm::StringError>(msg,
                                             llvm::inconvertibleErrorCode());
}

std::optional<double> memoryUnitBytes(llvm::StringRef unit) {
  struct Entry {
    const char *name;
    double bytes;
  };
  static const Entry table[] = {
      {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},        {"KiB", 1024.0},       {"MiB", 1048576.0},
      {"GiB", 1073741824.0},
  };
  for (const Entry &e : table)
    if (unit == e.name)
      return e.bytes;
  return std::nullopt;
}

llvm::Expected<int64_t> toBytes(double value, double bytesPerUnit,
                                llvm::StringRef what) {
  double bytes = value * bytesPerUnit;
  if (!std::isfinite(bytes) || bytes < 0 || bytes > 9e18)
    return fail(what + ": " + formatNumber(value) +
                " is not a finite non-negative size");
  return static_cast<int64_t>(std::llround(bytes));
}

llvm::Expected<SizeSpec> parseSize(llvm::StringRef text,
                                   const Units &fileUnits) {
  llvm::StringRef s = text.trim();
  size_t numEnd = 0;
  while (numEnd < s.size() &&
         (llvm::isDigit(s[numEnd]) || s[numEnd] == '.' || s[numEnd] == 'e' ||
          s[numEnd] == 'E' || s[numEnd] == '+' || s[numEnd] == '-'))
    ++numEnd;
  // "1e" could swallow nothing useful; units never start with e/E.
  llvm::StringRef num = s.take_front(numEnd);
  llvm::StringRef unit = s.drop_front(numEnd).trim();
  double value;
  if (num.empty() || num.getAsDouble(value) || !std::isfinite(value) ||
      value < 0)
    return fail("invalid size '" + text +
                "': expected a non-negative number with an optional unit "
                "(B, KB, KiB, MB, MiB, GB, GiB) or '%'");
  SizeSpec spec;
  if (unit == "%") {
    spec.percent = true;
    spec.value = value;
    return spec;
  }
  double perUnit = fileUnits.bytesPerUnit;
  if (!unit.empty()) {
    std::optional<double> u = memoryUnitBytes(unit);
    if (!u)
      return fail("invalid size '" + text + "': unknown unit '" + unit +
                  "' (use B, KB, KiB, MB, MiB, GB, GiB or %)");
    perUnit = *u;
  }
  spec.value = value * perUnit;
  // Bytes are whole and fit in int64: "1.5" (B) or "1e30" is an error
  // naming the value, never a rounded or wrapped number.
  std::optional<int64_t> bytes = roundToBytes(spec.value);
  if (!bytes)
    return fail("invalid size '" + text +
                "': more bytes than a 64-bit count holds (at most "
                "9223372036854775807 B)");
  if (std::abs(spec.value - static_cast<double>(*bytes)) > 1e-6 * spec.value)
    return fail("invalid size '" + text + "': " + formatNumber(spec.value) +
                " is not a whole number of bytes");
  spec.value = static_cast<double>(*bytes);
  return spec;
}

llvm::Expected<int64_t> parseBytes(llvm::StringRef text,
                                   const Units &fileUnits,
                                   llvm::StringRef what) {
  llvm::Expected<SizeSpec> size = parseSize(text, fileUnits);
  if (!size)
    return fail(what + ": " + llvm::toString(size.takeError()));
  if (size->percent)
    return fail(what + " takes a size in bytes (e.g. 8GiB), not a "
                       "percentage: got '" + text + "'");
  return static_cast<int64_t>(size->value);
}

llvm::Expected<SizeSpec> parseBudget(llvm::StringRef text,
                                     const Units &fileUnits) {
  if (text.trim().equals_insensitive("min")) {
    SizeSpec spec;
    spec.minimum = true;
    return spec;
  }
  llvm::Expected<SizeSpec> size = parseSize(text, fileUnits);
  // A share of the peak above all of it asks for nothing: most likely a
  // slip (150% for 15%), so it is refused rather than planned as 100%.
  if (size && size->percent && size->value > 100)
    return fail("a percentage budget is a share of the step's peak without "
                "rematerialization, at most 100%; for a budget above the "
                "peak give bytes (e.g. 2GiB)");
  return size;
}

llvm::Expected<int64_t> resolveBudget(const SizeSpec &size,
                                      int64_t peakBytes) {
  if (size.minimum)
    return fail("the budget 'min' is the smallest one a strategy meets: "
                "search it (minimumBudget) instead of resolving it");
  double bytes = size.percent ? std::floor(size.value / 100.0 *
                                           static_cast<double>(peakBytes))
                              : size.value;
  std::optional<int64_t> b = roundToBytes(bytes);
  if (!b)
    return fail("a budget of " + formatNumber(size.value) +
                (size.percent ? "% of " + std::to_string(peakBytes) + " B"
                              : std::string(" B")) +
                " is more bytes than a 64-bit count holds");
  return *b;
}

std::string formatNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  if (v == 0)
    return "0"; // Also turns -0 into 0.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

} // namespace remat
