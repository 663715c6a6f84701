"""Small models for the importer's lit tests (remat-import-torch FILE:Class)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCNN(nn.Module):
    """conv-bn-relu-maxpool, a strided residual block, avgpool, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.down = nn.Conv2d(8, 8, 1, stride=2)
        self.fc = nn.Linear(8 * 2 * 2, 10)

    def forward(self, x):
        a = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        b = F.relu(self.bn2(self.conv2(a)) + self.down(a))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(b, 2), 1))


class ResNetish(nn.Module):
    """A ResNet-like stem (7x7 stride 2, 3x3 max pool stride 2 padding 1),
    two basic blocks, global average pooling and a linear classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.c1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        for _ in range(2):
            x = F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class MobileBlock(nn.Module):
    """Depthwise-separable convolution with ReLU6 and dropout (planning only
    because of the random mask's values; see gen tests)."""

    def __init__(self):
        super().__init__()
        self.pw = nn.Conv2d(3, 8, 1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.fc = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        x = F.relu6(self.dw(F.relu6(self.pw(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 4), 1))


class WithUnsupported(nn.Module):
    """Uses an op the importer does not lower (cumsum)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        return torch.cumsum(F.leaky_relu(self.fc(torch.flatten(x, 1)), 0.1), 1)


class Activations(nn.Module):
    """leaky_relu, sigmoid, tanh, hardtanh (relu6) and a plain MLP."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        h = F.leaky_relu(self.fc1(torch.flatten(x, 1)), 0.1)
        h = torch.sigmoid(self.fc2(h)) * torch.tanh(h) + F.relu6(h)
        return self.fc3(h)


class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.dropout(F.relu(self.fc1(torch.flatten(x, 1))), 0.5, True))


class TinyTransformer(nn.Module):
    """A ViT-like block on 4x4 patches of a 3x8x8 image: patch embedding
    (a strided convolution), class token, layer norm, multi-head attention
    (bmm, softmax), an MLP with GELU, residual connections."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, 5)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        return self.head(x[:, 0])


class SqueezeHead(nn.Module):
    """A one-unit head whose output is squeezed without naming a dim
    (aten.squeeze.default)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1)))).squeeze()


class TinyDecoder(nn.Module):
    """A GPT-like decoder block: token ids made from the float input
    (_to_copy to int64, remainder), token embeddings plus learned positions,
    a causal self-attention encoder layer (the additive mask through
    baddbmm), mean over positions, a linear head."""

    def __init__(self, vocab=32, d=16, heads=2, seq=8, classes=10):
        super().__init__()
        self.vocab = vocab
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.1)
        self.block = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0,
                                                batch_first=True)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq))
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        ids = (x * 1000).long() % self.vocab
        h = self.tok(ids) + self.pos
        h = self.block(h, src_mask=self.mask)
        return self.head(h.mean(dim=1))


class CausalAttention(nn.Module):
    """Single-head self-attention over x (batch x seq x dim) with learned
    positions and a causal mask registered as a buffer (0 on and below the
    diagonal, -inf above); the head reads position 0 only.  With the mask
    applied, position 0 attends to itself alone (exp(-inf) = 0), so the
    gradient of the positions after it (rows 1.. of pos) is exactly 0."""

    def __init__(self, seq=4, d=4):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(seq, d))
        self.qkv = nn.Linear(d, 3 * d)
        self.head = nn.Linear(d, 3)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def scores(self, q, k):
        return q @ k.transpose(1, 2) / 2.0 + self.mask

    def forward(self, x):
        q, k, v = self.qkv(x + self.pos).chunk(3, dim=-1)
        return self.head((torch.softmax(self.scores(q, k), dim=-1) @ v)[:, 0])


class CausalMaskedFill(CausalAttention):
    """The same mask as a boolean buffer applied by masked_fill."""

    def __init__(self, seq=4, d=4):
        super().__init__(seq, d)
        self.register_buffer("future", torch.ones(seq, seq, dtype=torch.bool).triu(1))

    def scores(self, q, k):
        return (q @ k.transpose(1, 2) / 2.0).masked_fill(self.future, float("-inf"))


class CausalWhere(CausalMaskedFill):
    """The boolean mask applied by torch.where (aten.where.self)."""

    def scores(self, q, k):
        s = q @ k.transpose(1, 2) / 2.0
        return torch.where(self.future, s - 1000.0, s)


class Constants(nn.Module):
    """Tensors made in forward (FX get_attr constants of the joint graph):
    a scalar and a per-unit scale."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        y = self.fc(x.flatten(1)) * torch.tensor(2.0)
        return torch.tanh(y) * torch.tensor([1.0, -0.5, 0.25, 3.0])


class TinyLSTM(nn.Module):
    """An LSTM over the rows of the image (sequence H, features C*W), a
    linear head on the last step, traced without oneDNN's fused kernel; the
    step is stack, unbind, split, zeros, sigmoid, tanh."""

    def __init__(self, features=6, hidden=5, classes=3):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        seq = x.permute(0, 2, 1, 3).flatten(2)   # N, H, C*W
        y, _ = self.lstm(seq)
        return self.head(y[:, -1])


class SiLUAbs(nn.Module):
    """silu (efficientnet's activation) and abs, with their backward ops
    (SiLU's: sigmoid, fill, sub, mul; abs's: sgn)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 8)
        self.fc2 = nn.Linear(8, 8)
        self.fc3 = nn.Linear(8, 3)

    def forward(self, x):
        h = F.silu(self.fc1(x.flatten(1)))
        h = F.silu(self.fc2(h).abs() + h)
        return self.fc3(F.silu(h * h))


class GroupedConv(nn.Module):
    """Grouped convolutions (regnet, resnext): 2 groups with stride and
    padding, 3 groups without bias, and a depthwise one with 2 filters per
    channel."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        self.c2 = nn.Conv2d(6, 6, 3, padding=1, groups=3, bias=False)
        self.c3 = nn.Conv2d(6, 12, 3, groups=6)
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        h = torch.tanh(self.c2(torch.tanh(self.c1(x))))
        return self.fc(self.c3(h).mean((2, 3)))


class StochasticDepth(nn.Module):
    """efficientnet's random ops: stochastic depth on a residual branch
    (empty, bernoulli_, div) and an in-place Dropout before the classifier
    (functionalized into new_empty, zero, as_strided, as_strided_scatter);
    roll (swin's shifted windows)."""

    def __init__(self):
        super().__init__()
        import torchvision
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.sd = torchvision.ops.StochasticDepth(0.5, "row")
        self.head = nn.Sequential(nn.Dropout(0.5, inplace=True), nn.Linear(4 * 4 * 4, 3))

    def forward(self, x):
        h = torch.tanh(self.conv(x))
        h = h + self.sd(torch.roll(h, shifts=(1, -1), dims=(2, 3)))
        return self.head(h.flatten(1))


class HardActivations(nn.Module):
    """mobilenet_v3's hardswish and hardsigmoid (squeeze-excitation), with
    inputs spread over their three pieces."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 3)

    def forward(self, x):
        h = F.hardswish(4.0 * self.fc1(x.flatten(1)))
        return self.fc3(h * F.hardsigmoid(4.0 * self.fc2(h)))


class SwinOps(nn.Module):
    """swin_t's ops besides roll: zero padding (constant_pad_nd; its
    backward crops with negative pads), a relative position bias read from
    a table at a buffer of indices (index; its backward an accumulating
    index_put), a shifted-window mask built in place on new_zeros
    (slice_scatter, fill.Tensor of a constant) and turned into additive
    values (ne, eq, masked_fill)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 1)
        self.table = nn.Parameter(torch.linspace(-1.0, 1.0, 14).reshape(7, 2))
        self.register_buffer("idx", torch.tensor([[0, 3, 6, 1], [1, 4, 2, 2],
                                                  [5, 5, 0, 3], [6, 1, 1, 4]]))
        self.fc = nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        h = F.pad(self.conv(x), (0, 1, 0, 1))
        m = h.new_zeros((4, 4))
        m[:2, :] = 1
        m[2:, 2:] = 2
        m = m.masked_fill(m != 0, -1.0).masked_fill(m == 0, 0.5)
        bias = self.table[self.idx].permute(2, 0, 1)
        return self.fc(torch.tanh(h * m + bias).flatten(1))


class ConvBiasBN(nn.Module):
    """A convolution with a bias that a batch norm follows: the bias
    gradient is 0 in exact arithmetic (the batch norm subtracts the mean)
    and rounding noise in float32 and float64."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(F.relu(self.bn(self.conv(x))), 1).flatten(1))


class OffsetBatchNorm(nn.Module):
    """A batch norm over N x H x W values whose mean (1000) is far above
    their spread (the input is uniform in [-1, 1]): summed in one float32
    loop, the batch mean's rounding error grows with the number of terms
    (a few 1e-3 of the spread at 8192 values), where PyTorch's blocked sums
    stay near 1e-5.  The shifted sigmoid makes the loss and every gradient
    feel a shift of the mean."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(torch.sigmoid(self.bn(x + 1000.0) + 2.0).mean((2, 3)))


class KinkEdge(nn.Module):
    """ReLU inputs at rounding distance of 0 by construction: t = s - s*3/3
    (the second term without gradient) is a few ulps either side of 0,
    with float32's and float64's signs independent, while the gradient
    through t is that of s.  The plain comparison fails on the kinks alone;
    `check` judges the step at its own pattern (match-masks.test)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 16)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        x = x.flatten(1)
        s = self.lin(x)
        t = s - (s * 3.0 / 3.0).detach()
        return self.head(torch.relu(torch.cat([t, s], 1)))


class PoolEdge(nn.Module):
    """Max pooling over near-ties by construction: each window holds s and
    s*3/3 (the second without gradient), equal up to an ulp, with float32's
    and float64's order independent, while only s passes a gradient on.
    The plain comparison fails on the ties alone; `check` judges the step
    at its own maxima (match-masks.test)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        s = self.lin(x.flatten(1))
        pairs = torch.stack([s, (s * 3.0 / 3.0).detach()], 2).unsqueeze(1)
        return self.head(F.max_pool2d(pairs, (1, 2)).flatten(1))


class CosineAttention(nn.Module):
    """swin_v2's attention: cosine similarity of F.normalize'd queries and
    keys (norm, clamp_min) scaled by exp(clamp(logit_scale, max=log 100))."""

    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(8, 16)
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones(1)))
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        q, k = self.qk(x).chunk(2, -1)
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * torch.clamp(self.logit_scale, max=4.6052).exp()
        return self.head((attn.softmax(-1) @ x).mean(1))


class AdaptivePools(nn.Module):
    """Adaptive average pooling at sizes drawn from REMAT_TEST_SEED (default
    0): six crops of a convolution's output, each pooled to a drawn size,
    larger or smaller than the crop, dividing it or not, per axis; squared
    and summed, so that every bin's gradient depends on its values."""

    def __init__(self):
        super().__init__()
        import os
        import random
        rng = random.Random(int(os.environ.get("REMAT_TEST_SEED", "0")))
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.cases = []
        for _ in range(6):
            h, w = rng.randint(1, 13), rng.randint(1, 13)
            self.cases.append((h, w, (rng.randint(1, 2 * h + 1), rng.randint(1, 2 * w + 1))))
        print("AdaptivePools: crops and bins", self.cases, flush=True)

    def forward(self, x):
        y = self.conv(x)
        total = 0
        for k, (h, w, bins) in enumerate(self.cases):
            p = F.adaptive_avg_pool2d(y[:, :, :h, :w] * (k + 1), bins)
            total = total + (p * p).sum()
        return total


class VGGHead(nn.Module):
    """VGG's classifier head on a small input, as torchvision writes it: the
    2x2 feature map pooled to 7x7 by nn.AdaptiveAvgPool2d (uneven,
    overlapping bins), then a (None, 3) pooling that keeps the height."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(2, 2), nn.Conv2d(4, 4, 3, padding=1),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(2, 2))
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.keep_height = nn.AdaptiveAvgPool2d((None, 3))
        self.classifier = nn.Linear(4 * 7 * 3, 10)

    def forward(self, x):
        x = self.keep_height(self.avgpool(self.features(x)))
        return self.classifier(torch.flatten(x, 1))


class OffsetProducts(nn.Module):
    """Convolutions that sum 4096 products per result whose terms are large
    (inputs shifted by 1000) while the result is not (the fixed weights are
    centred: the shift cancels).  Summed in one float32 loop, the rounding
    error of the partial sums (near 1000 x the spread) survives the
    cancellation: about 4 times PyTorch's blocked sums at 4096 terms, where
    a float64 accumulator is 10 times better than PyTorch.  The weights that
    read the shifted input are buffers (their gradients would sum the
    shifted input's own rounding).  Every lowering of a long product is on
    the way: convolution forward with and without bias, grouped, the input
    gradient of a convolution with 4096 output channels, and addmm."""

    def __init__(self):
        super().__init__()
        wide = nn.Conv2d(4096, 4, 1).weight.detach()
        grouped = nn.Conv2d(8192, 4, 1, groups=2).weight.detach()
        self.register_buffer("wide", wide - wide.mean(1, keepdim=True))
        self.register_buffer("grouped", grouped - grouped.mean(1, keepdim=True))
        self.bias = nn.Parameter(torch.zeros(4))                   # forward with bias
        self.up = nn.Conv2d(4, 4096, 1, bias=False)                # its input gradient sums 4096
        self.fc = nn.Linear(4096, 3)                               # addmm

    def forward(self, x):
        a = F.conv2d(x + 1000.0, self.wide, self.bias)
        g = F.conv2d(torch.cat([x, x], 1) + 1000.0, self.grouped, groups=2)
        return self.fc(self.up(torch.sigmoid(a + g)).mean((2, 3)))


class Norms(nn.Module):
    """GroupNorm with and without affine parameters and an affine
    InstanceNorm2d, after convolutions without bias (as networks write them:
    a bias before a normalization has a gradient of rounding noise)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.g1 = nn.GroupNorm(2, 8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.g2 = nn.GroupNorm(4, 8, affine=False)
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.g1(self.c1(x)))
        x = torch.relu(self.inorm(self.g2(self.c2(x))))
        return self.head(x.mean((2, 3)))
