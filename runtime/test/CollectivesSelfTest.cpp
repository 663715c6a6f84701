//===- CollectivesSelfTest.cpp - libRematMpiRuntime under mpiexec ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Run as `mpiexec -n N remat-collectives-selftest` (N = 1, 2, 3, 4): calls
// every collective entry point (rematShift too) on small tensors built by
// hand as memref descriptors, on the grids and grid axes N devices allow,
// and compares each result with a reference every rank computes itself (it
// can compute any rank's input). Inputs hold small integers, so any reduction order is
// exact and results must match bit for bit; one more all_reduce on
// fractional data checks that every rank of a group gets the same bits.
// Each call must free all it allocates, and its peak must rise by exactly
// remat_collective_workspace_bytes rounded up to 64.
//
// Options: --init-mpi (the program starts and finishes MPI itself);
// --grid AxB (one all_reduce on that grid: checks the wrong-rank-count
// error); --bad-shape (an all_gather whose result shape is wrong).
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CollectiveABI.h"
#include "remat/Runtime/RematRuntime.h"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

extern "C" {
#define DECLARE(SUFFIX)                                                        \
  void _mlir_ciface_rematCollective##SUFFIX(int64_t, int64_t, int64_t,        \
                                            int64_t, int64_t, int64_t,         \
                                            UnrankedMemRef *, UnrankedMemRef *);
DECLARE(F32)
DECLARE(F64)
DECLARE(I32)
DECLARE(I64)
void _mlir_ciface_rematShiftF32(int64_t, int64_t, int64_t, int64_t,
                                UnrankedMemRef *, UnrankedMemRef *);
void _mlir_ciface_rematShiftI64(int64_t, int64_t, int64_t, int64_t,
                                UnrankedMemRef *, UnrankedMemRef *);
int64_t rematProcessLinearIndex(int64_t gridShape);
int64_t _mlir_ciface_rematProcessLinearIndex(int64_t gridShape);
}

namespace {

using Shape = std::vector<int64_t>;

int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::string str(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// A memref descriptor over `data`: {allocated, aligned, offset, sizes,
// strides}, as MLIR lays it out.
struct Memref {
  std::vector<int64_t> words;
  UnrankedMemRef ref;
  Memref(void *data, int64_t offset, const Shape &sizes,
         const Shape &strides) {
    words.resize(3 + 2 * sizes.size());
    std::memcpy(&words[0], &data, sizeof(void *));
    std::memcpy(&words[1], &data, sizeof(void *));
    words[2] = offset;
    for (size_t i = 0; i < sizes.size(); ++i) {
      words[3 + i] = sizes[i];
      words[3 + sizes.size() + i] = strides[i];
    }
    ref = {static_cast<int64_t>(sizes.size()), words.data()};
  }
};

Shape rowMajorStrides(const Shape &s) {
  Shape st(s.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
    st[d] = stride;
    stride *= s[d];
  }
  return st;
}

// Multi-index of linear index i, row-major.
Shape unravel(int64_t i, const Shape &s) {
  Shape idx(s.size());
  for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

int64_t ravel(const Shape &idx, const Shape &s) {
  int64_t i = 0;
  for (size_t d = 0; d < s.size(); ++d)
    i = i * s[d] + idx[d];
  return i;
}

// Element i of device r's input: small integers (exact in any order);
// in -3..3 for products, so that four factors stay exact in f32.
template <typename T> T value(int r, int64_t i, int64_t reduction) {
  int64_t x = (r * 37 + i * 11 + 5) % 23;
  if (reduction == REMAT_COLL_PRODUCT)
    return static_cast<T>(x % 7 - 3);
  return static_cast<T>(x - 11);
}

template <typename T> T combine(int64_t reduction, T a, T b) {
  switch (reduction) {
  case REMAT_COLL_SUM:
    return a + b;
  case REMAT_COLL_MAX:
    return a > b ? a : b;
  case REMAT_COLL_MIN:
    return a < b ? a : b;
  default:
    return a * b;
  }
}

template <typename T> struct TypeInfo;
template <> struct TypeInfo<float> {
  static constexpr const char *name = "f32";
  static constexpr auto fn = _mlir_ciface_rematCollectiveF32;
  static constexpr auto shift = _mlir_ciface_rematShiftF32;
};
template <> struct TypeInfo<double> {
  static constexpr const char *name = "f64";
  static constexpr auto fn = _mlir_ciface_rematCollectiveF64;
};
template <> struct TypeInfo<int32_t> {
  static constexpr const char *name = "i32";
  static constexpr auto fn = _mlir_ciface_rematCollectiveI32;
};
template <> struct TypeInfo<int64_t> {
  static constexpr const char *name = "i64";
  static constexpr auto fn = _mlir_ciface_rematCollectiveI64;
  static constexpr auto shift = _mlir_ciface_rematShiftI64;
};

const char *kindNames[] = {"all_reduce", "all_gather", "reduce_scatter",
                           "all_slice", "all_to_all"};

struct Grid {
  Shape dims;
  Shape axes;
  int64_t packedShape() const {
    return remat_pack_grid_shape(dims.data(), dims.size());
  }
  int64_t packedAxes() const {
    return remat_pack_grid_axes(axes.data(), axes.size());
  }
  // World ranks of device r's group, in in-group order.
  std::vector<int> members(int r) const {
    Shape c = unravel(r, dims);
    std::vector<int> m;
    Shape sub;
    for (int64_t a : axes)
      sub.push_back(dims[a]);
    for (int64_t j = 0; j < product(sub); ++j) {
      Shape cj = c, idx = unravel(j, sub);
      for (size_t i = 0; i < axes.size(); ++i)
        cj[axes[i]] = idx[i];
      m.push_back(static_cast<int>(ravel(cj, dims)));
    }
    return m;
  }
  std::string name() const { return "grid " + str(dims) + " axes " + str(axes); }
};

int worldRank = 0, worldSize = 1;
int64_t checks = 0, failures = 0;

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "FAIL rank %d: %s\n", worldRank, what.c_str());
}

/// The result shape of `kind` on input shape `in` over a group of n.
Shape resultShape(int64_t kind, int64_t axis, int64_t axis2, const Shape &in,
                  int64_t n) {
  Shape out = in;
  if (kind == REMAT_COLL_ALL_GATHER)
    out[axis] *= n;
  if (kind == REMAT_COLL_REDUCE_SCATTER || kind == REMAT_COLL_ALL_SLICE ||
      kind == REMAT_COLL_ALL_TO_ALL)
    out[axis] /= n;
  if (kind == REMAT_COLL_ALL_TO_ALL)
    out[axis2] *= n;
  return out;
}

/// This rank's input of shape `in`: row-major, or strided with an offset,
/// inner stride 2 and padded rows; the padding holds -99.
template <typename T>
std::vector<T> makeInput(const Shape &in, bool padded, int64_t reduction,
                         int64_t &offset, Shape &strides) {
  int64_t inElems = product(in), rank = static_cast<int64_t>(in.size());
  strides = rowMajorStrides(in);
  offset = 0;
  int64_t span = inElems;
  if (padded) {
    offset = 3;
    int64_t stride = 2;
    for (int64_t d = rank - 1; d >= 0; --d) {
      strides[d] = stride;
      stride = stride * in[d] + 1;
    }
    span = offset + 1;
    for (int64_t d = 0; d < rank; ++d)
      span += (in[d] - 1) * strides[d];
  }
  std::vector<T> inData(span, static_cast<T>(-99));
  for (int64_t i = 0; i < inElems; ++i) {
    Shape idx = unravel(i, in);
    int64_t at = offset;
    for (int64_t d = 0; d < rank; ++d)
      at += idx[d] * strides[d];
    inData[at] = value<T>(worldRank, i, reduction);
  }
  return inData;
}

/// The reference: element i of member k's result from the members' inputs.
template <typename T>
T expectedElement(int64_t kind, int64_t reduction, int64_t axis, int64_t axis2,
                  const std::vector<int> &members, int64_t k, const Shape &in,
                  const Shape &out, int64_t i) {
  int64_t n = static_cast<int64_t>(members.size());
  int64_t rank = static_cast<int64_t>(in.size());
  int64_t blkIn = rank ? in[axis] / n : 0; // a block along the split axis
  Shape idx = unravel(i, out);
  T expected{};
  switch (kind) {
  case REMAT_COLL_ALL_REDUCE:
    expected = value<T>(members[0], i, reduction);
    for (int64_t j = 1; j < n; ++j)
      expected =
          combine(reduction, expected, value<T>(members[j], i, reduction));
    break;
  case REMAT_COLL_ALL_GATHER: {
    int64_t j = idx[axis] / in[axis];
    idx[axis] -= j * in[axis];
    expected = value<T>(members[j], ravel(idx, in), reduction);
    break;
  }
  case REMAT_COLL_REDUCE_SCATTER:
  case REMAT_COLL_ALL_SLICE: {
    idx[axis] += k * blkIn;
    int64_t at = ravel(idx, in);
    expected = value<T>(members[kind == REMAT_COLL_ALL_SLICE ? k : 0], at,
                        reduction);
    if (kind == REMAT_COLL_REDUCE_SCATTER)
      for (int64_t j = 1; j < n; ++j)
        expected = combine(reduction, expected,
                           value<T>(members[j], at, reduction));
    break;
  }
  case REMAT_COLL_ALL_TO_ALL: {
    int64_t blkOut = out[axis2] / n, j = idx[axis2] / blkOut;
    idx[axis2] -= j * blkOut;
    idx[axis] += k * blkIn;
    expected = value<T>(members[j], ravel(idx, in), reduction);
    break;
  }
  }
  return expected;
}

// One call: kind on `grid`, input of shape `in` (strided when `padded`),
// checked against the reference.
template <typename T>
void check(const Grid &grid, int64_t kind, int64_t reduction, int64_t axis,
           int64_t axis2, const Shape &in, bool padded) {
  std::vector<int> members = grid.members(worldRank);
  int64_t n = static_cast<int64_t>(members.size()), k = 0;
  while (members[k] != worldRank)
    ++k;
  Shape out = resultShape(kind, axis, axis2, in, n);
  std::string what = grid.name() + " " + kindNames[kind] + " " +
                     TypeInfo<T>::name + " red " + std::to_string(reduction) +
                     " axis " + std::to_string(axis) + "," +
                     std::to_string(axis2) + " in " + str(in) +
                     (padded ? " strided" : "");

  int64_t inElems = product(in), rank = static_cast<int64_t>(in.size());
  int64_t offset;
  Shape strides;
  std::vector<T> inData =
      makeInput<T>(in, padded, reduction, offset, strides);
  int64_t outElems = product(out);
  std::vector<T> outData(outElems, static_cast<T>(-77));
  Memref inRef(inData.data(), offset, in, strides);
  Memref outRef(outData.data(), 0, out, rowMajorStrides(out));

  int64_t contiguous = remat_collective_blocks_contiguous(
      kind, rank, in.data(), out.data(), axis, axis2, !padded);
  int64_t ws = remat_collective_workspace_bytes(kind, sizeof(T), inElems,
                                                outElems, n, contiguous);
  int64_t expectedRise = (ws + 63) / 64 * 64;
  remat_reset_peak();
  int64_t base = remat_live_bytes();
  TypeInfo<T>::fn(kind, reduction, axis, axis2, grid.packedShape(),
                  grid.packedAxes(), &inRef.ref, &outRef.ref);
  ++checks;
  if (remat_live_bytes() != base)
    fail(what + ": live bytes " + std::to_string(remat_live_bytes()) +
         " after the call, " + std::to_string(base) + " before");
  if (remat_peak_bytes() - base != expectedRise)
    fail(what + ": peak rose by " + std::to_string(remat_peak_bytes() - base) +
         ", expected " + std::to_string(expectedRise));

  for (int64_t i = 0; i < outElems; ++i) {
    T expected = expectedElement<T>(kind, reduction, axis, axis2, members, k,
                                    in, out, i);
    if (std::memcmp(&expected, &outData[i], sizeof(T)) != 0) {
      fail(what + ": element " + std::to_string(i) + " is " +
           std::to_string(outData[i]) + ", expected " +
           std::to_string(expected));
      return;
    }
  }
}

// A shift along grid axis `axis` of `dims` by `offset`: the device whose
// coordinate on `axis` is c - offset (wrapped when rotating) is the source,
// zeros without one; the input strided when `padded`.
template <typename T>
void checkShift(const Shape &dims, int64_t axis, int64_t offset, bool rotate,
                bool padded) {
  const Shape in = {3, 5};
  Shape coords = unravel(worldRank, dims);
  int64_t n = dims[axis], c = coords[axis], from = -1;
  if (rotate)
    from = ((c - offset % n) % n + n) % n;
  else if (offset > -n && offset < n)
    from = c - offset;
  bool hasSource = from >= 0 && from < n;
  Shape src = coords;
  src[axis] = from;
  int sourceRank = hasSource ? static_cast<int>(ravel(src, dims)) : -1;
  bool moves = n > 1 && (rotate ? offset % n != 0
                                : offset != 0 && offset > -n && offset < n);
  std::string what = "grid " + str(dims) + " shift axis " +
                     std::to_string(axis) + " offset " +
                     std::to_string(offset) + (rotate ? " rotate " : " ") +
                     TypeInfo<T>::name + (padded ? " strided" : "");

  // Strided: offset 2, inner stride 2, rows padded by one.
  Shape strides = padded ? Shape{11, 2} : rowMajorStrides(in);
  int64_t base = padded ? 2 : 0, span = base + 2 * strides[0] + 4 * strides[1] + 1;
  std::vector<T> inData(span, static_cast<T>(-99));
  for (int64_t i = 0; i < product(in); ++i) {
    Shape idx = unravel(i, in);
    inData[base + idx[0] * strides[0] + idx[1] * strides[1]] =
        value<T>(worldRank, i, REMAT_COLL_SUM);
  }
  std::vector<T> outData(product(in), static_cast<T>(-77));
  Memref inRef(inData.data(), base, in, strides);
  Memref outRef(outData.data(), 0, in, rowMajorStrides(in));
  int64_t ws = moves ? remat_collective_workspace_bytes(
                           REMAT_COLL_SHIFT, sizeof(T), product(in),
                           product(in), n, padded ? 0 : 1)
                     : 0;
  remat_reset_peak();
  int64_t live = remat_live_bytes();
  TypeInfo<T>::shift(offset, rotate ? 1 : 0,
                     remat_pack_grid_shape(dims.data(), dims.size()), axis,
                     &inRef.ref, &outRef.ref);
  ++checks;
  if (remat_live_bytes() != live ||
      remat_peak_bytes() - live != (ws + 63) / 64 * 64)
    fail(what + ": peak rose by " +
         std::to_string(remat_peak_bytes() - live) + ", expected " +
         std::to_string((ws + 63) / 64 * 64));
  for (int64_t i = 0; i < product(in); ++i) {
    T expected = hasSource ? value<T>(sourceRank, i, REMAT_COLL_SUM) : T{};
    if (std::memcmp(&expected, &outData[i], sizeof(T)) != 0) {
      fail(what + ": element " + std::to_string(i) + " is " +
           std::to_string(outData[i]) + ", expected " +
           std::to_string(expected));
      return;
    }
  }
}

template <typename T> void checkShifts(const Shape &dims) {
  for (int64_t axis = 0; axis < static_cast<int64_t>(dims.size()); ++axis) {
    int64_t n = dims[axis];
    for (bool rotate : {false, true})
      for (int64_t offset : {int64_t{1}, int64_t{-1}, int64_t{2}, -n, n + 1,
                             int64_t{0}, INT64_MIN + 1})
        for (bool padded : {false, true})
          checkShift<T>(dims, axis, offset, rotate, padded);
  }
}

// all_reduce sums of fractional f32 data: every rank of a group must hold
// the same bits, within 1e-5 of the reference.
void checkBitIdentical(const Grid &grid) {
  std::vector<int> members = grid.members(worldRank);
  const int64_t count = 37;
  auto frac = [](int r, int64_t i) {
    return static_cast<float>(std::sin(0.7 * r + 1.3 * i) * 1000.0 + 0.1 * i);
  };
  std::vector<float> in(count), out(count);
  for (int64_t i = 0; i < count; ++i)
    in[i] = frac(worldRank, i);
  Memref inRef(in.data(), 0, {count}, {1});
  Memref outRef(out.data(), 0, {count}, {1});
  _mlir_ciface_rematCollectiveF32(REMAT_COLL_ALL_REDUCE, REMAT_COLL_SUM, 0, 0,
                                  grid.packedShape(), grid.packedAxes(),
                                  &inRef.ref, &outRef.ref);
  ++checks;
  std::vector<float> all(count * worldSize);
  MPI_Allgather(out.data(), count, MPI_FLOAT, all.data(), count, MPI_FLOAT,
                MPI_COMM_WORLD);
  for (int64_t i = 0; i < count; ++i) {
    double ref = 0;
    for (int m : members)
      ref += frac(m, i);
    if (std::fabs(out[i] - ref) > 1e-5 * std::fabs(ref) + 1e-3) {
      fail(grid.name() + " fractional all_reduce: element " +
           std::to_string(i) + " is " + std::to_string(out[i]) +
           ", expected " + std::to_string(ref));
      return;
    }
    for (int m : members)
      if (std::memcmp(&all[m * count + i], &out[i], sizeof(float)) != 0) {
        fail(grid.name() + " fractional all_reduce: rank " +
             std::to_string(m) + " holds other bits at " + std::to_string(i));
        return;
      }
  }
}

template <typename T> void checkAllKinds(const Grid &grid, int64_t n) {
  for (bool padded : {false, true}) {
    for (int64_t red = REMAT_COLL_SUM; red <= REMAT_COLL_PRODUCT; ++red) {
      // Counts that do not divide by the group (uneven ring chunks, empty
      // ones when the tensor has fewer elements than the group).
      check<T>(grid, REMAT_COLL_ALL_REDUCE, red, 0, 0, {3, 5}, padded);
      check<T>(grid, REMAT_COLL_ALL_REDUCE, red, 0, 0, {1}, padded);
      check<T>(grid, REMAT_COLL_ALL_REDUCE, red, 0, 0, {}, padded);
      for (int64_t axis : {0, 1}) {
        Shape in = {3, 2};
        in[axis] = 2 * n;
        check<T>(grid, REMAT_COLL_REDUCE_SCATTER, red, axis, 0, in, padded);
      }
      check<T>(grid, REMAT_COLL_REDUCE_SCATTER, red, 1, 0, {2, n, 3}, padded);
    }
    for (int64_t axis : {0, 1}) {
      check<T>(grid, REMAT_COLL_ALL_GATHER, 0, axis, 0, {3, 2}, padded);
      Shape in = {3, 2};
      in[axis] = 2 * n;
      check<T>(grid, REMAT_COLL_ALL_SLICE, 0, axis, 0, in, padded);
      for (int64_t axis2 : {0, 1}) {
        Shape a2a = {2, 3};
        a2a[axis] *= n;
        check<T>(grid, REMAT_COLL_ALL_TO_ALL, 0, axis, axis2, a2a, padded);
      }
    }
    check<T>(grid, REMAT_COLL_ALL_GATHER, 0, 0, 0, {1, 2, 3}, padded);
    check<T>(grid, REMAT_COLL_ALL_GATHER, 0, 2, 0, {1, 1, 3}, padded);
    check<T>(grid, REMAT_COLL_ALL_GATHER, 0, 1, 0, {2, 2, 3}, padded);
    check<T>(grid, REMAT_COLL_ALL_TO_ALL, 0, 2, 1, {2, 1, 2 * n}, padded);
  }
}

// The encodings and the workspace formula against numbers worked by hand.
void checkABI() {
  auto expect = [](bool ok, const char *what) {
    ++checks;
    if (!ok)
      fail(what);
  };
  int64_t dims[] = {2, 3, 65535, 1};
  int64_t shape = remat_pack_grid_shape(dims, 4);
  expect(shape == static_cast<int64_t>(0x0001ffff00030002ULL), "pack shape");
  expect(remat_grid_shape_rank(shape) == 4 &&
             remat_grid_shape_dim(shape, 2) == 65535,
         "unpack shape");
  expect(remat_grid_shape_rank(remat_pack_grid_shape(dims, 2)) == 2,
         "shape rank");
  int64_t axes[] = {1, 0};
  int64_t packed = remat_pack_grid_axes(axes, 2);
  expect(packed == 0x12 && remat_grid_axes_count(packed) == 2 &&
             remat_grid_axis(packed, 0) == 1 && remat_grid_axis(packed, 1) == 0,
         "grid axes");
  expect(remat_grid_axes_count(0) == 0, "no grid axes");
  expect(remat_collective_workspace_bytes(REMAT_COLL_ALL_REDUCE, 4, 15, 15, 2,
                                          1) == 32,
         "all_reduce workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_ALL_REDUCE, 4, 15, 15, 1,
                                          1) == 0,
         "group of one");
  expect(remat_collective_workspace_bytes(REMAT_COLL_REDUCE_SCATTER, 8, 12, 3,
                                          4, 1) == 24,
         "reduce_scatter workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_ALL_GATHER, 8, 6, 12, 2,
                                          1) == 0 &&
             remat_collective_workspace_bytes(REMAT_COLL_ALL_GATHER, 8, 6, 12,
                                              2, 0) == 96,
         "all_gather workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_ALL_TO_ALL, 4, 12, 12, 4,
                                          0) == 24,
         "all_to_all workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_ALL_SLICE, 4, 12, 6, 2,
                                          1) == 0,
         "all_slice workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_SHIFT, 4, 12, 12, 2,
                                          1) == 0 &&
             remat_collective_workspace_bytes(REMAT_COLL_SHIFT, 4, 12, 12, 2,
                                              0) == 48,
         "shift workspace");
  expect(remat_collective_workspace_bytes(REMAT_COLL_REDUCE_SCATTER, 8,
                                          INT64_MAX / 4, INT64_MAX / 4, 2,
                                          1) == -1,
         "overflow");
}

/// Runs an all_reduce on a grid of `gridArg` ("AxB") devices; the runtime is
/// expected to stop with its rank-count error before it runs.
int runOnGrid(const std::string &gridArg) {
  Shape dims;
  for (size_t at = 0; at <= gridArg.size();) {
    size_t x = gridArg.find('x', at);
    dims.push_back(std::stoll(gridArg.substr(at, x - at)));
    at = x == std::string::npos ? gridArg.size() + 1 : x + 1;
  }
  Grid grid{dims, {0}};
  float in[2] = {1, 2}, out[2];
  Memref inRef(in, 0, {2}, {1}), outRef(out, 0, {2}, {1});
  _mlir_ciface_rematCollectiveF32(REMAT_COLL_ALL_REDUCE, REMAT_COLL_SUM, 0, 0,
                                  grid.packedShape(), grid.packedAxes(),
                                  &inRef.ref, &outRef.ref);
  std::printf("the collective ran\n");
  return 0;
}

/// Sets worldSize and worldRank. The harness needs no MPI calls: the runtime
/// starts MPI here.
void startWorld() {
  int64_t world = 0;
  int init = 0;
  MPI_Initialized(&init);
  if (init)
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  else {
    // Ask the runtime with a 1-device grid would abort on more ranks;
    // PMI_SIZE (set by MPICH's launcher) says how many there are.
    const char *size = std::getenv("PMI_SIZE");
    worldSize = size ? std::atoi(size) : 1;
  }
  int64_t dims[] = {worldSize};
  world = remat_pack_grid_shape(dims, 1);
  worldRank = static_cast<int>(rematProcessLinearIndex(world));
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  ++checks;
  if (_mlir_ciface_rematProcessLinearIndex(world) != worldRank)
    fail("_mlir_ciface_rematProcessLinearIndex");
}

/// An all_gather into a result of the wrong shape; the runtime is expected to
/// stop with its shape error before it runs.
int runBadShape() {
  Grid grid{{worldSize}, {0}};
  float in[6] = {}, out[15];
  Memref inRef(in, 0, {3, 2}, {2, 1}), outRef(out, 0, {3, 5}, {5, 1});
  _mlir_ciface_rematCollectiveF32(REMAT_COLL_ALL_GATHER, 0, 1, 0,
                                  grid.packedShape(), grid.packedAxes(),
                                  &inRef.ref, &outRef.ref);
  std::printf("the collective ran\n");
  return 0;
}

/// The grids this many ranks can form, each with the axes its groups span.
std::vector<Grid> gridsToCheck() {
  std::vector<Grid> grids = {{{worldSize}, {0}}, {{worldSize}, {}}};
  if (worldSize == 4)
    for (Shape axes : {Shape{1}, Shape{0}, Shape{1, 0}, Shape{0, 1}, Shape{}})
      grids.push_back({{2, 2}, axes});
  if (worldSize == 2)
    grids.push_back({{1, 2, 1}, {1}});
  return grids;
}

/// Every check on one grid; rank 0 says whether all ranks passed.
void checkGrid(const Grid &grid) {
  int64_t n = static_cast<int64_t>(grid.members(worldRank).size());
  int64_t before = failures;
  checkAllKinds<float>(grid, n);
  checkAllKinds<int64_t>(grid, n);
  check<double>(grid, REMAT_COLL_ALL_REDUCE, REMAT_COLL_SUM, 0, 0, {3, 5},
                false);
  check<double>(grid, REMAT_COLL_ALL_GATHER, 0, 1, 0, {3, 2}, false);
  check<int32_t>(grid, REMAT_COLL_ALL_REDUCE, REMAT_COLL_MAX, 0, 0, {3, 5},
                 true);
  check<int32_t>(grid, REMAT_COLL_REDUCE_SCATTER, REMAT_COLL_SUM, 0, 0,
                 {2 * n, 3}, false);
  checkBitIdentical(grid);
  checkShifts<float>(grid.dims);
  checkShifts<int64_t>(grid.dims);
  int64_t bad = failures - before, total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (worldRank == 0)
    std::printf("%s: %s\n", grid.name().c_str(), total ? "FAILED" : "ok");
}

} // namespace

int main(int argc, char **argv) {
  bool initMpi = false, badShape = false;
  std::string gridArg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--init-mpi")
      initMpi = true;
    else if (a == "--bad-shape")
      badShape = true;
    else if (a == "--grid" && i + 1 < argc)
      gridArg = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--init-mpi] [--grid AxB] [--bad-shape]\n",
                   argv[0]);
      return 2;
    }
  }
  if (initMpi)
    MPI_Init(&argc, &argv);

  if (!gridArg.empty()) // Expected to stop with the rank-count error.
    return runOnGrid(gridArg);

  startWorld();
  if (badShape)
    return runBadShape();

  checkABI();
  for (const Grid &grid : gridsToCheck())
    checkGrid(grid);
  int64_t totalFailures = 0, totalChecks = 0;
  MPI_Allreduce(&failures, &totalFailures, 1, MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  MPI_Allreduce(&checks, &totalChecks, 1, MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  if (worldRank == 0)
    std::printf("collectives self-test on %d ranks: %lld checks, %lld "
                "failures\n",
                worldSize, static_cast<long long>(totalChecks),
                static_cast<long long>(totalFailures));
  std::fflush(stdout);
  if (initMpi)
    MPI_Finalize();
  return totalFailures ? 1 : 0;
}
