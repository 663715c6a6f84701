//===- RematCollectives.cpp - shard collectives over MPICH ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The functions lowered `shard` collectives call (CollectiveABI.h). The data
// moves over point-to-point MPI (ring and pairwise algorithms) rather than
// MPI's collectives, so that every temporary is ours, allocated through
// libRematRuntime and counted like the program's buffers: the memory model
// charges exactly remat_collective_workspace_bytes per call. A ring reduces
// each block once, in one order, and then broadcasts it, so every rank of a
// group gets bit-identical results.
//
// MPI starts on the first call (unless the program started it) and, when
// started here, finishes at exit. One communicator per (grid, grid axes) is
// split on first use and kept.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CollectiveABI.h"
#include "remat/Runtime/RematRuntime.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <sched.h>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

// MLIR's unranked memref as llvm.emit_c_interface passes it; `descriptor`
// points to {T *allocated; T *aligned; int64_t offset; int64_t
// sizes[rank]; int64_t strides[rank]} (CRunnerUtils.h).
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

struct RankedHeader {
  void *allocated;
  void *aligned;
  int64_t offset;
};

// A strided view of elements of `elemBytes` bytes: base is element (0,..,0).
struct View {
  char *base = nullptr;
  int64_t elemBytes = 0;
  std::vector<int64_t> sizes, strides; // strides in elements

  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s; // Bounded: the memref exists.
    return n;
  }
  // Row-major contiguous; strides of dims of size 1 do not matter.
  bool contiguous() const {
    int64_t expected = 1;
    for (int64_t d = rank() - 1; d >= 0; --d) {
      if (sizes[d] != 1 && strides[d] != expected)
        return false;
      expected *= sizes[d];
    }
    return true;
  }
  // Part `index` of `parts` equal parts along `axis`.
  View part(int64_t axis, int64_t index, int64_t parts) const {
    View v = *this;
    v.sizes[axis] /= parts;
    v.base += index * v.sizes[axis] * strides[axis] * elemBytes;
    return v;
  }
  // The same shape over a contiguous buffer.
  View over(void *buffer) const {
    View v = *this;
    v.base = static_cast<char *>(buffer);
    int64_t stride = 1;
    for (int64_t d = rank() - 1; d >= 0; --d) {
      v.strides[d] = stride;
      stride *= sizes[d];
    }
    return v;
  }
};

// "4x8" (a grid); tensorType gives "tensor<4x8xf32>".
std::string shapeString(const std::vector<int64_t> &sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? "x" : "") + std::to_string(sizes[i]);
  return s;
}

std::string tensorType(const std::vector<int64_t> &sizes, const char *type) {
  std::string s = "tensor<";
  for (int64_t d : sizes)
    s += std::to_string(d) + "x";
  return s + type + ">";
}

// Set by fatal: MPI_Abort of a one-process world exits through atexit,
// where finishMpi must not wait for the lock the failing call may hold.
std::atomic<bool> aborting{false};

int worldRank() {
  int init = 0, fin = 0, rank = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// One line on stderr, then the whole job stops. Every rank of an SPMD
// program meets the same error: rank 0 reports it and aborts everyone; the
// others wait for that so the line is printed once, and report it
// themselves only if rank 0 did not (an error of theirs alone).
[[noreturn]] void fatal(const char *fmt, ...) {
  int rank = worldRank();
  if (rank != 0)
    sleep(2);
  va_list args;
  va_start(args, fmt);
  char line[512];
  std::vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  std::fprintf(stderr, "remat: %s\n", line);
  std::fflush(stderr);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  aborting = true;
  if (init && !fin) {
    // MPICH's launcher forwards the ranks' stderr; an abort right after the
    // write sometimes tears it down before the line gets through.
    usleep(500 * 1000);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::_Exit(2);
}

//===----------------------------------------------------------------------===//
// MPI start, finish and communicators
//===----------------------------------------------------------------------===//

struct Group {
  MPI_Comm comm = MPI_COMM_NULL; // MPI_COMM_NULL for a group of one
  int size = 1;
  int index = 0;
  std::string axes; // "[1, 0]", for messages
};

std::mutex &stateMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}

std::map<std::pair<int64_t, int64_t>, Group> &groups() {
  static auto *g = new std::map<std::pair<int64_t, int64_t>, Group>;
  return *g;
}

void finishMpi() {
  if (aborting)
    return;
  std::lock_guard<std::mutex> lock(stateMutex());
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin)
    return;
  for (auto &entry : groups())
    if (entry.second.comm != MPI_COMM_NULL)
      MPI_Comm_free(&entry.second.comm);
  groups().clear();
  MPI_Finalize();
}

// Starts MPI unless the program did (e.g. upstream's mpi.init); then the
// program also finishes it.
void ensureMpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (init) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin)
      fatal("a collective runs after MPI was finalized");
    return;
  }
  MPI_Init(nullptr, nullptr);
  std::atexit(finishMpi);
}

// Checks a packed grid shape against the world; returns its dims.
std::vector<int64_t> gridDims(int64_t gridShape) {
  std::vector<int64_t> dims;
  int64_t n = remat_grid_shape_rank(gridShape);
  for (int64_t i = 0; i < n; ++i)
    dims.push_back(remat_grid_shape_dim(gridShape, i));
  for (int64_t i = n; i < REMAT_COLL_MAX_GRID_RANK; ++i)
    if (remat_grid_shape_dim(gridShape, i) != 0)
      fatal("invalid packed grid shape %#llx (a dim of 0 before a nonzero "
            "one)",
            static_cast<unsigned long long>(gridShape));
  int64_t devices = 1;
  for (int64_t d : dims)
    devices *= d; // At most 65535^4 < 2^64; a world is far smaller.
  int worldSize = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  if (devices != worldSize)
    fatal("the program's device grid %s has %lld devices but it runs on %d "
          "MPI process%s; run it with mpiexec -n %lld",
          dims.empty() ? "1" : shapeString(dims).c_str(),
          static_cast<long long>(devices), worldSize,
          worldSize == 1 ? "" : "es", static_cast<long long>(devices));
  return dims;
}

// The coordinates of device `rank` on a grid of `dims`, numbered row-major.
std::vector<int64_t> coordinatesOf(int64_t rank,
                                   const std::vector<int64_t> &dims) {
  std::vector<int64_t> coords(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    coords[d] = rank % dims[d];
    rank /= dims[d];
  }
  return coords;
}

// This process's group for (gridShape, gridAxes): the ranks sharing its
// coordinates on every other axis, indexed row-major over the coordinates
// on gridAxes in their order. Split on first use; every rank of an SPMD
// program reaches that use at the same point.
const Group &group(int64_t gridShape, int64_t gridAxes) {
  std::lock_guard<std::mutex> lock(stateMutex());
  auto key = std::make_pair(gridShape, gridAxes);
  auto it = groups().find(key);
  if (it != groups().end())
    return it->second;

  std::vector<int64_t> dims = gridDims(gridShape);
  int64_t gridRank = static_cast<int64_t>(dims.size());
  int64_t count = remat_grid_axes_count(gridAxes);
  std::vector<bool> inGroup(gridRank, false);
  Group g;
  g.axes = "[";
  for (int64_t i = 0; i < count; ++i) {
    int64_t a = remat_grid_axis(gridAxes, i);
    g.axes += (i ? ", " : "") + std::to_string(a);
    if (a >= gridRank || inGroup[a])
      fatal("invalid grid axes (packed %#llx) for the grid %s: axis %lld %s",
            static_cast<unsigned long long>(gridAxes),
            shapeString(dims).c_str(), static_cast<long long>(a),
            a >= gridRank ? "is not in the grid" : "is repeated");
    inGroup[a] = true;
  }
  g.axes += "]";
  if (gridAxes != 0 && ((static_cast<uint64_t>(gridAxes) >> (4 * count)) != 0))
    fatal("invalid packed grid axes %#llx (an axis after the end)",
          static_cast<unsigned long long>(gridAxes));

  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int64_t> coords = coordinatesOf(rank, dims);
  int64_t color = 0, index = 0, size = 1;
  for (int64_t d = 0; d < gridRank; ++d)
    if (!inGroup[d])
      color = color * dims[d] + coords[d];
  for (int64_t i = 0; i < count; ++i) {
    int64_t a = remat_grid_axis(gridAxes, i);
    index = index * dims[a] + coords[a];
    size *= dims[a];
  }
  g.size = static_cast<int>(size);
  g.index = static_cast<int>(index);
  if (size > 1)
    MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(color),
                   static_cast<int>(index), &g.comm);
  return groups().emplace(key, g).first->second;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// Sends `sendBytes` at `send` to `dest` while receiving `recvBytes` into
// `recv` from `source`, in the group's communicator.
void exchange(const Group &g, const void *send, int64_t sendBytes, int dest,
              void *recv, int64_t recvBytes, int source) {
#if MPI_VERSION >= 4 // Large counts (MPICH 4).
  int rc = MPI_Sendrecv_c(send, static_cast<MPI_Count>(sendBytes), MPI_BYTE,
                          dest, 0, recv, static_cast<MPI_Count>(recvBytes),
                          MPI_BYTE, source, 0, g.comm, MPI_STATUS_IGNORE);
#else
  if (sendBytes > INT32_MAX || recvBytes > INT32_MAX)
    fatal("a message of more than 2 GiB needs MPI 4 (MPICH 4)");
  int rc = MPI_Sendrecv(send, static_cast<int>(sendBytes), MPI_BYTE, dest, 0,
                        recv, static_cast<int>(recvBytes), MPI_BYTE, source,
                        0, g.comm, MPI_STATUS_IGNORE);
#endif
  if (rc != MPI_SUCCESS)
    fatal("MPI_Sendrecv failed (error %d)", rc);
}

// Calls f(dstRow, srcRow, n) for every innermost row of two views of one
// shape, in row-major order; rows are of n elements at the views' innermost
// strides (rank 0: one row of one element).
template <typename F> void forEachRow(const View &dst, const View &src, F f) {
  int64_t rank = dst.rank();
  if (rank == 0) {
    f(dst.base, src.base, int64_t{1});
    return;
  }
  int64_t inner = dst.sizes[rank - 1];
  for (int64_t s : dst.sizes)
    if (s == 0)
      return;
  std::vector<int64_t> idx(rank - 1, 0);
  while (true) {
    int64_t dOff = 0, sOff = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      dOff += idx[d] * dst.strides[d];
      sOff += idx[d] * src.strides[d];
    }
    f(dst.base + dOff * dst.elemBytes, src.base + sOff * src.elemBytes, inner);
    int64_t d = rank - 2;
    while (d >= 0 && ++idx[d] == dst.sizes[d])
      idx[d--] = 0;
    if (d < 0)
      return;
  }
}

// dst = src, two views of one shape.
void transfer(const View &dst, const View &src) {
  int64_t e = dst.elemBytes;
  if (dst.contiguous() && src.contiguous()) {
    if (dst.base != src.base)
      std::memcpy(dst.base, src.base, dst.elements() * e);
    return;
  }
  int64_t ds = dst.rank() ? dst.strides.back() : 1;
  int64_t ss = src.rank() ? src.strides.back() : 1;
  forEachRow(dst, src, [&](char *d, char *s, int64_t n) {
    if (ds == 1 && ss == 1) {
      std::memcpy(d, s, n * e);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(d + i * ds * e, s + i * ss * e, e);
  });
}

// Integer sums and products wrap (two's complement), as MLIR's arith does.
template <typename T> T combine(int64_t reduction, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (reduction == REMAT_COLL_SUM)
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if (reduction == REMAT_COLL_PRODUCT)
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    if (reduction == REMAT_COLL_SUM)
      return a + b;
    if (reduction == REMAT_COLL_PRODUCT)
      return a * b;
  }
  if (reduction == REMAT_COLL_MAX)
    return b > a ? b : a;
  return b < a ? b : a; // REMAT_COLL_MIN
}

// acc[i] = combine(local[i], received[i]) over the elements of `local` (a
// view) in row-major order; acc and received are contiguous.
template <typename T>
void reduceInto(int64_t reduction, T *acc, const View &local,
                const T *received) {
  View accView = local.over(acc);
  int64_t ls = local.rank() ? local.strides.back() : 1;
  forEachRow(accView, local, [&](char *a, char *l, int64_t n) {
    T *out = reinterpret_cast<T *>(a);
    const T *in = reinterpret_cast<const T *>(l);
    const T *rcv = received + (out - acc);
    for (int64_t i = 0; i < n; ++i)
      out[i] = combine<T>(reduction, in[i * ls], rcv[i]);
  });
}

// One allocation of the call's workspace through libRematRuntime, rounded up
// as REMAT_COLL_WORKSPACE_ALIGNMENT says.
class Workspace {
public:
  explicit Workspace(int64_t bytes) {
    if (bytes < 0)
      fatal("collective workspace size overflows");
    if (bytes == 0)
      return;
    const int64_t align = REMAT_COLL_WORKSPACE_ALIGNMENT;
    int64_t rounded;
    if (__builtin_add_overflow(bytes, align - 1, &rounded))
      fatal("collective workspace size overflows");
    rounded -= rounded % align;
    data = static_cast<char *>(_mlir_memref_to_llvm_aligned_alloc(
        align, static_cast<size_t>(rounded)));
    if (!data)
      fatal("cannot allocate %lld bytes of collective workspace",
            static_cast<long long>(rounded));
  }
  ~Workspace() {
    if (data)
      _mlir_memref_to_llvm_free(data);
  }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  char *data = nullptr;
};

View viewOf(UnrankedMemRef *m, int64_t elemBytes, const char *what) {
  if (!m || !m->descriptor || m->rank < 0)
    fatal("collective called with an invalid %s memref", what);
  auto *header = static_cast<RankedHeader *>(m->descriptor);
  const int64_t *sizes = reinterpret_cast<const int64_t *>(header + 1);
  View v;
  v.elemBytes = elemBytes;
  v.sizes.assign(sizes, sizes + m->rank);
  v.strides.assign(sizes + m->rank, sizes + 2 * m->rank);
  v.base = static_cast<char *>(header->aligned) + header->offset * elemBytes;
  return v;
}

const char *kindName(int64_t kind) {
  switch (kind) {
  case REMAT_COLL_ALL_REDUCE:
    return "all_reduce";
  case REMAT_COLL_ALL_GATHER:
    return "all_gather";
  case REMAT_COLL_REDUCE_SCATTER:
    return "reduce_scatter";
  case REMAT_COLL_ALL_SLICE:
    return "all_slice";
  case REMAT_COLL_ALL_TO_ALL:
    return "all_to_all";
  }
  return nullptr;
}

// The result shape the op gives for `in` on a group of n, or why none.
bool expectedShape(int64_t kind, const View &in, int64_t axis, int64_t axis2,
                   int64_t n, std::vector<int64_t> &shape) {
  shape = in.sizes;
  int64_t rank = in.rank();
  if (kind == REMAT_COLL_ALL_REDUCE)
    return true;
  if (axis < 0 || axis >= rank)
    return false;
  if (kind == REMAT_COLL_ALL_GATHER) {
    return !__builtin_mul_overflow(shape[axis], n, &shape[axis]);
  }
  if (shape[axis] % n != 0)
    return false;
  shape[axis] /= n;
  if (kind == REMAT_COLL_ALL_TO_ALL) {
    if (axis2 < 0 || axis2 >= rank)
      return false;
    return !__builtin_mul_overflow(shape[axis2], n, &shape[axis2]);
  }
  return true;
}

/// The op's name for messages, once its kind and reduction codes are known.
const char *checkCodes(int64_t kind, int64_t reduction) {
  const char *name = kindName(kind);
  if (!name)
    fatal("unknown collective kind %lld", static_cast<long long>(kind));
  bool reduces =
      kind == REMAT_COLL_ALL_REDUCE || kind == REMAT_COLL_REDUCE_SCATTER;
  if (reduces && (reduction < REMAT_COLL_SUM || reduction > REMAT_COLL_PRODUCT))
    fatal("%s: unknown reduction code %lld", name,
          static_cast<long long>(reduction));
  return name;
}

/// Stops unless `out` is the contiguous result the op gives for `in`.
void checkShapes(const char *name, int64_t kind, int64_t axis, int64_t axis2,
                 const Group &g, const View &in, const View &out,
                 const char *type) {
  std::vector<int64_t> shape;
  if (kind != REMAT_COLL_ALL_REDUCE && in.rank() == 0)
    fatal("%s of a %s: the op needs a tensor of rank 1 or more", name,
          tensorType(in.sizes, type).c_str());
  if (in.rank() != out.rank() ||
      !expectedShape(kind, in, axis, axis2, g.size, shape) ||
      shape != out.sizes)
    fatal("%s on grid axes %s (a group of %d) with axis %lld%s of a %s "
          "cannot give a %s",
          name, g.axes.c_str(), g.size, static_cast<long long>(axis),
          kind == REMAT_COLL_ALL_TO_ALL
              ? (" and concat axis " + std::to_string(axis2)).c_str()
              : "",
          tensorType(in.sizes, type).c_str(),
          tensorType(out.sizes, type).c_str());
  if (!out.contiguous())
    fatal("%s: the result buffer (%s) is not contiguous row-major", name,
          tensorType(out.sizes, type).c_str());
}

/// This rank's place on a ring of n: its index and its two neighbours.
struct Ring {
  const Group &g;
  int n, k, right, left;
  explicit Ring(const Group &g)
      : g(g), n(g.size), k(g.index), right(mod(k + 1)), left(mod(k - 1)) {}
  int mod(int64_t x) const { return static_cast<int>(((x % n) + n) % n); }
};

/// Ring reduce-scatter of n flat chunks of `out`, then ring all-gather.
template <typename T>
void ringAllReduce(const Ring &ring, int64_t reduction, const View &in,
                   const View &out, const Workspace &ws) {
  const int n = ring.n, k = ring.k;
  const int64_t e = sizeof(T);
  transfer(out, in);
  int64_t count = out.elements(), chunk = count / n + (count % n != 0);
  T *data = reinterpret_cast<T *>(out.base);
  T *received = reinterpret_cast<T *>(ws.data);
  auto begin = [&](int c) { return std::min<int64_t>(count, c * chunk); };
  auto length = [&](int c) { return begin(c + 1) - begin(c); };
  for (int t = 0; t + 1 < n; ++t) {
    int s = ring.mod(k - t - 1), r = ring.mod(k - t - 2);
    exchange(ring.g, data + begin(s), length(s) * e, ring.right, received,
             length(r) * e, ring.left);
    T *acc = data + begin(r);
    for (int64_t i = 0; i < length(r); ++i)
      acc[i] = combine<T>(reduction, acc[i], received[i]);
  }
  for (int t = 0; t + 1 < n; ++t) {
    int s = ring.mod(k - t), r = ring.mod(k - t - 1);
    exchange(ring.g, data + begin(s), length(s) * e, ring.right,
             data + begin(r), length(r) * e, ring.left);
  }
}

/// `out` carries the partial reduction of block k-t-1 at step t; after n-1
/// steps, of block k.
template <typename T>
void ringReduceScatter(const Ring &ring, int64_t reduction, int64_t axis,
                       const View &in, const View &out, const Workspace &ws) {
  const int n = ring.n, k = ring.k;
  T *acc = reinterpret_cast<T *>(out.base);
  T *received = reinterpret_cast<T *>(ws.data);
  int64_t bytes = out.elements() * static_cast<int64_t>(sizeof(T));
  transfer(out, in.part(axis, ring.mod(k - 1), n));
  for (int t = 0; t + 1 < n; ++t) {
    int r = ring.mod(k - t - 2);
    exchange(ring.g, acc, bytes, ring.right, received, bytes, ring.left);
    reduceInto<T>(reduction, acc, in.part(axis, r, n), received);
  }
}

/// Block j of `out` is rank j's input; a ring passes them on.
void ringAllGather(const Ring &ring, int64_t axis, int contiguousBlocks,
                   int64_t e, const View &in, const View &out,
                   const Workspace &ws) {
  const int n = ring.n, k = ring.k;
  int64_t bytes = in.elements() * e;
  transfer(out.part(axis, k, n), in);
  if (contiguousBlocks) {
    for (int t = 0; t + 1 < n; ++t) {
      int s = ring.mod(k - t), r = ring.mod(k - t - 1);
      exchange(ring.g, out.part(axis, s, n).base, bytes, ring.right,
               out.part(axis, r, n).base, bytes, ring.left);
    }
    return;
  }
  // Strided blocks: send the block received last, from one half of the
  // workspace, while receiving into the other.
  char *sendBuf = ws.data, *recvBuf = ws.data + bytes;
  transfer(in.over(sendBuf), in);
  for (int t = 0; t + 1 < n; ++t) {
    int r = ring.mod(k - t - 1);
    exchange(ring.g, sendBuf, bytes, ring.right, recvBuf, bytes, ring.left);
    transfer(out.part(axis, r, n), in.over(recvBuf));
    std::swap(sendBuf, recvBuf);
  }
}

/// Piece j of the input along `axis` goes to rank j; what rank j sends lands
/// in block j of `out` along `axis2`. Pairwise: at step t, to k+t and from
/// k-t.
void pairwiseAllToAll(const Ring &ring, int64_t axis, int64_t axis2,
                      int contiguousBlocks, int64_t e, const View &in,
                      const View &out, const Workspace &ws) {
  const int n = ring.n, k = ring.k;
  View piece = in.part(axis, 0, n);
  int64_t bytes = piece.elements() * e;
  transfer(out.part(axis2, k, n), in.part(axis, k, n));
  for (int t = 1; t < n; ++t) {
    int to = ring.mod(k + t), from = ring.mod(k - t);
    if (contiguousBlocks) {
      exchange(ring.g, in.part(axis, to, n).base, bytes, to,
               out.part(axis2, from, n).base, bytes, from);
      continue;
    }
    char *sendBuf = ws.data, *recvBuf = ws.data + bytes;
    transfer(piece.over(sendBuf), in.part(axis, to, n));
    exchange(ring.g, sendBuf, bytes, to, recvBuf, bytes, from);
    transfer(out.part(axis2, from, n), piece.over(recvBuf));
  }
}

template <typename T>
void collective(int64_t kind, int64_t reduction, int64_t axis, int64_t axis2,
                int64_t gridShape, int64_t gridAxes, UnrankedMemRef *inRef,
                UnrankedMemRef *outRef, const char *type) {
  ensureMpi();
  const char *name = checkCodes(kind, reduction);
  const Group &g = group(gridShape, gridAxes);
  const int64_t e = sizeof(T);
  View in = viewOf(inRef, e, "input");
  View out = viewOf(outRef, e, "result");
  checkShapes(name, kind, axis, axis2, g, in, out, type);

  if (g.size == 1) { // No other rank: every kind is a copy.
    transfer(out, in);
    return;
  }
  int contiguousBlocks = remat_collective_blocks_contiguous(
      kind, in.rank(), in.sizes.data(), out.sizes.data(), axis, axis2,
      in.contiguous());
  Workspace ws(remat_collective_workspace_bytes(
      kind, e, in.elements(), out.elements(), g.size, contiguousBlocks));
  Ring ring(g);

  switch (kind) {
  case REMAT_COLL_ALL_REDUCE:
    return ringAllReduce<T>(ring, reduction, in, out, ws);
  case REMAT_COLL_REDUCE_SCATTER:
    return ringReduceScatter<T>(ring, reduction, axis, in, out, ws);
  case REMAT_COLL_ALL_GATHER:
    return ringAllGather(ring, axis, contiguousBlocks, e, in, out, ws);
  case REMAT_COLL_ALL_SLICE:
    transfer(out, in.part(axis, ring.k, ring.n));
    return;
  case REMAT_COLL_ALL_TO_ALL:
    return pairwiseAllToAll(ring, axis, axis2, contiguousBlocks, e, in, out,
                            ws);
  }
}

// Whether a shift by `offset` on a group of n moves data: some device has a
// partner. Then `dest` and `source` are this device's (MPI_PROC_NULL where
// there is none).
bool shiftPartners(int64_t offset, bool rotate, int n, int k, int &dest,
                   int &source) {
  dest = source = MPI_PROC_NULL;
  if (n == 1)
    return false;
  if (rotate) {
    int64_t s = ((offset % n) + n) % n;
    if (s == 0)
      return false;
    dest = static_cast<int>((k + s) % n);
    source = static_cast<int>((k - s + n) % n);
    return true;
  }
  if (offset == 0 || offset <= -n || offset >= n)
    return false;
  int64_t to = k + offset, from = k - offset; // |offset| < n: no overflow.
  if (to >= 0 && to < n)
    dest = static_cast<int>(to);
  if (from >= 0 && from < n)
    source = static_cast<int>(from);
  return true;
}

template <typename T>
void shift(int64_t offset, int64_t rotate, int64_t gridShape,
           int64_t shiftAxis, UnrankedMemRef *inRef, UnrankedMemRef *outRef,
           const char *type) {
  ensureMpi();
  if (rotate != 0 && rotate != 1)
    fatal("shift: rotate must be 0 or 1, not %lld",
          static_cast<long long>(rotate));
  int64_t axes = remat_pack_grid_axes(&shiftAxis, 1);
  if (axes < 0)
    fatal("shift: invalid shift axis %lld", static_cast<long long>(shiftAxis));
  // The devices that differ only on the shift axis, indexed along it.
  const Group &g = group(gridShape, axes);
  const int64_t e = sizeof(T);
  View in = viewOf(inRef, e, "input");
  View out = viewOf(outRef, e, "result");
  if (in.sizes != out.sizes)
    fatal("shift of a %s cannot give a %s (it keeps the shape)",
          tensorType(in.sizes, type).c_str(),
          tensorType(out.sizes, type).c_str());
  if (!out.contiguous())
    fatal("shift: the result buffer (%s) is not contiguous row-major",
          tensorType(out.sizes, type).c_str());
  int dest, source;
  if (!shiftPartners(offset, rotate, g.size, g.index, dest, source)) {
    if (rotate || offset == 0) // Every device keeps its own.
      transfer(out, in);
    else // Past the group: no device has a source.
      std::memset(out.base, 0, out.elements() * e);
    return;
  }
  int contiguous = remat_collective_blocks_contiguous(
      REMAT_COLL_SHIFT, in.rank(), in.sizes.data(), out.sizes.data(), 0, 0,
      in.contiguous());
  Workspace ws(remat_collective_workspace_bytes(
      REMAT_COLL_SHIFT, e, in.elements(), out.elements(), g.size, contiguous));
  const char *send = in.base;
  if (!contiguous && dest != MPI_PROC_NULL) {
    transfer(in.over(ws.data), in);
    send = ws.data;
  }
  int64_t bytes = in.elements() * e;
  // One paired call on every device of the group: no send waits for a
  // receive that comes later, whatever the order of the devices.
  exchange(g, send, dest == MPI_PROC_NULL ? 0 : bytes, dest, out.base,
           source == MPI_PROC_NULL ? 0 : bytes, source);
  if (source == MPI_PROC_NULL) // Upstream: undefined; here zeros.
    std::memset(out.base, 0, bytes);
}

//===----------------------------------------------------------------------===//
// Point-to-point: shard.send and shard.recv
//===----------------------------------------------------------------------===//

// Apart from the collectives' tag 0, so that a message still in flight
// never matches a ring step.
constexpr int kPointToPointTag = 1;

double secondsNow() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// How long a send or receive may wait for its partner: REMAT_P2P_TIMEOUT_S,
// default 120 s. A program whose ranks wait on each other, or a send whose
// partner never receives, stops with an error instead of hanging.
double pointToPointTimeout() {
  static const double seconds = [] {
    const char *env = std::getenv("REMAT_P2P_TIMEOUT_S");
    double v = env ? std::atof(env) : 0;
    return v > 0 ? v : 120.0;
  }();
  return seconds;
}

// A send's or receive's partner: its rank in MPI_COMM_WORLD and, for
// messages, the grid axes. No communicator is split: that would be a
// collective call, and a point-to-point op runs on its two partners only.
struct Partner {
  int worldRank = 0;
  int self = 0;          // This device's index in the group.
  int64_t groupSize = 1;
  std::string axes;      // "[0]"
};

Partner partnerOf(const char *what, const char *tensor, int64_t gridShape,
                  int64_t gridAxes, int64_t peer) {
  std::vector<int64_t> dims;
  {
    std::lock_guard<std::mutex> lock(stateMutex());
    dims = gridDims(gridShape);
  }
  int64_t gridRank = static_cast<int64_t>(dims.size());
  int64_t count = remat_grid_axes_count(gridAxes);
  Partner p;
  p.axes = "[";
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < count; ++i) {
    int64_t a = remat_grid_axis(gridAxes, i);
    if (a < 0 || a >= gridRank || std::count(axes.begin(), axes.end(), a))
      fatal("shard.%s: invalid grid axes (packed %#llx) for the grid %s", what,
            static_cast<unsigned long long>(gridAxes),
            shapeString(dims).c_str());
    axes.push_back(a);
    p.axes += (i ? ", " : "") + std::to_string(a);
    p.groupSize *= dims[a];
  }
  p.axes += "]";
  int rank = worldRank();
  std::vector<int64_t> coords = coordinatesOf(rank, dims);
  int64_t self = 0;
  for (int64_t a : axes)
    self = self * dims[a] + coords[a];
  p.self = static_cast<int>(self);
  if (peer < 0 || peer >= p.groupSize)
    fatal("rank %d: shard.%s of a %s names device %lld of grid axes %s, "
          "which has %lld device%s",
          rank, what, tensor, static_cast<long long>(peer), p.axes.c_str(),
          static_cast<long long>(p.groupSize), p.groupSize == 1 ? "" : "s");
  if (peer == self)
    fatal("rank %d: shard.%s of a %s names its own device (%lld of grid axes "
          "%s): it would wait for itself",
          rank, what, tensor, static_cast<long long>(peer), p.axes.c_str());
  // The peer's coordinates on the axes (row-major over them), the others
  // this device's.
  for (int64_t i = count - 1, q = peer; i >= 0; --i) {
    coords[axes[i]] = q % dims[axes[i]];
    q /= dims[axes[i]];
  }
  int64_t world = 0;
  for (int64_t d = 0; d < gridRank; ++d)
    world = world * dims[d] + coords[d];
  p.worldRank = static_cast<int>(world);
  return p;
}

[[noreturn]] void partnerNeverCame(const char *what, const char *type,
                                   int64_t peer, const Partner &p) {
  bool send = std::strcmp(what, "send") == 0;
  fatal("rank %d: shard.%s of a %s %s device %lld of grid axes %s did not "
        "complete within %g s: its partner never runs the matching shard.%s, "
        "or the ranks wait on each other (a send completes when its partner "
        "receives: order each pair of neighbours so that one receives first, "
        "docs/distributed.md); REMAT_P2P_TIMEOUT_S sets the wait",
        worldRank(), what, type, send ? "to" : "from",
        static_cast<long long>(peer), p.axes.c_str(), pointToPointTimeout(),
        send ? "recv" : "send");
}

// shard.send (isSend) or shard.recv of `ref` to or from the device `peer` of
// this device's group along `gridAxes`, over MPI_COMM_WORLD with a tag of
// its own. A send completes when its partner has received (synchronous
// mode: a program that works only because MPI buffered a small message
// would hang at a larger size; this one fails the same way at every size),
// so nothing of it outlives the call.
template <typename T>
void pointToPoint(bool isSend, int64_t gridShape, int64_t gridAxes,
                  int64_t peer, UnrankedMemRef *ref, const char *type) {
  const char *what = isSend ? "send" : "recv";
  ensureMpi();
  const int64_t e = sizeof(T);
  View v = viewOf(ref, e, isSend ? "input" : "result");
  std::string tensor = tensorType(v.sizes, type);
  const Partner who = partnerOf(what, tensor.c_str(), gridShape, gridAxes, peer);
  int64_t bytes = v.elements() * e;
  if (bytes > INT32_MAX)
    fatal("shard.%s of a %s: messages of more than 2 GiB are not supported",
          what, tensor.c_str());
  if (!isSend && !v.contiguous())
    fatal("shard.recv: the result buffer (%s) is not contiguous row-major",
          tensor.c_str());
  // A strided input is packed first (the memory model charges it, as for a
  // shift's).
  Workspace ws(isSend && !v.contiguous() ? bytes : 0);
  char *data = v.base;
  if (ws.data) {
    transfer(v.over(ws.data), v);
    data = ws.data;
  }
  const int partner = who.worldRank;
  const double deadline = secondsNow() + pointToPointTimeout();
  if (!isSend) {
    // Probe first: a message of another size is an error of the program,
    // not MPI's truncation abort.
    for (int arrived = 0; !arrived;) {
      MPI_Status status;
      MPI_Iprobe(partner, kPointToPointTag, MPI_COMM_WORLD, &arrived,
                 &status);
      if (arrived) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        if (count != bytes)
          fatal("rank %d: shard.recv of a %s (%lld bytes) from device %lld "
                "of grid axes %s got a message of %d bytes: the send and "
                "the recv disagree on the tensor",
                worldRank(), tensor.c_str(), static_cast<long long>(bytes),
                static_cast<long long>(peer), who.axes.c_str(), count);
        break;
      }
      if (secondsNow() > deadline)
        partnerNeverCame(what, tensor.c_str(), peer, who);
      sched_yield();
    }
    MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, partner,
             kPointToPointTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Request request;
  MPI_Issend(data, static_cast<int>(bytes), MPI_BYTE, partner,
             kPointToPointTag, MPI_COMM_WORLD, &request);
  for (int done = 0; !done;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done)
      break;
    if (secondsNow() > deadline)
      partnerNeverCame(what, tensor.c_str(), peer, who);
    sched_yield();
  }
}

} // namespace

#define REMAT_COLLECTIVE(SUFFIX, T, NAME)                                      \
  REMAT_RUNTIME_EXPORT void _mlir_ciface_rematCollective##SUFFIX(             \
      int64_t kind, int64_t reduction, int64_t axis, int64_t axis2,            \
      int64_t gridShape, int64_t gridAxes, UnrankedMemRef *in,                 \
      UnrankedMemRef *out) {                                                   \
    collective<T>(kind, reduction, axis, axis2, gridShape, gridAxes, in, out,  \
                  NAME);                                                       \
  }

#define REMAT_SHIFT(SUFFIX, T, NAME)                                           \
  REMAT_RUNTIME_EXPORT void _mlir_ciface_rematShift##SUFFIX(                  \
      int64_t offset, int64_t rotate, int64_t gridShape, int64_t shiftAxis,    \
      UnrankedMemRef *in, UnrankedMemRef *out) {                               \
    shift<T>(offset, rotate, gridShape, shiftAxis, in, out, NAME);             \
  }

#define REMAT_POINT_TO_POINT(SUFFIX, T, NAME)                                  \
  REMAT_RUNTIME_EXPORT void _mlir_ciface_rematSend##SUFFIX(                   \
      int64_t gridShape, int64_t gridAxes, int64_t peer, UnrankedMemRef *in) { \
    pointToPoint<T>(true, gridShape, gridAxes, peer, in, NAME);                \
  }                                                                            \
  REMAT_RUNTIME_EXPORT void _mlir_ciface_rematRecv##SUFFIX(                   \
      int64_t gridShape, int64_t gridAxes, int64_t peer,                       \
      UnrankedMemRef *out) {                                                   \
    pointToPoint<T>(false, gridShape, gridAxes, peer, out, NAME);              \
  }

extern "C" {
REMAT_COLLECTIVE(F32, float, "f32")
REMAT_COLLECTIVE(F64, double, "f64")
REMAT_COLLECTIVE(I32, int32_t, "i32")
REMAT_COLLECTIVE(I64, int64_t, "i64")
REMAT_SHIFT(F32, float, "f32")
REMAT_SHIFT(F64, double, "f64")
REMAT_SHIFT(I32, int32_t, "i32")
REMAT_SHIFT(I64, int64_t, "i64")
REMAT_POINT_TO_POINT(F32, float, "f32")
REMAT_POINT_TO_POINT(F64, double, "f64")
REMAT_POINT_TO_POINT(I32, int32_t, "i32")
REMAT_POINT_TO_POINT(I64, int64_t, "i64")

REMAT_RUNTIME_EXPORT int64_t rematProcessLinearIndex(int64_t gridShape) {
  ensureMpi();
  {
    std::lock_guard<std::mutex> lock(stateMutex());
    gridDims(gridShape);
  }
  return worldRank();
}

// The same under the name llvm.emit_c_interface gives its callers (a
// function of scalars keeps its signature).
REMAT_RUNTIME_EXPORT int64_t
_mlir_ciface_rematProcessLinearIndex(int64_t gridShape) {
  return rematProcessLinearIndex(gridShape);
}

// Starts MPI for a function that calls it through upstream's mpi dialect
// (-remat-lower-mpi calls this first where the program has no mpi.init):
// as for collectives, MPI is finished at exit.
REMAT_RUNTIME_EXPORT void rematStartMpi() { ensureMpi(); }
} // extern "C"
