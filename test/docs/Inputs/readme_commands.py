#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the README's code blocks that start with `remat-opt` exactly as
printed, from a directory laid out as the project root (build/ is the
build, main.mlir and step.mlir are a real step and harness), and fails on
the first command that fails.

Usage: readme_commands.py README.md BUILD_DIR MAIN.mlir STEP.mlir"""
import os
import re
import subprocess
import sys
import tempfile

readme, build, main_mlir, step_mlir = sys.argv[1:5]
blocks = re.findall(r"```sh\n(.*?)```", open(readme).read(), re.S)
wanted = [b for b in blocks
          if b.startswith("remat-opt step.mlir") or
          b.startswith("remat-opt main.mlir")]
if len(wanted) != 2:
    sys.exit("expected the two remat-opt blocks of 'What it does', found %d"
             % len(wanted))
with tempfile.TemporaryDirectory() as root:
    os.symlink(os.path.abspath(build), os.path.join(root, "build"))
    for src, name in ((main_mlir, "main.mlir"), (step_mlir, "step.mlir")):
        with open(src) as f, open(os.path.join(root, name), "w") as g:
            g.write(f.read())
    env = dict(os.environ,
               PATH=os.path.join(os.path.abspath(build), "bin") + ":" +
               os.environ["PATH"])
    for block in wanted:
        script = block.replace("\\\n", " ")
        for line in script.splitlines():
            cmd = line.split("  #")[0].strip()
            if not cmd:
                continue
            p = subprocess.run(cmd, shell=True, cwd=root, env=env,
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit("README command failed (%d): %s\n%s"
                         % (p.returncode, cmd, p.stderr[-2000:]))
            print("ok: " + cmd.split()[0] + " " + cmd.split()[1])
            if "window_peak_bytes" in p.stderr or p.stdout:
                sys.stdout.write(p.stdout[-200:])
