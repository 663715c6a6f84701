#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A separate AddressSanitizer + UndefinedBehaviorSanitizer build that runs
# the lit suite, the unit tests and the mutation fuzzer (test/Fuzz, as CI
# runs it).
#
#   scripts/sanitize.sh [BUILD_DIR] [TARGET...]
#
# BUILD_DIR defaults to build-sanitize. With TARGETs (e.g.
# RematArenaPackingTests), only those are built and the unit tests among
# them run: a quick check of the set-up. FUZZ_INPUTS sets the mutants per
# tool (default 200, as test/Fuzz/fuzz.test), FUZZ_TIMEOUT the seconds one
# may run before it counts as a hang (default 600). JOBS=N limits ninja and
# lit to N parallel jobs (default: theirs, one per core or more).
#
# vptr is off: the MLIR-linked libraries are built without RTTI and the
# solver with it, so the vptr check reports false positives across them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-sanitize}
shift || true
SAN="-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer"
LAUNCHER=()
if command -v ccache > /dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DREMAT_ENABLE_BENCHMARKS=OFF "${LAUNCHER[@]}" \
  -DREMAT_UNSANITIZED_RUNTIME=ON \
  -DCMAKE_C_FLAGS="$SAN" -DCMAKE_CXX_FLAGS="$SAN" \
  -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN"

# A report aborts the process, which both lit and the fuzzer count as a
# failure (a UBSan report would otherwise only print). Leak checking is off:
# MLIR's tools keep their registries alive until exit. User poisoning is
# off: LLVM's BumpPtrAllocator, inlined into our instrumented code, poisons
# slabs that the uninstrumented libMLIR then fills (StringAttr::get from
# -remat-prepare), a use-after-poison that is not one.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

# The runtime libraries (runtime/) are built without the sanitizers
# (REMAT_UNSANITIZED_RUNTIME, runtime/CMakeLists.txt): the integration
# tests load them into upstream mlir-runner, which is not instrumented, and
# an ASan library does not load there. The compiler, remat-opt, remat-plan
# and the unit tests, which run the project's own code, are instrumented.
JOBS_ARG=()
[ -n "${JOBS:-}" ] && JOBS_ARG=(-j "$JOBS")

if [ $# -gt 0 ]; then
  ninja -C "$BUILD" "${JOBS_ARG[@]}" "$@"
  for t in "$@"; do
    [ -x "$BUILD/unittests/$t" ] && "$BUILD/unittests/$t"
  done
  exit 0
fi
# Everything the lit suite uses (as check-remat builds it).
ninja -C "$BUILD" "${JOBS_ARG[@]}"
LIT=$(command -v lit || command -v llvm-lit || echo /usr/lib/llvm-22/bin/lit)
# lit passes ASAN_OPTIONS and UBSAN_OPTIONS on to the tests, and
# test/lit.cfg.py CXXFLAGS and LDFLAGS: test/Embedding builds a CMake
# project against the installed (sanitized) libraries, which need the flags
# to link. The fuzzer's lit test is left out: it runs below with a limit per
# input that suits a sanitized build.
CXXFLAGS="$SAN" LDFLAGS="$SAN" \
  "$LIT" -sv "${JOBS_ARG[@]}" --filter-out 'Fuzz/fuzz\.test' \
  "$BUILD/test" "$BUILD/unittests"
# Sanitized binaries run several times slower: a refusal that searches the
# smallest budget of a large mutant takes 9-11 s in a release build and
# passed the fuzzer's 60 s limit under ASan on a loaded machine.
python3 test/Fuzz/fuzz.py --bin "$BUILD/bin" --src . --seed 1 \
  --inputs "${FUZZ_INPUTS:-200}" --crashes "$BUILD/fuzz-crashes" \
  --timeout "${FUZZ_TIMEOUT:-600}"
