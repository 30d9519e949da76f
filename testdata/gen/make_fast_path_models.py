#!/usr/bin/python3
"""Small frozen models for the runtime's prepared convolutions and linears (lib/runtime/prepare.h),
with the outputs PyTorch 1.13 computes (/usr/bin/python3).

Each model is built to hit one lowering decision: which ops fuse into a convolution or linear
(ReLU, ReLU6/hardtanh, SiLU, hardswish, GELU, a residual add, in the graph orders torchvision's
blocks produce), where activations may stay channels-last (pooling, adds, SE blocks) and where
they must not (a view of a convolution's output, a returned value), and which inputs send a
prepared group back to the original kernels (a residual that broadcasts, an unbatched input,
batch sizes that change between calls).

Writes testdata/models_fast/NAME.pt (torch.jit.freeze of the traced module; NAME_plain: traced,
not frozen), NAME.inK.pt (input tuples) and testdata/golden_fast/NAME/outK.pt (torch.save of the
output), which tests/corpus/test_run_golden.cpp replays through `jitctl run`; and
writes_weight_scripted.pt with writes_weight_scripted.calls.pt (input, outputs of three calls).
The transformer models (kernels/cpu/prepared_attention.cpp: the fast path's encoder layer and
self-attention with packed weights), the dense layers, the video blocks (3-D convolutions and
pooling), ShuffleNet's units (the channel shuffle), the expand + depthwise pairs and the
concatenations before shuffles come last, each from its own seed, so adding them left the files above as they were.
Run: /usr/bin/python3 testdata/gen/make_fast_path_models.py
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
torch.manual_seed(7)


def bn(c, kind=nn.BatchNorm2d):
    b = kind(c)
    with torch.no_grad():
        b.running_mean.uniform_(-0.2, 0.2)
        b.running_var.uniform_(0.5, 1.5)
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.2, 0.2)
    return b


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), bn(cout)
        self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), bn(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        identity = x if self.down is None else self.down(x)  # after conv2, as torchvision orders it
        out += identity
        return F.relu(out, inplace=True)


class ResNetBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), bn(16), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        self.l1, self.l2 = Basic(16, 16, 1), Basic(16, 32, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.l2(self.l1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class MobileBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(8, 24, 1, bias=False), bn(24), nn.ReLU6(inplace=True))
        self.dw = nn.Sequential(nn.Conv2d(24, 24, 3, 1, 1, groups=24, bias=False), bn(24), nn.Hardswish())
        self.se1, self.se2 = nn.Conv2d(24, 6, 1), nn.Conv2d(6, 24, 1)
        self.project = nn.Sequential(nn.Conv2d(24, 8, 1, bias=False), bn(8))
        self.head = nn.Sequential(nn.Conv2d(8, 20, 3, 2, 1), nn.SiLU(), nn.Conv2d(20, 20, 3, 1, 2, dilation=2), nn.Sigmoid())
        self.pool = nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)

    def forward(self, x):
        y = self.dw(self.expand(x))
        s = F.hardsigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(y, 1)))))
        y = self.project(y * s) + x  # residual without activation, convolution output first
        return self.pool(self.head(y))


class Fire(nn.Module):
    def __init__(self, cin, s, e):
        super().__init__()
        self.sq, self.e1, self.e3 = nn.Conv2d(cin, s, 1), nn.Conv2d(s, e, 1), nn.Conv2d(s, e, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.sq(x))
        return torch.cat([F.relu(self.e1(x)), F.relu(self.e3(x))], 1)


class Concats(nn.Module):
    """Channel concatenations: of channels-last convolution outputs (kept channels-last into a
    ceil-mode max pool and the next convolutions), of a convolution output with the contiguous
    input, and one whose result is viewed (must come out contiguous)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 12, 3, stride=2)
        self.f1, self.f2 = Fire(12, 4, 8), Fire(16, 6, 10)
        self.side = nn.Conv2d(3, 5, 3, padding=1)
        self.g = nn.Conv2d(20, 20, 1)

    def forward(self, x):
        y = self.f2(F.max_pool2d(self.f1(F.relu(self.stem(x))), 3, 2, ceil_mode=True))
        mixed = torch.cat([F.relu(self.side(x)), x], 1)
        z = self.g(y)
        n, c, h, w = z.shape
        shuffled = torch.cat([z, y], 1).view(n, 2, c, h, w).transpose(1, 2).reshape(n, 2 * c, h, w)
        return F.adaptive_avg_pool2d(shuffled, 1).flatten(1), mixed.sum((2, 3))


class UnbatchedCatPool(nn.Module):
    """A concatenation on dim 1 read by a max pool, of unbatched (3-D) images: dim 1 is then the
    height, so the pool must see the whole concatenation (the prepared cat + pool pools part by
    part only 4-D parts, where dim 1 is the channels)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(3, 4, 1)

    def forward(self, x):
        return F.max_pool2d(torch.cat([F.relu(self.a(x)), F.relu(self.b(x))], 1), 3, 2, ceil_mode=True)


class ViewAfterConv(nn.Module):
    """A view of a convolution's output (it must stay contiguous), and a channel shuffle."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(4, 12, 3, padding=1), nn.Conv2d(12, 12, 1)

    def forward(self, x):
        y = F.relu(self.c1(x))
        n, c, h, w = y.shape
        z = y.view(n, 3, 4, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        return self.c2(z).view(n, c, h * w), y


class Fallbacks(nn.Module):
    """Groups that meet inputs the fast path does not take: a residual that broadcasts, an
    unbatched input, an add with alpha 2 (not fused)."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 6, 3, padding=1), nn.Conv2d(3, 5, 3)

    def forward(self, x, u):
        # Computed at run time (freezing would fold a constant into the bias): [N, 6, 1, 1].
        shift = x.mean((2, 3), keepdim=True).repeat(1, 2, 1, 1)
        a = F.relu(self.c1(x) + shift)
        b = torch.add(self.c2(a), a, alpha=2.0)
        return b, F.relu(self.c3(u))


class MLPs(nn.Module):
    def __init__(self):
        super().__init__()
        self.f1, self.f2, self.f3 = nn.Linear(40, 96), nn.Linear(96, 40), nn.Linear(40, 40, bias=False)
        self.f4 = nn.Linear(40, 24)

    def forward(self, x):
        h = F.gelu(self.f1(x))
        y = x + self.f2(h)  # residual, linear output second
        y = F.relu(self.f3(y))
        return F.gelu(self.f4(y), approximate="tanh")


class Conv1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(6, 16, 5, padding=2), nn.Conv1d(16, 8, 3, stride=2)

    def forward(self, x):
        return self.c2(F.relu(self.c1(x)))


class WritesWeight(nn.Module):
    """Reads a convolution's weight, writes it in place, reads it again: the runtime must not
    keep a packed copy of a parameter its method writes (scripted: calls change its state)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = F.relu(self.conv(x))
        with torch.no_grad():
            self.conv.weight.mul_(0.5)
        return y + self.conv(x)


r = torch.randn
# Traced and not frozen: parameters are module attributes (prim::GetAttr), batch norm unfolded.
PLAIN = {
    "resnet_blocks_plain": (ResNetBlocks, [(r(1, 3, 20, 20),), (r(2, 3, 17, 23),)]),
    "mobile_blocks_plain": (MobileBlocks, [(r(1, 8, 12, 12),), (r(3, 8, 9, 11),)]),
    "mlps_plain": (MLPs, [(r(5, 40),), (r(2, 7, 40),)]),
    "unbatched_cat_pool_plain": (UnbatchedCatPool, [(r(3, 9, 11),), (r(3, 7, 6),)]),
}
MODELS = {
    "resnet_blocks_frozen": (ResNetBlocks, [(r(1, 3, 20, 20),), (r(2, 3, 17, 23),)]),
    "mobile_blocks_frozen": (MobileBlocks, [(r(1, 8, 12, 12),), (r(3, 8, 9, 11),)]),
    "view_after_conv_frozen": (ViewAfterConv, [(r(1, 4, 6, 7),), (r(2, 4, 5, 5),)]),
    "concats_frozen": (Concats, [(r(1, 3, 33, 29),), (r(2, 3, 21, 24),)]),
    "fallbacks_frozen": (Fallbacks, [(r(2, 3, 8, 8), r(3, 9, 9)), (r(1, 3, 5, 6), r(3, 4, 4))]),
    "mlps_frozen": (MLPs, [(r(5, 40),), (r(2, 7, 40),)]),
    "conv1d_frozen": (Conv1d, [(r(2, 6, 30),), (r(1, 6, 17),)]),
}


def randomized(m):
    """Biases and layer-norm parameters are zeros and ones when built, and constant pooling would
    merge them into one tensor: random values make each one count."""
    with torch.no_grad():
        for name, p in m.named_parameters():
            if p.dim() == 1:
                p.copy_(torch.randn_like(p) * 0.2 + (1.0 if "norm" in name and name.endswith("weight") else 0.0))
    return m.eval()


class SelfAttention(nn.Module):
    """nn.MultiheadAttention's fast path (_native_multi_head_attention) with the attention weights
    per head, averaged, and not asked for."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.MultiheadAttention(32, 4, batch_first=True), nn.MultiheadAttention(32, 8, batch_first=True)

    def forward(self, x):
        y, w = self.a(x, x, x, need_weights=True, average_attn_weights=False)
        z, w2 = self.b(y, y, y, need_weights=True)
        u, _ = self.a(z, z, z, need_weights=False)
        return u, w, w2


class PaddedLayer(nn.Module):
    """A pre-norm GELU encoder layer with a key padding mask (mask type 1 of the fused layer)."""

    def __init__(self):
        super().__init__()
        self.l = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, norm_first=True, activation="gelu")

    def forward(self, x, pad):
        return self.l(x, src_key_padding_mask=pad)


def padding(b, t, keep):
    m = torch.zeros(b, t, dtype=torch.bool)
    for i, k in enumerate(keep):
        m[i, k:] = True
    return m


def transformers():
    """(name, eager module, archive module, input sets): scripted nn.TransformerEncoder frozen (its
    graph holds both the fused fast path and the slow path), traced and frozen otherwise."""
    torch.manual_seed(11)
    enc = randomized(nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2, enable_nested_tensor=False))
    attn, padded = randomized(SelfAttention()), randomized(PaddedLayer())
    enc_in = [(r(2, 7, 32),), (r(1, 5, 32),)]
    attn_in = [(r(2, 6, 32),), (r(3, 9, 32),)]
    pad_in = [(r(2, 7, 32), padding(2, 7, [7, 4])), (r(3, 5, 32), padding(3, 5, [1, 5, 3]))]
    with torch.no_grad():
        return [("encoder_scripted_frozen", enc, torch.jit.freeze(torch.jit.script(enc)), enc_in),
                ("self_attention_frozen", attn, torch.jit.freeze(torch.jit.trace(attn, attn_in[0]).eval()), attn_in),
                ("padded_layer_frozen", padded, torch.jit.freeze(torch.jit.trace(padded, pad_in[0]).eval()), pad_in)]


class DenseLayers(nn.Module):
    """DenseNet's pattern: each layer is batch norm -> ReLU -> conv on the concatenation of all
    earlier features (pre-activation: the batch norm cannot fold into a convolution before it),
    then a transition (batch norm -> ReLU -> 1x1 conv -> avg pool)."""

    def __init__(self, c0=8, growth=4, layers=3):
        super().__init__()
        self.stem = nn.Conv2d(3, c0, 3, 1, 1)
        self.norms, self.convs = nn.ModuleList(), nn.ModuleList()
        c = c0
        for _ in range(layers):
            self.norms.append(bn(c))
            self.convs.append(nn.Conv2d(c, growth, 3, 1, 1, bias=False))
            c += growth
        self.tnorm, self.tconv = bn(c), nn.Conv2d(c, 6, 1, bias=False)

    def forward(self, x):
        feats = [self.stem(x)]
        for norm, conv in zip(self.norms, self.convs):
            feats.append(conv(F.relu(norm(torch.cat(feats, 1)))))
        y = self.tconv(F.relu(self.tnorm(torch.cat(feats, 1))))
        return F.avg_pool2d(y, 2)


def dense_layers():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(23)
    return "dense_layers_frozen", DenseLayers().eval(), [(r(1, 3, 12, 10),), (r(2, 3, 9, 8),)]


class VideoBlocks(nn.Module):
    """R3D's stem and residual block (3-D convolution + batch norm + ReLU; residual + ReLU), an
    R(2+1)D factorized (1,3,3) then (3,1,1) convolution, max and average 3-D pooling, adaptive
    average pooling and a linear head: kernels/cpu/packed_conv3d.cpp and pooling3d.cpp."""

    def __init__(self):
        super().__init__()
        bn3 = lambda c: bn(c, nn.BatchNorm3d)
        self.stem = nn.Sequential(nn.Conv3d(3, 16, (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False), bn3(16), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool3d((1, 3, 3), (1, 2, 2), (0, 1, 1))
        self.c1, self.b1 = nn.Conv3d(16, 16, 3, 1, 1, bias=False), bn3(16)
        self.c2, self.b2 = nn.Conv3d(16, 16, 3, 1, 1, bias=False), bn3(16)
        self.spatial = nn.Conv3d(16, 24, (1, 3, 3), (1, 2, 2), (0, 1, 1))
        self.temporal = nn.Conv3d(24, 24, (3, 1, 1), (2, 1, 1), (1, 0, 0))
        self.avg = nn.AvgPool3d(2, 1)
        self.fc = nn.Linear(24, 5)

    def forward(self, x):
        x = self.pool(self.stem(x))
        y = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(y)) + x)
        x = F.relu(self.temporal(F.relu(self.spatial(x))))
        x = F.adaptive_avg_pool3d(self.avg(x), 1).flatten(1)
        return self.fc(x)


def video_blocks():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(29)
    return "video_blocks_frozen", VideoBlocks().eval(), [(r(1, 3, 4, 32, 32),), (r(2, 3, 5, 24, 28),)]


def channel_shuffle(x, groups, merged_as_minus_one=False):
    n, c, h, w = x.size()
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, -1, h, w) if merged_as_minus_one else x.view(n, c, h, w)


class ShuffleUnit(nn.Module):
    """torchvision's ShuffleNetV2 unit: stride 1 splits the input in two along channels (one
    half through the branch), stride 2 sends all of it through two branches; then the shuffle."""

    def __init__(self, cin, cout, stride, groups=2, minus_one=False):
        super().__init__()
        self.stride, self.groups, self.minus_one = stride, groups, minus_one
        half = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), bn(cin),
                                         nn.Conv2d(cin, half, 1, bias=False), bn(half), nn.ReLU(inplace=True))
        bin_ = cin if stride > 1 else half
        self.branch2 = nn.Sequential(nn.Conv2d(bin_, half, 1, bias=False), bn(half), nn.ReLU(inplace=True),
                                     nn.Conv2d(half, half, 3, stride, 1, groups=half, bias=False), bn(half),
                                     nn.Conv2d(half, half, 1, bias=False), bn(half), nn.ReLU(inplace=True))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, self.groups, self.minus_one)


class ShuffleBlocks(nn.Module):
    """A ShuffleNetV2 stage and its neighbours: the shuffle kept channels-last between units (two
    groups, three, the merged view spelled with -1), chunks read by a convolution and a cat, and
    a view -> transpose(1, 2) -> contiguous -> view that is no channel shuffle (it moves rows
    into channels), which must give PyTorch's values from a channels-last input too."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 24, 3, 2, 1, bias=False), bn(24), nn.ReLU(inplace=True))
        self.units = nn.Sequential(ShuffleUnit(24, 48, 2), ShuffleUnit(48, 48, 1), ShuffleUnit(48, 48, 1, minus_one=True),
                                   ShuffleUnit(48, 48, 1, groups=3))
        self.mix = nn.Conv2d(48, 32, 1)
        self.head = nn.Conv2d(32, 40, 1)
        self.fc = nn.Linear(40, 10)

    def forward(self, x):
        x = self.units(self.stem(x))
        y = F.relu(self.mix(x))
        n, c, h, w = y.size()
        y = y.view(n, c, h // 2, 2, w).transpose(1, 2).contiguous().view(n, c, h, w)
        a, b = y.chunk(2, dim=1)
        y = torch.cat((a * 2.0, b), dim=1)
        return self.fc(self.head(y).mean([2, 3]))


def shuffle_blocks():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(31)
    return "shuffle_blocks_frozen", ShuffleBlocks().eval(), [(r(1, 3, 32, 28),), (r(2, 3, 24, 36),)]


def pair(cin, e, k, s, act):
    """A 1x1 expansion to e channels and the k x k depthwise layer of stride s after it, each with
    its batch norm and the activation act() makes."""
    return nn.Sequential(nn.Conv2d(cin, e, 1, bias=False), bn(e), act(),
                         nn.Conv2d(e, e, k, s, k // 2, groups=e, bias=False), bn(e), act())


class ExpandBlocks(nn.Module):
    """1x1 expansions each read only by a depthwise convolution (kernels/cpu/expand_depthwise.h):
    3x3 and 5x5, stride 1 and 2, ReLU6, hardswish, ReLU and SiLU, batch norms folded; expanded images
    of more than 1 MB, so that the pairs run band by band, and one of less (run apart)."""

    def __init__(self):
        super().__init__()

        self.a = pair(8, 96, 3, 1, lambda: nn.ReLU6(inplace=True))
        self.pa = nn.Conv2d(96, 16, 1)
        self.c = pair(16, 96, 3, 2, lambda: nn.ReLU6(inplace=True))
        self.d = pair(16, 80, 5, 2, nn.Hardswish)
        self.e = pair(16, 96, 5, 1, nn.ReLU)
        self.f = pair(16, 96, 3, 2, nn.SiLU)
        self.pc, self.pd, self.pe, self.pf = nn.Conv2d(96, 16, 1), nn.Conv2d(80, 16, 1), nn.Conv2d(96, 16, 1), nn.Conv2d(96, 16, 1)

    def forward(self, x):
        b = self.pa(self.a(x))
        e = F.avg_pool2d(self.pe(self.e(b)), 2, 2, ceil_mode=True)
        return self.pc(self.c(b)) + self.pd(self.d(b)) + self.pf(self.f(b)) + e


def expand_blocks():
    """(name, module, inputs), from their own seed: added after the files above. 57x61 and 64x48
    make every expansion more than 1 MB but the 80-channel one on 64x48."""
    torch.manual_seed(43)
    return "expand_blocks_frozen", ExpandBlocks().eval(), [(r(1, 8, 57, 61),), (r(2, 8, 64, 48),)]


class SmallExpandBlocks(nn.Module):
    """Expansion + depthwise pairs on 14x14 and 7x7 images with more expanded channels than the
    input's pixels: on two threads or more they split by channels (kernels/cpu/expand_depthwise.h,
    AVX-512), each thread expanding its own channels and running the depthwise layer on them.
    3x3 and 5x5, stride 1 and 2, ReLU6, hardswish, ReLU and SiLU, 200 and 208 channels (off the
    16-channel vector), a residual around one block."""

    def __init__(self):
        super().__init__()

        self.a = pair(16, 240, 3, 1, lambda: nn.ReLU6(inplace=True))
        self.b = pair(16, 208, 5, 2, nn.Hardswish)
        self.c = pair(16, 144, 5, 1, nn.ReLU)
        self.d = pair(16, 200, 3, 1, nn.SiLU)
        self.e = pair(16, 96, 3, 2, lambda: nn.ReLU6(inplace=True))
        self.pa, self.pb, self.pc = nn.Conv2d(240, 16, 1), nn.Conv2d(208, 16, 1), nn.Conv2d(144, 16, 1)
        self.pd, self.pe = nn.Conv2d(200, 16, 1), nn.Conv2d(96, 16, 1)

    def forward(self, x):
        a = self.pa(self.a(x))
        b = self.pb(self.b(a))
        c = self.pc(self.c(b)) + b
        d = self.pd(self.d(c))
        return self.pe(self.e(d)) + F.adaptive_avg_pool2d(d, 4)


def small_expand_blocks():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(45)
    return "small_expand_blocks_frozen", SmallExpandBlocks().eval(), [(r(1, 16, 14, 14),), (r(2, 16, 14, 14),)]


class FlattenHeads(nn.Module):
    """Convolutions whose outputs reach a linear through flatten or reshape (lib/runtime/prepare.cpp's
    layout readers): AlexNet's head (max pool, adaptive pool to 3x3, flatten: a copy from
    channels-last), a reshape that is a view of channels-last strides read by mean, and flatten(2)
    then transpose (a reader that keeps the convolution contiguous), and a flatten followed by an
    in-place ReLU on the convolution's output, which PyTorch's flattened view sees (the layout
    must stay contiguous there: a flatten of channels-last values copies). 13x13 images of 32
    channels: WinogradConv's sizes. Saved frozen and, with the head's dropout (freezing removes
    it), as traced."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(8, 32, 3, padding=1), nn.Conv2d(32, 32, 3, padding=1)
        self.c3, self.c4 = nn.Conv2d(32, 24, 1), nn.Conv2d(32, 16, 3, padding=1)
        self.fc, self.fc2, self.fc3 = nn.Linear(32 * 3 * 3, 10), nn.Linear(24, 5), nn.Linear(16, 7)
        self.drop = nn.Dropout(0.5)
        self.c5, self.fc4 = nn.Conv2d(32, 8, 3, padding=1), nn.Linear(8 * 13 * 13, 3)

    def forward(self, x):
        y = F.relu(self.c2(F.relu(self.c1(x))))
        a = self.fc(torch.flatten(self.drop(F.adaptive_avg_pool2d(F.max_pool2d(y, 3, 2), 3)), 1))
        b = self.fc2(self.c3(y).reshape(y.shape[0], 24, -1).mean(2))
        c = self.fc3(self.c4(y).flatten(2).transpose(1, 2)).sum(1)
        d = self.c5(y)
        e = d.flatten(1)
        d.relu_()
        return a, b, c, self.fc4(e)


def flatten_heads():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(44)
    return "flatten_heads_frozen", FlattenHeads().eval(), [(r(1, 8, 13, 13),), (r(2, 8, 13, 13),)]


class CatShuffles(nn.Module):
    """Concatenations and the channel shuffles of their results (lib/runtime/prepare_cat_shuffle.cpp's
    PreparedCatShuffle) in the forms its one pass over the parts does not take: a part that is the
    model's input (not channels-last: the nodes replayed), and 8 + 24 channels in two groups (a
    group across two parts: concatenated, then shuffled); and one it takes, three parts of 16, 16
    and 32 channels in four groups."""

    def __init__(self):
        super().__init__()
        self.a, self.a2, self.b = nn.Conv2d(16, 16, 1), nn.Conv2d(16, 16, 1), nn.Conv2d(16, 32, 3, padding=1)
        self.c, self.d = nn.Conv2d(16, 8, 1), nn.Conv2d(16, 24, 1)
        self.hy, self.hz, self.hw = nn.Conv2d(32, 8, 1), nn.Conv2d(64, 8, 1), nn.Conv2d(32, 8, 1)

    def forward(self, x):
        y = channel_shuffle(torch.cat((x, F.relu(self.a(x))), 1), 2)
        z = channel_shuffle(torch.cat((F.relu(self.a2(x)), self.a(x), self.b(x)), 1), 4)
        w = channel_shuffle(torch.cat((self.c(x), F.relu(self.d(x))), 1), 2, merged_as_minus_one=True)
        return self.hy(y) + self.hz(z) + self.hw(w)


def cat_shuffles():
    """(name, module, inputs), from their own seed: added after the files above."""
    torch.manual_seed(47)
    return "cat_shuffles_frozen", CatShuffles().eval(), [(r(1, 16, 9, 11),), (r(2, 16, 8, 8),)]


def write_frozen(mdir, gdir, name, m, inputs, freeze=True):
    with torch.no_grad():
        traced = torch.jit.trace(m, inputs[0]).eval()
        (torch.jit.freeze(traced) if freeze else traced).save(os.path.join(mdir, name + ".pt"))
    os.makedirs(os.path.join(gdir, name), exist_ok=True)
    for k, args in enumerate(inputs):
        torch.save(args, os.path.join(mdir, f"{name}.in{k}.pt"))
        with torch.no_grad():
            torch.save(m(*args), os.path.join(gdir, name, f"out{k}.pt"))


def main():
    mdir, gdir = os.path.join(ROOT, "models_fast"), os.path.join(ROOT, "golden_fast")
    os.makedirs(mdir, exist_ok=True)
    for name, (cls, inputs) in list(MODELS.items()) + list(PLAIN.items()):
        m = cls().eval()
        with torch.no_grad():
            traced = torch.jit.trace(m, inputs[0]).eval()
        (traced if name in PLAIN else torch.jit.freeze(traced)).save(os.path.join(mdir, name + ".pt"))
        os.makedirs(os.path.join(gdir, name), exist_ok=True)
        for k, args in enumerate(inputs):
            torch.save(args, os.path.join(mdir, f"{name}.in{k}.pt"))
            with torch.no_grad():
                torch.save(m(*args), os.path.join(gdir, name, f"out{k}.pt"))
    # Three calls of one WritesWeight in one process (tests/unit/test_prepared_runtime.cpp): the
    # input, then each call's output as PyTorch computes it with the weight halved every call.
    m = WritesWeight().eval()
    s = torch.jit.script(m)
    s.save(os.path.join(mdir, "writes_weight_scripted.pt"))
    x = r(1, 3, 6, 6)
    with torch.no_grad():
        outs = [m(x) for _ in range(3)]
    torch.save((x, tuple(outs)), os.path.join(mdir, "writes_weight_scripted.calls.pt"))
    for name, m, inputs in (dense_layers(), video_blocks(), shuffle_blocks(), expand_blocks(), flatten_heads(), small_expand_blocks(),
                               cat_shuffles()):
        write_frozen(mdir, gdir, name, m, inputs)
    name, m, inputs = flatten_heads()
    write_frozen(mdir, gdir, name.replace("_frozen", "_plain"), m, inputs, freeze=False)
    for name, eager, archive, inputs in transformers():
        archive.save(os.path.join(mdir, name + ".pt"))
        os.makedirs(os.path.join(gdir, name), exist_ok=True)
        for k, args in enumerate(inputs):
            torch.save(args, os.path.join(mdir, f"{name}.in{k}.pt"))
            with torch.no_grad():
                torch.save(eager(*args), os.path.join(gdir, name, f"out{k}.pt"))


if __name__ == "__main__":
    main()
