# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The text of a tanh layer's backward, shared by gen_pipeline.py's 1F1B
forms (lock-step and asynchronous)."""


def tanh_layer_backward(e, ind, j, act, w2, grad=None, empty=None):
    """Emits, through `e`, layer j's backward at indentation `ind`:
    d_j = grad (1 - s_j^2) into tensor.empty %empty (when `grad` is given;
    else %d{j} is already made), dW_{j-1} += s_{j-1}^T d_j into %dw{j-1}_n,
    and the input gradient gx_{j-1} = d_j W_{j-1}^T."""
    if grad is not None:
        e(ind + "%%%s = tensor.empty() : %s" % (empty, act))
        e(ind + "%%d%d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\", \"parallel\"]}" % j)
        e(ind + "    ins(%%%s, %%s%d : %s, %s) outs(%%%s : %s) {" % (grad, j, act, act, empty, act))
        e(ind + "^bb0(%gv: f32, %yv: f32, %out: f32):")
        e(ind + "  %one = arith.constant 1.0 : f32")
        e(ind + "  %y2 = arith.mulf %yv, %yv : f32")
        e(ind + "  %dt = arith.subf %one, %y2 : f32")
        e(ind + "  %r = arith.mulf %gv, %dt : f32")
        e(ind + "  linalg.yield %r : f32")
        e(ind + "} -> " + act)
    e(ind + "%%dw%d_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}" % (j - 1))
    e(ind + "    ins(%%s%d, %%d%d : %s, %s) outs(%%dw%d : %s) {" % (j - 1, j, act, act, j - 1, w2))
    e(ind + "^bb0(%a: f32, %bb: f32, %out: f32):")
    e(ind + "  %m = arith.mulf %a, %bb : f32")
    e(ind + "  %r = arith.addf %out, %m : f32")
    e(ind + "  linalg.yield %r : f32")
    e(ind + "} -> " + w2)
    e(ind + "%%gx%d_e = tensor.empty() : %s" % (j - 1, act))
    e(ind + "%%gx%d_z = linalg.fill ins(%%zero : f32) outs(%%gx%d_e : %s) -> %s" % (j - 1, j - 1, act, act))
    e(ind + "%%gx%d = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}" % (j - 1))
    e(ind + "    ins(%%d%d, %%w%d : %s, %s) outs(%%gx%d_z : %s) {" % (j, j - 1, act, w2, j - 1, act))
    e(ind + "^bb0(%a: f32, %bb: f32, %out: f32):")
    e(ind + "  %m = arith.mulf %a, %bb : f32")
    e(ind + "  %r = arith.addf %out, %m : f32")
    e(ind + "  linalg.yield %r : f32")
    e(ind + "} -> " + act)
