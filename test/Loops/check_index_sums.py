#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Property test of the index arithmetic the scan recognizer reads
(lib/Analysis/IndexExpr.cpp): random index expressions of a loop's index,
checked against their values.

  check_index_sums.py FIRST LAST [--count N] [--keep DIR]

For each seed in FIRST..LAST, writes one scf.for (random lower bound, step
and trip count) whose body computes N random index expressions of its
index %i, each tagged `test.index`: sums, differences and products by
constants, divisions by constants in every spelling (affine floordiv,
ceildiv and mod; arith floordivsi, ceildivsi, divsi, divui, shrsi, shrui;
index floordivs, divs, divu), lower-affine's select-and-divide form of
floordiv, selects on a comparison of two expressions, casts through i64,
and the min or max of two expressions or of one and a constant (a clamp;
arith minsi/maxsi/minui/maxui, index mins/maxs/minu/maxu). `remat-opt -remat-test-scan-match` prints each as a sum in the
iteration number k (lower + step * k replacing %i, k in [0, T - 1]) or
leaves it opaque. This script evaluates every expression as the ops define
it (64-bit two's complement; divsi truncates, divui and shrui are
unsigned) at every k and requires each claimed sum to equal it at every
k: a sum claimed for a value it is not is a wrong row, and a wrong row is
a scan checkpointed wrongly. Prints `index sums: E expressions, D read as
sums, W wrong` and exits 1 if W > 0 (each wrong one is printed with its
text, the claim and the first k where they differ).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

MASK = (1 << 64) - 1


def wrap(v):
    v &= MASK
    return v - (1 << 64) if v >> 63 else v


def unsigned(v):
    return v & MASK


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class Gen:
    """Random expressions of %i; each is (ssa, evaluator of k -> value)."""

    def __init__(self, rng, lower, step):
        self.rng, self.lower, self.step = rng, lower, step
        self.lines, self.n, self.consts = [], 0, {}

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def const(self, c, ty="index"):
        key = (c, ty)
        if key not in self.consts:
            name = "%%c%s%d_%s" % ("m" if c < 0 else "", abs(c), ty)
            self.consts[key] = name
        return self.consts[key]

    def emit(self, text):
        self.lines.append("    " + text)

    def index(self):
        return ("%i", lambda k: self.lower + self.step * k)

    def expr(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            if rng.random() < 0.8:
                return self.index()
            c = rng.randint(-20, 20)
            return (self.const(c), lambda k, c=c: c)
        kind = rng.choice(["addc", "subc", "mulc", "add2", "div", "div", "div", "lowered",
                           "select", "cast", "minmax"])
        if kind == "add2":
            a, b = self.expr(depth - 1), self.expr(depth - 1)
            r = self.fresh()
            self.emit("%s = arith.addi %s, %s : index" % (r, a[0], b[0]))
            return (r, lambda k: wrap(a[1](k) + b[1](k)))
        x = self.expr(depth - 1)
        r = self.fresh()
        if kind == "addc":
            c = rng.randint(-40, 40)
            op = rng.choice(["arith.addi", "index.add"])
            ty = " : index" if op.startswith("arith") else ""
            self.emit("%s = %s %s, %s%s" % (r, op, x[0], self.const(c), ty))
            return (r, lambda k: wrap(x[1](k) + c))
        if kind == "subc":
            c = rng.randint(-40, 140)
            self.emit("%s = arith.subi %s, %s : index" % (r, self.const(c), x[0]))
            return (r, lambda k: wrap(c - x[1](k)))
        if kind == "mulc":
            c = rng.choice([-3, -2, -1, 2, 3, 4, 6])
            self.emit("%s = arith.muli %s, %s : index" % (r, x[0], self.const(c)))
            return (r, lambda k: wrap(x[1](k) * c))
        if kind == "cast":
            w = self.fresh()
            self.emit("%s = arith.index_cast %s : index to i64" % (w, x[0]))
            self.emit("%s = arith.index_cast %s : i64 to index" % (r, w))
            return (r, x[1])
        if kind == "lowered":
            # floordiv x, d as mlir-opt --lower-affine writes it.
            d = rng.choice([2, 3, 4])
            neg, nm, sel, q, qm = (self.fresh() for _ in range(5))
            self.emit("%s = arith.cmpi slt, %s, %s : index" % (neg, x[0], self.const(0)))
            self.emit("%s = arith.subi %s, %s : index" % (nm, self.const(-1), x[0]))
            self.emit("%s = arith.select %s, %s, %s : index" % (sel, neg, nm, x[0]))
            self.emit("%s = arith.divsi %s, %s : index" % (q, sel, self.const(d)))
            self.emit("%s = arith.subi %s, %s : index" % (qm, self.const(-1), q))
            self.emit("%s = arith.select %s, %s, %s : index" % (r, neg, qm, q))
            return (r, lambda k: x[1](k) // d)
        if kind == "minmax":
            # A clamp (max with a lower, min with an upper constant, as the
            # lowering of StableHLO's dynamic slices writes rows), or the
            # min or max of two expressions; signed or unsigned, arith or
            # index.
            if rng.random() < 0.6:
                c = rng.randint(-10, 70)
                y = (self.const(c), lambda k, c=c: c)
            else:
                y = self.expr(depth - 1)
            op = rng.choice(["arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui",
                             "index.mins", "index.maxs", "index.minu", "index.maxu"])
            ty = " : index" if op.startswith("arith") else ""
            self.emit("%s = %s %s, %s%s" % (r, op, x[0], y[0], ty))
            name = op.split(".")[1]
            key = unsigned if name.endswith("u") or name.endswith("ui") else (lambda v: v)
            pick = min if name.startswith("min") else max
            return (r, lambda k: pick(x[1](k), y[1](k), key=key))
        if kind == "select":
            y = self.expr(depth - 1)
            pred = rng.choice(["slt", "sle", "sgt", "sge", "eq", "ne"])
            c = rng.randint(-10, 60)
            cond = self.fresh()
            self.emit("%s = arith.cmpi %s, %s, %s : index" % (cond, pred, x[0], self.const(c)))
            # Often the same value both ways (x, or x written again).
            other = x if rng.random() < 0.4 else y
            self.emit("%s = arith.select %s, %s, %s : index" % (r, cond, x[0], other[0]))
            test = {"slt": lambda a: a < c, "sle": lambda a: a <= c, "sgt": lambda a: a > c,
                    "sge": lambda a: a >= c, "eq": lambda a: a == c, "ne": lambda a: a != c}[pred]
            return (r, lambda k: x[1](k) if test(x[1](k)) else other[1](k))
        # Divisions by a constant.
        d = rng.choice([1, 2, 3, 4, 8])
        sp = rng.choice(["affine-floordiv", "affine-ceildiv", "affine-mod", "floordivsi",
                         "ceildivsi", "divsi", "divui", "shrsi", "shrui", "index-floordivs",
                         "index-divs", "index-divu"])
        if sp.startswith("sh") and d not in (1, 2, 4, 8):
            d = 2
        if sp.startswith("affine"):
            op = {"affine-floordiv": "floordiv", "affine-ceildiv": "ceildiv",
                  "affine-mod": "mod"}[sp]
            self.emit("%s = affine.apply affine_map<(d0) -> (d0 %s %d)>(%s)" % (r, op, d, x[0]))
            f = {"floordiv": lambda a: a // d, "ceildiv": lambda a: -((-a) // d),
                 "mod": lambda a: a % d}[op]
            return (r, lambda k: f(x[1](k)))
        if sp.startswith("index"):
            op = sp.split("-")[1]
            self.emit("%s = index.%s %s, %s" % (r, op, x[0], self.const(d)))
        elif sp.startswith("sh"):
            self.emit("%s = arith.%s %s, %s : index" % (r, sp, x[0], self.const(d.bit_length() - 1)))
        else:
            self.emit("%s = arith.%s %s, %s : index" % (r, sp, x[0], self.const(d)))
        f = {"floordivsi": lambda a: a // d, "index-floordivs": lambda a: a // d,
             "ceildivsi": lambda a: -((-a) // d),
             "divsi": lambda a: trunc_div(a, d), "index-divs": lambda a: trunc_div(a, d),
             "divui": lambda a: wrap(unsigned(a) // d), "index-divu": lambda a: wrap(unsigned(a) // d),
             "shrsi": lambda a: a >> (d.bit_length() - 1),
             "shrui": lambda a: wrap(unsigned(a) >> (d.bit_length() - 1))}[sp]
        return (r, lambda k: f(x[1](k)))


def variant(seed, count):
    rng = random.Random(seed)
    lower, step, trips = rng.randint(-6, 12), rng.choice([1, 1, 2, 3, 4]), rng.randint(1, 40)
    g = Gen(rng, lower, step)
    exprs = []
    for _ in range(count):
        ssa, f = g.expr(rng.randint(1, 4))
        if ssa == "%i" or ssa.startswith("%c"):
            continue  # A leaf: nothing to tag.
        # Tag the op defining it: the last line that defines ssa.
        for n in range(len(g.lines) - 1, -1, -1):
            if g.lines[n].lstrip().startswith(ssa + " = "):
                break
        line = g.lines[n]
        g.lines[n] = line + "  // expr %d" % len(exprs)
        exprs.append((ssa, f))
    head = ["func.func @f%d() {" % seed]
    head += ["  %s = arith.constant %d : %s" % (name, c, ty)
             for (c, ty), name in sorted(g.consts.items(), key=lambda t: t[1])]
    head += ["  %s = arith.constant %d : index" % (b, v)
             for b, v in (("%lb", lower), ("%ub", lower + step * trips), ("%st", step))]
    head.append("  scf.for %i = %lb to %ub step %st {")
    # test.index on each tagged line: attr-dict before the type.
    body = []
    for line in g.lines:
        m = re.match(r"(.*?)(\s*)  // expr (\d+)$", line)
        if not m:
            body.append(line)
            continue
        body.append(add_tag(m.group(1)) + "  // expr " + m.group(3))
    text = "\n".join(head + body + ["  }", "  return", "}"]) + "\n"
    return text, exprs, lower, step, trips


def add_tag(line):
    """`test.index` as the op's attribute dictionary."""
    if "affine.apply" in line:
        return line + " {test.index}"
    if re.search(r"= index\.\w+ ", line):
        return line + " {test.index}"
    head, ty = line.rsplit(" : ", 1)
    return head + " {test.index} : " + ty


def parse_claim(text):
    """The sum a*%i + c the remark claims, or None if it names another value."""
    text = text.strip()
    terms = re.findall(r"([+-]?)\s*(?:(\d+)\*)?(%[\w]+|\d+)", text.replace(" ", ""))
    a = c = 0
    for sign, coef, atom in terms:
        s = -1 if sign == "-" else 1
        if atom.startswith("%"):
            if atom != "%arg0":
                return None
            a += s * int(coef or 1)
        else:
            c += s * int(atom)
    return a, c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--keep", help="write each variant's MLIR here")
    a = ap.parse_args()
    total = summed = wrong = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(a.first, a.last + 1):
            text, exprs, lower, step, trips = variant(seed, a.count)
            path = os.path.join(a.keep or tmp, "index_sums_%d.mlir" % seed)
            with open(path, "w") as fh:
                fh.write(text)
            p = subprocess.run(["remat-opt", path, "-remat-test-scan-match", "-o", os.devnull],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("seed %d: remat-opt failed:\n%s" % (seed, p.stderr[-2000:]))
                return 1
            lines = text.splitlines()
            claims = {}
            for m in re.finditer(r":(\d+):\d+: remark: index = (.*)", p.stderr):
                src = lines[int(m.group(1)) - 1]
                e = re.search(r"// expr (\d+)$", src)
                if e:
                    claims[int(e.group(1))] = m.group(2)
            for n, (ssa, f) in enumerate(exprs):
                total += 1
                claim = parse_claim(claims.get(n, "%opaque"))
                if claim is None:
                    continue
                summed += 1
                ca, cc = claim
                for k in range(trips):
                    if ca * k + cc != f(k):
                        wrong += 1
                        print("WRONG seed %d expr %d (%s; loop %d to %d step %d): claimed %s, "
                              "at k = %d it is %d, not %d"
                              % (seed, n, ssa, lower, lower + step * trips, step, claims[n],
                                 k, f(k), ca * k + cc))
                        break
    print("index sums: %d expressions, %d read as sums, %d wrong" % (total, summed, wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
