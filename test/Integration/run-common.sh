# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shared by the scripts that run a model function with its harness under
# mlir-runner (test/Corpus/run_model.sh, test/Integration/{CPU,GPU}/run.sh).
# Source it; it defines functions only.

# remat_find_harness MODEL [HARNESS]: sets $harness: HARNESS, else
# MODEL.harness.mlir next to MODEL, else the corpus harness of the model
# named like MODEL's file (resnet.remat.mlir -> Inputs/resnet.harness.mlir).
remat_find_harness() {
  local model=$1 base
  harness=${2:-}
  if [ -z "$harness" ]; then
    harness=${model%.mlir}.harness.mlir
    if [ ! -f "$harness" ]; then
      base=$(basename "$model"); base=${base%%.*}
      harness=$(dirname "${BASH_SOURCE[0]}")/../Corpus/Inputs/$base.harness.mlir
    fi
  fi
  [ -f "$harness" ] || { echo "run.sh: no harness $harness" >&2; return 2; }
}

# Sets $tmp: $KEEP_TMP when given (kept), else a directory removed at exit.
remat_make_tmp() {
  if [ -n "${KEEP_TMP:-}" ]; then
    tmp=$KEEP_TMP; mkdir -p "$tmp"
  else
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  fi
}

# remat_strip_module MODEL: prints MODEL without the top-level
# `module ... {` ... `}` remat-opt prints around it, so the harness can be
# appended; attribute aliases (#map = ...) stay at the top level.
remat_strip_module() {
  awk '
    { line[NR] = $0 }
    !open && /^module([ \t].*)?\{[ \t]*$/ { open = NR }
    END {
      close_at = 0
      if (open) for (i = NR; i > open; i--) if (line[i] ~ /^\}[ \t]*$/) { close_at = i; break }
      for (i = 1; i <= NR; i++) if (i != open && i != close_at) print line[i]
    }' "$1"
}

# remat_harness_with_window HARNESS WINDOW MODEL: prints HARNESS with
# `@WINDOW_reset_peak()` right before its call of the step and
# `@WINDOW_print_peak()` right after, so the runtime's peak is the step's.
# An argument the harness passes as a slice of a larger tensor (a rank's
# part of a full tensor: `%w = tensor.extract_slice %w_all[...]`, of a
# static type) is a strided view once bufferized, and the call copies it
# into a buffer of the argument's identity layout; that copy, and the
# larger tensor freed after it, are the harness's work: the slice is
# copied into a tensor of its own before the window opens.
# The step is $STEP when set, else the function MODEL defines that the
# harness calls (the one with remat.loss when it calls several); a helper
# the harness calls first is not measured. Fails when that names no call,
# or several.
remat_harness_with_window() {
  local harness=$1 window=$2 model=$3 callee called defined
  called=$(grep -o 'func\.call @[A-Za-z0-9_]*(' "$harness" |
           sed 's/func\.call @//; s/(//' | awk '!seen[$0]++')
  # The model's public functions, "NAME loss" where the signature (up to
  # the `{` its body opens) marks a remat.loss.
  defined=$(awk '/func\.func (public )?@[A-Za-z0-9_]*/ {
                   match($0, /@[A-Za-z0-9_]*/); name = substr($0, RSTART + 1, RLENGTH - 1)
                   sig = $0
                   while (sig !~ /\{[ \t]*$/ && (getline line) > 0) sig = sig line
                   print name (sig ~ /remat\.loss/ ? " loss" : "")
                 }' "$model")
  if [ -n "${STEP:-}" ]; then
    callee=$STEP
    grep -qx "$callee" <<< "$called" ||
      { echo "run.sh: STEP=$STEP: $harness calls no @$STEP" >&2; return 2; }
  else
    local steps losses
    steps=$(grep -xF -f <(awk '{ print $1 }' <<< "$defined") <<< "$called" || true)
    losses=$(grep -xF -f <(awk '$2 == "loss" { print $1 }' <<< "$defined") <<< "$steps" || true)
    [ -n "$losses" ] && steps=$losses
    if [ -z "$steps" ]; then
      echo "run.sh: $harness calls no function of $model (name the step with STEP=NAME)" >&2
      return 2
    fi
    if [ "$(wc -l <<< "$steps")" -gt 1 ]; then
      echo "run.sh: $harness calls several functions of $model ($(tr '\n' ' ' <<< "$steps")): name the step with STEP=NAME" >&2
      return 2
    fi
    callee=$steps
  fi
  echo "func.func private @${window}_reset_peak()"
  echo "func.func private @${window}_print_peak()"
  # The call may continue on the next lines; it ends with its `-> (...)`.
  awk -v callee="$callee" -v window="$window" '
    # Slices of a static type: name -> type.
    $2 == "=" && $3 == "tensor.extract_slice" && $0 ~ / to tensor<[0-9x]+[a-z][a-z0-9]*>[ \t]*$/ {
      type = $0; sub(/.* to /, "", type); sub(/[ \t]+$/, "", type)
      view[$1] = type
    }
    index($0, "func.call @" callee "(") {
      head = substr($0, 1, index($0, "func.call @" callee "(") + length("func.call @" callee "(") - 1)
      rest = substr($0, length(head) + 1)
      close_at = index(rest, ")")
      n = split(substr(rest, 1, close_at - 1), operands, ",")
      args = ""
      for (k = 1; k <= n; ++k) {
        op = operands[k]; gsub(/[ \t]/, "", op)
        if (op in view) {
          print "  " op "__window_e = tensor.empty() : " view[op]
          print "  " op "__window = linalg.copy ins(" op " : " view[op] ") outs(" op "__window_e : " view[op] ") -> " view[op]
          op = op "__window"
        }
        args = args (k > 1 ? ", " : "") op
      }
      $0 = head args substr(rest, close_at)
      print "  func.call @" window "_reset_peak() : () -> ()"
      pending = 1
    }
    { print }
    pending && /->/ { print "  func.call @" window "_print_peak() : () -> ()"; pending = 0 }
  ' "$harness"
}

# remat_find_opt NAME: sets $opt to REMAT_OPT, else remat-opt on PATH; says
# what to do (NAME prefixing the line) when there is none.
remat_find_opt() {
  opt=${REMAT_OPT:-$(command -v remat-opt || true)}
  if [ -z "$opt" ] || [ ! -x "$opt" ]; then
    echo "$1: no remat-opt${REMAT_OPT:+ at REMAT_OPT=$REMAT_OPT}: put the build's bin/ on PATH or set REMAT_OPT" >&2
    return 2
  fi
}

# remat_find_tools NAME: sets $opt (remat-opt), $runtime (libRematRuntime.so
# of the same build), $mpi_runtime (libRematMpiRuntime.so next to it, the
# collectives; may not exist), $runner (mlir-runner) and $llvm_lib (its
# libraries); REMAT_OPT, REMAT_RUNTIME, REMAT_MPI_RUNTIME and MLIR_RUNNER
# override them. NAME prefixes the error when the runtime is missing.
remat_find_tools() {
  remat_find_opt "$1" || return 2
  runtime=${REMAT_RUNTIME:-$(dirname "$(readlink -f "$opt")")/../lib/libRematRuntime.so}
  [ -f "$runtime" ] || { echo "$1: no runtime $runtime" >&2; return 2; }
  mpi_runtime=${REMAT_MPI_RUNTIME:-$(dirname "$runtime")/libRematMpiRuntime.so}
  runner=${MLIR_RUNNER:-$(command -v mlir-runner || echo /usr/lib/llvm-22/bin/mlir-runner)}
  llvm_lib=$(dirname "$(readlink -f "$runner")")/../lib
}

# remat_run_ranks NAME N DIR COMMAND...: runs COMMAND as N processes under
# MPICH's launcher (MPIEXEC, default mpiexec.mpich: Open MPI's mpiexec does
# not run MPICH programs), each rank's stdout and stderr in DIR/R.out and
# DIR/R.err; then prints rank 0's stdout, rank 1's, ... (each followed by an
# empty line, as run.sh ends its output) and their stderr in the same order,
# never interleaved. Fails when any rank did (the launcher's status).
remat_run_ranks() {
  local name=$1 ranks=$2 dir=$3 mpiexec r status=0
  shift 3
  case $ranks in
    ''|*[!0-9]*|0*) echo "$name: RANKS=$ranks is not a positive number" >&2; return 2 ;;
  esac
  mpiexec=${MPIEXEC:-$(command -v mpiexec.mpich)} || {
    echo "$name: RANKS=$ranks needs MPICH's mpiexec.mpich (Debian: mpich)" >&2
    return 2
  }
  mkdir -p "$dir"
  # PMI_RANK: the rank MPICH's launcher gives each process.
  # shellcheck disable=SC2016
  "$mpiexec" -n "$ranks" sh -c \
    'exec "$@" > "$0/$PMI_RANK.out" 2> "$0/$PMI_RANK.err"' "$dir" "$@" ||
    status=$?
  for ((r = 0; r < ranks; r++)); do
    [ -f "$dir/$r.out" ] && cat "$dir/$r.out"
    echo
  done
  for ((r = 0; r < ranks; r++)); do
    [ -f "$dir/$r.err" ] && cat "$dir/$r.err" >&2
  done
  return $status
}
