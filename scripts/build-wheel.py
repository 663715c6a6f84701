#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Builds the wheel of remat for PyTorch users: `make wheel`.

    scripts/build-wheel.py BUILD_DIR OUT_DIR

The wheel holds the Python packages remat_torch and remat_import_torch,
and remat-opt linked again from BUILD_DIR's objects with MLIR's and LLVM's
static libraries (link_static), with every shared library it still loads
except glibc's own (libc, libm, libpthread, libdl, librt and the loader):
COIN-OR's, LAPACK's, libstdc++ and what they load in turn, copied from
this machine.  remat-opt finds them through an RPATH of
$ORIGIN/../_lib, each library the others through a RUNPATH of $ORIGIN,
so the wheel runs on any x86-64 Linux whose glibc is
at least this machine's (Debian 12: 2.36).  remat_torch finds its
remat-opt in the package when no other is set (planner.find_remat_opt);
the wheel's `remat-opt` command runs it too.  No network, no setuptools:
a wheel is a zip with its metadata and a RECORD of hashes.
"""

import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PACKAGES = ("remat_torch", "remat_import_torch")
GLIBC = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[-\w]*)\.so")
TAG = "py3-none-manylinux_2_36_x86_64"


def version():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        return re.search(r"project\(remat VERSION ([0-9.]+)", f.read()).group(1)


def shared_libraries(binary):
    """The libraries the loader resolves for `binary`, glibc's excepted."""
    out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if m and not GLIBC.match(m.group(1)):
            if m.group(2) == "not":
                sys.exit("build-wheel: %s needs %s, which is not found" % (binary, m.group(1)))
            libs.append((m.group(1), m.group(2)))
    return libs


# LLVM targets remat-opt never generates code for: MLIR initializes every
# target LLVM was built with (InitializeAllTargets), so each gets empty
# initializers instead of its code generator.  The CPU's (X86) and
# NVIDIA's (NVPTX) stay; the others were 71 MB of the static binary.
OTHER_TARGETS = ("AArch64 AMDGPU ARM AVR BPF Hexagon Lanai LoongArch Mips MSP430 PowerPC "
                 "RISCV Sparc SystemZ VE WebAssembly XCore M68k Xtensa CSKY ARC DirectX "
                 "SPIRV").split()
TARGET_PARTS = ("Target", "TargetInfo", "TargetMC", "AsmPrinter", "AsmParser", "Disassembler",
                "TargetMCA")


def link_static(build, out, tmp):
    """remat-opt linked again from the build's objects and its own static
    libraries, with MLIR's and LLVM's static libraries (Debian ships them)
    in place of libMLIR.so and libLLVM.so: only what remat-opt uses, about
    a third of their size compressed, and no libz3 or ICU."""
    cmd = subprocess.run(["ninja", "-C", build, "-t", "commands", "bin/remat-opt"],
                         check=True, capture_output=True, text=True).stdout.splitlines()[-1]
    link = cmd.split("&&")[1].split()
    llvm_lib = None
    args = []
    for a in link:
        m = re.match(r"(.*)/lib(MLIR|LLVM)\.so[.0-9]*$", a)
        if m:
            llvm_lib = m.group(1)
            continue
        if a.startswith("-Wl,-rpath,"):
            continue
        args.append(out if args and args[-1] == "-o" else a)
    if llvm_lib is None:
        sys.exit("build-wheel: remat-opt's link line names no libMLIR.so: %s" % " ".join(link))
    stubs = os.path.join(tmp, "other_targets.c")
    with open(stubs, "w") as f:
        for t in OTHER_TARGETS:
            for part in TARGET_PARTS:
                f.write("void LLVMInitialize%s%s(void) {}\n" % (t, part))
    subprocess.run(["gcc", "-O2", "-c", stubs, "-o", stubs + ".o"], check=True)
    names = sorted(os.listdir(llvm_lib))
    mlir = [os.path.join(llvm_lib, n) for n in names
            if re.match(r"libMLIR.*\.a$", n) and not n.startswith("libMLIRCAPI")]
    other = re.compile(r"libLLVM(%s)[A-Z]" % "|".join(OTHER_TARGETS))
    llvm = [os.path.join(llvm_lib, n) for n in names
            if re.match(r"libLLVM.*\.a$", n) and not other.match(n)]
    args += [stubs + ".o", "-s", "-Wl,--gc-sections",
             "-Wl,--start-group"] + mlir + llvm + ["-Wl,--end-group", "-lz", "-ldl"]
    zstd = [n for n in ("libzstd.so", "libzstd.so.1")
            if os.path.exists(os.path.join("/usr/lib/x86_64-linux-gnu", n))]
    if zstd:
        args.append(os.path.join("/usr/lib/x86_64-linux-gnu", zstd[0]))
    done = subprocess.run(args, cwd=build, capture_output=True, text=True)
    if done.returncode != 0:
        errors = [l for l in done.stderr.splitlines() if "warning" not in l]
        sys.exit("build-wheel: linking remat-opt statically failed:\n" + "\n".join(errors[-20:]))
    return out


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: build-wheel.py BUILD_DIR OUT_DIR")
    build, out_dir = sys.argv[1], sys.argv[2]
    tool = os.path.join(build, "bin", "remat-opt")
    if not os.access(tool, os.X_OK):
        sys.exit("build-wheel: no %s: build first (make build)" % tool)
    if not shutil.which("patchelf"):
        sys.exit("build-wheel: patchelf is missing (scripts/install-deps.sh installs it)")
    ver = version()
    dist_info = "remat-%s.dist-info" % ver
    files = {}   # path in the wheel -> (bytes, executable)

    for pkg in PACKAGES:
        root = os.path.join(REPO, "python", pkg)
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for n in sorted(names):
                if n.endswith(".py") or n.endswith(".json"):
                    src = os.path.join(d, n)
                    with open(src, "rb") as f:
                        files[os.path.relpath(src, os.path.join(REPO, "python"))] = (f.read(), False)

    with tempfile.TemporaryDirectory() as tmp:
        exe = link_static(build, os.path.join(tmp, "remat-opt"), tmp)
        subprocess.run(["patchelf", "--force-rpath", "--set-rpath", "$ORIGIN/../_lib", exe],
                       check=True)
        with open(exe, "rb") as f:
            files["remat_torch/_bin/remat-opt"] = (f.read(), True)
        for soname, path in shared_libraries(exe):
            # A library with a RUNPATH of its own (LLVM's) ignores the
            # executable's RPATH for what it loads: each gets $ORIGIN.
            lib = os.path.join(tmp, soname)
            shutil.copy(os.path.realpath(path), lib)
            subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", lib], check=True)
            with open(lib, "rb") as f:
                files["remat_torch/_lib/" + soname] = (f.read(), False)

    meta = ("Metadata-Version: 2.1\nName: remat\nVersion: %s\n"
            "Summary: Rematerialization under a memory budget for PyTorch training steps "
            "(torch.compile backend) and MLIR\nRequires-Python: >=3.10\n"
            "License: Apache-2.0 WITH LLVM-exception\n" % ver)
    files[dist_info + "/METADATA"] = (meta.encode(), False)
    files[dist_info + "/WHEEL"] = (("Wheel-Version: 1.0\nGenerator: remat build-wheel.py\n"
                                    "Root-Is-Purelib: false\nTag: %s\n" % TAG).encode(), False)
    files[dist_info + "/entry_points.txt"] = (
        b"[console_scripts]\nremat-opt = remat_torch.bundled:main\n"
        b"remat-import-torch = remat_import_torch.cli:main\n", False)
    record = [record_line(p, data) for p, (data, _) in sorted(files.items())]
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = (("\n".join(record) + "\n").encode(), False)

    os.makedirs(out_dir, exist_ok=True)
    wheel = os.path.join(out_dir, "remat-%s-%s.whl" % (ver, TAG))
    tmp_wheel = wheel + ".part"
    with zipfile.ZipFile(tmp_wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path, (data, executable) in sorted(files.items()):
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3   # Unix: pip keeps the mode of a regular file
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            z.writestr(info, data, compresslevel=9)
    os.replace(tmp_wheel, wheel)
    print("%s: %.1f MB" % (wheel, os.path.getsize(wheel) / 1e6))


if __name__ == "__main__":
    main()
