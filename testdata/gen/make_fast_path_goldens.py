#!/usr/bin/python3
"""Expected outputs for jitctl's fast CPU paths (oneDNN convolutions and linears, OpenBLAS GEMM,
fused epilogues, vectorized activations), computed by PyTorch 1.13 (/usr/bin/python3).

Shapes are chosen to reach the optimized kernels' edge cases: channel counts that are not a
multiple of the vector width, groups, depthwise with a multiplier, dilation, asymmetric "same"
padding, strides, non-contiguous and channels-last inputs, products past the small-size loop.

Writes testdata/kernels_nn/FAMILY.pt, each a torch.save of a dict
    case name -> (schema name, tuple of stack inputs in schema order, tuple of outputs)
replayed through the kernel registry by tests/unit/test_kernels_fast_paths.cpp, and
    fused.pt: case name -> (kind, inputs, post-ops, output)
for the fused convolutions and linears (kind "conv2d": inputs (x, w, b, stride, padding,
dilation, groups, residual); kind "linear": inputs (x, w, b, residual)); post-ops are
(name, a, b) tuples applied in order after the bias, "add" adding the residual.
Run: /usr/bin/python3 testdata/gen/make_fast_path_goldens.py
"""
import math, os

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels_nn")
torch.manual_seed(12)
torch.set_grad_enabled(False)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def case(cases, name, op, args, outs):
    if not isinstance(outs, tuple):
        outs = (outs,)
    cases[name] = (op, tuple(args), tuple(o.contiguous() if isinstance(o, torch.Tensor) else o for o in outs))


def conv_cases():
    c = {}

    def conv2d(name, x, w, b, stride=1, padding=0, dilation=1, groups=1):
        # Weights scaled as a trained layer's (1/sqrt(fan-in)): outputs of order 1, so that the
        # tolerance compares the kernels, not fp32 rounding of large cancelling sums.
        w = w / math.sqrt(w[0].numel())
        pair = lambda v: list(v) if isinstance(v, tuple) else [v, v]
        pa = padding if isinstance(padding, str) else pair(padding)
        op = "aten::conv2d.padding" if isinstance(padding, str) else "aten::conv2d"
        case(c, name, op, [x, w, b, pair(stride), pa, pair(dilation), groups], F.conv2d(x, w, b, stride, padding, dilation, groups))

    conv2d("odd_channels", r(2, 19, 13, 11), r(35, 19, 3, 3), r(35), padding=1)
    conv2d("stride2", r(1, 32, 15, 15), r(64, 32, 3, 3), r(64), stride=2, padding=1)
    conv2d("stride3_nobias", r(1, 24, 20, 17), r(40, 24, 3, 3), None, stride=3, padding=(1, 2))
    conv2d("groups4", r(1, 16, 9, 9), r(24, 4, 3, 3), r(24), padding=1, groups=4)
    conv2d("groups_odd", r(2, 30, 8, 10), r(45, 10, 3, 3), r(45), padding=1, groups=3)
    conv2d("depthwise", r(1, 32, 20, 20), r(32, 1, 3, 3), r(32), padding=1, groups=32)
    conv2d("depthwise_s2", r(1, 40, 21, 21), r(40, 1, 3, 3), r(40), stride=2, padding=1, groups=40)
    conv2d("depthwise_5x5_mult2", r(1, 8, 14, 14), r(16, 1, 5, 5), r(16), padding=2, groups=8)
    conv2d("pointwise", r(1, 64, 10, 10), r(48, 64, 1, 1), r(48))
    conv2d("pointwise_s2", r(1, 64, 11, 11), r(96, 64, 1, 1), None, stride=2)
    conv2d("dilated", r(1, 24, 17, 17), r(20, 24, 3, 3), r(20), padding=2, dilation=2)
    conv2d("same_even_kernel", r(1, 16, 12, 9), r(16, 16, 4, 4), r(16), padding="same")
    conv2d("stem_7x7", r(1, 3, 64, 64), r(16, 3, 7, 7), r(16), stride=2, padding=3)
    conv2d("layer_64", r(1, 64, 12, 12), r(64, 64, 3, 3), r(64), padding=1)
    conv2d("noncontiguous_input", r(1, 20, 16, 22)[:, :, 1:, ::2], r(28, 20, 3, 3), r(28), padding=1)
    conv2d("channels_last_input", r(1, 48, 12, 12).contiguous(memory_format=torch.channels_last), r(32, 48, 3, 3), r(32), padding=1)
    x1, w1, b1 = r(2, 20, 37), r(30, 20, 5) / 10, r(30)
    case(c, "conv1d_odd", "aten::conv1d", [x1, w1, b1, [2], [2], [1], 1], F.conv1d(x1, w1, b1, 2, 2))
    # 3-D convolutions (packed_conv3d.cpp, oneDNN): video models' 3x3x3, (1,3,3) and (3,1,1)
    # kernels, strides per dim, asymmetric padding, dilation, groups, no bias, 'same' with an even
    # kernel, an unbatched input and channels-last-3d and non-contiguous inputs. Own stream: the
    # families after this one keep theirs.
    g3 = torch.Generator().manual_seed(9)
    r3 = lambda *shape: torch.randn(*shape, generator=g3)

    def conv3d(name, x, w, b, stride=1, padding=0, dilation=1, groups=1):
        w = w / math.sqrt(w[0].numel())
        tri = lambda v: list(v) if isinstance(v, tuple) else [v, v, v]
        pa = padding if isinstance(padding, str) else tri(padding)
        op = "aten::conv3d.padding" if isinstance(padding, str) else "aten::conv3d"
        case(c, name, op, [x, w, b, tri(stride), pa, tri(dilation), groups], F.conv3d(x, w, b, stride, padding, dilation, groups))

    conv3d("conv3d_3x3x3", r3(2, 5, 6, 9, 8), r3(7, 5, 3, 3, 3), r3(7), padding=1)
    conv3d("conv3d_stride_pad_nobias", r3(1, 16, 5, 11, 10), r3(24, 16, 3, 3, 3), None, stride=(1, 2, 2), padding=(1, 0, 2))
    conv3d("conv3d_spatial_1x3x3", r3(1, 12, 4, 14, 14), r3(20, 12, 1, 3, 3), r3(20), stride=(1, 2, 2), padding=(0, 1, 1))
    conv3d("conv3d_temporal_3x1x1", r3(1, 20, 6, 7, 7), r3(16, 20, 3, 1, 1), r3(16), padding=(1, 0, 0))
    conv3d("conv3d_dilated", r3(1, 8, 9, 9, 9), r3(8, 8, 3, 3, 3), r3(8), padding=2, dilation=2)
    conv3d("conv3d_groups", r3(1, 8, 5, 7, 6), r3(12, 4, 3, 1, 3), r3(12), padding=(1, 0, 1), groups=2)
    conv3d("conv3d_depthwise", r3(1, 16, 4, 8, 8), r3(16, 1, 3, 3, 3), r3(16), padding=1, groups=16)
    conv3d("conv3d_same_even", r3(1, 6, 5, 6, 7), r3(9, 6, 2, 3, 4), r3(9), padding="same")
    conv3d("conv3d_unbatched", r3(6, 4, 7, 5), r3(10, 6, 3, 3, 3), r3(10), padding=1)
    conv3d("conv3d_channels_last_input", r3(1, 32, 3, 8, 8).contiguous(memory_format=torch.channels_last_3d), r3(32, 32, 3, 3, 3), r3(32), padding=1)
    conv3d("conv3d_noncontiguous_input", r3(1, 10, 6, 12, 14)[:, :, ::2, 1:, ::2], r3(14, 10, 1, 3, 3), r3(14), padding=(0, 1, 1))
    return c


def linear_cases():
    c = {}
    a, b = r(65, 129), r(129, 33) / 11
    case(c, "mm_odd", "aten::mm", [a, b], torch.mm(a, b))
    at, bt = r(129, 65).t(), r(33, 129).t() / 11
    case(c, "mm_both_transposed", "aten::mm", [at, bt], torch.mm(at, bt))
    a2 = r(70, 140)[:, 3:132]
    case(c, "mm_row_stride", "aten::mm", [a2, b], torch.mm(a2, b))
    e = r(1, 129).expand(40, 129)
    case(c, "mm_expanded_rows", "aten::mm", [e, b], torch.mm(e, b))
    bias = r(33)
    case(c, "addmm_alpha_beta", "aten::addmm", [bias, a, b, 0.5, 2.0], torch.addmm(bias, a, b, beta=0.5, alpha=2.0))
    x, y = r(3, 40, 70), r(3, 70, 50) / 8
    case(c, "bmm_big", "aten::bmm", [x, y], torch.bmm(x, y))
    p, q = r(2, 1, 30, 64), r(3, 64, 45) / 8
    case(c, "matmul_broadcast", "aten::matmul", [p, q], torch.matmul(p, q))
    inp, w, bb = r(5, 7, 200), r(130, 200) / 14, r(130)
    case(c, "linear_3d", "aten::linear", [inp, w, bb], F.linear(inp, w, bb))
    inpt = r(200, 9).t()
    case(c, "linear_transposed_input", "aten::linear", [inpt, w, bb], F.linear(inpt, w, bb))
    # A size-1 dim between the rows: x.transpose(0, 1) of [1, 3, k] (strides [k, 3k, 1]), as the
    # attention slow path with batch 1 makes it.
    xt = r(1, 3, 200).transpose(0, 1)
    case(c, "linear_size1_dim_transposed", "aten::linear", [xt, w, bb], F.linear(xt, w, bb))
    case(c, "matmul_size1_dim_transposed", "aten::matmul", [xt, w.t()], torch.matmul(xt, w.t()))
    a64, b64 = r(60, 80, dtype=torch.float64), r(80, 70, dtype=torch.float64) / 9
    case(c, "mm_f64", "aten::mm", [a64, b64], torch.mm(a64, b64))
    return c


def pooling_cases():
    c = {}
    cl = lambda *s: r(*s).contiguous(memory_format=torch.channels_last)
    x = cl(2, 40, 17, 15)
    x[0, 3, 4, 5] = float("nan")
    case(c, "max_3x3s2p1_cl", "aten::max_pool2d", [x, [3, 3], [2, 2], [1, 1], [1, 1], False], F.max_pool2d(x, 3, 2, 1))
    case(c, "max_2x2_ceil_cl", "aten::max_pool2d", [x, [2, 2], [2, 2], [0, 0], [1, 1], True], F.max_pool2d(x, 2, 2, 0, 1, True))
    case(c, "max_dilated_cl", "aten::max_pool2d", [x, [3, 3], [1, 1], [1, 1], [2, 2], False], F.max_pool2d(x, 3, 1, 1, 2))
    # 3x3/2 with ceil_mode and no padding (SqueezeNet's and GoogLeNet's): 72 channels (a block of
    # 64 and a tail of 8), NaN in the tail of an inside window and in a clipped border window.
    xs = cl(1, 72, 15, 16)
    xs[0, 70, 6, 7] = float("nan")
    xs[0, 5, 14, 15] = float("nan")
    case(c, "max_3x3s2_ceil_cl", "aten::max_pool2d", [xs, [3, 3], [2, 2], [0, 0], [1, 1], True], F.max_pool2d(xs, 3, 2, 0, 1, True))
    # Infinities and extremes (ShuffleNet's 24 channels: a block of 16 and one of 8): +inf beside
    # -inf in one window, a window of -inf only, values near FLT_MAX of both signs, a NaN in the
    # 8-block. Whatever a kernel computes besides the maximum (a NaN flag, a sum) must not change it.
    xi = cl(1, 24, 11, 12)
    xi[0, 2, 3, 3], xi[0, 2, 3, 4] = float("inf"), float("-inf")
    xi[0, 20, 4, 4], xi[0, 20, 5, 5] = float("-inf"), float("inf")
    xi[0, 9, 6, 5:8] = 3e38
    xi[0, 11, 7, 6], xi[0, 11, 7, 7] = -3e38, 3e38
    xi[0, 17, 0:3, 0:3] = float("-inf")
    xi[0, 22, 9, 9] = float("nan")
    case(c, "max_3x3s2p1_inf_cl", "aten::max_pool2d", [xi, [3, 3], [2, 2], [1, 1], [1, 1], False], F.max_pool2d(xi, 3, 2, 1))
    case(c, "max_2x2_inf_cl", "aten::max_pool2d", [xi, [2, 2], [2, 2], [0, 0], [1, 1], False], F.max_pool2d(xi, 2, 2))
    y = cl(1, 24, 13, 14)
    case(c, "avg_3x3s2p1_cl", "aten::avg_pool2d", [y, [3, 3], [2, 2], [1, 1], False, True, None], F.avg_pool2d(y, 3, 2, 1))
    case(c, "avg_exclude_pad_ceil_cl", "aten::avg_pool2d", [y, [3, 2], [2, 2], [1, 1], True, False, None],
         F.avg_pool2d(y, (3, 2), 2, 1, True, False))
    case(c, "avg_divisor_cl", "aten::avg_pool2d", [y, [2, 2], [2, 2], [0, 0], False, True, 3], F.avg_pool2d(y, 2, 2, 0, False, True, 3))
    z = cl(2, 48, 7, 9)
    case(c, "adaptive_avg_1x1_cl", "aten::adaptive_avg_pool2d", [z, [1, 1]], F.adaptive_avg_pool2d(z, 1))
    case(c, "adaptive_avg_3x2_cl", "aten::adaptive_avg_pool2d", [z, [3, 2]], F.adaptive_avg_pool2d(z, (3, 2)))
    # 100 channels: the kernels' register blocks of 64 and 16 and a tail of 4; NaN in the first
    # block and in the tail. Divisors of powers of two (multiplied by the inverse) and others.
    w = cl(2, 100, 9, 8)
    w[1, 30, 2, 2] = float("nan")
    w[0, 98, 5, 4] = float("nan")
    case(c, "max_3x3s2p1_c100_cl", "aten::max_pool2d", [w, [3, 3], [2, 2], [1, 1], [1, 1], True], F.max_pool2d(w, 3, 2, 1, 1, True))
    v = cl(1, 100, 9, 8)
    case(c, "avg_3x3s1p1_c100_cl", "aten::avg_pool2d", [v, [3, 3], [1, 1], [1, 1], False, True, None], F.avg_pool2d(v, 3, 1, 1))
    case(c, "avg_2x2_c100_exclude_ceil_cl", "aten::avg_pool2d", [v, [2, 2], [2, 2], [1, 1], True, False, None],
         F.avg_pool2d(v, 2, 2, 1, True, False))
    case(c, "adaptive_avg_1x1_c100_cl", "aten::adaptive_avg_pool2d", [v, [1, 1]], F.adaptive_avg_pool2d(v, 1))
    u = cl(1, 80, 8, 8)
    case(c, "adaptive_avg_1x1_64px_cl", "aten::adaptive_avg_pool2d", [u, [1, 1]], F.adaptive_avg_pool2d(u, 1))
    # 3-D pooling (pooling3d.cpp): global and uneven adaptive windows, an unbatched and a
    # channels-last-3d input, max with padding, ceil_mode, dilation and a NaN, average with
    # count_include_pad off, ceil_mode and a divisor. Own stream, as the conv3d cases.
    g3 = torch.Generator().manual_seed(10)
    v3 = torch.randn(2, 6, 5, 9, 7, generator=g3)
    case(c, "adaptive_avg3d_1x1x1", "aten::adaptive_avg_pool3d", [v3, [1, 1, 1]], F.adaptive_avg_pool3d(v3, 1))
    case(c, "adaptive_avg3d_2x4x3", "aten::adaptive_avg_pool3d", [v3, [2, 4, 3]], F.adaptive_avg_pool3d(v3, (2, 4, 3)))
    u3 = torch.randn(4, 3, 6, 5, generator=g3)
    case(c, "adaptive_avg3d_unbatched", "aten::adaptive_avg_pool3d", [u3, [2, 2, 2]], F.adaptive_avg_pool3d(u3, 2))
    c3 = torch.randn(1, 24, 4, 7, 7, generator=g3).contiguous(memory_format=torch.channels_last_3d)
    case(c, "adaptive_avg3d_1x1x1_cl", "aten::adaptive_avg_pool3d", [c3, [1, 1, 1]], F.adaptive_avg_pool3d(c3, 1))
    m3 = torch.randn(1, 5, 7, 11, 10, generator=g3)
    m3[0, 2, 3, 4, 5] = float("nan")
    case(c, "max3d_3x3x3s2p1", "aten::max_pool3d", [m3, [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False], F.max_pool3d(m3, 3, 2, 1))
    case(c, "max3d_1x3x3_ceil", "aten::max_pool3d", [m3, [1, 3, 3], [1, 2, 2], [0, 1, 1], [1, 1, 1], True],
         F.max_pool3d(m3, (1, 3, 3), (1, 2, 2), (0, 1, 1), 1, True))
    case(c, "max3d_dilated", "aten::max_pool3d", [m3, [2, 2, 2], [1, 1, 1], [0, 1, 1], [2, 1, 2], False],
         F.max_pool3d(m3, 2, 1, (0, 1, 1), (2, 1, 2)))
    a3 = torch.randn(2, 3, 6, 9, 8, generator=g3)
    case(c, "avg3d_3x3x3s2p1", "aten::avg_pool3d", [a3, [3, 3, 3], [2, 2, 2], [1, 1, 1], False, True, None], F.avg_pool3d(a3, 3, 2, 1))
    case(c, "avg3d_exclude_pad_ceil", "aten::avg_pool3d", [a3, [2, 3, 3], [2, 2, 2], [1, 1, 1], True, False, None],
         F.avg_pool3d(a3, (2, 3, 3), 2, 1, True, False))
    case(c, "avg3d_divisor", "aten::avg_pool3d", [a3, [2, 2, 2], [], [0, 0, 0], False, True, 5], F.avg_pool3d(a3, 2, None, 0, False, True, 5))
    # Global averages of fewer images than threads, each image's pixels summed in runs over the
    # threads (pooling_nhwc.cpp): 195 pixels of 200 channels (up to four runs), a NaN and an
    # infinity past the first run; two images of 187 pixels. The test replays the "_split" cases
    # on one to three threads. Their own stream, so the cases above keep their values.
    sg = torch.Generator().manual_seed(41)
    cls = lambda *s: torch.randn(*s, generator=sg).contiguous(memory_format=torch.channels_last)
    s1 = cls(1, 200, 13, 15)
    s1[0, 7, 12, 3], s1[0, 199, 10, 14] = float("nan"), float("inf")
    case(c, "adaptive_avg_1x1_split_cl", "aten::adaptive_avg_pool2d", [s1, [1, 1]], F.adaptive_avg_pool2d(s1, 1))
    s2 = cls(2, 100, 11, 17)
    case(c, "adaptive_avg_1x1_split_n2_cl", "aten::adaptive_avg_pool2d", [s2, [1, 1]], F.adaptive_avg_pool2d(s2, 1))
    return c


def elementwise_cases():
    c = {}
    # Past the parallel grain, every magnitude the approximations switch on, and the IEEE specials.
    x = torch.cat([torch.linspace(-12, 12, 6001), r(4000) * 3, torch.tensor([0.0, -0.0, 1e-8, -1e-8, 1e-3, 88.0, -90.0, 100.0,
                                                                             float("inf"), float("-inf"), float("nan")])])
    for name, f in [("exp", torch.exp), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid), ("silu", F.silu), ("erf", torch.erf)]:
        case(c, name, "aten::" + name, [x], f(x))
    case(c, "gelu", "aten::gelu", [x, "none"], F.gelu(x))
    case(c, "gelu_tanh", "aten::gelu", [x, "tanh"], F.gelu(x, approximate="tanh"))
    strided = r(300, 40)[:, ::3]
    case(c, "gelu_strided", "aten::gelu", [strided, "none"], F.gelu(strided))
    cl = lambda *sh: r(*sh).contiguous(memory_format=torch.channels_last)
    a, b = cl(2, 24, 9, 11), cl(2, 24, 9, 11)
    case(c, "relu_cl", "aten::relu", [a], F.relu(a))
    case(c, "add_cl", "aten::add.Tensor", [a, b, 1], a + b)
    se = r(2, 24, 1, 1)
    case(c, "mul_cl_broadcast", "aten::mul.Tensor", [a, se], a * se)
    case(c, "sigmoid_cl", "aten::sigmoid", [a], torch.sigmoid(a))
    case(c, "add_cl_contiguous", "aten::add.Tensor", [a, b.contiguous(), 2], a + 2 * b)
    # The per-channel operand first, an operation that is not symmetric, one scale for the batch.
    case(c, "mul_cl_broadcast_first", "aten::mul.Tensor", [se, a], se * a)
    case(c, "sub_cl_broadcast_first", "aten::sub.Tensor", [se, a, 1], se - a)
    se1 = r(1, 24, 1, 1) + 2
    case(c, "div_cl_broadcast_batch", "aten::div.Tensor", [a, se1], a / se1)
    # A channel concatenation of channels-last parts of every fixed width the copy has (1, 2, 4,
    # 8, 16) and one it does not (3).
    parts = [cl(2, k, 5, 3) for k in (1, 2, 4, 8, 16, 3)]
    case(c, "cat_cl_parts", "aten::cat", [parts, 1], torch.cat(parts, 1))
    # And wide parts: whole 16-float vectors with and without a tail (64, 37), two images.
    gw = torch.Generator().manual_seed(5)  # its own stream: the cases after keep theirs
    wide = [torch.randn(2, k, 4, 3, generator=gw).contiguous(memory_format=torch.channels_last) for k in (64, 37, 16)]
    case(c, "cat_cl_wide_parts", "aten::cat", [wide, 1], torch.cat(wide, 1))
    # Inference batch norm of a channels-last input (DenseNet's pre-activation after a concat):
    # 40 channels (vectors of 16 and a tail), with and without the affine parameters.
    xb = cl(2, 40, 9, 7)
    rm, rv, wb, bb = r(40), r(40).abs() + 0.5, r(40), r(40)
    case(c, "batch_norm_eval_cl", "aten::batch_norm", [xb, wb, bb, rm, rv, False, 0.1, 1e-5, True],
         F.batch_norm(xb, rm, rv, wb, bb, False, 0.1, 1e-5))
    case(c, "batch_norm_eval_cl_no_affine", "aten::batch_norm", [xb, None, None, rm, rv, False, 0.1, 1e-3, True],
         F.batch_norm(xb, rm, rv, None, None, False, 0.1, 1e-3))
    # Channel counts whose scale and shift are tiled over whole vectors (8: two pixels a vector;
    # 3: 16 pixels in 48 channels) and one too wide to tile (131: a pixel at a time).
    gn = torch.Generator().manual_seed(6)  # its own stream: the cases after keep theirs
    for k in (8, 3, 131):
        xk = torch.randn(2, k, 5, 7, generator=gn).contiguous(memory_format=torch.channels_last)
        mk, vk = torch.randn(k, generator=gn), torch.rand(k, generator=gn) + 0.5
        wk, bk = torch.randn(k, generator=gn), torch.randn(k, generator=gn)
        case(c, f"batch_norm_eval_cl_{k}", "aten::batch_norm", [xk, wk, bk, mk, vk, False, 0.1, 1e-5, True],
             F.batch_norm(xk, mk, vk, wk, bk, False, 0.1, 1e-5))
    # Global pooling of a channels-last image: 80 channels (a block of 64 and a tail), two images.
    xg = cl(2, 80, 7, 5)
    case(c, "mean_pixels_cl", "aten::mean.dim", [xg, [2, 3], False, None], torch.mean(xg, [2, 3]))
    case(c, "mean_pixels_cl_keepdim", "aten::mean.dim", [xg, [-1, -2], True, None], torch.mean(xg, [-1, -2], True))
    case(c, "sum_pixels_cl", "aten::sum.dim_IntList", [xg, [3, 2], False, None], torch.sum(xg, [3, 2]))
    return c


def softmax_cases():
    """Rows for softmax_f32 (attention's masked softmax: -inf entries are masked keys, a fully
    masked row gives zeros)."""
    x = r(6, 77) * 4
    x[1, ::3] = float("-inf")
    x[2, :] = float("-inf")
    x[3, 5] = 90.0
    want = torch.softmax(x, -1)
    want[2, :] = 0.0
    return {"rows": (x, want)}


def softmax_op_cases():
    """aten::softmax over the last dim (the vectorized rows, AVX-512's masked last vector): rows of
    one vector exactly, of 49 (Swin's windows) and 197 (ViT's tokens), in place of a wide spread
    (entries 100 below the maximum), with -inf entries, a row of -inf only, a NaN, and a +inf."""
    g = torch.Generator().manual_seed(17)  # its own stream
    c = {}
    for n in (16, 49, 197):
        x = torch.randn(6, n, generator=g) * 4
        x[1, ::3] = float("-inf")
        x[2, :] = float("-inf")
        x[3, n // 2] = float("nan")
        x[4, n - 1] = float("inf")
        x[5, 0] = 100.0
        case(c, f"softmax_rows_{n}", "aten::softmax.int", [x, -1, None], torch.softmax(x, -1))
    x = torch.randn(2, 3, 7, 49, generator=g) * 3
    case(c, "softmax_windows_2x3x7x49", "aten::softmax.int", [x, -1, None], torch.softmax(x, -1))
    return c


POST = {
    "relu": lambda t, a, b: F.relu(t),
    "leaky_relu": lambda t, a, b: F.leaky_relu(t, a),
    "clamp": lambda t, a, b: torch.clamp(t, a, b),
    "silu": lambda t, a, b: F.silu(t),
    "hardswish": lambda t, a, b: F.hardswish(t),
    "hardsigmoid": lambda t, a, b: F.hardsigmoid(t),
    "sigmoid": lambda t, a, b: torch.sigmoid(t),
    "tanh": lambda t, a, b: torch.tanh(t),
    "gelu": lambda t, a, b: F.gelu(t),
    "gelu_tanh": lambda t, a, b: F.gelu(t, approximate="tanh"),
}


def apply(t, post, residual):
    for name, a, b in post:
        t = t + residual if name == "add" else POST[name](t, a, b)
    return t


def grouped_3x3_cases(c, prefix, specs, gen, posts):
    """Grouped 3x3 convolutions, padding 1, into c as PREFIX<i>[nan]_<post-ops>: specs are (input
    sizes, channels per group, stride, with bias, index of a NaN or None); posts(i, nan_at) gives
    each spec's post-op chains. Every tensor is drawn from gen, in this order."""
    for gi, (xs, per, stride, with_bias, nan_at) in enumerate(specs):
        for post in posts(gi, nan_at):
            ch = xs[1]
            x, w = torch.randn(*xs, generator=gen), torch.randn(ch, per, 3, 3, generator=gen) / math.sqrt(9 * per)
            b = torch.randn(ch, generator=gen) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
            base = F.conv2d(x, w, b, stride, 1, 1, ch // per)
            res = torch.randn(*base.shape, generator=gen) if any(p[0] == "add" for p in post) else None
            name = f"{prefix}{gi}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, [stride, stride], [1, 1], [1, 1], ch // per, res), tuple(post), apply(base, post, res))


def fused_cases():
    c = {}
    chains = [[("relu", 0, 0)], [("add", 0, 0), ("relu", 0, 0)], [("clamp", 0.0, 6.0)], [("silu", 0, 0)], [("hardswish", 0, 0)],
              [("hardsigmoid", 0, 0)], [("sigmoid", 0, 0)], [("tanh", 0, 0)], [("gelu", 0, 0)], [("gelu_tanh", 0, 0)],
              [("leaky_relu", 0.1, 0)], [("relu", 0, 0), ("add", 0, 0)], [("add", 0, 0)]]
    geoms = [((1, 19, 7, 9), (35, 19, 3, 3), 1, 1, 1, 1), ((2, 32, 8, 8), (32, 1, 3, 3), 2, 1, 1, 32),
             ((1, 64, 6, 6), (48, 64, 1, 1), 1, 0, 1, 1),
             # 1x1 images (squeeze-and-excitation): the matrix-vector path, two images.
             ((2, 48, 1, 1), (20, 48, 1, 1), 1, 0, 1, 1),
             # A tiny 1x1 (an inception branch's 3 -> 4): the plain-loop path, two images.
             ((2, 3, 17, 16), (4, 3, 1, 1), 1, 0, 1, 1)]
    for gi, (xs, ws, stride, pad, dil, groups) in enumerate(geoms):
        for post in chains if gi == 0 else chains[:5]:
            x, w, b = r(*xs), r(*ws) / math.sqrt(ws[1] * ws[2] * ws[3]), r(ws[0])
            base = F.conv2d(x, w, b, stride, pad, dil, groups)
            res = r(*base.shape) if any(p[0] == "add" for p in post) else None
            name = f"conv{gi}_" + "_".join(p[0] for p in post)
            c[name] = ("conv2d", (x, w, b, [stride, stride], [pad, pad], [dil, dil], groups, res), tuple(post), apply(base, post, res))
    # An image's first convolution (three input channels, few output channels: oneDNN's kernels
    # for it are not the ones for the layers after): output channels filling one, part of one and
    # several vector blocks, strides 1-4, padding or not, a batch of two, one and four input channels.
    stems = [((1, 3, 23, 29), (32, 3, 3, 3), 2, 1), ((2, 3, 17, 16), (24, 3, 3, 3), 2, 1), ((1, 3, 21, 19), (64, 3, 3, 3), 2, 0),
             ((1, 3, 30, 27), (16, 3, 7, 7), 2, 3), ((1, 3, 24, 20), (96, 3, 4, 4), 4, 0), ((1, 1, 15, 14), (70, 1, 3, 3), 1, 1),
             ((1, 4, 13, 18), (40, 4, 5, 5), 3, 2), ((1, 3, 19, 18), (20, 3, 3, 3), 2, 1)]
    g = torch.Generator().manual_seed(3)  # its own stream: the families after this one keep theirs
    for si, (xs, ws, stride, pad) in enumerate(stems):
        for post in chains[:1] + chains[2:11] if si == 0 else chains[:1]:
            x, w, b = torch.randn(*xs, generator=g), torch.randn(*ws, generator=g) / math.sqrt(ws[1] * ws[2] * ws[3]), torch.randn(ws[0], generator=g)
            base = F.conv2d(x, w, b, stride, pad)
            c[f"stem{si}_" + "_".join(p[0] for p in post)] = ("conv2d", (x, w, b, [stride, stride], [pad, pad], [1, 1], 1, None), tuple(post),
                                                              apply(base, post, None))
    # Depthwise 3x3 stride 1 (DepthwiseConv on channels-last input): channel counts below, at and
    # past the vector widths (8, 12, 16, 24, 58, 72: overlapping last blocks), images narrower
    # than a pixel block and ones with inside blocks, padding 0, 1 and 2, a batch of two, no bias,
    # and a NaN (kept by the activation, as PyTorch's); the NaN case and the last are at least 56
    # wide, what the kernel takes on AVX2.
    dws = [((1, 24, 7, 10), 1, True, None), ((1, 8, 5, 7), 1, True, None), ((2, 12, 9, 19), 1, True, None), ((1, 16, 3, 3), 1, True, None),
           ((1, 24, 11, 30), 0, True, None), ((1, 58, 14, 14), 1, False, None), ((1, 72, 4, 60), 2, True, (0, 40, 2, 9)),
           ((2, 20, 3, 57), 1, True, None)]
    for di, (xs, pad, with_bias, nan_at) in enumerate(dws):
        for post in [[]] + chains[:1] + chains[2:11] if di == 0 else [[]] + chains[:1] + chains[2:3] + chains[4:6] if nan_at else chains[:1]:
            ch = xs[1]
            x, w = torch.randn(*xs, generator=g), torch.randn(ch, 1, 3, 3, generator=g) / 3
            b = torch.randn(ch, generator=g) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
            base = F.conv2d(x, w, b, 1, pad, 1, ch)
            name = f"dw{di}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, [1, 1], [pad, pad], [1, 1], ch, None), tuple(post), apply(base, post, None))
    # 3x3 stride-1 layers big enough for oneDNN's Winograd kernel on AVX-512 (at least 20x20
    # outputs and 20 MFLOP, packed_conv.cpp): channel counts off its 16-channel blocks, a batch of
    # two, no padding, no bias; residual, SiLU (applied after the kernel, on its blocked output)
    # and activations it does not fuse (then the direct kernel runs them).
    wg = torch.Generator().manual_seed(5)  # its own stream: the families after this one keep theirs
    winos = [((1, 32, 24, 24), 64, 1, True), ((1, 40, 29, 21), 56, 1, True), ((2, 32, 20, 22), 48, 1, False), ((1, 48, 26, 26), 48, 0, True)]
    for wi, (xs, oc, pad, with_bias) in enumerate(winos):
        for post in [[]] + chains[:5] if wi == 0 else [[]] + chains[:2] + chains[3:4]:
            x, w = torch.randn(*xs, generator=wg), torch.randn(oc, xs[1], 3, 3, generator=wg) / math.sqrt(9 * xs[1])
            b = torch.randn(oc, generator=wg) if with_bias else None
            base = F.conv2d(x, w, b, 1, pad)
            res = torch.randn(*base.shape, generator=wg) if any(p[0] == "add" for p in post) else None
            c[f"wino{wi}_" + ("_".join(p[0] for p in post) or "none")] = ("conv2d", (x, w, b, [1, 1], [pad, pad], [1, 1], 1, res), tuple(post),
                                                                         apply(base, post, res))
    # 1x1 stride-1 layers for PointwiseConv (channels-last, AVX-512): output channels just past one
    # vector (17: an overlapping second), off the vector width (24, 40, 100: groups of 4 + 3
    # vectors), images over several pixel chunks with partial tiles, a batch of two, no bias, and a
    # NaN kept by the activation. The last has more outputs than pixels and work enough for two
    # threads: 13 vectors split 6:7, each thread's run starting or ending inside a group of four.
    pg = torch.Generator().manual_seed(6)  # its own stream: the families after this one keep theirs
    pws = [((2, 24, 11, 13), 40, True, None), ((1, 72, 14, 14), 24, True, None), ((1, 16, 9, 9), 17, True, None),
           ((1, 40, 7, 7), 100, False, None), ((1, 32, 10, 10), 48, True, (0, 5, 3, 4)), ((1, 96, 7, 7), 200, True, None)]
    for pi, (xs, oc, with_bias, nan_at) in enumerate(pws):
        for post in [[]] + chains[:3] + chains[4:5] if pi == 0 else chains[:2] if nan_at is None else chains[:1] + chains[2:3]:
            x, w = torch.randn(*xs, generator=pg), torch.randn(oc, xs[1], 1, 1, generator=pg) / math.sqrt(xs[1])
            b = torch.randn(oc, generator=pg) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
            base = F.conv2d(x, w, b)
            res = torch.randn(*base.shape, generator=pg) if any(p[0] == "add" for p in post) else None
            name = f"pw{pi}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, [1, 1], [0, 0], [1, 1], 1, res), tuple(post), apply(base, post, res))
    # 1x1 layers of more than 512 input channels, which PointwiseConv's AVX2 tile takes in blocks
    # with partial sums in the output between them (the epilogue, residual included, only after
    # the last): more outputs than pixels (7x7, tiles of six and five pixels), more pixels than
    # outputs (a chunk's rows ending in a short tile), and 7 pixels (a tile of six, then one).
    bg = torch.Generator().manual_seed(21)  # its own stream
    blocked = [((1, 600, 7, 7), 80, True), ((1, 520, 9, 11), 40, False), ((1, 1030, 1, 7), 24, True)]
    for bi, (xs, oc, with_bias) in enumerate(blocked):
        for post in chains[:2] if bi == 0 else chains[1:2]:
            x, w = torch.randn(*xs, generator=bg), torch.randn(oc, xs[1], 1, 1, generator=bg) / math.sqrt(xs[1])
            b = torch.randn(oc, generator=bg) if with_bias else None
            base = F.conv2d(x, w, b)
            res = torch.randn(*base.shape, generator=bg) if any(p[0] == "add" for p in post) else None
            c[f"pwb{bi}_" + ("_".join(p[0] for p in post) or "none")] = ("conv2d", (x, w, b, [1, 1], [0, 0], [1, 1], 1, res), tuple(post),
                                                                        apply(base, post, res))
    # Grouped 3x3 layers for GroupedConv (4 or 8 channels a group, channels-last, AVX-512): widths
    # off its 8- and 6-pixel row tiles, stride 1 and 2, a batch of two, no bias, and a NaN kept by
    # the activation.
    gg = torch.Generator().manual_seed(7)  # its own stream: the families after this one keep theirs
    gcs = [((1, 32, 13, 11), 4, 1, True, None), ((2, 64, 9, 17), 8, 1, True, None), ((1, 32, 15, 14), 4, 2, True, None),
           ((1, 48, 12, 13), 8, 2, False, None), ((1, 32, 10, 10), 4, 1, True, (0, 5, 3, 4)),
           # 8 a group on rows of 16 and (stride 2) 8 outputs: AVX2's stationary tiles of 8 pixels.
           ((1, 16, 9, 16), 8, 1, True, None), ((2, 24, 11, 16), 8, 2, True, None)]
    grouped_3x3_cases(c, "gc", gcs, gg, lambda gi, nan_at: [[]] + chains[:3] + chains[4:5] if gi == 0 else chains[:2] if nan_at is None
                      else chains[:1] + chains[2:3])
    # An activation, then the residual (an EfficientNetV2 fused-MBConv block's SiLU before its
    # skip connection) on images past Im2colConv's 64 pixels: AVX2's direct kernel in oneDNN 2.6
    # takes a sum post-op only first, so these run without post-ops and jitctl applies the
    # epilogue after the kernel (packed_conv.cpp, epilogue_after); a batch of two, no bias.
    ag = torch.Generator().manual_seed(8)  # its own stream: the families after this one keep theirs
    acts = [((1, 24, 12, 12), 24, 1, True), ((2, 16, 9, 11), 40, 2, False)]
    for ai, (xs, oc, stride, with_bias) in enumerate(acts):
        for post in ([("silu", 0, 0), ("add", 0, 0)], [("hardswish", 0, 0), ("add", 0, 0)], [("gelu", 0, 0), ("add", 0, 0)],
                     [("silu", 0, 0), ("add", 0, 0), ("relu", 0, 0)]) if ai == 0 else ([("silu", 0, 0), ("add", 0, 0)],):
            x, w = torch.randn(*xs, generator=ag), torch.randn(oc, xs[1], 3, 3, generator=ag) / math.sqrt(9 * xs[1])
            b = torch.randn(oc, generator=ag) if with_bias else None
            base = F.conv2d(x, w, b, stride, 1)
            res = torch.randn(*base.shape, generator=ag)
            c[f"act_res{ai}_" + "_".join(p[0] for p in post)] = ("conv2d", (x, w, b, [stride, stride], [1, 1], [1, 1], 1, res), tuple(post),
                                                                apply(base, post, res))
    # 3-D convolutions with the epilogues video models fuse (R3D's ReLU and residual + ReLU), one
    # oneDNN may take only without post-ops on AVX2 (SiLU then the residual), and none; a depth-1
    # output and a batch of two.
    vg = torch.Generator().manual_seed(11)  # its own stream: the families after this one keep theirs
    vids = [((1, 16, 4, 10, 9), 24, 1, True), ((2, 8, 3, 7, 8), 16, 2, False)]
    for vi, (xs, oc, stride, with_bias) in enumerate(vids):
        for post in ([], [("relu", 0, 0)], [("add", 0, 0), ("relu", 0, 0)], [("silu", 0, 0), ("add", 0, 0)]):
            x, w = torch.randn(*xs, generator=vg), torch.randn(oc, xs[1], 3, 3, 3, generator=vg) / math.sqrt(27 * xs[1])
            b = torch.randn(oc, generator=vg) if with_bias else None
            base = F.conv3d(x, w, b, stride, 1)
            res = torch.randn(*base.shape, generator=vg) if any(p[0] == "add" for p in post) else None
            c[f"vid{vi}_" + ("_".join(p[0] for p in post) or "none")] = ("conv3d", (x, w, b, [stride] * 3, [1, 1, 1], [1, 1, 1], 1, res),
                                                                         tuple(post), apply(base, post, res))
    # (1, 3, 3) stride-1 3-D convolutions (R(2+1)D's spatial half), which WinogradConv takes on
    # channels-last-3d input (one depth tap; vid0 above has three): sizes off its 4x4 tiles and
    # 16-channel panels, a batch of two, no bias, the video epilogues.
    fg = torch.Generator().manual_seed(12)  # its own stream: the families after this one keep theirs
    frames = [((1, 16, 3, 12, 13), 24, True), ((2, 24, 2, 10, 9), 20, False)]
    for fi, (xs, oc, with_bias) in enumerate(frames):
        for post in ([], [("relu", 0, 0)], [("add", 0, 0), ("relu", 0, 0)], [("silu", 0, 0), ("add", 0, 0)]):
            x, w = torch.randn(*xs, generator=fg), torch.randn(oc, xs[1], 1, 3, 3, generator=fg) / math.sqrt(9 * xs[1])
            b = torch.randn(oc, generator=fg) if with_bias else None
            base = F.conv3d(x, w, b, 1, (0, 1, 1))
            res = torch.randn(*base.shape, generator=fg) if any(p[0] == "add" for p in post) else None
            c[f"vfr{fi}_" + ("_".join(p[0] for p in post) or "none")] = ("conv3d", (x, w, b, [1, 1, 1], [0, 1, 1], [1, 1, 1], 1, res),
                                                                         tuple(post), apply(base, post, res))
    # 3x3 stride-1 layers whose transformed weights outweigh their transformed inputs 8 times or
    # more (deep layers on small images), which WinogradConv splits over the threads by output
    # channels: 100 outputs (a last panel of 4 lanes), 128; no bias; residual and ReLU. Inputs of
    # half the scale: F(4x4, 3x3) rounds outputs of magnitude 1-4 to within 1.4e-5 (2-3x direct
    # summation's error, packed_conv.cpp), past the suite's 1e-5 absolute tolerance at unit scale.
    sg = torch.Generator().manual_seed(14)  # its own stream: the families after this one keep theirs
    splits = [((1, 32, 12, 12), 100, True), ((1, 24, 12, 13), 128, False)]
    for si, (xs, oc, with_bias) in enumerate(splits):
        for post in ([], [("relu", 0, 0)], [("add", 0, 0), ("relu", 0, 0)]):
            x, w = torch.randn(*xs, generator=sg) / 2, torch.randn(oc, xs[1], 3, 3, generator=sg) / math.sqrt(9 * xs[1])
            b = torch.randn(oc, generator=sg) if with_bias else None
            base = F.conv2d(x, w, b, 1, 1)
            res = torch.randn(*base.shape, generator=sg) if any(p[0] == "add" for p in post) else None
            c[f"wsplit{si}_" + ("_".join(p[0] for p in post) or "none")] = ("conv2d", (x, w, b, [1, 1], [1, 1], [1, 1], 1, res), tuple(post),
                                                                           apply(base, post, res))
    for post in chains:
        x, w, b = r(3, 11, 150), r(70, 150) / 12, r(70)
        base = F.linear(x, w, b)
        res = r(*base.shape) if any(p[0] == "add" for p in post) else None
        c["linear_" + "_".join(p[0] for p in post)] = ("linear", (x, w, b, res), tuple(post), apply(base, post, res))
    x, w = r(16, 256), r(100, 256) / 16
    c["linear_mlp_nobias_gelu"] = ("linear", (x, w, None, None), (("gelu", 0, 0),), F.gelu(F.linear(x, w)))
    # One row (a classifier head at batch 1: the matrix-vector path), 1-D and 2-D, every chain.
    for post in chains:
        x, w, b = r(1, 150), r(70, 150) / 12, r(70)
        base = F.linear(x, w, b)
        res = r(*base.shape) if any(p[0] == "add" for p in post) else None
        c["linear_row_" + "_".join(p[0] for p in post)] = ("linear", (x, w, b, res), tuple(post), apply(base, post, res))
    x, w = r(300), r(9, 300) / 17
    c["linear_vector_nobias_relu"] = ("linear", (x, w, None, None), (("relu", 0, 0),), F.relu(F.linear(x, w)))
    # A residual that broadcasts to the output (tanh(linear(x)) + prior), many rows and one row.
    for xs, rs in (((3, 11, 150), (70,)), ((3, 11, 150), (11, 1)), ((1, 150), (70,))):
        for post in ([("tanh", 0, 0), ("add", 0, 0)], [("add", 0, 0), ("relu", 0, 0)]):
            x, w, b, res = r(*xs), r(70, 150) / 12, r(70), r(*rs)
            name = "linear_broadcast_res_" + "x".join(map(str, rs)) + f"_rows{xs[0]}_" + "_".join(p[0] for p in post)
            c[name] = ("linear", (x, w, b, res), tuple(post), apply(F.linear(x, w, b), post, res))
    # One row with a weight of more than 1 MB (600 x 450, read as four quarters side by side),
    # with a bias and ReLU, and with a residual.
    sg = torch.Generator().manual_seed(13)  # its own stream: the families after this one keep theirs
    x, w, b = torch.randn(1, 450, generator=sg), torch.randn(600, 450, generator=sg) / 21, torch.randn(600, generator=sg)
    res = torch.randn(1, 600, generator=sg)
    c["linear_row_stream_relu"] = ("linear", (x, w, b, None), (("relu", 0, 0),), F.relu(F.linear(x, w, b)))
    c["linear_row_stream_add"] = ("linear", (x, w, b, res), (("add", 0, 0),), F.linear(x, w, b) + res)
    # Outputs that are not whole groups of 128 columns for the AVX2 GEMM (192: twelve 16-column
    # panels, two groups of six; 400: 25 panels, groups of 7, 7, 7 and 4; 300: 19 panels, an even
    # four groups of 5, 5, 5 and 4), many rows, with a bias and ReLU, and with a residual.
    ug = torch.Generator().manual_seed(23)  # its own stream
    for n in (192, 400, 300):
        x, w, b = torch.randn(2, 45, 130, generator=ug), torch.randn(n, 130, generator=ug) / 11, torch.randn(n, generator=ug)
        res = torch.randn(2, 45, n, generator=ug)
        c[f"linear_groups{n}_relu"] = ("linear", (x, w, b, None), (("relu", 0, 0),), F.relu(F.linear(x, w, b)))
        c[f"linear_groups{n}_add_relu"] = ("linear", (x, w, b, res), (("add", 0, 0), ("relu", 0, 0)), F.relu(F.linear(x, w, b) + res))
    # 200 rows: three row chunks of the AVX2 GEMM (72, 72 and 56; every chunk prefetches its next
    # weights), over three K slices (128, 128, 44), 150 columns as two groups of five panels; with
    # GELU, and with a residual.
    kg = torch.Generator().manual_seed(31)  # its own stream
    x, w, b = torch.randn(200, 300, generator=kg), torch.randn(150, 300, generator=kg) / 17, torch.randn(150, generator=kg)
    res = torch.randn(200, 150, generator=kg)
    c["linear_chunks_gelu"] = ("linear", (x, w, b, None), (("gelu", 0, 0),), F.gelu(F.linear(x, w, b)))
    c["linear_chunks_add"] = ("linear", (x, w, b, res), (("add", 0, 0),), F.linear(x, w, b) + res)
    # Stride-2 3x3 layers of more than 64 output pixels for Im2colConv on AVX2 (196 and 225 pixels,
    # padding 1 and 0, with and without bias), with ReLU and with a residual.
    ig = torch.Generator().manual_seed(29)  # its own stream
    for ii, (xs, oc, pad, with_bias) in enumerate([((1, 24, 27, 27), 40, 1, True), ((1, 16, 31, 31), 24, 0, False)]):
        x, w = torch.randn(*xs, generator=ig), torch.randn(oc, xs[1], 3, 3, generator=ig) / math.sqrt(9 * xs[1])
        b = torch.randn(oc, generator=ig) if with_bias else None
        base = F.conv2d(x, w, b, 2, pad)
        res = torch.randn(*base.shape, generator=ig)
        c[f"ic{ii}_relu"] = ("conv2d", (x, w, b, [2, 2], [pad, pad], [1, 1], 1, None), (("relu", 0, 0),), F.relu(base))
        c[f"ic{ii}_add_relu"] = ("conv2d", (x, w, b, [2, 2], [pad, pad], [1, 1], 1, res), (("add", 0, 0), ("relu", 0, 0)), F.relu(base + res))
    # A 1x7 kernel (Inception-v3's) on 13x13, 169 pixels, padding (0, 3): Im2colConv too.
    x, w, b = torch.randn(1, 16, 13, 13, generator=ig), torch.randn(24, 16, 1, 7, generator=ig) / math.sqrt(112), torch.randn(24, generator=ig)
    base = F.conv2d(x, w, b, 1, (0, 3))
    res = torch.randn(*base.shape, generator=ig)
    c["ic2_relu"] = ("conv2d", (x, w, b, [1, 1], [0, 3], [1, 1], 1, None), (("relu", 0, 0),), F.relu(base))
    c["ic2_add_relu"] = ("conv2d", (x, w, b, [1, 1], [0, 3], [1, 1], 1, res), (("add", 0, 0), ("relu", 0, 0)), F.relu(base + res))
    # A network's first layer with a stride over 2 (AlexNet's 11x11 stride 4), any size: Im2colConv
    # on the image interleaved from NCHW. Window rows inside the image and clipped at every edge;
    # 961 and 1300 output pixels (blocks of 72 rows gathered and multiplied on one thread, the
    # last one partial, blocks across the two images' boundary); stride 3 with unequal padding and
    # a residual on a batch of two; 4 channels with dilation 2 on 81 pixels (one gathered matrix).
    sg3 = torch.Generator().manual_seed(37)  # its own stream
    for ii, (xs, oc, k, st, pad, dil, with_bias, post) in enumerate([
            ((1, 3, 131, 131), 16, 11, 4, (2, 2), 1, True, "relu"),
            ((2, 3, 77, 76), 10, 5, 3, (1, 2), 1, False, "add_relu"),
            ((1, 4, 30, 30), 12, 3, 3, (1, 1), 2, True, "none")]):
        x, w = torch.randn(*xs, generator=sg3), torch.randn(oc, xs[1], k, k, generator=sg3) / math.sqrt(k * k * xs[1])
        b = torch.randn(oc, generator=sg3) if with_bias else None
        base = F.conv2d(x, w, b, st, pad, dil)
        res = torch.randn(*base.shape, generator=sg3) if post == "add_relu" else None
        args = (x, w, b, [st, st], list(pad), [dil, dil], 1, res)
        if post == "relu":
            c[f"ics{ii}_relu"] = ("conv2d", args, (("relu", 0, 0),), F.relu(base))
        elif post == "add_relu":
            c[f"ics{ii}_add_relu"] = ("conv2d", args, (("add", 0, 0), ("relu", 0, 0)), F.relu(base + res))
        else:
            c[f"ics{ii}"] = ("conv2d", args, (), base)
    # Grouped 3x3 layers for WideGroupedConv (group widths a multiple of 8 but not of 16,
    # channels-last, AVX-512): 24 channels a group on widths off its 8-pixel tiles, stride 2 and a
    # batch of two, 56 (a group's outputs as 4 + 3 vectors), 40 (4 + 1) with a NaN kept by the
    # activation, no bias.
    wgg = torch.Generator().manual_seed(15)  # its own stream
    wides = [((1, 48, 13, 11), 24, 1, True, None), ((2, 48, 7, 9), 24, 2, True, None), ((1, 112, 5, 7), 56, 1, False, None),
             ((1, 80, 6, 5), 40, 2, True, (0, 45, 3, 4))]
    grouped_3x3_cases(c, "gw", wides, wgg, lambda gi, nan_at: [[]] + chains[:3] if gi == 0 else chains[1:2] if nan_at is None else chains[2:3])
    # Grouped 3x3 layers for the AVX2 panel kernel (grouped_panels_avx2.h: 16 or 24 channels a
    # group, channels-last): row widths that end on each tile size (15 = 6 + 6 + a 4-tile with 3
    # used, 14 = 6 + 6 + 2, 7 = 4 + a 4-tile with 3 used, 6 = 4 + 2, 1), strides 1 and 2, a batch of
    # two, every epilogue it takes, no bias, and a NaN kept by the activation.
    gpg = torch.Generator().manual_seed(18)  # its own stream
    panels = [((1, 32, 9, 15), 16, 1, True, None), ((2, 48, 8, 14), 16, 2, True, None), ((1, 64, 5, 14), 16, 1, False, None),
              ((1, 48, 6, 11), 24, 2, True, None), ((2, 72, 7, 7), 24, 1, True, None), ((1, 48, 3, 1), 24, 1, True, None),
              ((1, 32, 6, 6), 16, 1, True, (0, 20, 2, 3))]
    grouped_3x3_cases(c, "gp", panels, gpg, lambda gi, nan_at: [[]] + [chains[k] for k in (0, 1, 2, 4)] if gi in (0, 3)
                      else chains[1:2] if nan_at is None else chains[2:3])
    # 1x1 layers of stride 2 and 3 for PointwiseConv on the pixels they read (channels-last,
    # AVX-512): odd sizes (the last row and column read), a batch of two with the residual of a
    # downsampling shortcut, more outputs than pixels, no bias, a NaN kept by the activation on a
    # pixel read (one it skips is at (0, 9, 1, 1)), and strides 1 down and 2 across.
    psg = torch.Generator().manual_seed(16)  # its own stream
    strided = [((1, 32, 11, 13), 48, 2, True, None), ((2, 40, 9, 8), 72, 2, True, None), ((1, 64, 7, 7), 256, 2, False, None),
               ((1, 24, 10, 11), 40, 3, True, (0, 5, 3, 6)), ((1, 24, 9, 10), 32, (1, 2), True, None)]
    for si, (xs, oc, stride, with_bias, nan_at) in enumerate(strided):
        for post in [[]] + chains[:2] if si == 0 else chains[1:2] if nan_at is None else chains[2:3]:
            x, w = torch.randn(*xs, generator=psg), torch.randn(oc, xs[1], 1, 1, generator=psg) / math.sqrt(xs[1])
            b = torch.randn(oc, generator=psg) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
                x[0, 9, 1, 1] = float("nan")
            base = F.conv2d(x, w, b, stride)
            res = torch.randn(*base.shape, generator=psg) if any(p[0] == "add" for p in post) else None
            name = f"pws{si}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, list(stride) if isinstance(stride, tuple) else [stride, stride], [0, 0], [1, 1], 1, res),
                       tuple(post), apply(base, post, res))
    # Layers of at most 8 output channels for NarrowConv (channels-last, AVX2 and AVX-512): 3, 8
    # and 16 input channels, strides 1 and 2, widths over several 16-pixel tiles (the last one
    # overlapping), under 16 (tiles of 4) and under 4 (pixels alone), a 5x5 and a 3x5 kernel,
    # padding 0, 1, 2 and unequal, 5 and 6 outputs (a partial vector, residual included), a batch
    # of two, no bias, and a NaN kept by the activation.
    ng = torch.Generator().manual_seed(17)  # its own stream
    narrow = [((1, 3, 32, 32), 8, (3, 3), 1, (1, 1), True, None), ((2, 8, 13, 37), 8, (3, 3), 1, (1, 1), True, None),
              ((1, 16, 15, 20), 6, (3, 3), 2, (1, 1), False, None), ((1, 8, 9, 3), 5, (3, 3), 1, (1, 1), True, None),
              ((1, 3, 21, 25), 8, (5, 5), 2, (2, 2), True, None), ((1, 8, 12, 14), 8, (3, 5), 1, (1, 2), True, None),
              ((1, 8, 10, 20), 8, (3, 3), 1, (1, 1), True, (0, 5, 3, 4)), ((1, 3, 20, 22), 8, (3, 3), 1, (0, 0), True, None)]
    for ni, (xs, oc, k, stride, pad, with_bias, nan_at) in enumerate(narrow):
        for post in [[]] + chains[:3] if ni == 0 else chains[:2] if nan_at is None else chains[:1] + chains[2:3]:
            x, w = torch.randn(*xs, generator=ng), torch.randn(oc, xs[1], *k, generator=ng) / math.sqrt(xs[1] * k[0] * k[1])
            b = torch.randn(oc, generator=ng) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
            base = F.conv2d(x, w, b, stride, pad)
            res = torch.randn(*base.shape, generator=ng) if any(p[0] == "add" for p in post) else None
            name = f"nc{ni}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, [stride, stride], list(pad), [1, 1], 1, res), tuple(post), apply(base, post, res))
    # Depthwise layers for DepthwiseChannels (channels-last, AVX-512, input and output within L2):
    # kernels 3x3 of stride 2, 5x5 of strides 1 and 2, 7x7, 3x5, 1x3 and 9x9 (one load a tap),
    # widths of whole 14- and 7-pixel blocks and off them, narrower than a block's reach and than
    # the kernel, channel counts off the vector width (a masked last vector) and over 64 (a row's
    # channels split over items), padding 0 to 4 and unequal, a batch of two, no bias, every
    # epilogue it takes, and a NaN kept by the activation.
    dg = torch.Generator().manual_seed(18)  # its own stream
    dcs = [((1, 24, 13, 28), (3, 3), 2, (1, 1), True, None), ((1, 40, 14, 14), (5, 5), 1, (2, 2), True, None),
           ((2, 72, 11, 21), (5, 5), 2, (2, 2), False, None), ((1, 96, 14, 7), (7, 7), 1, (3, 3), True, None),
           ((1, 20, 9, 10), (3, 5), 1, (1, 2), True, None), ((1, 16, 5, 3), (5, 5), 1, (2, 2), True, None),
           ((1, 136, 6, 9), (1, 3), 1, (0, 1), True, None), ((1, 32, 12, 12), (9, 9), 1, (4, 4), True, None),
           ((1, 48, 10, 30), (3, 3), 1, (0, 0), True, None), ((1, 24, 12, 16), (5, 5), 1, (2, 2), True, (0, 7, 4, 6))]
    for di, (xs, k, stride, pad, with_bias, nan_at) in enumerate(dcs):
        for post in [[]] + chains[:1] + chains[2:11] if di == 0 else chains[:1] + chains[2:3] + chains[4:6] if nan_at else chains[:1]:
            ch = xs[1]
            x, w = torch.randn(*xs, generator=dg), torch.randn(ch, 1, *k, generator=dg) / math.sqrt(k[0] * k[1])
            b = torch.randn(ch, generator=dg) if with_bias else None
            if nan_at is not None:
                x[nan_at] = float("nan")
            base = F.conv2d(x, w, b, stride, pad, 1, ch)
            name = f"dc{di}{'nan' if nan_at else ''}_" + ("_".join(p[0] for p in post) or "none")
            c[name] = ("conv2d", (x, w, b, [stride, stride], list(pad), [1, 1], ch, None), tuple(post), apply(base, post, None))
    # Depthwise 3x3 stride 1 written over its input (DepthwiseConv::run_in_place, AVX2, at least 56
    # wide, output of the input's shape): row chunks over the threads meeting inside an image and
    # at an image's edge, a batch of three, channel counts off the vector width (overlapping last
    # blocks), no bias, and epilogues applied in registers (ReLU, clamp, hardswish) and per
    # finished row (SiLU, GELU).
    pg = torch.Generator().manual_seed(19)  # its own stream
    dwps = [((1, 12, 40, 56), True), ((3, 8, 13, 56), False), ((2, 20, 17, 60), True)]
    for pi, (xs, with_bias) in enumerate(dwps):
        for post in chains[:1] + chains[2:5] + chains[8:9] if pi == 0 else chains[:1]:
            ch = xs[1]
            x, w = torch.randn(*xs, generator=pg), torch.randn(ch, 1, 3, 3, generator=pg) / 3
            b = torch.randn(ch, generator=pg) if with_bias else None
            base = F.conv2d(x, w, b, 1, 1, 1, ch)
            c[f"dwp{pi}_" + "_".join(p[0] for p in post)] = ("conv2d", (x, w, b, [1, 1], [1, 1], [1, 1], ch, None), tuple(post),
                                                          apply(base, post, None))
    return c


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.save(conv_cases(), os.path.join(OUT, "conv_fast.pt"))
    torch.save(linear_cases(), os.path.join(OUT, "linear_fast.pt"))
    torch.save(fused_cases(), os.path.join(OUT, "fused.pt"))
    torch.save(pooling_cases(), os.path.join(OUT, "pooling_fast.pt"))
    torch.save(elementwise_cases(), os.path.join(OUT, "elementwise_fast.pt"))
    torch.save(softmax_cases(), os.path.join(OUT, "softmax_rows.pt"))
    torch.save(softmax_op_cases(), os.path.join(OUT, "softmax_fast.pt"))


if __name__ == "__main__":
    main()
