# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""layout.py's hint: counted on convolutions that read NCHW tensors on a
GPU (fake CUDA tensors: no GPU needed), not on channels-last ones nor on
the CPU's, and said once a process."""
import io

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from remat_torch import layout


def net(x, w1, w2):
    y = torch.nn.functional.conv2d(x, w1, padding=1).relu()
    return torch.nn.functional.conv2d(y, w2).sum()


def graph(device, channels_last):
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    with FakeTensorMode():
        args = [torch.empty(*s, device=device).contiguous(memory_format=fmt)
                for s in ((2, 3, 8, 8), (4, 3, 3, 3), (5, 4, 1, 1))]
        return make_fx(net)(*args).graph


def main():
    for device in ("cuda", "cpu"):
        for cl in (False, True):
            print("%s %s: %d" % (device, "channels-last" if cl else "NCHW",
                                 layout.nchw_gpu_convolutions(graph(device, cl))))
    for i in range(2):
        out = io.StringIO()
        layout.hint_channels_last(graph("cuda", False), out)
        print("hint %d: %s" % (i, out.getvalue().strip() or "none"))


if __name__ == "__main__":
    main()
