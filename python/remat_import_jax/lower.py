# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""JAX's training step in the dialects remat-opt reads.

`jax.jit(jax.value_and_grad(loss_fn)).lower(*args)` gives StableHLO.
Straight-line code is lowered with jaxlib's own passes (inline the
private functions JAX emits for log_softmax and friends, then
`stablehlo-legalize-to-linalg`), which leave `stablehlo.while` (from
`lax.scan`, `fori_loop`) as it is: jaxlib has no control-flow conversion.
A step with loops takes IREE's input conversion instead
(`iree-compile --compile-to=input`), which lowers them to `scf.for` and
prints its function as `util.func`/`util.return`, renamed here to
`func.func`/`func.return` (the only IREE ops it leaves on these steps;
any other is refused by name).  Either way the function is renamed to
`@NAME` and its first result, the loss, is marked `{remat.loss}`.
"""

import re

STEP_DOC = "jax.value_and_grad(loss_fn)(*args): the loss, then the gradient " \
           "of every leaf of args[0] (tree order)"


class Unsupported(Exception):
    """The step has an op neither route lowers."""


def stablehlo_module(loss_fn, args):
    import jax
    return jax.jit(jax.value_and_grad(loss_fn)).lower(*args)


def _foreign_ops(text):
    """Ops of dialects remat-opt does not read, by name."""
    upstream = ("func", "linalg", "tensor", "arith", "math", "scf", "affine", "builtin")
    ops = set(re.findall(r"(?:^\s*|=\s*)\"?([a-z_]+)\.([a-z_.]+)\"?[\s(<{]", text, re.M))
    return sorted({"%s.%s" % (d, o) for d, o in ops
                   if d not in upstream and o != "return"})


def _jaxlib_route(lowered):
    from jaxlib.mlir import passmanager
    from jaxlib.mlir._mlir_libs import _stablehlo
    _stablehlo.register_stablehlo_passes()
    m = lowered.compiler_ir("stablehlo")
    with m.context:
        pm = passmanager.PassManager.parse(
            "builtin.module(inline,func.func(chlo-legalize-to-stablehlo,"
            "stablehlo-legalize-to-linalg),canonicalize)")
        pm.run(m.operation)
        return m.operation.get_asm(enable_debug_info=False)


def _iree_route(lowered):
    try:
        import iree.compiler.tools as iree
    except ImportError:
        raise Unsupported("the step has loops (stablehlo.while) and only IREE's input "
                          "conversion lowers them: pip install iree-base-compiler "
                          "(python/requirements.txt pins it)")
    text = iree.compile_str(lowered.as_text(), input_type="stablehlo",
                            extra_args=["--compile-to=input", "--mlir-print-debuginfo=false"])
    text = text.decode() if isinstance(text, bytes) else text
    text = re.sub(r"\butil\.func\s+(public\s+|private\s+)?", "func.func ", text)
    return re.sub(r"\butil\.return\b", "return", text)


_HEX_I1 = re.compile(r'dense<"0x([0-9A-Fa-f]+)">(\s*:\s*tensor<((?:\d+x)*)i1>)')


def _i1_literals(text):
    """Boolean constants printed as hex (jaxlib's and IREE's MLIR print one
    byte per element, which MLIR 22 does not parse) spelled as literals."""
    from remat_import_torch.argfill import dense_text

    def literal(m):
        data = bytes.fromhex(m.group(1))
        shape = [int(d) for d in m.group(3).split("x") if d]
        numel = 1
        for d in shape:
            numel *= d
        if len(data) == numel:
            bits = [b != 0 for b in data]
        elif len(data) == (numel + 7) // 8:  # packed, as MLIR 22 writes it
            bits = [(data[i // 8] >> (i % 8)) & 1 == 1 for i in range(numel)]
        else:
            raise Unsupported("a boolean constant of %d bytes for %d elements" % (len(data), numel))
        if len(set(bits)) == 1:
            return "dense<%s>%s" % ("true" if bits[0] else "false", m.group(2))
        return dense_text(bits, shape, "i1") + m.group(2)
    return _HEX_I1.sub(literal, text)


def _rename_and_mark(text, name):
    """The public function @main renamed @NAME, its first result marked as
    the loss."""
    m = re.search(r"func\.func\s+(?:public\s+)?@main\(", text)
    if not m:
        raise Unsupported("no public @main in the lowered step")
    head = "func.func @%s(" % name
    text = text[:m.start()] + head + text[m.end():]
    # The first result type after the argument list's `-> (`.
    at = text.index(head)
    arrow = text.index("-> (", at) + len("-> (")
    depth, i = 0, arrow
    while True:   # the end of the first result's type (nested <...>)
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                break
        i += 1
    rest = text[i + 1:]
    attrs = re.match(r"\s*\{[^}]*\}", rest)
    if attrs:
        rest = rest[:attrs.end() - 1].rstrip() + ", remat.loss}" + rest[attrs.end():]
    else:
        rest = " {remat.loss}" + rest
    return text[:i + 1] + rest


def step_mlir(loss_fn, args, name="step"):
    """(MLIR text of the step, the route taken: 'jaxlib' or 'iree')."""
    lowered = stablehlo_module(loss_fn, args)
    hlo = lowered.as_text()
    route = "iree" if "stablehlo.while" in hlo or "stablehlo.case" in hlo else "jaxlib"
    text = _iree_route(lowered) if route == "iree" else _jaxlib_route(lowered)
    foreign = _foreign_ops(text)
    if foreign:
        hint = ""
        if any(op.endswith(".scatter") for op in foreign):
            hint = ("; a scatter is what take_along_axis's gradient and x.at[i].set(v) "
                    "become: use one-hot labels (jax.nn.one_hot) and "
                    "jax.lax.dynamic_update_slice instead")
        raise Unsupported("%s left after %s's lowering: remat-opt reads linalg, tensor, "
                          "arith, math and scf%s"
                          % (", ".join(foreign), "IREE" if route == "iree" else "jaxlib", hint))
    return _rename_and_mark(_i1_literals(text), name), route
