# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recurrent JAX steps written as users vary them, for check: `vN` (any N)
draws one from seed N: the loop spelled as lax.scan or fori_loop, forward
or reversed, time-first or batch-first input, a tanh RNN or a GRU cell,
one or two layers, the loss on the last state or on every step's output.
Prints nothing; `describe(N)` says what was drawn."""
import random

import jax
import jax.numpy as jnp

T, B, D, H = 10, 4, 6, 12


def _choices(seed):
    r = random.Random(seed)
    return {"loop": r.choice(["scan", "fori"]), "reverse": r.random() < 0.5,
            "batch_first": r.random() < 0.5, "cell": r.choice(["rnn", "gru"]),
            "layers": r.choice([1, 2]), "loss_on": r.choice(["last", "all"])}


def describe(seed):
    return ", ".join("%s=%s" % kv for kv in sorted(_choices(seed).items()))


def _weights(key, cell, d):
    n = 3 if cell == "gru" else 1
    k = jax.random.split(key, 2 * n)
    return [(jax.random.normal(k[2 * i], (d, H)) / jnp.sqrt(d),
             jax.random.normal(k[2 * i + 1], (H, H)) / jnp.sqrt(H)) for i in range(n)]


def _cell(kind, w, h, x):
    if kind == "rnn":
        return jnp.tanh(x @ w[0][0] + h @ w[0][1])
    z = jax.nn.sigmoid(x @ w[0][0] + h @ w[0][1])
    r = jax.nn.sigmoid(x @ w[1][0] + h @ w[1][1])
    n = jnp.tanh(x @ w[2][0] + (r * h) @ w[2][1])
    return (1 - z) * n + z * h


def _layer(c, w, xs):
    """xs time-first; returns every step's state, time-first."""
    h0 = jnp.zeros((B, H))
    if c["loop"] == "scan":
        def step(h, x):
            h = _cell(c["cell"], w, h, x)
            return h, h
        return jax.lax.scan(step, h0, xs, reverse=c["reverse"])[1]

    def body(i, carry):
        h, hs = carry
        t = T - 1 - i if c["reverse"] else i
        h = _cell(c["cell"], w, h, xs[t])
        # (hs.at[t].set(h) is a scatter, which neither lowering takes.)
        return h, jax.lax.dynamic_update_index_in_dim(hs, h, t, 0)
    return jax.lax.fori_loop(0, T, body, (h0, jnp.zeros((T, B, H))))[1]


def _build(seed):
    c = _choices(seed)
    keys = jax.random.split(jax.random.PRNGKey(seed), 4)
    params = {"layers": [_weights(keys[i], c["cell"], D if i == 0 else H)
                         for i in range(c["layers"])],
              "out": jax.random.normal(keys[2], (H, 3)) / jnp.sqrt(H)}
    xs = jax.random.normal(keys[3], (T, B, D))
    x = jnp.swapaxes(xs, 0, 1) if c["batch_first"] else xs

    def loss(p, x):
        hs = jnp.swapaxes(x, 0, 1) if c["batch_first"] else x
        for w in p["layers"]:
            hs = _layer(c, w, hs)
        last = hs[0] if c["reverse"] else hs[-1]
        y = (hs if c["loss_on"] == "all" else last) @ p["out"]
        return jnp.mean(y ** 2)
    return loss, (params, x)


def __getattr__(name):
    if name.startswith("v") and name[1:].isdigit():
        return lambda: _build(int(name[1:]))
    raise AttributeError(name)
