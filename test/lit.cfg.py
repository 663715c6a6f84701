# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# lit configuration of the remat tests (see lit.site.cfg.py.in for the
# values CMake fills in).
import os
import shutil
import subprocess

import lit.formats

config.name = "remat"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "consumer", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")

# Our tools first, then FileCheck/not/mlir-runner from LLVM 22.
for d in (config.llvm_tools_dir, config.remat_tools_dir):
    config.environment["PATH"] = os.pathsep.join(
        [d, config.environment.get("PATH", os.environ.get("PATH", ""))])

# lit itself passes ASAN_OPTIONS and UBSAN_OPTIONS on to the tests
# (scripts/sanitize.sh sets them). CXXFLAGS and LDFLAGS, which lit drops,
# are passed on when set, for the CMake project that test/Embedding builds
# against the installed remat: sanitize.sh sets them to its -fsanitize
# flags, without which the sanitized libraries do not link.
for var in ("CXXFLAGS", "LDFLAGS"):
    if os.environ.get(var):
        config.environment[var] = os.environ[var]

config.substitutions.append(("%remat_src_root", config.remat_src_root))
config.substitutions.append(("%remat_obj_root", config.remat_obj_root))
config.substitutions.append(("%mlir_include_dir", config.mlir_include_dir))
config.substitutions.append(("%mlir_tblgen", config.mlir_tblgen))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
# %python: the interpreter of remat-import-torch (the virtual environment
# of scripts/python-env.sh, with PyTorch 2.x) where it exists, else Debian's.
torch_python = getattr(config, "torch_python", "")
python = torch_python if torch_python and os.path.exists(torch_python) else "/usr/bin/python3"
config.substitutions.append(("%python", python))
# libRematRuntime (allocation tracking) for mlir-runner -shared-libs.
config.substitutions.append(("%remat_runtime", os.path.join(
    config.remat_obj_root, "lib", "libRematRuntime.so")))
for lib in ("mlir_c_runner_utils", "mlir_runner_utils"):
    config.substitutions.append(("%" + lib, os.path.join(
        config.llvm_tools_dir, "..", "lib", "lib" + lib + ".so")))

# Optional tools and devices become lit features.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
if os.path.exists("/dev/nvidiactl") or shutil.which("nvidia-smi"):
    config.available_features.add("cuda-device")
# libRematCudaRuntime (mgpu* over the CUDA driver API; built when CMake found
# the CUDA toolkit) and the driver library it was linked against.
cuda_runtime = os.path.join(config.remat_obj_root, "lib",
                            "libRematCudaRuntime.so")
if os.path.exists(cuda_runtime):
    config.available_features.add("cuda-runtime")
    config.substitutions.append(("%remat_cuda_runtime", cuda_runtime))
    config.substitutions.append(
        ("%cuda_driver", getattr(config, "cuda_driver", "")))
# Its host-memory stand-in for -remat-lower-to-gpu{emulate=true}.
config.substitutions.append(("%remat_cuda_emulation", os.path.join(
    config.remat_obj_root, "lib", "libRematCudaEmulation.so")))
# libRematMpiRuntime (the shard collectives over MPICH; built when CMake
# found MPICH), its self-test, and MPICH's launcher: Open MPI's mpiexec,
# which may be installed too, does not run MPICH programs.
mpi_runtime = os.path.join(config.remat_obj_root, "lib",
                           "libRematMpiRuntime.so")
mpiexec = shutil.which("mpiexec.mpich")
config.substitutions.append(("%remat_mpi_runtime", mpi_runtime))
config.substitutions.append(("%mpiexec", mpiexec or "mpiexec.mpich"))
if mpiexec and os.path.exists(mpi_runtime) and os.path.exists(
        os.path.join(config.remat_tools_dir, "remat-collectives-selftest")):
    config.available_features.add("mpich")
# A CPU with fused multiply-add (what -remat-lower-to-cpu's fp-contract
# turns into one instruction; the JIT targets the host CPU).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " fma" in cpuinfo.read():
            config.available_features.add("cpu-fma")
except OSError:
    pass
# PyTorch (in %python) is the oracle of the corpus gradients and what
# remat-import-torch traces.
if subprocess.run([python, "-c", "import torch"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")
# remat-import-jax's frontend, and IREE's input conversion (a JAX step's
# loops) and compiler (benchmarks/iree).
for feature, module in (("jax", "jax"), ("iree", "iree.compiler")):
    if subprocess.run([python, "-c", "import " + module], capture_output=True).returncode == 0:
        config.available_features.add(feature)
# scripts/build-wheel.py sets the bundled remat-opt's RPATH with patchelf.
if shutil.which("patchelf"):
    config.available_features.add("patchelf")
if os.environ.get("REMAT_SLOW_TESTS"):
    config.available_features.add("slow")
