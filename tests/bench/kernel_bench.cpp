// Latency of the neural-network kernels on the shapes of the benchmark models (ResNet-18, the
// MLP, the transformer), to compare with kernel_bench.py (the same cases in PyTorch):
//   OMP_NUM_THREADS=1 kernel_bench [filter]
// prints "case  best-ms" per case (the minimum: the machine may be shared). Not a test: no timing belongs in tests.
// The "packed_" cases run a PackedConv built once on channels-last activations, as a frozen
// model's lowered convolutions run (the aten::conv2d cases pack their weights on every call).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/expand_depthwise.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/depthwise_channels.h"
#include "kernels/cpu/narrow_conv.h"
#include "kernels/registry.h"

namespace {

using namespace jitctl;

Tensor randn(std::vector<int64_t> sizes) {
  static std::mt19937 gen(0);
  std::normal_distribution<float> d;
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  auto* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(gen);
  return t;
}

// NCHW sizes stored channels-last (torch.channels_last), as convolutions leave activations.
Tensor randn_channels_last(int64_t n, int64_t c, int64_t h, int64_t w) {
  Tensor t = randn({n, h, w, c});
  return Tensor::view_of(t.storage(), DType::Float32, 0, {n, c, h, w}, {h * w * c, 1, w * c, c}, "bench");
}

IValue ints(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  for (auto x : v) l->items.emplace_back(x);
  return IValue(l);
}

struct Case {
  std::string name, op;
  Stack args;
  std::function<void()> run = {};  // instead of op and args
};

std::vector<Case> cases() {
  std::vector<Case> c;
  auto conv = [&](const std::string& name, int64_t n, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t s, int64_t p, int64_t g) {
    c.push_back({name, "aten::conv2d",
                 {randn({n, ci, hw, hw}), randn({co, ci / g, k, k}), randn({co}), ints({s, s}), ints({p, p}), ints({1, 1}), IValue(g)}});
  };
  conv("conv_r18_stem_7x7s2", 1, 3, 224, 64, 7, 2, 3, 1);
  conv("conv_r18_l1_3x3_64", 1, 64, 56, 64, 3, 1, 1, 1);
  conv("conv_r18_l2_3x3s2_128", 1, 64, 56, 128, 3, 2, 1, 1);
  conv("conv_r18_l2_3x3_128", 1, 128, 28, 128, 3, 1, 1, 1);
  conv("conv_r18_l2_1x1s2_128", 1, 64, 56, 128, 1, 2, 0, 1);
  conv("conv_r18_l3_3x3_256", 1, 256, 14, 256, 3, 1, 1, 1);
  conv("conv_r18_l4_3x3_512", 1, 512, 7, 512, 3, 1, 1, 1);
  conv("conv_1x1_116", 1, 116, 28, 116, 1, 1, 0, 1);
  conv("conv_dw_3x3_116", 1, 116, 28, 116, 3, 1, 1, 116);
  conv("conv_dw_3x3s2_116", 1, 116, 28, 116, 3, 2, 1, 116);
  // A dense layer of a rectangular kernel (padding keeping the size), ReLU after.
  auto layer_kxk = [&](const std::string& name, int64_t ci, int64_t hw, int64_t co, int64_t kh, int64_t kw, int64_t s = 1, bool pad = true) {
    cpu::ConvArgs a;
    a.stride = {s, s};
    a.padding = {pad ? kh / 2 : 0, pad ? kw / 2 : 0};
    a.dilation = {1, 1};
    auto conv = std::make_shared<cpu::PackedConv>(randn({co, ci, kh, kw}), randn({co}), a, cpu::Epilogue{{cpu::PostOp::Kind::Relu}});
    const Tensor x = randn_channels_last(1, ci, hw, hw);
    c.push_back({name, "", {}, [conv, x] { conv->run(x, Tensor(), true); }});
  };
  auto packed = [&](const std::string& name, int64_t ci, int64_t hw, int64_t co, bool residual_relu) {
    cpu::ConvArgs a;
    a.stride = {1, 1};
    a.padding = {1, 1};
    a.dilation = {1, 1};
    cpu::Epilogue e;
    if (residual_relu) e = {{cpu::PostOp::Kind::Add}, {cpu::PostOp::Kind::Relu}};
    auto conv = std::make_shared<cpu::PackedConv>(randn({co, ci, 3, 3}), randn({co}), a, e);
    const Tensor x = randn_channels_last(1, ci, hw, hw), res = residual_relu ? randn_channels_last(1, co, hw, hw) : Tensor();
    c.push_back({name, "", {}, [conv, x, res] { conv->run(x, res, true); }});
  };
  packed("packed_r18_l1_3x3_64", 64, 56, 64, false);
  packed("packed_r18_l1_3x3_64_res", 64, 56, 64, true);
  packed("packed_r18_l2_3x3_128", 128, 28, 128, false);
  packed("packed_r18_l3_3x3_256", 256, 14, 256, false);
  packed("packed_r18_l4_3x3_512", 512, 7, 512, false);
  packed("packed_r50_l1_3x3_64", 64, 56, 64, false);
  packed("packed_wrn_l1_3x3_128", 128, 56, 128, false);
  packed("packed_wrn_l3_3x3_512_14", 512, 14, 512, false);
  packed("packed_r50_l2_3x3_128_28", 128, 28, 128, false);
  packed("packed_effv2_3x3_24_112", 24, 112, 24, true);
  packed("packed_effv2_3x3_48_56", 48, 56, 48, false);
  packed("packed_densenet_3x3_128_32_56", 128, 56, 32, false);
  packed("packed_densenet_3x3_128_32_14", 128, 14, 32, false);
  packed("packed_squeeze_3x3_16_64_55", 16, 55, 64, false);
  packed("packed_squeeze_3x3_64_256_13", 64, 13, 256, false);
  packed("packed_googlenet_3x3_64_192_56", 64, 56, 192, false);
  packed("packed_inception_3x3_96_128_28", 96, 28, 128, false);
  packed("packed_inception_3x3_16_32_28", 16, 28, 32, false);
  packed("packed_vgg_3x3_64_224", 64, 224, 64, false);
  packed("packed_3x3_40_56_29", 40, 29, 56, false);
  // Inception-v3's 8x8 layers (Im2colConv on AVX2): 448 -> 384 3x3, 384 -> 384 1x3.
  packed("packed_inception_3x3_448_384_8", 448, 8, 384, false);
  layer_kxk("packed_inception_1x3_384_384_8", 384, 8, 384, 1, 3);
  // Its 17x17 layers: 192 -> 192 1x7 and 7x1, and the 35 -> 17 reduction (288 -> 384 3x3 stride 2).
  layer_kxk("packed_inception_1x7_192_192_17", 192, 17, 192, 1, 7);
  layer_kxk("packed_inception_7x1_192_192_17", 192, 17, 192, 7, 1);
  layer_kxk("packed_inception_1x7_128_128_17", 128, 17, 128, 1, 7);
  layer_kxk("packed_inception_1x7_160_192_17", 160, 17, 192, 1, 7);
  layer_kxk("packed_inception_3x3s2_288_384_35", 288, 35, 384, 3, 3, 2, false);
  // ResNet's stride-2 3x3 layers at 28x28 and 14x14 outputs (padding 1).
  layer_kxk("packed_r18_3x3s2_128_256_28", 128, 28, 256, 3, 3, 2);
  layer_kxk("packed_r18_3x3s2_256_512_14", 256, 14, 512, 3, 3, 2);
  layer_kxk("packed_r18_3x3s2_64_128_56", 64, 56, 128, 3, 3, 2);
  // 1x1 and grouped 3x3 layers on channels-last activations: RegNetX-400MF's last stage (7x7, 400
  // channels, 16 a group) and its 14x14 one, ResNeXt-50's 4 and 16 channels a group.
  auto layer = [&](const std::string& name, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t g, bool residual_relu, int64_t s = 1) {
    cpu::ConvArgs a;
    a.stride = {s, s};
    a.padding = {k / 2, k / 2};
    a.dilation = {1, 1};
    a.groups = g;
    cpu::Epilogue e{{cpu::PostOp::Kind::Relu}};
    if (residual_relu) e = {{cpu::PostOp::Kind::Add}, {cpu::PostOp::Kind::Relu}};
    auto conv = std::make_shared<cpu::PackedConv>(randn({co, ci / g, k, k}), randn({co}), a, e);
    const int64_t ohw = (hw + 2 * (k / 2) - k) / s + 1;
    const Tensor x = randn_channels_last(1, ci, hw, hw), res = residual_relu ? randn_channels_last(1, co, ohw, ohw) : Tensor();
    c.push_back({name, "", {}, [conv, x, res] { conv->run(x, res, true); }});
  };
  layer("pw_regnet_400_7", 400, 7, 400, 1, 1, false);
  layer("pw_regnet_400_7_res", 400, 7, 400, 1, 1, true);
  layer("pw_regnet_160_14", 160, 14, 160, 1, 1, false);
  layer("pw_regnet_160_14_res", 160, 14, 160, 1, 1, true);
  layer("pw_regnet_64_28", 64, 28, 64, 1, 1, false);
  layer("pw_regnety_320_14_res", 320, 14, 320, 1, 1, true);
  layer("pw_regnety_784_7_res", 784, 7, 784, 1, 1, true);
  layer("pw_regnet_32_112", 32, 112, 32, 1, 1, false);
  layer("pw_resnext_1024_14_512", 1024, 14, 512, 1, 1, false);
  // ResNeXt-50's first-stage expansion at 56x56, with and without its residual.
  layer("pw_resnext_128_56_256_res", 128, 56, 256, 1, 1, true);
  layer("pw_resnext_128_56_256", 128, 56, 256, 1, 1, false);
  // Downsampling shortcuts, 1x1 of stride 2 (PointwiseConv on the pixels read; JITCTL_POINTWISE=0: oneDNN).
  layer("pws_resnet_256_56_512", 256, 56, 512, 1, 1, false, 2);
  layer("pws_resnext_512_28_1024", 512, 28, 1024, 1, 1, false, 2);
  layer("pws_resnext_1024_14_2048", 1024, 14, 2048, 1, 1, false, 2);
  layer("pws_regnety_320_14_784", 320, 14, 784, 1, 1, false, 2);
  layer("pws_regnety_64_56_144", 64, 56, 144, 1, 1, false, 2);
  layer("pw_mbv2_96_14_576", 96, 14, 576, 1, 1, false);
  layer("pw_mnas_192_7_1152", 192, 7, 1152, 1, 1, false);
  layer("pw_mnas_1152_7_192_res", 1152, 7, 192, 1, 1, true);
  layer("pw_mnas_320_7_1280", 320, 7, 1280, 1, 1, false);
  // MNASNet's and MobileNetV2's first depthwise layer, 3x3 stride 1 on 112x112 (DepthwiseConv on
  // AVX2; JITCTL_DEPTHWISE=0: oneDNN).
  layer("dw_mnas_32_112_3x3", 32, 112, 32, 3, 32, false);
  layer("dw_mnas_1152_7_5x5", 1152, 7, 1152, 5, 1152, false);
  layer("dw_mnas_480_14_5x5", 480, 14, 480, 5, 480, false);
  layer("pw_mnas_80_14_480", 80, 14, 480, 1, 1, false);
  // MobileNetV2's 24-channel projections at 56x56 (AVX2: a whole vector and a half).
  layer("pw_mbv2_96_56_24", 96, 56, 24, 1, 1, false);
  layer("pw_mbv2_144_56_24_res", 144, 56, 24, 1, 1, true);
  layer("pw_mv3_24_56_72", 24, 56, 72, 1, 1, false);
  layer("dw_mv3_72_56_3x3", 72, 56, 72, 3, 72, false);
  layer("pw_mv3_16_112_64", 16, 112, 64, 1, 1, false);
  layer("dw_mv3_64_112_3x3_s2", 64, 112, 64, 3, 64, false, 2);
  layer("grp_regnet_400_7_g25", 400, 7, 400, 3, 25, false);
  layer("grp_regnet_160_14_g10", 160, 14, 160, 3, 10, false);
  layer("grp_resnext_128_56_g32", 128, 56, 128, 3, 32, false);
  layer("grp_resnext_512_14_g32", 512, 14, 512, 3, 32, false);
  layer("grp_rx16_408_14_g17", 408, 14, 408, 3, 17, false);
  layer("grp_rx16_168_28_g7", 168, 28, 168, 3, 7, false);
  layer("grp_rx16_72_56_g3", 72, 56, 72, 3, 3, false);
  layer("grp_rx16_912_7_g38", 912, 7, 912, 3, 38, false);
  layer("grp_resnext_1024_7_g32", 1024, 7, 1024, 3, 32, false);
  layer("grp_rx32_432_14_g9", 432, 14, 432, 3, 9, false);
  // RegNetX-1.6GF's stride-2 grouped layers (24 channels a group), each stage's first.
  layer("grp_rx16_72_112_g3_s2", 72, 112, 72, 3, 3, false, 2);
  layer("grp_rx16_168_56_g7_s2", 168, 56, 168, 3, 7, false, 2);
  layer("grp_rx16_408_28_g17_s2", 408, 28, 408, 3, 17, false, 2);
  layer("grp_rx16_912_14_g38_s2", 912, 14, 912, 3, 38, false, 2);
  // RegNetY-800MF's (16 channels a group): each stage's stride-1 layer, and the first stage's stride-2 one.
  layer("grp_ry8_64_112_g4_s2", 64, 112, 64, 3, 4, false, 2);
  layer("grp_ry8_144_28_g9", 144, 28, 144, 3, 9, false);
  layer("grp_ry8_320_14_g20", 320, 14, 320, 3, 20, false);
  layer("grp_ry8_784_7_g49", 784, 7, 784, 3, 49, false);
  // ResNeXt-50's 8 channels a group at stride 1, and its stride-2 layers (8, 16 and 32 a group).
  layer("grp_resnext_256_28_g32", 256, 28, 256, 3, 32, false);
  layer("grp_resnext_256_56_g32_s2", 256, 56, 256, 3, 32, false, 2);
  layer("grp_resnext_512_28_g32_s2", 512, 28, 512, 3, 32, false, 2);
  layer("grp_resnext_1024_14_g32_s2", 1024, 14, 1024, 3, 32, false, 2);
  // A network's first layer: the model's NCHW input, 3 channels, ReLU, channels-last out; 3x3
  // stride 2 unless given (ResNet's and GoogLeNet's 7x7 stride 2, AlexNet's 11x11 stride 4).
  auto stem = [&](const std::string& name, int64_t co, int64_t hw, int64_t k = 3, int64_t s = 2, int64_t pad = 1) {
    cpu::ConvArgs a;
    a.stride = {s, s};
    a.padding = {pad, pad};
    a.dilation = {1, 1};
    auto conv = std::make_shared<cpu::PackedConv>(randn({co, 3, k, k}), randn({co}), a, cpu::Epilogue{{cpu::PostOp::Kind::Relu}});
    const Tensor x = randn({1, 3, hw, hw});
    c.push_back({name, "", {}, [conv, x] { conv->run(x, Tensor(), true); }});
  };
  // Layers of at most 8 output channels (NarrowConv; JITCTL_NARROW=0: oneDNN): a small CNN's 3 -> 8
  // and 8 -> 8 on 32x32, ReLU.
  layer("narrow_8_32_8", 8, 32, 8, 3, 1, false);
  layer("narrow_8_32_8_res", 8, 32, 8, 3, 1, true);
  layer("narrow_8_112_8", 8, 112, 8, 3, 1, false);
  layer("narrow_3_32_8", 3, 32, 8, 3, 1, false);
  layer("narrow_16_56_4_s2", 16, 56, 4, 3, 1, false, 2);
  {
    // The same 8 -> 8 layer on NarrowConv alone, its output allocated once (PackedConv's own cost
    // is the difference).
    cpu::ConvArgs a;
    a.stride = {1, 1}, a.padding = {1, 1}, a.dilation = {1, 1};
    const Tensor w = randn({8, 8, 3, 3}), x = randn_channels_last(1, 8, 32, 32);
    auto k = std::make_shared<cpu::NarrowConv>(w, randn({8}), cpu::Epilogue{{cpu::PostOp::Kind::Relu}});
    const cpu::ConvParams p = cpu::conv_params(x, w, Tensor(), a, "convolution");
    auto out = std::make_shared<Tensor>(randn_channels_last(1, 8, 32, 32));
    c.push_back({"narrow_only_8_32_8", "", {}, [k, x, p, out] { k->run(x, Tensor(), p, *out); }});
  }
  stem("packed_stem_3x3s2_32_224", 32, 224);
  stem("packed_stem_3x3s2_24_224", 24, 224);
  stem("packed_stem_7x7s2_64_224", 64, 224, 7, 2, 3);
  stem("packed_stem_11x11s4_64_224", 64, 224, 11, 4, 2);
  // Patch embeddings: Swin-T's and ConvNeXt-T's 4x4 stride 4, ViT-B/16's 16x16 stride 16.
  stem("packed_stem_4x4s4_96_224", 96, 224, 4, 4, 0);
  stem("packed_stem_16x16s16_768_224", 768, 224, 16, 16, 0);
  // An expansion and its depthwise layer as the runtime's pair runs them (expand_depthwise.h, else
  // one layer after the other): MobileNetV2's two 56x56 pairs, and MNASNet's 7x7 and 14x14 ones.
  // ReLU6 after each layer.
  auto expand_dw = [&](const std::string& name, int64_t ci, int64_t hw, int64_t e, int64_t s, int64_t k = 3) {
    cpu::ConvArgs one, dw;
    one.stride = {1, 1}, one.padding = {0, 0}, one.dilation = {1, 1};
    dw.stride = {s, s}, dw.padding = {k / 2, k / 2}, dw.dilation = {1, 1}, dw.groups = e;
    const cpu::Epilogue relu6{{cpu::PostOp::Kind::Clamp, 0.f, 6.f}};
    auto expand = std::make_shared<cpu::PackedConv>(randn({e, ci, 1, 1}), randn({e}), one, relu6);
    auto depthwise = std::make_shared<cpu::PackedConv>(randn({e, 1, k, k}), randn({e}), dw, relu6);
    const Tensor x = randn_channels_last(1, ci, hw, hw);
    c.push_back({name, "", {}, [expand, depthwise, x] {
                   if (!cpu::expand_depthwise(*expand, *depthwise, x).defined()) depthwise->run(expand->run(x, Tensor(), true), Tensor(), true);
                 }});
  };
  expand_dw("expand_dw_mbv2_24_56_144", 24, 56, 144, 1);
  expand_dw("expand_dw_mbv2_16_112_96_s2", 16, 112, 96, 2);
  expand_dw("expand_dw_mnas_192_7_1152_k5", 192, 7, 1152, 1, 5);
  expand_dw("expand_dw_mnas_192_7_1152_k3", 192, 7, 1152, 1, 3);
  expand_dw("expand_dw_mnas_80_14_480_k5", 80, 14, 480, 1, 5);
  expand_dw("expand_dw_mnas_96_14_576_k5_s2", 96, 14, 576, 2, 5);
  expand_dw("expand_dw_mnas_40_28_120_k5", 40, 28, 120, 1, 5);
  // MobileNetV3-L's 56x56 pair (903 KB expanded: in bands past a 512 KiB L2) and its 112x112 stride-2 one.
  expand_dw("expand_dw_mv3_24_56_72", 24, 56, 72, 1);
  expand_dw("expand_dw_mv3_16_112_64_s2", 16, 112, 64, 2);
  // ShuffleNetV2-x0.5's pairs (as many expanded channels as input channels): 28x28, 14x14, 7x7.
  expand_dw("expand_dw_shuf_24_28_24", 24, 28, 24, 1);
  expand_dw("expand_dw_shuf_48_14_48", 48, 14, 48, 1);
  expand_dw("expand_dw_shuf_96_7_96", 96, 7, 96, 1);
  // DepthwiseChannels alone, all channels on the calling thread (the depthwise half of the pairs
  // above split by channels); compare with dw_mnas_ (through PackedConv: oneDNN's kernel with
  // JITCTL_DEPTHWISE=0, or for layers that outgrow L2).
  auto dw_channels = [&](const std::string& name, int64_t ch, int64_t hw, int64_t k, int64_t s) {
    cpu::ConvArgs dw;
    dw.stride = {s, s}, dw.padding = {k / 2, k / 2}, dw.dilation = {1, 1}, dw.groups = ch;
    const Tensor w = randn({ch, 1, k, k});
    if (!cpu::DepthwiseChannels::suits(w, dw, cpu::Epilogue{{cpu::PostOp::Kind::Relu}})) return;  // not on this CPU
    auto kernel = std::make_shared<cpu::DepthwiseChannels>(w, randn({ch}), dw, cpu::Epilogue{{cpu::PostOp::Kind::Relu}});
    auto x = std::make_shared<Tensor>(randn_channels_last(1, ch, hw, hw));
    auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kernel->out_h(hw) * kernel->out_w(hw) * ch));
    c.push_back({name, "", {}, [kernel, x, y, ch, hw] { kernel->run(static_cast<const float*>(x->data()), hw, hw, ch, 0, ch, y->data()); }});
  };
  dw_channels("dw_channels_mnas_1152_7_5x5", 1152, 7, 5, 1);
  dw_channels("dw_channels_mnas_480_14_5x5", 480, 14, 5, 1);
  dw_channels("dw_channels_mnas_120_28_5x5", 120, 28, 5, 1);
  dw_channels("dw_channels_mnas_32_112_3x3", 32, 112, 3, 1);
  layer("dw_mnas_32_112_3x3", 32, 112, 32, 3, 32, false);
  // A layer that streams from L3 (PackedConv keeps it on oneDNN) and one that stays in L2 (it runs
  // on DepthwiseChannels): MobileNetV2's 144 channels on 56x56, a 7x7 kernel as ConvNeXt's.
  dw_channels("dw_channels_mbv2_144_56_3x3", 144, 56, 3, 1);
  layer("dw_mbv2_144_56_3x3", 144, 56, 144, 3, 144, false);
  dw_channels("dw_channels_384_14_7x7", 384, 14, 7, 1);
  layer("dw_384_14_7x7", 384, 14, 384, 7, 384, false);
  // Layers past L2 with wide kernels: ConvNeXt-T's first two stages, EfficientNet-B0's and
  // MNASNet's 5x5 layers on 28x28 and 14x14.
  dw_channels("dw_channels_96_56_7x7", 96, 56, 7, 1);
  layer("dw_96_56_7x7", 96, 56, 96, 7, 96, false);
  dw_channels("dw_channels_192_28_7x7", 192, 28, 7, 1);
  layer("dw_192_28_7x7", 192, 28, 192, 7, 192, false);
  dw_channels("dw_channels_240_28_5x5", 240, 28, 5, 1);
  layer("dw_240_28_5x5", 240, 28, 240, 5, 240, false);
  dw_channels("dw_channels_672_14_5x5", 672, 14, 5, 1);
  layer("dw_672_14_5x5", 672, 14, 672, 5, 672, false);
  layer("dw_mnas_120_28_5x5", 120, 28, 120, 5, 120, false);
  // Linears with their weights packed once, as a frozen model's run: ViT-B/16's four (197 tokens).
  auto packed_linear = [&](const std::string& name, int64_t rows, int64_t k, int64_t n) {
    auto lin = std::make_shared<cpu::PackedLinear>(randn({n, k}), randn({n}), cpu::Epilogue{});
    const Tensor x = randn({rows, k});
    // Into one buffer, as the memory plan gives a model's linear its output: a fresh tensor per
    // call added the kernel's page faults for its output to the GEMM's time.
    auto out = std::make_shared<std::vector<float>>(static_cast<size_t>(rows * n));
    c.push_back({name, "", {}, [lin, x, out, rows, k, n] { lin->run_rows(static_cast<const float*>(x.data()), rows, k, out->data(), n); }});
  };
  packed_linear("packed_linear_vit_qkv_197x768_2304", 197, 768, 2304);
  packed_linear("packed_linear_vit_proj_197x768_768", 197, 768, 768);
  packed_linear("packed_linear_vit_fc1_197x768_3072", 197, 768, 3072);
  packed_linear("packed_linear_vit_fc2_197x3072_768", 197, 3072, 768);
  // ConvNeXt-T's second stage (28x28 tokens): 192 outputs are one and a half column groups of 128.
  packed_linear("packed_linear_convnext_784x768_192", 784, 768, 192);
  packed_linear("packed_linear_convnext_784x192_768", 784, 192, 768);
  packed_linear("packed_linear_convnext_3136x384_96", 3136, 384, 96);
  packed_linear("packed_linear_mlp_64x1024_4096", 64, 1024, 4096);
  packed_linear("packed_linear_mlp_64x4096_1024", 64, 4096, 1024);
  packed_linear("packed_linear_enc_128x256_1024", 128, 256, 1024);
  packed_linear("packed_linear_mnas_1x1280_1000", 1, 1280, 1000);
  c.push_back({"linear_mlp_1024_4096", "aten::linear", {randn({64, 1024}), randn({4096, 1024}), randn({4096})}});
  c.push_back({"linear_mlp_4096_1024", "aten::linear", {randn({64, 4096}), randn({1024, 4096}), randn({1024})}});
  c.push_back({"mm_1024", "aten::mm", {randn({1024, 1024}), randn({1024, 1024})}});
  c.push_back({"linear_tr_256x512_1536", "aten::linear", {randn({256, 512}), randn({1536, 512}), randn({1536})}});
  c.push_back({"bmm_attn_64x32x32", "aten::bmm", {randn({64, 32, 64}), randn({64, 64, 32})}});
  // Attention scores' softmax over short rows: Swin-T's first stage (49-wide windows), ViT-B/16's 197 tokens.
  c.push_back({"softmax_swin_64x3x49x49", "aten::softmax.int", {randn({64, 3, 49, 49}), IValue(int64_t{-1}), IValue()}});
  c.push_back({"softmax_vit_12x197x197", "aten::softmax.int", {randn({1, 12, 197, 197}), IValue(int64_t{-1}), IValue()}});
  c.push_back({"batch_norm_64x56", "aten::batch_norm",
               {randn({1, 64, 56, 56}), randn({64}), randn({64}), randn({64}), randn({64}), IValue(false), IValue(0.1), IValue(1e-5), IValue(true)}});
  c.push_back({"max_pool_3x3s2_64x112", "aten::max_pool2d",
               {randn({1, 64, 112, 112}), ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), IValue(false)}});
  c.push_back({"max_pool_nhwc_3x3s2_64x111", "aten::max_pool2d",
               {randn_channels_last(1, 64, 111, 111), ints({3, 3}), ints({2, 2}), ints({0, 0}), ints({1, 1}), IValue(true)}});
  c.push_back({"max_pool_nhwc_3x3s2p1_24x112", "aten::max_pool2d",
               {randn_channels_last(1, 24, 112, 112), ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), IValue(false)}});
  c.push_back({"avg_pool_nhwc_3x3_64x56", "aten::avg_pool2d",
               {randn_channels_last(1, 64, 56, 56), ints({3, 3}), ints({1, 1}), ints({1, 1}), IValue(false), IValue(true), IValue()}});
  c.push_back({"adaptive_avg_512x7", "aten::adaptive_avg_pool2d", {randn({1, 512, 7, 7}), ints({1, 1})}});
  c.push_back({"gelu_64x4096", "aten::gelu", {randn({64, 4096}), IValue(std::string("none"))}});
  {
    // GELU as a linear's epilogue applies it: in place on rows already in cache (no allocation),
    // 32 passes over 8192 values.
    auto buf = std::make_shared<Tensor>(randn({8192}));
    c.push_back({"gelu_in_cache_32x8192", "", {}, [buf] {
                   auto* p = static_cast<float*>(buf->mutable_data());
                   for (int i = 0; i < 32; ++i) cpu::activation_f32(cpu::Activation::GeluErf, p, p, 8192);
                 }});
  }
  c.push_back({"gelu_tanh_64x4096", "aten::gelu", {randn({64, 4096}), IValue(std::string("tanh"))}});
  c.push_back({"tanh_64x4096", "aten::tanh", {randn({64, 4096})}});
  c.push_back({"sigmoid_64x4096", "aten::sigmoid", {randn({64, 4096})}});
  c.push_back({"layer_norm_256x512", "aten::layer_norm",
               {randn({256, 512}), ints({512}), randn({512}), randn({512}), IValue(1e-5), IValue(true)}});
  // ConvNeXt-T's first stage (56x56 tokens of 96 channels) and ViT-B/16's 197 tokens of 768.
  c.push_back({"layer_norm_3136x96", "aten::layer_norm",
               {randn({1, 56, 56, 96}), ints({96}), randn({96}), randn({96}), IValue(1e-6), IValue(true)}});
  c.push_back({"layer_norm_197x768", "aten::layer_norm",
               {randn({1, 197, 768}), ints({768}), randn({768}), randn({768}), IValue(1e-6), IValue(true)}});
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  // KERNEL_BENCH_COLD=1: 64 MiB written before each call, so the weights come from memory, as
  // in a model whose weights outgrow the caches. KERNEL_BENCH_COLD=N (N > 1): N MiB, for weights
  // pushed out of L2 but still in L3, as between a model's layers.
  const char* cold = std::getenv("KERNEL_BENCH_COLD");
  const bool flush = cold != nullptr;
  const long cold_mib = flush && std::atol(cold) > 1 ? std::atol(cold) : 64;
  std::vector<char> flush_buf(flush ? static_cast<size_t>(cold_mib) << 20 : 0);
  for (auto& c : cases()) {
    if (c.name.find(filter) == std::string::npos) continue;
    const KernelFn fn = c.run ? KernelFn() : find_kernel(c.op);
    if (!c.run && !fn) {
      std::printf("%-28s  (no kernel)\n", c.name.c_str());
      continue;
    }
    std::vector<double> ms;
    double total = 0;
    for (int i = 0; i < 200 && (i < 5 || total < 1000.0); ++i) {
      Stack s = c.args;
      // Plain stores, not memset: glibc's memset of this size streams past the caches.
      if (flush)
        for (size_t b = 0; b < flush_buf.size(); b += 64) flush_buf[b] = static_cast<char>(flush_buf[b] + 1);
      const auto t0 = std::chrono::steady_clock::now();
      if (c.run)
        c.run();
      else
        fn(s);
      const auto t1 = std::chrono::steady_clock::now();
      const double d = std::chrono::duration<double, std::milli>(t1 - t0).count();
      if (i > 0) ms.push_back(d);
      total += d;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-28s %9.3f\n", c.name.c_str(), ms.front());
  }
}
