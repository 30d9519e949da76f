#!/usr/bin/python3
"""Expected outputs of the neural-network kernels, computed by PyTorch 1.13 (/usr/bin/python3).

Writes testdata/kernels_nn/FAMILY.pt, each a torch.save of a dict
    case name -> (schema name, tuple of stack inputs in schema order, tuple of outputs)
which tests/unit/test_kernels_nn.cpp replays through the kernel registry.
Run: /usr/bin/python3 testdata/gen/make_nn_goldens.py
"""
import os

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels_nn")
torch.manual_seed(0)
torch.set_grad_enabled(False)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def case(cases, name, op, args, outs):
    if not isinstance(outs, tuple):
        outs = (outs,)
    cases[name] = (op, tuple(args), tuple(o.contiguous() if isinstance(o, torch.Tensor) else o for o in outs))


def linear_cases():
    c = {}
    a, b = r(5, 7), r(7, 3)
    case(c, "mm", "aten::mm", [a, b], torch.mm(a, b))
    bt = r(3, 7)
    case(c, "mm_transposed_rhs", "aten::mm", [a, bt.t()], torch.mm(a, bt.t()))
    at = r(7, 5)
    case(c, "mm_transposed_lhs", "aten::mm", [at.t(), b], torch.mm(at.t(), b))
    a64, b64 = r(4, 6, dtype=torch.float64), r(6, 2, dtype=torch.float64)
    case(c, "mm_f64", "aten::mm", [a64, b64], torch.mm(a64, b64))
    big_a, big_b = r(70, 90), r(90, 50)
    case(c, "mm_larger", "aten::mm", [big_a, big_b], torch.mm(big_a, big_b))
    bias = r(3)
    case(c, "addmm_bias_row", "aten::addmm", [bias, a, b, 1, 1], torch.addmm(bias, a, b))
    bias2 = r(5, 3)
    case(c, "addmm_beta_alpha", "aten::addmm", [bias2, a, b, 0.5, 2.0], torch.addmm(bias2, a, b, beta=0.5, alpha=2.0))
    bias3 = r(5, 1)
    case(c, "addmm_bias_col", "aten::addmm", [bias3, a, b, 1, 1], torch.addmm(bias3, a, b))
    x, y = r(3, 4, 5), r(3, 5, 6)
    case(c, "bmm", "aten::bmm", [x, y], torch.bmm(x, y))
    yt = r(3, 6, 5).transpose(1, 2)
    case(c, "bmm_transposed", "aten::bmm", [x, yt], torch.bmm(x, yt))
    s = r(3, 4, 6)
    case(c, "baddbmm", "aten::baddbmm", [s, x, y, 0.5, 1.5], torch.baddbmm(s, x, y, beta=0.5, alpha=1.5))
    s1 = r(1, 6)
    case(c, "baddbmm_broadcast", "aten::baddbmm", [s1, x, y, 1, 1], torch.baddbmm(s1, x, y))
    # matmul: every rank combination
    shapes = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)),
              ((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
              ((1, 3, 4), (6, 4, 2)), ((2, 2, 3, 4), (4,))]
    for sa, sb in shapes:
        p, q = r(*sa), r(*sb)
        name = "matmul_" + "x".join(map(str, sa)) + "_" + "x".join(map(str, sb))
        case(c, name, "aten::matmul", [p, q], torch.matmul(p, q))
    p = r(2, 4, 3).transpose(1, 2)
    q = r(2, 4, 5)[:, :, 1:]
    case(c, "matmul_noncontiguous", "aten::matmul", [p, q], torch.matmul(p, q))
    inp, w, bb = r(6, 10), r(8, 10), r(8)
    case(c, "linear", "aten::linear", [inp, w, bb], F.linear(inp, w, bb))
    case(c, "linear_nobias", "aten::linear", [inp, w, None], F.linear(inp, w))
    inp3 = r(2, 3, 10)
    case(c, "linear_3d", "aten::linear", [inp3, w, bb], F.linear(inp3, w, bb))
    inp1 = r(10)
    case(c, "linear_1d", "aten::linear", [inp1, w, bb], F.linear(inp1, w, bb))
    inpt = r(3, 10, 2).transpose(1, 2)
    case(c, "linear_noncontiguous", "aten::linear", [inpt, w, bb], F.linear(inpt, w, bb))
    inp_big, w_big, b_big = r(33, 130), r(70, 130), r(70)
    case(c, "linear_larger", "aten::linear", [inp_big, w_big, b_big], F.linear(inp_big, w_big, b_big))
    return c


def conv_cases():
    c = {}

    def conv2d(name, x, w, b, stride=1, padding=0, dilation=1, groups=1):
        st = [stride] * 2 if isinstance(stride, int) else list(stride)
        di = [dilation] * 2 if isinstance(dilation, int) else list(dilation)
        pa = padding if isinstance(padding, str) else ([padding] * 2 if isinstance(padding, int) else list(padding))
        op = "aten::conv2d.padding" if isinstance(padding, str) else "aten::conv2d"
        case(c, name, op, [x, w, b, st, pa, di, groups], F.conv2d(x, w, b, stride, padding, dilation, groups))

    x = r(2, 3, 9, 8)
    conv2d("conv2d_3x3", x, r(4, 3, 3, 3), r(4))
    conv2d("conv2d_3x3_pad_stride", x, r(4, 3, 3, 3), r(4), stride=2, padding=1)
    conv2d("conv2d_5x5_nobias", x, r(6, 3, 5, 5), None, stride=(2, 1), padding=(2, 1))
    conv2d("conv2d_dilation", x, r(4, 3, 3, 3), r(4), padding=2, dilation=2)
    conv2d("conv2d_asym_kernel", x, r(5, 3, 1, 3), r(5), padding=(0, 1))
    conv2d("conv2d_1x1", x, r(7, 3, 1, 1), r(7))
    conv2d("conv2d_1x1_stride2", x, r(7, 3, 1, 1), r(7), stride=2)
    x6 = r(1, 6, 7, 7)
    conv2d("conv2d_groups", x6, r(4, 3, 3, 3), r(4), padding=1, groups=2)
    conv2d("conv2d_depthwise", x6, r(6, 1, 3, 3), r(6), padding=1, groups=6)
    conv2d("conv2d_depthwise_stride_dil", x6, r(6, 1, 3, 3), None, stride=2, padding=2, dilation=2, groups=6)
    conv2d("conv2d_depthwise_mult", x6, r(12, 1, 3, 3), r(12), padding=1, groups=6)
    x6b = r(2, 6, 8, 9)
    conv2d("conv2d_depthwise_stride2", x6b, r(6, 1, 3, 3), r(6), stride=2, padding=1, groups=6)
    conv2d("conv2d_depthwise_stride2_nopad", x6b, r(6, 1, 3, 3), None, stride=2, groups=6)
    conv2d("conv2d_depthwise_5x5", x6b, r(6, 1, 5, 5), r(6), padding=2, groups=6)
    conv2d("conv2d_same", x, r(4, 3, 4, 3), r(4), padding="same")
    conv2d("conv2d_same_dilation", x, r(4, 3, 3, 2), r(4), padding="same", dilation=(2, 3))
    conv2d("conv2d_valid", x, r(4, 3, 3, 3), r(4), padding="valid")
    conv2d("conv2d_unbatched", r(3, 6, 6), r(4, 3, 3, 3), r(4), padding=1)
    x64 = r(1, 2, 5, 5, dtype=torch.float64)
    conv2d("conv2d_f64", x64, r(3, 2, 3, 3, dtype=torch.float64), None, padding=1)
    xnc = r(1, 8, 8, 3).permute(0, 3, 1, 2)
    conv2d("conv2d_channels_last_input", xnc, r(4, 3, 3, 3), r(4), padding=1)
    # conv1d
    x1 = r(2, 4, 11)
    w1 = r(6, 4, 3)
    b1 = r(6)
    case(c, "conv1d", "aten::conv1d", [x1, w1, b1, [2], [1], [1], 1], F.conv1d(x1, w1, b1, 2, 1))
    w1g = r(4, 2, 3)
    case(c, "conv1d_groups_dil", "aten::conv1d", [x1, w1g, None, [1], [2], [2], 2], F.conv1d(x1, w1g, None, 1, 2, 2, 2))
    case(c, "conv1d_same", "aten::conv1d.padding", [x1, w1, b1, [1], "same", [1], 1], F.conv1d(x1, w1, b1, 1, "same"))
    # _convolution (what traced models record)
    w = r(4, 3, 3, 3)
    b = r(4)
    case(c, "_convolution", "aten::_convolution", [x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True],
         F.conv2d(x, w, b, 1, 1))
    wt = r(3, 2, 3, 3)
    bt = r(2)
    case(c, "_convolution_transposed", "aten::_convolution",
         [x, wt, bt, [2, 2], [1, 1], [1, 1], True, [1, 1], 1, False, False, True, True],
         F.conv_transpose2d(x, wt, bt, 2, 1, 1))
    # transposed
    xt = r(2, 4, 5, 6)
    wt = r(4, 3, 3, 3)
    bt = r(3)
    case(c, "conv_transpose2d", "aten::conv_transpose2d.input", [xt, wt, bt, [1, 1], [0, 0], [0, 0], 1, [1, 1]],
         F.conv_transpose2d(xt, wt, bt))
    case(c, "conv_transpose2d_stride_pad", "aten::conv_transpose2d.input", [xt, wt, bt, [2, 2], [1, 1], [1, 0], 1, [1, 1]],
         F.conv_transpose2d(xt, wt, bt, 2, 1, (1, 0)))
    wtg = r(4, 2, 3, 2)
    case(c, "conv_transpose2d_groups_dil", "aten::conv_transpose2d.input", [xt, wtg, None, [2, 1], [1, 0], [0, 0], 2, [2, 1]],
         F.conv_transpose2d(xt, wtg, None, (2, 1), (1, 0), 0, 2, (2, 1)))
    x1t = r(1, 4, 7)
    w1t = r(4, 2, 4)
    case(c, "conv_transpose1d", "aten::conv_transpose1d", [x1t, w1t, None, [3], [1], [2], 1, [1]],
         F.conv_transpose1d(x1t, w1t, None, 3, 1, 2))
    return c


def pooling_cases():
    c = {}
    x = r(2, 3, 9, 10)
    for name, k, s, p, d, ceil in [("max_pool2d", [3, 3], [2, 2], [1, 1], [1, 1], False),
                                   ("max_pool2d_ceil", [3, 3], [2, 2], [0, 0], [1, 1], True),
                                   ("max_pool2d_dilation", [2, 3], [1, 2], [1, 1], [2, 2], False),
                                   ("max_pool2d_default_stride", [2, 2], [], [0, 0], [1, 1], False)]:
        case(c, name, "aten::max_pool2d", [x, k, s, p, d, ceil], F.max_pool2d(x, k, s or None, p, d, ceil))
    case(c, "max_pool2d_with_indices", "aten::max_pool2d_with_indices", [x, [3, 3], [2, 2], [1, 1], [1, 1], True],
         F.max_pool2d(x, 3, 2, 1, 1, True, return_indices=True))
    x1 = r(2, 3, 11)
    case(c, "max_pool1d", "aten::max_pool1d", [x1, [3], [2], [1], [1], True], F.max_pool1d(x1, 3, 2, 1, 1, True))
    for name, k, s, p, ceil, cip, div in [("avg_pool2d", [3, 3], [2, 2], [1, 1], False, True, None),
                                          ("avg_pool2d_exclude_pad", [3, 3], [2, 2], [1, 1], False, False, None),
                                          ("avg_pool2d_ceil", [3, 2], [2, 2], [1, 0], True, True, None),
                                          ("avg_pool2d_ceil_exclude", [3, 3], [2, 2], [1, 1], True, False, None),
                                          ("avg_pool2d_divisor", [2, 2], [], [0, 0], False, True, 3)]:
        case(c, name, "aten::avg_pool2d", [x, k, s, p, ceil, cip, div], F.avg_pool2d(x, k, s or None, p, ceil, cip, div))
    for os_ in [[1, 1], [3, 4], [4, 3], [9, 10], [5, 7]]:
        name = "adaptive_avg_pool2d_%dx%d" % tuple(os_)
        case(c, name, "aten::adaptive_avg_pool2d", [x, os_], F.adaptive_avg_pool2d(x, os_))
        name = "adaptive_max_pool2d_%dx%d" % tuple(os_)
        case(c, name, "aten::adaptive_max_pool2d", [x, os_], F.adaptive_max_pool2d(x, os_, return_indices=True))
    case(c, "adaptive_avg_pool1d", "aten::adaptive_avg_pool1d", [x1, [4]], F.adaptive_avg_pool1d(x1, 4))
    x3 = r(3, 9, 10)
    case(c, "adaptive_avg_pool2d_unbatched", "aten::adaptive_avg_pool2d", [x3, [2, 3]], F.adaptive_avg_pool2d(x3, [2, 3]))
    xs = r(1, 2, 4, 5)
    case(c, "upsample_nearest2d_size", "aten::upsample_nearest2d.vec", [xs, [7, 9], None], F.interpolate(xs, size=(7, 9), mode="nearest"))
    case(c, "upsample_nearest2d_scale", "aten::upsample_nearest2d.vec", [xs, None, [2.0, 1.5]],
         F.interpolate(xs, scale_factor=(2.0, 1.5), mode="nearest"))
    for ac in [False, True]:
        case(c, "upsample_bilinear2d_size_ac%d" % ac, "aten::upsample_bilinear2d.vec", [xs, [7, 9], ac, None],
             F.interpolate(xs, size=(7, 9), mode="bilinear", align_corners=ac))
        case(c, "upsample_bilinear2d_scale_ac%d" % ac, "aten::upsample_bilinear2d.vec", [xs, None, ac, [2.0, 1.5]],
             F.interpolate(xs, scale_factor=(2.0, 1.5), mode="bilinear", align_corners=ac))
        case(c, "upsample_bilinear2d_down_ac%d" % ac, "aten::upsample_bilinear2d.vec", [xs, [3, 2], ac, None],
             F.interpolate(xs, size=(3, 2), mode="bilinear", align_corners=ac))
    return c


def norm_cases():
    c = {}
    x = r(2, 4, 5, 3)
    w, b, rm, rv = r(4), r(4), r(4), torch.rand(4) + 0.5
    case(c, "batch_norm", "aten::batch_norm", [x, w, b, rm, rv, False, 0.1, 1e-5, True],
         F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5))
    case(c, "batch_norm_no_affine", "aten::batch_norm", [x, None, None, rm, rv, False, 0.1, 1e-3, True],
         F.batch_norm(x, rm, rv, None, None, False, 0.1, 1e-3))
    x2 = r(5, 4)
    case(c, "batch_norm_1d", "aten::batch_norm", [x2, w, b, rm, rv, False, 0.1, 1e-5, True], F.batch_norm(x2, rm, rv, w, b, False))
    case(c, "batch_norm_training_stats", "aten::batch_norm", [x, w, b, None, None, True, 0.1, 1e-5, True],
         F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5))
    x3 = r(3, 5, 8)
    lw, lb = r(8), r(8)
    case(c, "layer_norm", "aten::layer_norm", [x3, [8], lw, lb, 1e-5, True], F.layer_norm(x3, [8], lw, lb))
    lw2, lb2 = r(5, 8), r(5, 8)
    case(c, "layer_norm_2d", "aten::layer_norm", [x3, [5, 8], lw2, lb2, 1e-6, True], F.layer_norm(x3, [5, 8], lw2, lb2, 1e-6))
    case(c, "layer_norm_no_affine", "aten::layer_norm", [x3, [8], None, None, 1e-5, True], F.layer_norm(x3, [8]))
    xg = r(2, 6, 4, 3)
    gw, gb = r(6), r(6)
    case(c, "group_norm", "aten::group_norm", [xg, 3, gw, gb, 1e-5, True], F.group_norm(xg, 3, gw, gb))
    case(c, "group_norm_no_affine", "aten::group_norm", [xg, 2, None, None, 1e-5, True], F.group_norm(xg, 2))
    case(c, "instance_norm", "aten::instance_norm", [xg, gw, gb, None, None, True, 0.1, 1e-5, True],
         F.instance_norm(xg, None, None, gw, gb, True))
    return c


def rnn_flat_weights(m):
    return list(m._flat_weights)


def rnn_cases():
    c = {}
    for kind in ["lstm", "gru"]:
        for layers, bidir, batch_first, bias in [(1, False, False, True), (2, True, False, True), (2, False, True, True),
                                                 (3, True, True, False)]:
            cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
            m = cls(6, 5, num_layers=layers, bidirectional=bidir, batch_first=batch_first, bias=bias).eval()
            dirs = 2 if bidir else 1
            x = r(4, 3, 6) if not batch_first else r(3, 4, 6)
            h0 = r(layers * dirs, 3, 5)
            name = "%s_l%d_%s_%s%s" % (kind, layers, "bi" if bidir else "uni", "bf" if batch_first else "sf", "" if bias else "_nobias")
            params = rnn_flat_weights(m)
            if kind == "lstm":
                c0 = r(layers * dirs, 3, 5)
                out, (hn, cn) = m(x, (h0, c0))
                case(c, name, "aten::lstm.input", [x, [h0, c0], params, bias, layers, 0.0, False, bidir, batch_first], (out, hn, cn))
            else:
                out, hn = m(x, h0)
                case(c, name, "aten::gru.input", [x, h0, params, bias, layers, 0.0, False, bidir, batch_first], (out, hn))
    return c


def attention_cases():
    c = {}
    E, H, B, S = 16, 4, 2, 5
    for norm_first in [False, True]:
        for use_gelu in [False, True]:
            layer = torch.nn.TransformerEncoderLayer(E, H, dim_feedforward=24, dropout=0.1, batch_first=True,
                                                     norm_first=norm_first, activation="gelu" if use_gelu else "relu").eval()
            src = r(B, S, E)
            a = layer.self_attn
            args = [src, E, H, a.in_proj_weight, a.in_proj_bias, a.out_proj.weight, a.out_proj.bias, use_gelu, norm_first, 1e-5,
                    layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias, layer.linear1.weight,
                    layer.linear1.bias, layer.linear2.weight, layer.linear2.bias, None, None]
            out = torch._transformer_encoder_layer_fwd(*args)
            # What the layer computes on its slow path: the fast path must agree with it.
            assert torch.allclose(out, layer(src), atol=1e-5)
            case(c, "encoder_layer_%s_%s" % ("norm_first" if norm_first else "norm_last", "gelu" if use_gelu else "relu"),
                 "aten::_transformer_encoder_layer_fwd", args, out)
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
    q = r(B, S, E)
    k = r(B, S, E)
    v = r(B, S, E)
    base = [E, H, mha.in_proj_weight, mha.in_proj_bias, mha.out_proj.weight, mha.out_proj.bias]
    for need_weights, average in [(True, True), (True, False), (False, True)]:
        outs = torch._native_multi_head_attention(q, q, q, *base, None, need_weights, average)
        name = "mha_self_w%d_avg%d" % (need_weights, average)
        case(c, name, "aten::_native_multi_head_attention", [q, q, q] + base + [None, need_weights, average, None],
             outs if need_weights else (outs[0],))
    outs = torch._native_multi_head_attention(q, k, v, *base, None, True, True)
    case(c, "mha_cross", "aten::_native_multi_head_attention", [q, k, v] + base + [None, True, True, None], outs)
    kpm = torch.zeros(B, S, dtype=torch.bool)
    kpm[0, 3:] = True
    outs = torch._native_multi_head_attention(q, q, q, *base, kpm, True, False, 1)
    case(c, "mha_key_padding_mask", "aten::_native_multi_head_attention", [q, q, q] + base + [kpm, True, False, 1], outs)
    return c


def main():
    os.makedirs(OUT, exist_ok=True)
    for family, fn in [("linear", linear_cases), ("conv", conv_cases), ("pooling", pooling_cases), ("norm", norm_cases),
                       ("rnn", rnn_cases), ("attention", attention_cases)]:
        cases = fn()
        torch.save(cases, os.path.join(OUT, family + ".pt"))
        print(family, len(cases), "cases")


if __name__ == "__main__":
    main()
