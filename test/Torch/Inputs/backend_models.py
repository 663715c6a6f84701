# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Small models for the torch.compile backend's tests."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, width=128, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(64 if i == 0 else width, width)
                                    for i in range(depth))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return self.head(x)

    @staticmethod
    def example():
        return torch.randn(512, 64)


class Block(nn.Module):
    """A pre-norm causal self-attention block with a GELU MLP and dropout."""

    def __init__(self, dim=64, heads=4, p=0.1):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / (d // self.heads) ** 0.5
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = self.drop(att.masked_fill(~mask, float("-inf")).softmax(-1))
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.drop(self.proj(y))
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)))))


class TinyDecoder(nn.Module):
    def __init__(self, vocab=128, dim=64, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))

    @staticmethod
    def example():
        return torch.randint(0, 128, (4, 32))


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class SDPABlock(nn.Module):
    """A Llama-style block: RMSNorm, causal scaled_dot_product_attention,
    a SwiGLU MLP."""

    def __init__(self, dim=64, heads=4, hidden=160):
        super().__init__()
        self.heads = heads
        self.n1, self.n2 = RMSNorm(dim), RMSNorm(dim)
        self.qkv, self.o = nn.Linear(dim, 3 * dim, bias=False), nn.Linear(dim, dim, bias=False)
        self.gate, self.up = nn.Linear(dim, hidden, bias=False), nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).split(d, dim=2)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, d))
        z = self.n2(x)
        return x + self.down(F.silu(self.gate(z)) * self.up(z))


class SDPADecoder(nn.Module):
    def __init__(self, vocab=128, dim=64, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(SDPABlock(dim) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))

    @staticmethod
    def example():
        return torch.randint(0, 128, (4, 32))


class ConvNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        layers, cin = [], 3
        for cout in (c, c, 2 * c, 2 * c):
            layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
            cin = cout
        self.features = nn.Sequential(*layers[:6], nn.MaxPool2d(2), *layers[6:])
        self.head = nn.Linear(cin, 10)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))

    @staticmethod
    def example():
        return torch.randn(4, 3, 32, 32)


class Constant(nn.Module):
    """A tensor the forward makes itself (`torch.tensor(0.0)`, as
    transformers' loss does): a constant of the traced graph."""

    def __init__(self, width=64):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        y = torch.tanh(self.fc(x))
        return torch.maximum(y, torch.tensor(0.0)) + torch.tensor([1.0, 2.0]).sum()

    @staticmethod
    def example():
        return torch.randn(32, 64)


class ViT(nn.Module):
    """timm's VisionTransformer, tiny: its strided patch-embedding
    convolution's backward allocates several times its output gradient."""

    def __init__(self, side=32, width=32):
        super().__init__()
        from timm.models.vision_transformer import VisionTransformer
        self.net = VisionTransformer(img_size=side, patch_size=8, embed_dim=width, depth=2,
                                     num_heads=2, num_classes=10)

    def forward(self, x):
        return self.net(x)

    @staticmethod
    def example():
        return torch.randn(2, 3, 32, 32)


class ViTWide(ViT):
    """Two blocks 384 wide: Inductor's own peak-memory reordering moves
    their weight gradients' kernels to the end of the backward
    (inductor-order.test)."""

    def __init__(self):
        super().__init__(side=64, width=384)

    @staticmethod
    def example():
        return torch.randn(8, 3, 64, 64)


class _CausalLM(nn.Module):
    """A transformers causal language model returning its loss (one graph:
    loss_type set, else a logged warning breaks the graph)."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.net.loss_type = "ForCausalLM"

    def forward(self, ids):
        return self.net(input_ids=ids, labels=ids, use_cache=False).loss


class GPT2(_CausalLM):
    """transformers' GPT-2, tiny."""

    def __init__(self, vocab=256, length=32):
        from transformers import GPT2Config, GPT2LMHeadModel
        super().__init__(GPT2LMHeadModel(GPT2Config(
            n_layer=2, n_embd=32, n_head=2, vocab_size=vocab, n_positions=length,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
            attn_implementation="eager")))

    @staticmethod
    def example():
        return torch.randint(0, 256, (2, 32))


class Llama(_CausalLM):
    """transformers' Llama, six layers 128 wide: at `min` remat recomputes
    the residual stream and each layer's RMSNorm output right before the
    layer's backward, a chain of elementwise ops and reductions between
    the layers' matmuls that Inductor would fuse into kernels computing
    several layers' values at once."""

    def __init__(self, layers=6, width=128, vocab=1024, length=256):
        from transformers import LlamaConfig, LlamaForCausalLM
        super().__init__(LlamaForCausalLM(LlamaConfig(
            num_hidden_layers=layers, hidden_size=width, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=width * 8 // 3, vocab_size=vocab,
            max_position_embeddings=length, attn_implementation="eager")))

    @staticmethod
    def example():
        return torch.randint(0, 1024, (2, 256))


class Broken(nn.Module):
    """Two graphs: a graph break between its layers."""

    def __init__(self, width=64):
        super().__init__()
        self.a, self.b = nn.Linear(width, width), nn.Linear(width, width)

    def forward(self, x):
        x = torch.tanh(self.a(x))
        torch._dynamo.graph_break()
        return self.b(x)

    @staticmethod
    def example():
        return torch.randn(32, 64)


class WideConvNet(nn.Module):
    """A ResNet's last stage, small: 3x3 convolutions of 128 channels on
    4x4 images with batch norms, its weights larger than its activations
    (under autocast their float32 gradients are casts of bfloat16 ones)."""

    def __init__(self, c=128, depth=4):
        super().__init__()
        layers, cin = [], 3
        for _ in range(depth):
            layers += [nn.Conv2d(cin, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU()]
            cin = c
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c, 10)

    def forward(self, x):
        return self.head(self.body(x).mean((2, 3)))

    @staticmethod
    def example():
        return torch.randn(2, 3, 4, 4)


class GeluStack(nn.Module):
    """Residual Linear-LayerNorm-GELU layers: Inductor fuses each norm and
    GELU into a kernel or two (at min, 8.7 MB measured against 10.8 MB
    when remat's model counted one buffer per ATen op; its fusion groups
    now count them as Inductor runs them)."""

    def __init__(self, width=256, depth=6):
        super().__init__()
        self.lin = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.norm = nn.ModuleList(nn.LayerNorm(width) for _ in range(depth))

    def forward(self, x):
        for lin, norm in zip(self.lin, self.norm):
            x = x + F.gelu(norm(lin(x))) * 0.5
        return x

    @staticmethod
    def example():
        return torch.randn(1024, 256)
