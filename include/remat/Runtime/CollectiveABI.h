/*===- CollectiveABI.h - Encoding of remat's collective calls ------*- C -*-===//
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The one home of what the lowering of `shard` collectives (C++ pass) and
 * libRematMpiRuntime (runtime/RematCollectives.cpp) must agree on: the codes
 * of the kinds and reductions, how a grid's shape and a collective's grid
 * axes are packed into one i64 each, and the bytes of temporaries one call
 * allocates, which the memory model charges so that the planner's peak is the
 * measured one. Plain C (C99 and C++), no MLIR.
 *
 * The entry points (RematCollectives.cpp), for T in F32 F64 I32 I64:
 *
 *   void _mlir_ciface_rematCollective<T>(int64_t kind, int64_t reduction,
 *       int64_t axis, int64_t axis2, int64_t gridShape, int64_t gridAxes,
 *       UnrankedMemRef *in, UnrankedMemRef *out);
 *   void _mlir_ciface_rematShift<T>(int64_t offset, int64_t rotate,
 *       int64_t gridShape, int64_t shiftAxis, UnrankedMemRef *in,
 *       UnrankedMemRef *out);
 *   void _mlir_ciface_rematSend<T>(int64_t gridShape, int64_t gridAxes,
 *       int64_t peer, UnrankedMemRef *in);
 *   void _mlir_ciface_rematRecv<T>(int64_t gridShape, int64_t gridAxes,
 *       int64_t peer, UnrankedMemRef *out);
 *   int64_t rematProcessLinearIndex(int64_t gridShape);
 *       (also exported as _mlir_ciface_rematProcessLinearIndex, for a
 *       declaration with llvm.emit_c_interface)
 *
 * `axis` is gather_axis / scatter_axis / slice_axis / split_axis, `axis2`
 * concat_axis for all_to_all (else 0). `in` and `out` are unranked memrefs as
 * `llvm.emit_c_interface` passes them; `out` is allocated by the caller with
 * the result's shape, contiguous row-major, and does not alias `in`; `in`
 * may be strided. Input and result have the same element type (an
 * all_reduce that widens converts before the call).
 *
 * rematShift is `shard.shift`: the devices that differ only in their
 * coordinate c on grid axis `shiftAxis` pass `in` on by `offset` (signed):
 * the device at c sends to c + offset and receives `out` from c - offset
 * (np.roll's direction; upstream's example is symmetric and does not say).
 * With `rotate` (0 or 1) coordinates wrap modulo the axis' size; without
 * it a device with no source gets zeros (upstream leaves it undefined) and
 * one with no destination sends nothing. `in` and `out` have one shape.
 *
 * rematSend and rematRecv are `shard.send` and `shard.recv`: `peer` is the
 * partner's index in this device's group along `gridAxes` (row-major over
 * the coordinates on those axes, as the ops' destination and source
 * multi-indexes say). A send completes when the partner has received (MPI
 * synchronous mode) and allocates nothing when `in` is contiguous (else
 * one packed copy of it, as a shift); a receive writes `out`, allocated by
 * the caller. Either stops the job with an error after REMAT_P2P_TIMEOUT_S
 * seconds (default 120) without its partner.
 *===----------------------------------------------------------------------===*/
#ifndef REMAT_RUNTIME_COLLECTIVEABI_H
#define REMAT_RUNTIME_COLLECTIVEABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds: the upstream shard ops of the same names. */
#define REMAT_COLL_ALL_REDUCE 0
#define REMAT_COLL_ALL_GATHER 1
#define REMAT_COLL_REDUCE_SCATTER 2
#define REMAT_COLL_ALL_SLICE 3
#define REMAT_COLL_ALL_TO_ALL 4
#define REMAT_COLL_SHIFT 5 /* rematShift, priced as a kind like the others */

/* Reductions: mlir::shard::ReductionKind's Sum, Max, Min, Product, whose
 * values there are 1, 2, 3, 4 (ours = upstream - 1). Average, the bitwise
 * kinds and Generic are not supported. */
#define REMAT_COLL_SUM 0
#define REMAT_COLL_MAX 1
#define REMAT_COLL_MIN 2
#define REMAT_COLL_PRODUCT 3

/* Every temporary of a call is one allocation of the workspace bytes rounded
 * up to this, through _mlir_memref_to_llvm_aligned_alloc (whatever alignment
 * the lowering of the program's own buffers uses). */
#define REMAT_COLL_WORKSPACE_ALIGNMENT 64

#define REMAT_COLL_MAX_GRID_RANK 4

/* Grid shape: dims d0..d3, each 1..65535, packed d0 | d1<<16 | d2<<32 |
 * d3<<48; absent trailing dims are 0 (0 itself: a grid of one device).
 * Returns -1 when a dim is out of range or there are more than 4. */
static inline int64_t remat_pack_grid_shape(const int64_t *dims, int64_t n) {
  uint64_t packed = 0;
  int64_t i;
  if (n < 0 || n > REMAT_COLL_MAX_GRID_RANK)
    return -1;
  for (i = 0; i < n; ++i) {
    if (dims[i] < 1 || dims[i] > 65535)
      return -1;
    packed |= (uint64_t)dims[i] << (16 * i);
  }
  return (int64_t)packed;
}

/* Dim i of a packed grid shape (0 when absent). */
static inline int64_t remat_grid_shape_dim(int64_t packed, int64_t i) {
  if (i < 0 || i >= REMAT_COLL_MAX_GRID_RANK)
    return 0;
  return (int64_t)(((uint64_t)packed >> (16 * i)) & 0xffff);
}

/* Number of dims: those before the first absent one. */
static inline int64_t remat_grid_shape_rank(int64_t packed) {
  int64_t n = 0;
  while (n < REMAT_COLL_MAX_GRID_RANK && remat_grid_shape_dim(packed, n) != 0)
    ++n;
  return n;
}

/* Grid axes: an ordered list of up to 4 axes, each a nibble holding axis+1,
 * the first axis in the lowest nibble; a 0 nibble ends the list (0: no axes,
 * every device is a group of its own). Returns -1 when an axis is not in
 * 0..14 or there are more than 4. */
static inline int64_t remat_pack_grid_axes(const int64_t *axes, int64_t n) {
  uint64_t packed = 0;
  int64_t i;
  if (n < 0 || n > REMAT_COLL_MAX_GRID_RANK)
    return -1;
  for (i = 0; i < n; ++i) {
    if (axes[i] < 0 || axes[i] > 14)
      return -1;
    packed |= (uint64_t)(axes[i] + 1) << (4 * i);
  }
  return (int64_t)packed;
}

/* Number of axes in a packed list. */
static inline int64_t remat_grid_axes_count(int64_t packed) {
  int64_t n = 0;
  while (n < REMAT_COLL_MAX_GRID_RANK &&
         (((uint64_t)packed >> (4 * n)) & 0xf) != 0)
    ++n;
  return n;
}

/* Axis i of a packed list (-1 when absent). */
static inline int64_t remat_grid_axis(int64_t packed, int64_t i) {
  if (i < 0 || i >= REMAT_COLL_MAX_GRID_RANK)
    return -1;
  return (int64_t)(((uint64_t)packed >> (4 * i)) & 0xf) - 1;
}

/* Whether a call moves its blocks without packing them (the
 * `contiguousBlocks` argument below), from the shapes of `in` and `out`
 * (rank dims each) and whether `in` is contiguous row-major:
 * - all_gather: the blocks of `out` along `axis` are contiguous (every dim
 *   of `out` before `axis` is 1);
 * - all_to_all: `in` is contiguous, every dim of `in` before `axis`
 *   (split) and every dim of `out` before `axis2` (concat) is 1;
 * - shift: `in` is contiguous (it is sent as it is);
 * - the other kinds never pack: 1. */
static inline int remat_collective_blocks_contiguous(
    int64_t kind, int64_t rank, const int64_t *inSizes,
    const int64_t *outSizes, int64_t axis, int64_t axis2,
    int inputContiguous) {
  int64_t i;
  if (kind == REMAT_COLL_ALL_GATHER) {
    for (i = 0; i < axis && i < rank; ++i)
      if (outSizes[i] != 1)
        return 0;
    return 1;
  }
  if (kind == REMAT_COLL_ALL_TO_ALL) {
    if (!inputContiguous)
      return 0;
    for (i = 0; i < axis && i < rank; ++i)
      if (inSizes[i] != 1)
        return 0;
    for (i = 0; i < axis2 && i < rank; ++i)
      if (outSizes[i] != 1)
        return 0;
    return 1;
  }
  if (kind == REMAT_COLL_SHIFT)
    return inputContiguous;
  return 1;
}

/* The exact bytes of temporaries one call allocates (before rounding up to
 * REMAT_COLL_WORKSPACE_ALIGNMENT; one allocation, none when 0), for a group
 * of `groupSize` devices and `inElems` / `outElems` elements of `elemBytes`
 * bytes in `in` / `out`:
 * - group of 1 (any kind), all_slice: 0 (a local copy);
 * - all_reduce: ceil(inElems / groupSize) elements (a ring's receive chunk;
 *   the ring reduces and gathers in `out`);
 * - reduce_scatter: outElems elements (the receive chunk; `out` holds the
 *   partial sums);
 * - all_gather: 0 with contiguous blocks (the ring runs in `out`), else
 *   2 * inElems elements (a send and a receive block);
 * - all_to_all: 0 with contiguous blocks, else 2 * inElems / groupSize
 *   elements (a send and a receive piece);
 * - shift: 0 with a contiguous input (sent from where it is, received in
 *   `out`), else inElems elements (the input packed to send); the runtime
 *   allocates none when no device of the group has a partner.
 * Returns -1 for an unknown kind, negative arguments or an overflow. */
static inline int64_t remat_collective_workspace_bytes(
    int64_t kind, int64_t elemBytes, int64_t inElems, int64_t outElems,
    int64_t groupSize, int64_t contiguousBlocks) {
  int64_t buffers = 1, elems; /* buffers of elems elements each */
  if (elemBytes < 0 || inElems < 0 || outElems < 0 || groupSize < 1)
    return -1;
  switch (kind) {
  case REMAT_COLL_ALL_REDUCE:
    elems = inElems / groupSize + (inElems % groupSize != 0);
    break;
  case REMAT_COLL_REDUCE_SCATTER:
    elems = outElems;
    break;
  case REMAT_COLL_ALL_GATHER:
    buffers = 2;
    elems = contiguousBlocks ? 0 : inElems;
    break;
  case REMAT_COLL_ALL_SLICE:
    elems = 0;
    break;
  case REMAT_COLL_ALL_TO_ALL:
    buffers = 2;
    elems = contiguousBlocks ? 0 : inElems / groupSize;
    break;
  case REMAT_COLL_SHIFT:
    elems = contiguousBlocks ? 0 : inElems;
    break;
  default:
    return -1;
  }
  if (groupSize == 1 || elems == 0 || elemBytes == 0)
    return 0;
  if (elems > INT64_MAX / buffers || buffers * elems > INT64_MAX / elemBytes)
    return -1;
  return buffers * elems * elemBytes;
}

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_COLLECTIVEABI_H */
