#!/usr/bin/python3
"""PyTorch's latency on kernel_bench.cpp's cases (same names, same shapes).

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 kernel_bench.py THREADS [filter]
"""
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
torch.set_grad_enabled(False)
flt = sys.argv[2] if len(sys.argv) > 2 else ""


def conv(n, ci, hw, co, k, s, p, g):
    x, w, b = torch.randn(n, ci, hw, hw), torch.randn(co, ci // g, k, k), torch.randn(co)
    return lambda: F.conv2d(x, w, b, s, p, 1, g)


def linear(m, k, n):
    x, w, b = torch.randn(m, k), torch.randn(n, k), torch.randn(n)
    return lambda: F.linear(x, w, b)


a1024, b1024 = torch.randn(1024, 1024), torch.randn(1024, 1024)
ba, bb = torch.randn(64, 32, 64), torch.randn(64, 64, 32)
bn = [torch.randn(1, 64, 56, 56)] + [torch.randn(64) for _ in range(4)]
mp = torch.randn(1, 64, 112, 112)
ap = torch.randn(1, 512, 7, 7)
cl = lambda *s: torch.randn(*s).contiguous(memory_format=torch.channels_last)
mpc, mps, apc = cl(1, 64, 111, 111), cl(1, 24, 112, 112), cl(1, 64, 56, 56)
ln = [torch.randn(256, 512), torch.randn(512), torch.randn(512)]
g = torch.randn(64, 4096)
CASES = [
    ("conv_r18_stem_7x7s2", conv(1, 3, 224, 64, 7, 2, 3, 1)),
    ("conv_r18_l1_3x3_64", conv(1, 64, 56, 64, 3, 1, 1, 1)),
    ("conv_r18_l2_3x3s2_128", conv(1, 64, 56, 128, 3, 2, 1, 1)),
    ("conv_r18_l2_3x3_128", conv(1, 128, 28, 128, 3, 1, 1, 1)),
    ("conv_r18_l2_1x1s2_128", conv(1, 64, 56, 128, 1, 2, 0, 1)),
    ("conv_r18_l3_3x3_256", conv(1, 256, 14, 256, 3, 1, 1, 1)),
    ("conv_r18_l4_3x3_512", conv(1, 512, 7, 512, 3, 1, 1, 1)),
    ("conv_1x1_116", conv(1, 116, 28, 116, 1, 1, 0, 1)),
    ("conv_dw_3x3_116", conv(1, 116, 28, 116, 3, 1, 1, 116)),
    ("conv_dw_3x3s2_116", conv(1, 116, 28, 116, 3, 2, 1, 116)),
    ("linear_mlp_1024_4096", linear(64, 1024, 4096)),
    ("linear_mlp_4096_1024", linear(64, 4096, 1024)),
    ("mm_1024", lambda: torch.mm(a1024, b1024)),
    ("linear_tr_256x512_1536", linear(256, 512, 1536)),
    ("bmm_attn_64x32x32", lambda: torch.bmm(ba, bb)),
    ("batch_norm_64x56", lambda: F.batch_norm(bn[0], bn[3], bn[4], bn[1], bn[2], False)),
    ("max_pool_3x3s2_64x112", lambda: F.max_pool2d(mp, 3, 2, 1)),
    ("max_pool_nhwc_3x3s2_64x111", lambda: F.max_pool2d(mpc, 3, 2, 0, ceil_mode=True)),
    ("max_pool_nhwc_3x3s2p1_24x112", lambda: F.max_pool2d(mps, 3, 2, 1)),
    ("avg_pool_nhwc_3x3_64x56", lambda: F.avg_pool2d(apc, 3, 1, 1)),
    ("adaptive_avg_512x7", lambda: F.adaptive_avg_pool2d(ap, 1)),
    ("gelu_64x4096", lambda: F.gelu(g)),
    ("gelu_tanh_64x4096", lambda: F.gelu(g, approximate="tanh")),
    ("tanh_64x4096", lambda: torch.tanh(g)),
    ("sigmoid_64x4096", lambda: torch.sigmoid(g)),
    ("layer_norm_256x512", lambda: F.layer_norm(ln[0], [512], ln[1], ln[2])),
]

for name, fn in CASES:
    if flt not in name:
        continue
    ms, total = [], 0.0
    i = 0
    while i < 200 and (i < 5 or total < 1000.0):
        t0 = time.perf_counter()
        fn()
        d = (time.perf_counter() - t0) * 1000
        if i > 0:
            ms.append(d)
        total += d
        i += 1
    ms.sort()
    print("%-28s %9.3f" % (name, ms[0]))
