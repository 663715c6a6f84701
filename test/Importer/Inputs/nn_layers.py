# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One tiny model per torch.nn layer people train with, each a class
constructible without arguments whose remat_example_inputs(batch) says what
it reads: the layer between a Linear or Conv before it (so a gradient
reaches its input) and the loss (the sum of the outputs).  LAYERS lists the
names; nn-layers.test runs `remat-import-torch check` on each."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def _img(batch, c=4, h=8, w=8):
    return (torch.randn(batch, c, h, w, generator=torch.Generator().manual_seed(0)),)


def _seq(batch, t=6, d=8):
    return (torch.randn(batch, t, d, generator=torch.Generator().manual_seed(0)),)


class _Image(nn.Module):
    """conv 4 -> 4, then the layer."""
    inputs = staticmethod(_img)

    def __init__(self, layer):
        super().__init__()
        self.pre = nn.Conv2d(4, 4, 3, padding=1)
        self.layer = layer

    def forward(self, x):
        y = self.layer(self.pre(x))
        return y[0] if isinstance(y, tuple) else y

    def remat_example_inputs(self, batch):
        return self.inputs(batch)


class _Sequence(_Image):
    """linear 8 -> 8 over [batch, 6, 8], the layer, linear 8 -> 3 (a norm's
    or a softmax's outputs sum to a constant: the sum alone has no
    gradient)."""
    inputs = staticmethod(_seq)

    def __init__(self, layer):
        nn.Module.__init__(self)
        self.pre = nn.Linear(8, 8)
        self.layer = layer
        self.post = nn.Linear(8, 3)

    def forward(self, x):
        return self.post(self.layer(self.pre(x)))


def _image(name, make):
    globals()[name] = type(name, (_Image,), {"__init__": lambda self: _Image.__init__(self, make())})
    return name


def _sequence(name, make):
    globals()[name] = type(name, (_Sequence,),
                           {"__init__": lambda self: _Sequence.__init__(self, make())})
    return name


class _Interpolate(nn.Module):
    """F.interpolate(x, **kwargs), the function nn.Upsample calls, as a layer."""

    def __init__(self, **kwargs):
        super().__init__()
        self.kwargs = kwargs

    def forward(self, x):
        return F.interpolate(x, **self.kwargs)


class _Flat3d(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.pre = nn.Conv3d(2, 2, 3, padding=1)
        self.layer = layer

    def forward(self, x):
        return self.layer(self.pre(x))

    def remat_example_inputs(self, batch):
        return (torch.randn(batch, 2, 4, 6, 6, generator=torch.Generator().manual_seed(0)),)


class _Flat1d(_Flat3d):
    def __init__(self, layer):
        nn.Module.__init__(self)
        self.pre = nn.Conv1d(4, 4, 3, padding=1)
        self.layer = layer

    def remat_example_inputs(self, batch):
        return (torch.randn(batch, 4, 16, generator=torch.Generator().manual_seed(0)),)


class Conv1d(_Flat1d):
    def __init__(self):
        super().__init__(nn.Conv1d(4, 4, 3, padding=1))


class ConvTranspose1d(_Flat1d):
    def __init__(self):
        super().__init__(nn.ConvTranspose1d(4, 4, 3, stride=2, padding=1, output_padding=1))


class Conv3d(_Flat3d):
    def __init__(self):
        super().__init__(nn.Conv3d(2, 2, 3, padding=1))


class Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 8)
        self.out = nn.Linear(8, 4)

    def forward(self, ids):
        return self.out(self.emb(ids))

    def remat_example_inputs(self, batch):
        return (torch.randint(30, (batch, 6), generator=torch.Generator().manual_seed(0)),)


class EmbeddingBag(Embedding):
    def __init__(self):
        nn.Module.__init__(self)
        self.emb = nn.EmbeddingBag(30, 8, mode="mean")
        self.out = nn.Linear(8, 4)


class MultiheadAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Linear(8, 8)
        self.att = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        h = self.pre(x)
        mask = torch.triu(torch.full((x.shape[1], x.shape[1]), float("-inf")), 1)
        return self.att(h, h, h, attn_mask=mask, need_weights=False)[0]

    def remat_example_inputs(self, batch):
        return _seq(batch)


class _Recurrent(nn.Module):
    def __init__(self, cls):
        super().__init__()
        self.pre = nn.Linear(8, 8)
        self.rnn = cls(8, 8, batch_first=True)

    def forward(self, x):
        return self.rnn(self.pre(x))[0]

    def remat_example_inputs(self, batch):
        return _seq(batch)


class RNN(_Recurrent):
    def __init__(self):
        super().__init__(nn.RNN)


class LSTM(_Recurrent):
    def __init__(self):
        super().__init__(nn.LSTM)


class GRU(_Recurrent):
    def __init__(self):
        super().__init__(nn.GRU)


class TransformerEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)

    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.enc(x, mask=mask)

    def remat_example_inputs(self, batch):
        return _seq(batch)


class TransformerDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, 1)

    def forward(self, x, memory):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.dec(x, memory, tgt_mask=mask)

    def remat_example_inputs(self, batch):
        g = torch.Generator().manual_seed(0)
        return torch.randn(batch, 6, 8, generator=g), torch.randn(batch, 5, 8, generator=g)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.t(src, tgt, tgt_mask=mask)

    def remat_example_inputs(self, batch):
        g = torch.Generator().manual_seed(0)
        return torch.randn(batch, 5, 8, generator=g), torch.randn(batch, 6, 8, generator=g)


class EmbeddingBagSum(Embedding):
    def __init__(self):
        nn.Module.__init__(self)
        self.emb = nn.EmbeddingBag(30, 8, mode="sum")
        self.out = nn.Linear(8, 4)


class EmbeddingBagOffsets(EmbeddingBag):
    """1-D ids in bags of 3, 0 (empty), 4 and the rest, the last offset
    given too."""

    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(30, 8, mode="mean", include_last_offset=True)

    def forward(self, ids):
        return self.out(self.emb(ids, torch.tensor([0, 3, 3, 7, ids.shape[0]])))

    def remat_example_inputs(self, batch):
        return (torch.randint(30, (6 * batch,), generator=torch.Generator().manual_seed(0)),)


class EmbeddingBagMax(EmbeddingBagSum):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(30, 8, mode="max")


LAYERS = [
    _image("GroupNorm", lambda: nn.GroupNorm(2, 4)),
    _image("InstanceNorm2d", lambda: nn.InstanceNorm2d(4, affine=True)),
    _image("BatchNorm2d", lambda: nn.BatchNorm2d(4)),
    _sequence("LayerNorm", lambda: nn.LayerNorm(8)),
    _sequence("LayerNormNoAffine", lambda: nn.LayerNorm(8, elementwise_affine=False)),
    _sequence("RMSNorm", lambda: nn.RMSNorm(8)),
    _image("Conv2dGroups", lambda: nn.Conv2d(4, 4, 3, padding=1, groups=2)),
    _image("Conv2dDilation", lambda: nn.Conv2d(4, 4, 3, padding=2, dilation=2)),
    _image("Conv2dDilationGroups",
           lambda: nn.Conv2d(4, 4, 3, stride=2, padding=2, dilation=2, groups=2)),
    _image("Conv2dDepthwise", lambda: nn.Conv2d(4, 4, 3, padding=1, groups=4)),
    _image("ConvTranspose2d", lambda: nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)),
    _image("ConvTranspose2dStride1", lambda: nn.ConvTranspose2d(4, 4, 3)),
    _image("ConvTranspose2dOutputPadding",
           lambda: nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1)),
    _image("ConvTranspose2dDilation", lambda: nn.ConvTranspose2d(4, 4, 3, padding=2, dilation=2)),
    _image("ConvTranspose2dGroups",
           lambda: nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, groups=2)),
    _image("MaxPool2d", lambda: nn.MaxPool2d(2)),
    _image("AvgPool2d", lambda: nn.AvgPool2d(2)),
    _image("AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d(1)),
    _image("AdaptiveMaxPool2d", lambda: nn.AdaptiveMaxPool2d(2)),
    _image("AdaptiveMaxPool2dUneven", lambda: nn.AdaptiveMaxPool2d((3, 5))),
    _image("UpsampleNearest", lambda: nn.Upsample(scale_factor=2, mode="nearest")),
    _image("UpsampleBilinear", lambda: nn.Upsample(scale_factor=2, mode="bilinear")),
    _image("UpsampleBilinearAlignCorners",
           lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)),
    _image("InterpolateNearest", lambda: _Interpolate(size=(12, 10), mode="nearest")),
    _image("InterpolateBilinear",
           lambda: _Interpolate(scale_factor=1.5, mode="bilinear", align_corners=False)),
    _image("InterpolateBilinearAlignCorners",
           lambda: _Interpolate(size=(5, 11), mode="bilinear", align_corners=True)),
    _image("PixelShuffle", lambda: nn.PixelShuffle(2)),
    _image("Dropout2d", lambda: nn.Dropout2d(0.25)),
    _sequence("Dropout", lambda: nn.Dropout(0.25)),
    _sequence("AlphaDropout", lambda: nn.AlphaDropout(0.25)),
    _sequence("GELU", nn.GELU),
    _sequence("SiLU", nn.SiLU),
    _sequence("Mish", nn.Mish),
    _sequence("Hardswish", nn.Hardswish),
    _sequence("ELU", nn.ELU),
    _sequence("LeakyReLU", nn.LeakyReLU),
    _sequence("Softplus", nn.Softplus),
    _sequence("Sigmoid", nn.Sigmoid),
    _sequence("Tanh", nn.Tanh),
    _sequence("Softmax", lambda: nn.Softmax(-1)),
    _sequence("LogSoftmax", lambda: nn.LogSoftmax(-1)),
]
LAYERS += ["Conv1d", "ConvTranspose1d", "Conv3d", "Embedding", "EmbeddingBag", "EmbeddingBagSum",
           "EmbeddingBagOffsets", "EmbeddingBagMax",
           "MultiheadAttention", "RNN", "LSTM", "GRU",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]
