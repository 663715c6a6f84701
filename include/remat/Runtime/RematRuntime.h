/*===- RematRuntime.h - Allocation tracking for lowered remat code -*- C
 *-*-===//
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

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_REMATRUNTIME_H */
