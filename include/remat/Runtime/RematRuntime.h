/*===- RematRuntime.h - Allocation tracking for lowered remat code -*- C
 *-*-===//
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libRematRuntime implements the allocation functions that
 * `finalize-memref-to-llvm{use-generic-functions=true}` calls, and counts the
 * bytes the program holds: live bytes now and the peak since the start (or
 * since the last remat_reset_peak). Sizes are the byte counts the generated
 * code requests (with use-aligned-alloc: rounded up to the alignment; without
 * it, an allocation with an `alignment` attribute asks for `alignment` extra
 * bytes).
 *
 * With REMAT_REPORT_PEAK=1 in the environment the library prints
 * `peak_bytes=<N>` on stderr when the process exits.
 *
 * It also times calls: numbered timers collect one sample per
 * remat_timer_start/remat_timer_stop pair and print order statistics, so a
 * harness can time a step many times in one process (after the JIT and the
 * argument set-up) and compare two versions of it (remat_timer_print_ratio).
 *
 * remat_write_f32 writes a program's results to a file in binary, exactly
 * (the importer's check reads a model's gradients so).
 *
 * Plain C ABI, no MLIR dependency: load it with
 *   mlir-runner -shared-libs=libRematRuntime.so,...
 *===----------------------------------------------------------------------===*/
#ifndef REMAT_RUNTIME_REMATRUNTIME_H
#define REMAT_RUNTIME_REMATRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REMAT_RUNTIME_EXPORT __attribute__((visibility("default")))

/* The functions finalize-memref-to-llvm{use-generic-functions=true} calls. */
REMAT_RUNTIME_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
REMAT_RUNTIME_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                              size_t size);
REMAT_RUNTIME_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

/* Bytes allocated through the functions above and not yet freed. */
REMAT_RUNTIME_EXPORT int64_t remat_live_bytes(void);
/* Largest value live bytes reached since start or the last reset. */
REMAT_RUNTIME_EXPORT int64_t remat_peak_bytes(void);
/* Restarts peak tracking from the bytes live now (a measurement window). */
REMAT_RUNTIME_EXPORT void remat_reset_peak(void);
/* Number of allocations made since the start. */
REMAT_RUNTIME_EXPORT int64_t remat_num_allocs(void);
/* Prints `window_peak_bytes=<peak> window_base_bytes=<live at last reset>`
 * on stderr (stdout stays free for the program's results). */
REMAT_RUNTIME_EXPORT void remat_print_peak(void);

/* Appends an f32 memref (MLIR's unranked calling convention: its rank and a
 * pointer to its ranked descriptor, as printMemrefF32 takes) to the file
 * $REMAT_RESULTS_FILE names, which the process's first call truncates:
 * int64 rank, int64 sizes[rank], then the float32 elements in row-major
 * order, all in the machine's byte order. Exits with status 2 when the
 * variable is unset or the file cannot be written. */
REMAT_RUNTIME_EXPORT void remat_write_f32(int64_t rank, void *descriptor);

/* Timers 0 .. REMAT_NUM_TIMERS-1; calls with another id do nothing (the
 * queries return 0). Samples are wall-clock nanoseconds of a monotonic
 * clock. */
#define REMAT_NUM_TIMERS 16
/* Nanoseconds of CLOCK_MONOTONIC. */
REMAT_RUNTIME_EXPORT int64_t remat_clock_ns(void);
/* remat_timer_stop(id) records the time since the last
 * remat_timer_start(id) as one sample of timer `id`. */
REMAT_RUNTIME_EXPORT void remat_timer_start(int64_t id);
REMAT_RUNTIME_EXPORT void remat_timer_stop(int64_t id);
/* Records `ns` as one sample of timer `id` (what remat_timer_stop does). */
REMAT_RUNTIME_EXPORT void remat_timer_record(int64_t id, int64_t ns);
/* Number of samples of timer `id`. */
REMAT_RUNTIME_EXPORT int64_t remat_timer_count(int64_t id);
/* Drops the samples of every timer (e.g. those of warm-up calls). */
REMAT_RUNTIME_EXPORT void remat_timer_reset(void);
/* Prints `timer id=<id> n=<samples> min_ns=<..> p10_ns=<..> median_ns=<..>
 * p90_ns=<..> max_ns=<..> mad_ns=<..>` on stderr (p10, p90: the 10th and
 * 90th percentiles; MAD: the median absolute deviation from the median). */
REMAT_RUNTIME_EXPORT void remat_timer_print(int64_t id);
/* Prints `timer_ratio num=<a> den=<b> n=<pairs> min=<..> p10=<..>
 * median=<..> p90=<..> max=<..> mad=<..>` on stderr: the statistics of sample i of
 * timer a divided by sample i of timer b, over the pairs both have. Record
 * the two alternately so that each pair ran under the same machine load. */
REMAT_RUNTIME_EXPORT void remat_timer_print_ratio(int64_t num, int64_t den);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_REMATRUNTIME_H */
