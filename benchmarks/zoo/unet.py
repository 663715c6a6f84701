# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The U-Net of the zoo benchmark (Ronneberger et al. 2015, with padding
and batch norm): 4 down levels of two conv3x3-BN-ReLU at 64..512 channels
with 2x2 max pooling, a 1024-channel bottleneck, 4 up levels (nearest 2x
upsampling, conv3x3 halving the channels, concatenation with the skip, two
conv3x3-BN-ReLU), and a 1x1 convolution to 2 classes.  31 M parameters.
Nearest upsampling + convolution instead of a transposed convolution keeps
every op executable by remat-import-torch.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, cin=3, classes=2, width=64):
        super().__init__()
        w = [width * 2 ** i for i in range(5)]
        self.inc = double_conv(cin, w[0])
        self.down = nn.ModuleList(double_conv(w[i], w[i + 1]) for i in range(4))
        self.up_conv = nn.ModuleList(nn.Conv2d(w[i + 1], w[i], 3, padding=1) for i in reversed(range(4)))
        self.up = nn.ModuleList(double_conv(2 * w[i], w[i]) for i in reversed(range(4)))
        self.out = nn.Conv2d(w[0], classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for d in self.down:
            skips.append(d(F.max_pool2d(skips[-1], 2)))
        x = skips.pop()
        for conv, up in zip(self.up_conv, self.up):
            x = conv(F.interpolate(x, scale_factor=2, mode="nearest"))
            x = up(torch.cat([skips.pop(), x], dim=1))
        return self.out(x)


class SmallUNet(UNet):
    """Width 8, for quick checks."""

    def __init__(self):
        super().__init__(width=8)
