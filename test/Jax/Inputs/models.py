# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""JAX training steps as users write them, for remat-import-jax: each
function returns (loss_fn, args), the step being
jax.value_and_grad(loss_fn)(*args)."""
import jax
import jax.numpy as jnp


def _keys(n):
    return jax.random.split(jax.random.PRNGKey(0), n)


def _xent(logits, labels, classes):
    """Cross-entropy with one-hot labels (take_along_axis's gradient is a
    scatter, which jaxlib does not lower)."""
    onehot = jax.nn.one_hot(labels, classes)
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1))


def mlp():
    """An 8-layer tanh MLP, batch 1024."""
    k = _keys(10)
    sizes = [64] + [128] * 7 + [10]
    params = [(jax.random.normal(k[i], (a, b)) / jnp.sqrt(a), jnp.zeros((b,)))
              for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]
    x = jax.random.normal(k[8], (1024, 64))
    y = jax.random.randint(k[9], (1024,), 0, 10)

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return _xent(h @ w + b, y, 10)
    return loss, (params, x, y)


def _layer_norm(x, g, b):
    mu = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, -1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def transformer():
    """Two pre-norm causal transformer blocks (4 heads), batch 4 x 32
    tokens of width 64, in plain JAX; a linear head and cross-entropy on
    the mean token."""
    B, T, D, H, L = 4, 32, 64, 4, 2
    k = iter(_keys(4 * L + 3))

    def dense(a, b):
        return jax.random.normal(next(k), (a, b)) / jnp.sqrt(a)
    blocks = [{"ln1": (jnp.ones(D), jnp.zeros(D)), "qkv": dense(D, 3 * D), "proj": dense(D, D),
               "ln2": (jnp.ones(D), jnp.zeros(D)), "up": dense(D, 4 * D), "down": dense(4 * D, D)}
              for _ in range(L)]
    params = {"blocks": blocks, "head": dense(D, 10)}
    x = jax.random.normal(next(k), (B, T, D))
    y = jax.random.randint(next(k), (B,), 0, 10)
    causal = jnp.tril(jnp.ones((T, T), bool))

    def block(p, h):
        a = _layer_norm(h, *p["ln1"]) @ p["qkv"]
        q, kk, v = jnp.split(a.reshape(B, T, 3, H, D // H), 3, axis=2)
        q, kk, v = (t[:, :, 0].transpose(0, 2, 1, 3) for t in (q, kk, v))
        s = jnp.where(causal, q @ kk.transpose(0, 1, 3, 2) / jnp.sqrt(D // H), -1e9)
        att = (jax.nn.softmax(s, -1) @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
        h = h + att @ p["proj"]
        return h + jax.nn.gelu(_layer_norm(h, *p["ln2"]) @ p["up"]) @ p["down"]

    def loss(params, x, y):
        h = x
        for p in params["blocks"]:
            h = block(p, h)
        return _xent(jnp.mean(h, 1) @ params["head"], y, 10)
    return loss, (params, x, y)


def rnn():
    """A tanh RNN over 32 steps with lax.scan, batch 16, and a squared
    error on its last state."""
    k = _keys(5)
    T, B, D, Hd = 32, 16, 32, 64
    params = {"wx": jax.random.normal(k[0], (D, Hd)) / jnp.sqrt(D),
              "wh": jax.random.normal(k[1], (Hd, Hd)) / jnp.sqrt(Hd),
              "wo": jax.random.normal(k[2], (Hd, 4)) / jnp.sqrt(Hd)}
    xs = jax.random.normal(k[3], (T, B, D))
    y = jax.random.normal(k[4], (B, 4))

    def loss(p, xs, y):
        def cell(h, x):
            return jnp.tanh(x @ p["wx"] + h @ p["wh"]), None
        h, _ = jax.lax.scan(cell, jnp.zeros((B, Hd)), xs)
        return jnp.mean((h @ p["wo"] - y) ** 2)
    return loss, (params, xs, y)


def conv():
    """Two 3x3 convolutions (the second strided) with ReLUs, batch 2 of
    3 x 16 x 16: jax.lax.conv, whose gradient reads a reversed kernel."""
    k = _keys(3)
    w1 = jax.random.normal(k[0], (8, 3, 3, 3)) / 5
    w2 = jax.random.normal(k[1], (8, 8, 3, 3)) / 8
    x = jax.random.normal(k[2], (2, 3, 16, 16))

    def loss(ws, x):
        h = jax.nn.relu(jax.lax.conv(x, ws[0], (1, 1), "SAME"))
        h = jax.nn.relu(jax.lax.conv(h, ws[1], (2, 2), "SAME"))
        return jnp.mean(h ** 2)
    return loss, ((w1, w2), x)


def gathered_labels():
    """Cross-entropy with take_along_axis: its gradient is a scatter, which
    neither lowering turns into linalg (remat-import-jax says so)."""
    k = _keys(3)
    w = jax.random.normal(k[0], (16, 10))
    x = jax.random.normal(k[1], (8, 16))
    y = jax.random.randint(k[2], (8,), 0, 10)

    def loss(w, x, y):
        logp = jax.nn.log_softmax(x @ w)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], 1))
    return loss, (w, x, y)


def not_a_pair():
    return 42
