//===- CheckedArithmetic.h - Byte and time arithmetic that cannot wrap ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Byte counts, budgets and peaks are int64; a sum or product that does not
// fit must be an error naming the value, never a wrapped number. Plain C++
// (no LLVM), so the solver library can use it too.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SUPPORT_CHECKEDARITHMETIC_H
#define REMAT_SUPPORT_CHECKEDARITHMETIC_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace remat {

/// a + b, or std::nullopt when it does not fit in int64.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// a * b, or std::nullopt when it does not fit in int64.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// a + b, clamped to int64's range: for bounds and budgets where "more than
/// anything representable" is the right answer.
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  if (std::optional<int64_t> r = checkedAdd(a, b))
    return *r;
  return b > 0 ? std::numeric_limits<int64_t>::max()
               : std::numeric_limits<int64_t>::min();
}

/// A finite non-negative double rounded to int64 bytes, or std::nullopt when
/// it is negative, not finite, or at least 2^63 (where the conversion would
/// be undefined behaviour).
inline std::optional<int64_t> roundToBytes(double v) {
  if (!std::isfinite(v) || v < 0 || v >= 9223372036854775808.0)
    return std::nullopt;
  double r = std::nearbyint(v);
  if (r >= 9223372036854775808.0)
    return std::nullopt;
  return static_cast<int64_t>(r);
}

} // namespace remat

#endif // REMAT_SUPPORT_CHECKEDARITHMETIC_H
