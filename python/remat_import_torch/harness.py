"""Deterministic argument values, the @main harness and the PyTorch reference.

Values follow test/Corpus (README, "Argument values"): element i (row-major
linear index) of an argument is offset + scale * u(i), u in [-1, 1) from a
32-bit integer hash of i and a per-argument seed.  Integer arithmetic and
exact f32 steps make the values bit-identical in MLIR and in PyTorch, so the
lowered step and PyTorch's own backward() see the same weights and inputs.

  inputs       scale 1
  labels       t[n] = (3n + 1) mod K (int64 class indices, for --loss xent)
  weights      He-uniform: scale sqrt(6 / fan_in), fan_in = numel / shape[0]
  1-D weights  (normalization scales) 1 + 0.1 u
  biases       0.1 u
"""

import math
import re

import torch

from .mlir import float_text, f32

HASH_MASK = 0xFFFFFFFF
HASH_A = 0x2545F491
HASH_C = 0x6C8E9CF5 & 0x7FFFFFFF


def arg_seed(k):
    return (k * 0x9E3779B1 + 0x7F4A7C15) & HASH_MASK


class Init:
    def __init__(self, kind, seed=0, scale=1.0, offset=0.0, classes=0):
        self.kind, self.seed = kind, seed
        self.scale, self.offset, self.classes = f32(scale), f32(offset), classes

    def describe(self):
        if self.kind == "labels":
            return "labels t[n] = (3n + 1) mod %d" % self.classes
        text = "%s * u(i), seed %d" % (float_text(self.scale), self.seed)
        return (float_text(self.offset) + " + " + text) if self.offset else text


def init_for(primal, k, num_classes):
    """The Init of the k-th argument."""
    seed = arg_seed(k)
    if primal.kind == "input":
        if primal.dtype == torch.int64:
            return Init("labels", classes=num_classes)
        return Init("uniform", seed, 1.0)
    shape = primal.shape
    if len(shape) >= 2:
        fan_in = math.prod(shape) // shape[0]
        return Init("uniform", seed, math.sqrt(6.0 / fan_in))
    if primal.kind == "buffer" or primal.name.endswith("weight"):
        return Init("uniform", seed, 0.1, 1.0)
    return Init("uniform", seed, 0.1)


def torch_value(init, shape, dtype):
    """The argument's values in PyTorch (float32 or int64)."""
    if init.kind == "labels":
        n = torch.arange(shape[0], dtype=torch.int64)
        return (3 * n + 1) % init.classes
    i = torch.arange(math.prod(shape), dtype=torch.int64)
    h = (i * HASH_A + init.seed) & HASH_MASK
    h = h ^ (h >> 15)
    h = (h * HASH_C) & HASH_MASK
    h = h ^ (h >> 13)
    u = (h >> 8).to(torch.float32) * torch.tensor(2.0 ** -23, dtype=torch.float32) - 1.0
    v = u * torch.tensor(init.scale, dtype=torch.float32)
    if init.offset:
        v = v + torch.tensor(init.offset, dtype=torch.float32)
    return v.reshape(shape)


def fill_arg(v, init):
    """MLIR lines computing argument `v` (a V) from its linear index."""
    rank = v.rank
    d = ", ".join("d%d" % i for i in range(rank))
    idm = "affine_map<(%s) -> (%s)>" % (d, d)
    out = ["  // %s: %s" % (v.ssa, init.describe()),
           "  %s_e = tensor.empty() : %s" % (v.ssa, v.ty),
           "  %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
           % (v.ssa, idm, ", ".join(['"parallel"'] * rank)),
           "      outs(%s_e : %s) {" % (v.ssa, v.ty), "  ^bb0(%%out: %s):" % v.elt]
    body = ["%%i%d = linalg.index %d : index" % (i, i) for i in range(rank)]
    if init.kind == "labels":
        body += ["%%cls = affine.apply affine_map<(n) -> ((n * 3 + 1) mod %d)>(%%i0)"
                 % init.classes,
                 "%%v = arith.index_cast %%cls : index to %s" % v.elt]
    else:
        strides = [math.prod(v.shape[i + 1:]) for i in range(rank)]
        expr = " + ".join("d%d * %d" % (i, s) for i, s in enumerate(strides)) or "0"
        args = ", ".join("%%i%d" % i for i in range(rank))
        body += ["%%lin = affine.apply affine_map<(%s) -> (%s)>(%s)" % (d, expr, args)
                 if rank else "%lin = arith.constant 0 : index",
                 "%l = arith.index_cast %lin : index to i64",
                 "%%ca = arith.constant %d : i64" % HASH_A,
                 "%%cb = arith.constant %d : i64" % init.seed,
                 "%%cc = arith.constant %d : i64" % HASH_C,
                 "%%mask = arith.constant %d : i64" % HASH_MASK,
                 "%s8 = arith.constant 8 : i64", "%s13 = arith.constant 13 : i64",
                 "%s15 = arith.constant 15 : i64",
                 "%q0 = arith.muli %l, %ca : i64", "%q1 = arith.addi %q0, %cb : i64",
                 "%q2 = arith.andi %q1, %mask : i64", "%q3 = arith.shrui %q2, %s15 : i64",
                 "%q4 = arith.xori %q2, %q3 : i64", "%q5 = arith.muli %q4, %cc : i64",
                 "%q6 = arith.andi %q5, %mask : i64", "%q7 = arith.shrui %q6, %s13 : i64",
                 "%q8 = arith.xori %q6, %q7 : i64", "%q9 = arith.shrui %q8, %s8 : i64",
                 "%u0 = arith.uitofp %q9 : i64 to f32",
                 "%ulp = arith.constant 1.1920928955078125e-07 : f32",
                 "%one = arith.constant 1.0 : f32",
                 "%%scale = arith.constant %s : f32" % float_text(init.scale),
                 "%u1 = arith.mulf %u0, %ulp : f32", "%u2 = arith.subf %u1, %one : f32",
                 "%v0 = arith.mulf %u2, %scale : f32"]
        if init.offset:
            body += ["%%offset = arith.constant %s : f32" % float_text(init.offset),
                     "%v = arith.addf %v0, %offset : f32"]
        else:
            body[-1] = body[-1].replace("%v0 =", "%v =")
    body.append("linalg.yield %%v : %s" % v.elt)
    out += ["    " + l for l in body]
    out.append("  } -> %s" % v.ty)
    return out


def harness_text(emitter, inits, summary=False):
    """@main: fills the arguments, calls the step, prints every result with
    printMemrefF32 (loss first, then the gradients in argument order).
    With `summary`, each gradient is printed as two numbers instead:
    its sum and the sum of its squares (large models)."""
    f = emitter.f
    lines = ["// GENERATED by remat-import-torch; harness of @%s." % f.name,
             "// Prints the loss, then every parameter gradient (argument order).",
             "func.func private @printMemrefF32(tensor<*xf32>)", "",
             "func.func @main() {"]
    for v, init in zip(f.args, inits):
        lines += fill_arg(v, init)
    res = ["%%res%d" % i for i in range(len(f.results))]
    rtypes = [v.ty for v, _ in f.results]
    lines.append("  %s = func.call @%s(%s)" % (", ".join(res), f.name,
                                               ", ".join(a.ssa for a in f.args)))
    lines.append("      : (%s) -> (%s)" % (", ".join(a.ty for a in f.args), ", ".join(rtypes)))
    for r, ty in zip(res, rtypes):
        lines.append("  %s_u = tensor.cast %s : %s to tensor<*xf32>" % (r, r, ty))
        lines.append("  func.call @printMemrefF32(%s_u) : (tensor<*xf32>) -> ()" % r)
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dropout_mask(shape, k, p_keep):
    """The mask the importer's k-th bernoulli op (k = 1, 2, ...) draws:
    1 where u(i) < p_keep, u(i) = (hash(i, seed_k) >> 8) * 2^-24 (emit.py)."""
    seed = (k * 0x9E3779B1 + 0x7F4A7C15) & HASH_MASK
    i = torch.arange(math.prod(shape), dtype=torch.int64)
    h = (i * HASH_A + seed) & HASH_MASK
    h = h ^ (h >> 15)
    h = (h * 0x6C8E9CF5) & HASH_MASK
    h = h ^ (h >> 13)
    u = (h >> 8).to(torch.float32) * torch.tensor(2.0 ** -24, dtype=torch.float32)
    return (u < torch.tensor(p_keep, dtype=torch.float32)).reshape(shape)


class _SameDropout:
    """Within `with`, F.dropout draws the importer's masks (in call order),
    so PyTorch's reference sees the same random numbers as the MLIR step."""

    def __enter__(self):
        import torch.nn.functional as F
        self.F, self.orig, self.k = F, F.dropout, 0

        def dropout(x, p=0.5, training=True, inplace=False):
            if not training or p == 0:
                return x
            self.k += 1
            mask = dropout_mask(list(x.shape), self.k, 1.0 - p).to(x.dtype)
            return x * (mask / (1.0 - p))
        F.dropout = dropout
        return self

    def __exit__(self, *exc):
        self.F.dropout = self.orig


def reference(joint, emitter, inits, dtype=torch.float64):
    """(loss, [grad per result parameter]) from PyTorch's own backward() on
    the model with the harness's values (computed in `dtype`); dropout
    layers draw the same masks as the imported step."""
    wrapper = joint.wrapper
    wrapper.train()
    wrapper = wrapper.to(dtype)
    values = {}
    for p, init in zip(emitter.arg_primals, inits):
        values[p.name] = (p, torch_value(init, p.shape, p.dtype))
    params = dict(wrapper.model.named_parameters())
    with torch.no_grad():
        for name, (p, val) in values.items():
            if p.kind == "param":
                params[name].copy_(val.to(dtype))
            elif p.kind == "buffer":
                dict(wrapper.model.named_buffers())[name].copy_(val)
    inputs = []
    for name in ("x", "target"):
        if name in values:
            p, val = values[name]
            inputs.append(val.to(dtype) if val.is_floating_point() else val)
    wrapper.zero_grad(set_to_none=True)
    with _SameDropout():
        loss = wrapper(*inputs)
    loss.backward()
    grads = [params[p.name].grad.detach().clone() for p in emitter.result_primals]
    return loss.detach(), grads


NUM = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def parse_memrefs(text):
    """[(shape, [values])] of printMemrefF32 output."""
    out = []
    for block in text.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        shape = [int(s) for s in sizes.split(",") if s.strip()]
        data = block.split("data =", 1)[1]
        out.append((shape, [float(v) for v in NUM.findall(data)]))
    return out


def compare(label, shape, got, want, rtol, floor=0.0):
    """(ok, line): max |got - want| <= rtol * max |want|.  A PyTorch tensor
    that is zero up to float64 rounding (max |want| <= 1e-9 * floor, e.g. the
    bias gradient of a convolution that a batch norm follows) is compared
    against rtol * floor instead, `floor` being the largest gradient of the
    step."""
    if list(shape) != list(want.shape):
        return False, "%s: shape %s, expected %s FAIL" % (label, shape, list(want.shape))
    want = want.reshape(-1).to(torch.float64)
    g = torch.tensor(got, dtype=torch.float64)
    if g.numel() != want.numel():
        return False, "%s: %d values, expected %d FAIL" % (label, g.numel(), want.numel())
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (g - want).abs().max().item() if want.numel() else 0.0
    note = ""
    if scale <= 1e-9 * floor:
        scale, note = floor, " (zero in exact arithmetic: relative to the largest gradient)"
    if scale == 0:
        ok = err == 0
        return ok, "%s: zero gradient, max err %.1e %s" % (label, err, "ok" if ok else "FAIL")
    rel = err / scale
    ok = math.isfinite(rel) and rel <= rtol
    return ok, "%s: %s max|torch| %.3e max rel err %.1e%s %s" % (
        label, "x".join(map(str, shape)) or "scalar", scale, rel, note, "ok" if ok else "FAIL")


def relu_root(n):
    """The aten.relu node a value is (through detach/alias chains), or None."""
    while hasattr(n, "op") and n.op == "call_function" and str(n.target) in (
            "aten.detach.default", "aten.alias.default"):
        n = n.args[0]
    if hasattr(n, "op") and str(n.target) == "aten.relu.default":
        return n
    return None


def joint_values(joint, emitter, inits, names, dtype=torch.float64, masks=None):
    """Values of the named joint-graph nodes, the graph run in `dtype` on the
    harness's values (tangent 1): the oracle of `check --probe`.  With
    `masks` ({relu node name: bool tensor}), each of those ReLUs keeps
    exactly the elements its mask says and threshold_backward of its output
    passes the gradient through the same elements: the derivative at the
    activation pattern of another run (the MLIR step's), where float64 and
    float32 disagree on the sign of an input within rounding of 0.
    names=None returns {"loss": value, "grads": [gradient per result
    parameter of the emitter]}."""
    import torch.fx
    values = {p.node: torch_value(i, p.shape, p.dtype) for p, i in zip(emitter.arg_primals, inits)}
    wrapper = joint.wrapper
    named = dict(wrapper.named_parameters())
    named.update(dict(wrapper.named_buffers()))
    args = []
    for p in joint.primals:
        v = values.get(p.node)
        if v is None:
            v = named["model." + p.name].detach()
        args.append(v.to(dtype) if v.is_floating_point() else v)
    env = {}
    masks = masks or {}

    class Run(torch.fx.Interpreter):
        def run_node(self, n):
            if n.op == "call_function" and n.name in masks:
                x = self.fetch_args_kwargs_from_env(n)[0][0]
                r = torch.where(masks[n.name], x, torch.zeros_like(x))
            elif n.op == "call_function" and str(n.target) == "aten.threshold_backward.default" \
                    and relu_root(n.args[1]) is not None and relu_root(n.args[1]).name in masks:
                g = self.fetch_args_kwargs_from_env(n)[0][0]
                r = torch.where(masks[relu_root(n.args[1]).name], g, torch.zeros_like(g))
            else:
                r = super().run_node(n)
            if names is not None and n.name in names:
                env[n.name] = r
            return r
    with torch.no_grad():
        out = Run(joint.graph_module).run(args, [torch.ones([], dtype=dtype)])
    if names is not None:
        return env
    # AOTAutograd's joint function returns (forward outputs, gradients).
    if len(out) == 2 and isinstance(out[0], (list, tuple)):
        loss, grad_list = out[0][0], list(out[1])
    else:
        loss, grad_list = out[0], list(out[1:])
    grads = dict(zip([p.node for p in joint.primals], grad_list))
    return {"loss": loss, "grads": [grads[p.node] for p in emitter.result_primals]}
