#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the layering of docs/architecture.md on the source tree.

Each layer (a folder of include/remat and lib) may include only the layers
listed for it; the solver library includes no MLIR or LLVM header (only the
plain-C++ part of Support); only the file-format users link RematGraphIO; test
fixtures and test passes stay out of the product libraries. Prints one line
per violation and exits 1, or prints "layers ok" and exits 0.
"""
import os
import re
import sys

# Layer -> layers it may include (itself always allowed). Keep in sync with
# the picture in docs/architecture.md.
ALLOWED = {
    "Support": [],
    "Solver": ["Support"],
    "GraphIO": ["Solver", "Support"],
    "Dialect": [],
    "Analysis": ["Dialect", "Solver", "Support", "Runtime"],
    "Loops": ["Analysis", "Dialect", "Solver", "Support"],
    "Transforms": ["Analysis", "Dialect", "Solver", "Support", "GraphIO",
                   "Loops"],
    "BufferPlanning": [],
    "GPU": [],
    "Runtime": [],
    "Distributed": ["Analysis", "Runtime"],
    "Pipelines": ["Transforms", "BufferPlanning", "GPU", "Distributed",
                  "Analysis", "Dialect",
                  "Solver", "Support"],
    "Tools": ["Pipelines"],
}
# Inside the solver: Core (graph, Schedule, Simulator, the strategy
# registry) includes no other folder; the families include Core and each
# other without cycles, never Portfolio (auto, the smallest-budget search),
# which may include them all; Testing is test-only (checked below).
SOLVER_FAMILIES = {"Baselines", "Chain", "Evict", "Join", "Loop", "LowerSet",
                   "MILP", "Offload"}
SOLVER_ALLOWED = {
    "Core": set(),
    "Portfolio": {"Core"} | SOLVER_FAMILIES,
    "Testing": {"Core", "Portfolio"} | SOLVER_FAMILIES,
}
for family in SOLVER_FAMILIES:
    SOLVER_ALLOWED[family] = {"Core"} | SOLVER_FAMILIES
# The only headers of Support the solver may use: plain C++.
SOLVER_SUPPORT_HEADERS = {"remat/Support/CheckedArithmetic.h",
                          "remat/Support/AllocAlignment.h"}
# CMake files allowed to link the graph-file library.
GRAPHIO_USERS = {"lib/GraphIO", "lib/Transforms", "tools/remat-plan",
                 "benchmarks/zoo"}

PLAIN_CXX_LAYERS = {"Solver"}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def layer_of_include(inc):
    m = re.match(r"remat/([A-Za-z]+)/", inc)
    if not m:
        return None
    return m.group(1)


def sources(root, layer):
    for base in (os.path.join(root, "include", "remat", layer),
                 os.path.join(root, "lib", layer)):
        for dirpath, _, files in os.walk(base):
            for f in files:
                if f.endswith((".h", ".cpp")):
                    yield os.path.join(dirpath, f)


def check_includes(root, errors):
    for layer, allowed in ALLOWED.items():
        ok = set(allowed) | {layer}
        for path in sources(root, layer):
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8").read()
            for inc in INCLUDE.findall(text):
                included = layer_of_include(inc)
                if included and included not in ok:
                    errors.append(f"{rel}: layer {layer} includes {inc}")
                if layer in PLAIN_CXX_LAYERS:
                    if inc.startswith(("mlir/", "llvm/")):
                        errors.append(f"{rel}: the solver includes {inc}")
                    if inc.startswith("remat/Support/") and \
                            inc not in SOLVER_SUPPORT_HEADERS:
                        errors.append(f"{rel}: the solver includes {inc} "
                                      "(LLVM-based)")
                if "/Testing/" in inc and "/Testing/" not in rel:
                    errors.append(f"{rel}: product code includes {inc}")


def solver_folder(path):
    m = re.search(r"(?:^|/)(?:include/remat|lib)/Solver/([A-Za-z]+)/", path)
    return m.group(1) if m else None


def check_solver_folders(root, errors):
    """Includes between the solver's folders, and no cycle among families."""
    edges = {}
    for path in sources(root, "Solver"):
        rel = os.path.relpath(path, root)
        folder = solver_folder(rel)
        if folder is None:
            continue
        text = open(path, encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            m = re.match(r"remat/Solver/([A-Za-z]+)/", inc)
            if not m or m.group(1) == folder:
                continue
            allowed = SOLVER_ALLOWED.get(folder)
            if allowed is None or m.group(1) not in allowed:
                errors.append(f"{rel}: Solver/{folder} includes {inc}")
            if folder in SOLVER_FAMILIES and m.group(1) in SOLVER_FAMILIES:
                edges.setdefault(folder, set()).add(m.group(1))
    for start in sorted(edges):
        stack, seen = [start], set()
        while stack:
            for nxt in edges.get(stack.pop(), ()):
                if nxt == start:
                    errors.append(f"Solver/{start} includes itself through "
                                  "other families (a cycle)")
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)


def check_links(root, errors):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        if "CMakeLists.txt" not in files:
            continue
        rel = os.path.relpath(dirpath, root)
        text = open(os.path.join(dirpath, "CMakeLists.txt")).read()
        if re.search(r"\bRematGraphIO\b", text) and rel not in GRAPHIO_USERS:
            errors.append(f"{rel}/CMakeLists.txt links RematGraphIO, which "
                          "only graph-file users may")
        # lib/Solver defines the fixtures' library; nothing else in lib/
        # may name it.
        if rel.startswith("lib") and rel != "lib/Solver" and re.search(
                r"\b(RematSolverTesting|RematTestPasses)\b", text):
            errors.append(f"{rel}/CMakeLists.txt: a product library links "
                          "test-only code")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    check_includes(root, errors)
    check_solver_folders(root, errors)
    check_links(root, errors)
    for e in errors:
        print(e)
    if errors:
        return 1
    print("layers ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
