#!/usr/bin/env python3
"""Checks a plan whose results may be returned from host memory.

Usage: check_host_results.py REPORT.json OFFLOAD_ONLY.json RUN.err OUT.mlir

REPORT is the remat-opt report of the plan with --remat-offload-results at
`min`, OFFLOAD_ONLY the same without that option, RUN.err what the GPU
emulation printed running OUT.mlir. Checks that:
  - the smallest budget is below offload's without it and below 302,720 B
    (recomputation's, the corpus ResNet's: offload-emulate.test's FLOOR);
  - the measured device peak equals the predicted one (peak_after) within
    the budget, and the measured host peak the predicted host peak;
  - the report's values returned from the host are exactly the results
    OUT.mlir returns from a remat.offload, and there is at least one.
"""
import json
import re
import sys


def main():
    report, offload_only, err_path, out_path = sys.argv[1:5]
    f = json.load(open(report))["functions"][0]
    g = json.load(open(offload_only))["functions"][0]
    err = open(err_path).read()
    device = int(re.search(r"device_window_peak_bytes=(\d+)", err).group(1))
    host = int(re.search(r"host_window_peak_bytes=(\d+)", err).group(1))
    assert f["budget"] < g["budget"] < 302720, (f["budget"], g["budget"])
    assert device == f["peak_after"] <= f["budget"], (device, f)
    assert host == f["offload"]["host_peak"], (host, f["offload"])

    ir = open(out_path).read()
    host_copies = set(re.findall(r"(%[\w.]+) = remat\.offload", ir))
    ret = re.findall(r"^\s*return (.*?) :", ir, re.M)[-1]
    returned = [v for v in ret.split(", ") if v in host_copies]
    reported = [v for v in f["offload"]["values"] if v["returned_from_host"]]
    assert returned and len(returned) == len(reported), (returned, reported)
    print("results from the host ok: budget %d B (offload alone %d B), "
          "%d results returned from the host" %
          (f["budget"], g["budget"], len(returned)))


if __name__ == "__main__":
    main()
