# A language model as a user writes it, outside any library: token ids in,
# logits out; embedding, RMSNorm, rotary position embedding, causal
# scaled_dot_product_attention, a SwiGLU MLP, a tied-free LM head.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.scale * x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)


def rotary(x, base=10000.0):
    # x: [batch, heads, seq, head_dim]; rotate pairs of channels by position.
    b, h, t, d = x.shape
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    ang = torch.outer(torch.arange(t, dtype=torch.float32), inv)
    cos, sin = ang.cos()[None, None], ang.sin()[None, None]
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (w(x).view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        y = F.scaled_dot_product_attention(rotary(q), rotary(k), v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, c))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.attn = RMSNorm(dim), Attention(dim, heads)
        self.norm2, self.mlp = RMSNorm(dim), SwiGLU(dim, 4 * dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class MyLM(nn.Module):
    def __init__(self, vocab=97, dim=32, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        nn.init.normal_(self.head.weight, std=1 / math.sqrt(dim))

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class MyLMDeclared(MyLM):
    """The same, saying itself what it reads."""
    remat_tokens = ("ids", 97)


class MyGPT(nn.Module):
    """A pre-norm decoder from torch.nn's own Transformer layers, with a
    float causal mask (their forward compares it with a causal one)."""

    def __init__(self, vocab=97, dim=32, heads=4, layers=2, seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids), mask=self.mask))
