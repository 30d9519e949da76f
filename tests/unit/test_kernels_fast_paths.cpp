// The fast CPU paths against PyTorch (testdata/gen/make_fast_path_goldens.py): oneDNN
// convolutions and linears (packed weights, fused epilogues, channels-last in and out), the
// OpenBLAS products, on shapes that reach their edge cases. The suite runs this file once per
// instruction set (JITCTL_ISA=avx512|avx2|generic, tests/meson.build), so each path is checked on
// a machine that has it.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>
#include <tuple>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/channel_shuffle.h"
#include "kernels/cpu/concat_nhwc.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/expand_depthwise.h"
#include "kernels/cpu/op_bench.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/small_gemm.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/im2col_conv.h"
#include "kernels/cpu/wide_grouped_conv.h"
#include "kernels/registry.h"
#include "lib/archive/torch_save.h"
#include "lib/core/error.h"
#include "tests/support/testdata_path.h"

namespace jitctl {
namespace {

double element(const Tensor& t, int64_t linear) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.sizes()[d];
    off += (linear % s) * t.strides()[d];
    linear /= s;
  }
  if (t.dtype() == DType::Float64) return static_cast<const double*>(t.data())[off];
  return static_cast<const float*>(t.data())[off];
}

void check_close(const Tensor& got, const Tensor& want, const std::string& what) {
  INFO(what);
  REQUIRE(got.defined());
  CHECK(got.dtype() == want.dtype());
  REQUIRE(shape_string(got.sizes()) == shape_string(want.sizes()));
  int bad = 0;
  for (int64_t i = 0; i < want.numel() && bad < 5; ++i) {
    const double g = element(got, i), w = element(want, i);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= 1e-5 + 1e-4 * std::fabs(w);
    if (!ok) {
      ++bad;
      FAIL_CHECK("element " << i << ": got " << g << ", want " << w);
    }
  }
}

IValue load_family(const std::string& family) {
  return load_torch_save((test::testdata_dir() / "kernels_nn" / (family + ".pt")).string());
}

// One case (schema name, inputs, outputs) through the kernel registry, against its first output.
void run_case(const std::vector<IValue>& c, const std::string& what) {
  const KernelFn fn = find_kernel(c[0].to_string());
  const bool registered = fn != nullptr;
  REQUIRE(registered);
  Stack stack(c[1].to_tuple()->items.begin(), c[1].to_tuple()->items.end());
  fn(stack);
  check_close(stack.at(0).to_tensor(), c[2].to_tuple()->items.at(0).to_tensor(), what);
}

void replay(const std::string& family) {
  const IValue cases = load_family(family);
  for (const auto& [key, value] : cases.to_dict()->items) {
    const std::string name = key.to_string();
    CAPTURE(name);
    run_case(value.to_tuple()->items, name);
  }
}

cpu::Epilogue epilogue_of(const IValue& post) {
  using K = cpu::PostOp::Kind;
  cpu::Epilogue e;
  for (const auto& item : post.to_tuple()->items) {
    const auto& t = item.to_tuple()->items;
    const std::string n = t[0].to_string();
    const float a = static_cast<float>(cpu::scalar_double(t[1])), b = static_cast<float>(cpu::scalar_double(t[2]));
    const K k = n == "relu" ? K::Relu : n == "leaky_relu" ? K::LeakyRelu : n == "clamp" ? K::Clamp : n == "silu" ? K::Silu
              : n == "hardswish" ? K::Hardswish : n == "hardsigmoid" ? K::Hardsigmoid : n == "sigmoid" ? K::Sigmoid
              : n == "tanh" ? K::Tanh : n == "gelu" ? K::GeluErf : n == "gelu_tanh" ? K::GeluTanh : K::Add;
    REQUIRE_MESSAGE((k != K::Add || n == "add"), n);
    e.push_back({k, a, b});
  }
  return e;
}

Tensor tensor_or_none(const IValue& v) { return v.is_none() ? Tensor() : v.to_tensor(); }

// A fused case's (x, w, b, stride, padding, dilation, groups, residual) as ConvArgs.
cpu::ConvArgs conv_args_of(const std::vector<IValue>& in) {
  cpu::ConvArgs a;
  a.stride = cpu::int_list(in[3]);
  a.padding = cpu::int_list(in[4]);
  a.dilation = cpu::int_list(in[5]);
  a.groups = in[6].to_int();
  return a;
}

// A channels-last copy of a 4-D tensor (same values, NHWC strides).
Tensor channels_last_copy(const Tensor& t) {
  Tensor out = Tensor::view_of(Storage::allocate(t.nbytes()), t.dtype(), 0, t.sizes(), cpu::channels_last_strides(t.sizes()), "test");
  cpu::copy_strided(t, out);
  return out;
}

// A copy of `t` (4-D) as channels 3 .. 3+C of a channels-last tensor of C+5 channels, the rest
// NaN: a channel slice, as a chunk of a channels-last activation along channels is.
Tensor channels_last_slice_copy(const Tensor& t) {
  const auto& s = t.sizes();
  const std::vector<int64_t> wide{s[0], s[1] + 5, s[2], s[3]};
  Tensor base = Tensor::view_of(Storage::allocate(static_cast<size_t>(s[0] * (s[1] + 5) * s[2] * s[3]) * sizeof(float)), DType::Float32, 0,
                                wide, cpu::channels_last_strides(wide), "test");
  float* b = static_cast<float*>(base.mutable_data());
  for (int64_t i = 0; i < base.numel(); ++i) b[i] = std::nanf("");
  Tensor slice = cpu::make_view(base, s, base.strides(), 3);
  cpu::copy_strided(t, slice);
  return slice;
}

// The same for a 5-D tensor (NDHWC strides, torch.channels_last_3d).
Tensor channels_last_3d_copy(const Tensor& t) {
  Tensor out = Tensor::view_of(Storage::allocate(t.nbytes()), t.dtype(), 0, t.sizes(), cpu::channels_last_3d_strides(t.sizes()), "test");
  cpu::copy_strided(t, out);
  return out;
}

}  // namespace

TEST_CASE("cpu features: the ISA in use is one the machine has, and its numbers agree") {
  const auto& f = cpu::cpu_features();
  CHECK(f.isa <= f.detected);
  if (const char* env = std::getenv("JITCTL_ISA")) {
    const std::string want = env;
    if ((want == "avx2" && f.detected >= cpu::Isa::Avx2) || want == "generic" || (want == "avx512" && f.detected == cpu::Isa::Avx512))
      CHECK(std::string(cpu::isa_name(f.isa)) == want);
  }
  CHECK(f.fp32_lanes == (f.isa == cpu::Isa::Avx512 ? 16 : f.isa == cpu::Isa::Avx2 ? 8 : 4));
  if (f.isa != cpu::Isa::Generic) CHECK(f.flops_per_cycle == 2 * f.fma_units * f.fp32_lanes);
  CHECK(f.cores >= 1);
  const double ghz = cpu::measured_ghz();
  CHECK(ghz > 0.3);
  CHECK(ghz < 10.0);
  CHECK(cpu::peak_gflops(1) == doctest::Approx(f.flops_per_cycle * ghz));
}

TEST_CASE("fast paths: convolutions on odd shapes (1-D, 2-D, 3-D) match PyTorch") { replay("conv_fast"); }

TEST_CASE("fast paths: matrix products on odd shapes and strides match PyTorch") { replay("linear_fast"); }

TEST_CASE("fast paths: pooling of channels-last inputs, and 3-D pooling, matches PyTorch") {
  replay("pooling_fast");
  // The global averages summed in runs of pixels over the threads: one to three runs an image.
  int split_cases = 0;
  const int before = omp_get_max_threads();
  const IValue cases = load_family("pooling_fast");
  for (const auto& [key, value] : cases.to_dict()->items) {
    const std::string name = key.to_string();
    if (name.find("_split") == std::string::npos) continue;
    ++split_cases;
    for (int t = 1; t <= 3; ++t) {
      omp_set_num_threads(t);
      run_case(value.to_tuple()->items, name + " on " + std::to_string(t) + " threads");
    }
  }
  omp_set_num_threads(before);
  CHECK(split_cases == 2);
}

TEST_CASE("fast paths: vectorized activations and channels-last elementwise ops match PyTorch") { replay("elementwise_fast"); }

TEST_CASE("fast paths: softmax over short and long rows, with NaN and infinities, matches PyTorch") { replay("softmax_fast"); }

TEST_CASE("fast paths: elementwise results keep a channels-last input's layout, as PyTorch's") {
  const Tensor x = channels_last_copy(Tensor::empty(DType::Float32, {2, 5, 3, 4}));
  Stack s{IValue(x)};
  find_kernel("aten::relu")(s);
  CHECK(cpu::is_channels_last(s[0].to_tensor()));
  CHECK_FALSE(s[0].to_tensor().is_contiguous());
  Stack t{IValue(x), IValue(Tensor::empty(DType::Float32, {2, 5, 3, 4})), IValue(int64_t{1})};
  find_kernel("aten::add.Tensor")(t);
  CHECK(cpu::is_channels_last(t[0].to_tensor()));  // the first operand decides
  Stack u{IValue(Tensor::empty(DType::Float32, {2, 5, 3, 4})), IValue(x), IValue(int64_t{1})};
  find_kernel("aten::add.Tensor")(u);
  CHECK(u[0].to_tensor().is_contiguous());
}

TEST_CASE("fast paths: the channels-last concatenation matches torch.cat") {
  const IValue cases = load_family("elementwise_fast");
  for (const std::string name : {"cat_cl_parts", "cat_cl_wide_parts"}) {
    CAPTURE(name);
    const IValue* found = cases.to_dict()->find(IValue(name));
    REQUIRE(found);
    const auto& c = found->to_tuple()->items;
    std::vector<Tensor> parts;
    for (const IValue& t : c[1].to_tuple()->items.at(0).to_list()->items) parts.push_back(t.to_tensor());
    REQUIRE(cpu::concat_channels_last_ok(parts));
    const Tensor got = cpu::concat_channels_last(parts);
    CHECK(cpu::is_channels_last(got));
    check_close(got, c[2].to_tuple()->items.at(0).to_tensor(), name);
    // The parts as channel slices of wider channels-last tensors (ShuffleNet's chunks).
    std::vector<Tensor> slices;
    for (const Tensor& t : parts) slices.push_back(channels_last_slice_copy(t));
    REQUIRE(cpu::concat_channels_last_ok(slices));
    check_close(cpu::concat_channels_last(slices), c[2].to_tuple()->items.at(0).to_tensor(), name + " (channel slices)");
  }
}

// ShuffleNet's shuffle, view [N, g, C/g, H, W] -> transpose(1, 2) -> contiguous -> view [N, C, H, W],
// as the aten kernels compute it on an NCHW tensor (each checked against PyTorch elsewhere).
static Tensor shuffled_by_ops(const Tensor& x, int64_t g) {
  const auto& s = x.sizes();
  auto ints = [](std::vector<int64_t> v) {
    auto l = std::make_shared<ListData>();
    for (int64_t i : v) l->items.emplace_back(i);
    return IValue(std::move(l));
  };
  Stack st{IValue(cpu::contiguous(x)), ints({s[0], g, s[1] / g, s[2], s[3]})};
  find_kernel("aten::view")(st);
  st = {st[0], IValue(int64_t{1}), IValue(int64_t{2})};
  find_kernel("aten::transpose.int")(st);
  st = {st[0], IValue(int64_t{0})};
  find_kernel("aten::contiguous")(st);
  st = {st[0], ints({s[0], s[1], s[2], s[3]})};
  find_kernel("aten::view")(st);
  return st[0].to_tensor();
}

TEST_CASE("fast paths: the channels-last channel shuffle gives the shuffle's values, channels-last") {
  uint32_t seed = 5;
  auto filled = [&](std::vector<int64_t> sizes) {
    Tensor t = Tensor::empty(DType::Float32, sizes);
    float* p = static_cast<float*>(t.mutable_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    return t;
  };
  // Two groups (the interleave) on lengths off the vector width, three and four groups, a batch.
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{1, 48, 5, 7}, 2}, {{2, 38, 3, 3}, 2}, {{1, 2, 4, 4}, 2}, {{2, 36, 4, 5}, 3}, {{1, 64, 2, 3}, 4}, {{1, 6, 1, 1}, 1}};
  for (const auto& [sizes, g] : cases) {
    CAPTURE(shape_string(sizes));
    CAPTURE(g);
    const Tensor x = filled(sizes), want = shuffled_by_ops(x, g);
    for (const Tensor& in : {channels_last_copy(x), channels_last_slice_copy(x)}) {
      REQUIRE(cpu::channel_shuffle_channels_last_ok(in, g));
      const Tensor got = cpu::channel_shuffle_channels_last(in, g);
      CHECK(cpu::is_channels_last(got));
      check_close(got, want, "shuffle");
    }
  }
  // The runtime takes the views for a shuffle only when their sizes say so.
  CHECK(cpu::channel_shuffle_groups({2, 48, 7, 5}, {2, 2, 24, 7, 5}, {2, 48, 7, 5}) == 2);
  CHECK(cpu::channel_shuffle_groups({2, 48, 7, 5}, {2, 3, 16, 7, 5}, {2, -1, 7, 5}) == 3);
  CHECK(cpu::channel_shuffle_groups({2, 48, 8, 5}, {2, 48, 4, 2, 5}, {2, 48, 8, 5}) == 0);  // rows into channels
  CHECK(cpu::channel_shuffle_groups({2, 48, 7, 5}, {2, 2, 24, 7, 5}, {2, 24, 14, 5}) == 0);
  CHECK(cpu::channel_shuffle_groups({2, 48, 7, 5}, {2, 2, 24, 7, 5}, {-1, 48, 7, 5}) == 0);
  CHECK(cpu::channel_shuffle_groups({2, 48, 7, 5}, {1, 4, 24, 7, 5}, {2, 48, 7, 5}) == 0);
  CHECK_FALSE(cpu::channel_shuffle_channels_last_ok(channels_last_copy(filled({1, 10, 2, 2})), 4));  // 10 channels, 4 groups
  CHECK_FALSE(cpu::channel_shuffle_channels_last_ok(filled({1, 8, 2, 2}), 2));                       // NCHW
}

TEST_CASE("fast paths: inference batch norm keeps a channels-last input channels-last, as PyTorch's") {
  const Tensor x = channels_last_copy(Tensor::empty(DType::Float32, {2, 5, 3, 4}));
  const Tensor ones = Tensor::empty(DType::Float32, {5});
  Stack s{IValue(x), IValue(), IValue(), IValue(ones), IValue(ones), IValue(false), IValue(0.1), IValue(1e-5), IValue(true)};
  find_kernel("aten::batch_norm")(s);
  CHECK(cpu::is_channels_last(s[0].to_tensor()));
  CHECK_FALSE(s[0].to_tensor().is_contiguous());
}

// JITCTL_WINOGRAD=0 keeps convolutions off oneDNN's Winograd kernel, JITCTL_POINTWISE=0 1x1
// convolutions on oneDNN (packed_conv.cpp).
bool switched_on(const char* name) {
  const char* e = std::getenv(name);
  return !(e && std::string(e) == "0");
}
bool winograd_allowed() { return switched_on("JITCTL_WINOGRAD"); }
bool pointwise_allowed() { return switched_on("JITCTL_POINTWISE"); }
bool grouped_allowed() { return switched_on("JITCTL_GROUPED"); }
bool im2col_allowed() { return switched_on("JITCTL_IM2COL"); }
bool narrow_allowed() { return switched_on("JITCTL_NARROW"); }
bool depthwise_allowed() { return switched_on("JITCTL_DEPTHWISE"); }

TEST_CASE("fast paths: fused convolution and linear epilogues match PyTorch's unfused ops") {
  const IValue cases = load_family("fused");
  int winograd_cases = 0, pointwise_cases = 0, grouped_cases = 0, wide_cases = 0, conv3d_cases = 0, frame_cases = 0, split_cases = 0,
      narrow_cases = 0, depthwise_channels_cases = 0, panel_cases = 0, im2col_cases = 0;
  for (const auto& [key, value] : cases.to_dict()->items) {
    const std::string name = key.to_string();
    CAPTURE(name);
    const auto& c = value.to_tuple()->items;
    const auto& in = c[1].to_tuple()->items;
    const cpu::Epilogue e = epilogue_of(c[2]);
    const Tensor want = c[3].to_tensor();
    if (c[0].to_string() == "conv2d") {
      const cpu::ConvArgs a = conv_args_of(in);
      const Tensor x = in[0].to_tensor(), res = tensor_or_none(in[7]);
      REQUIRE(cpu::PackedConv::supports(in[1].to_tensor(), tensor_or_none(in[2]), a));
      // oneDNN's fused ReLU/clamp map NaN to 0 (PyTorch keeps it): only DepthwiseConv,
      // PointwiseConv and GroupedConv, on channels-last input, are held to the NaN ("nan" cases).
      const bool nan_case = name.find("nan") != std::string::npos;
      cpu::PackedConv conv(in[1].to_tensor(), tensor_or_none(in[2]), a, e);
      const Tensor x_cl = channels_last_copy(x), res_cl = res.defined() ? channels_last_copy(res) : res;
      const bool pointwise = pointwise_allowed() && conv.runs_pointwise(x_cl, res_cl);
      const bool grouped = grouped_allowed() && cpu::GroupedConv::suits(in[1].to_tensor(), a, e) &&
                           cpu::GroupedConv(in[1].to_tensor(), tensor_or_none(in[2]), a, e)
                               .takes(x_cl, res_cl, cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d"));
      const bool wide = grouped_allowed() && cpu::WideGroupedConv::suits(in[1].to_tensor(), a, e) &&
                        cpu::WideGroupedConv(in[1].to_tensor(), tensor_or_none(in[2]), a, e)
                            .takes(x_cl, res_cl, cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d"));
      const bool narrow = narrow_allowed() && cpu::NarrowConv::suits(in[1].to_tensor(), a, e) &&
                          cpu::NarrowConv(in[1].to_tensor(), tensor_or_none(in[2]), e)
                              .takes(x_cl, res_cl, cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d"));
      // The "nc" cases exist for NarrowConv (AVX-512 and AVX2): they must reach it. A contiguous
      // input of up to 4 channels (a network's RGB image) is interleaved for it; wider ones go to
      // oneDNN (which makes the NaN 0).
      if (name.rfind("nc", 0) == 0 && cpu::cpu_features().isa != cpu::Isa::Generic && narrow_allowed()) {
        CHECK(narrow);
        ++narrow_cases;
        if (!nan_case) check_close(conv.run(x, res_cl, true), want, name + " (contiguous input, channels-last output)");
      }
      // The "gw" cases exist for WideGroupedConv (AVX-512 only): they must reach it.
      if (name.rfind("gw", 0) == 0 && cpu::cpu_features().isa == cpu::Isa::Avx512 && grouped_allowed()) {
        CHECK(wide);
        ++wide_cases;
      }
      // The "gp" cases exist for WideGroupedConv's AVX2 panel kernel (grouped_panels_avx2.h): on
      // AVX2 they must reach it.
      if (name.rfind("gp", 0) == 0 && cpu::cpu_features().isa == cpu::Isa::Avx2 && grouped_allowed()) {
        CHECK(wide);
        ++panel_cases;
      }
      // The "ic" cases exist for Im2colConv (AVX2; stride 2, or a 1xK kernel, past 64 output
      // pixels): they must reach it.
      if (name.rfind("ic", 0) == 0 && cpu::Avx2PackedWeight::preferred() && im2col_allowed()) {
        CHECK(cpu::Im2colConv::suits(in[1].to_tensor(), a));
        CHECK(cpu::Im2colConv(in[1].to_tensor(), tensor_or_none(in[2]), e)
                  .takes(x_cl, res_cl, cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d")));
        ++im2col_cases;
      }
      // The "ics" cases (a network's first layer, a stride over 2) take it at any size, from the
      // model's own NCHW input too (interleaved first).
      if (name.rfind("ics", 0) == 0 && cpu::Avx2PackedWeight::preferred() && im2col_allowed()) {
        CHECK(cpu::Im2colConv::takes_params(cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d")));
        check_close(conv.run(x, res_cl, true), want, name + " (contiguous input, channels-last output)");
      }
      // The "dwp" cases exist for DepthwiseConv writing its output over its input (AVX2): an input
      // nothing else holds must take that path, on one to three threads (row chunks meeting inside
      // an image and at an image's edge); one held elsewhere too is left as it was.
      if (name.rfind("dwp", 0) == 0 && cpu::cpu_features().isa == cpu::Isa::Avx2) {
        REQUIRE(cpu::DepthwiseConv::suits(in[1].to_tensor(), a, e));
        CHECK(cpu::DepthwiseConv(in[1].to_tensor(), tensor_or_none(in[2]), e)
                  .takes_in_place(x_cl, cpu::conv_params(x, in[1].to_tensor(), tensor_or_none(in[2]), a, "conv2d")));
        const int before = omp_get_max_threads();
        for (int t = 1; t <= 3; ++t) {
          omp_set_num_threads(t);
          const Tensor alone = channels_last_copy(x);
          const Tensor out = conv.run(alone, Tensor(), true);
          CHECK(out.data() == alone.data());
          check_close(out, want, name + " (in place, " + std::to_string(t) + " threads)");
          const Tensor held = channels_last_copy(x), other_handle = held;
          const Tensor copy_out = conv.run(held, Tensor(), true);
          CHECK(copy_out.data() != held.data());
          check_close(copy_out, want, name + " (input held elsewhere, " + std::to_string(t) + " threads)");
          check_close(other_handle, x, name + " (the held input unchanged)");
        }
        omp_set_num_threads(before);
      }
      // The "gc" cases exist for GroupedConv (AVX-512 and AVX2): they must reach it.
      if (name.rfind("gc", 0) == 0 && cpu::cpu_features().isa != cpu::Isa::Generic && grouped_allowed()) {
        CHECK(grouped);
        ++grouped_cases;
      }
      // The "dc" cases exist for DepthwiseChannels (AVX-512 and AVX2): those whose epilogue it
      // takes must reach it.
      const bool depthwise_channels = conv.runs_depthwise_channels(x_cl);
      if (name.rfind("dc", 0) == 0 && cpu::cpu_features().isa != cpu::Isa::Generic && depthwise_allowed() &&
          cpu::DepthwiseChannels::suits(in[1].to_tensor(), a, e)) {
        CHECK(depthwise_channels);
        ++depthwise_channels_cases;
      }
      // The "pw" cases ("pws" strided, "pwb" in blocks of input channels on AVX2) exist for
      // PointwiseConv: on AVX-512 they must reach it through PackedConv. On AVX2 PackedConv
      // sends it only layers of few pixels (prefers()), so the stride-1 ones run on it directly.
      if (name.rfind("pw", 0) == 0 && cpu::cpu_features().isa == cpu::Isa::Avx512 && pointwise_allowed()) {
        CHECK(pointwise);
        ++pointwise_cases;
      }
      if (name.rfind("pw", 0) == 0 && name.rfind("pws", 0) != 0 && cpu::cpu_features().isa == cpu::Isa::Avx2) {
        REQUIRE(cpu::PointwiseConv::suits(in[1].to_tensor(), a, e));
        const cpu::PointwiseConv direct(in[1].to_tensor(), tensor_or_none(in[2]), e);
        const auto& xs = x.sizes();
        CHECK(pointwise == direct.prefers(xs[0] * xs[2] * xs[3]));
        Tensor out = cpu::new_output_strided(DType::Float32, want.sizes(), cpu::channels_last_strides(want.sizes()));
        direct.run(x_cl, res_cl, out);
        check_close(out, want, name + " (PointwiseConv, AVX2)");
        ++pointwise_cases;
      }
      // Contiguous in and out, then channels-last in, residual and out: the layouts the runtime mixes.
      if (!nan_case) {
        const Tensor plain = conv.run(x, res, false);
        CHECK(plain.is_contiguous());
        check_close(plain, want, name + " (NCHW)");
      } else if (!pointwise && !grouped && !wide && !narrow && !depthwise_channels && (!cpu::DepthwiseConv::suits(in[1].to_tensor(), a, e) ||
                                !cpu::DepthwiseConv(in[1].to_tensor(), tensor_or_none(in[2]), e).takes(channels_last_copy(x)))) {
        continue;
      }
      const Tensor cl = conv.run(channels_last_copy(x), res.defined() ? channels_last_copy(res) : res, true);
      CHECK(cpu::is_channels_last(cl));
      check_close(cl, want, name + " (channels-last)");
      // A channel slice of a wider channels-last tensor (its pixels further apart, NaN between):
      // PointwiseConv reads it in place, the other paths make its rows dense first.
      const Tensor slice = channels_last_slice_copy(x);
      REQUIRE(cpu::channels_last_pixel_stride(slice) == x.sizes()[1] + 5);
      if (pointwise) CHECK(conv.runs_pointwise(slice, res_cl));
      check_close(conv.run(slice, res.defined() ? channels_last_copy(res) : res, true), want, name + " (channel slice)");
      // The residual above was a temporary (its bytes may become the output); one held elsewhere
      // too is copied, and left as it was.
      if (res.defined() && !nan_case) {
        const Tensor shared = channels_last_copy(res), other_handle = shared;
        check_close(conv.run(channels_last_copy(x), shared, true), want, name + " (channels-last, shared residual)");
        check_close(other_handle, res, name + " (the shared residual unchanged)");
      }
      // The "wino" cases exist for the Winograd kernels. WinogradConv (AVX2 and AVX-512) takes a
      // channels-last input with any epilogue. A contiguous one goes to oneDNN, whose Winograd
      // kernel (AVX-512 only) must take the post-ops it fuses (none, ReLU, residual + ReLU) and
      // SiLU, applied after it.
      // The "wsplit" cases exist for WinogradConv's split over the threads by output channels
      // (weights 8x its transformed inputs): they must reach it, and agree on two threads.
      if (name.rfind("wsplit", 0) == 0 && cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) {
        CHECK(conv.runs_winograd(x_cl, res_cl));
        const int before = omp_get_max_threads();
        omp_set_num_threads(2);
        // The residual held elsewhere too, so that it is copied into the output, channels split.
        const Tensor shared = res.defined() ? channels_last_copy(res) : res, other_handle = shared;
        const Tensor two = conv.run(channels_last_copy(x), shared, true);
        omp_set_num_threads(before);
        check_close(two, want, name + " (channels-last, 2 threads)");
        ++split_cases;
      }
      if (name.rfind("wino", 0) == 0 && cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) {
        CHECK(conv.runs_winograd(x_cl, res_cl));
        const bool fusable = name.ends_with("_none") || name.ends_with("_relu") || name.ends_with("_silu");
        if (fusable && cpu::cpu_features().isa == cpu::Isa::Avx512) CHECK(conv.runs_winograd(x, res));
        ++winograd_cases;
      }
    } else if (c[0].to_string() == "conv3d") {
      // Contiguous in and out, then channels-last-3d in, residual and out, as the runtime keeps them.
      const cpu::ConvArgs a = conv_args_of(in);
      const Tensor x = in[0].to_tensor(), res = tensor_or_none(in[7]);
      REQUIRE(cpu::PackedConv::supports(in[1].to_tensor(), tensor_or_none(in[2]), a));
      cpu::PackedConv conv(in[1].to_tensor(), tensor_or_none(in[2]), a, e);
      const Tensor plain = conv.run(x, res, false);
      CHECK(plain.is_contiguous());
      check_close(plain, want, name + " (NCDHW)");
      // The residual a temporary (its bytes may become the output), then one held elsewhere too
      // (copied, and left as it was).
      const Tensor cl = conv.run(channels_last_3d_copy(x), res.defined() ? channels_last_3d_copy(res) : res, true);
      CHECK(cl.strides() == cpu::channels_last_3d_strides(cl.sizes()));
      check_close(cl, want, name + " (channels-last-3d)");
      // The "vfr" cases (1x3x3) and "vid0" ones (3x3x3, stride 1) exist for WinogradConv (AVX2 and
      // AVX-512): they must reach it.
      const bool for_winograd = name.rfind("vfr", 0) == 0 || name.rfind("vid0", 0) == 0;
      if (for_winograd && cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) {
        CHECK(conv.runs_winograd(channels_last_3d_copy(x), res.defined() ? channels_last_3d_copy(res) : res));
        ++frame_cases;
      }
      if (res.defined()) {
        const Tensor shared = channels_last_3d_copy(res), other_handle = shared;
        check_close(conv.run(channels_last_3d_copy(x), shared, true), want, name + " (channels-last-3d, shared residual)");
        check_close(other_handle, res, name + " (the shared residual unchanged)");
      }
      ++conv3d_cases;
    } else {
      const Tensor x = in[0].to_tensor(), res = tensor_or_none(in[3]);
      REQUIRE(cpu::PackedLinear::supports(in[1].to_tensor(), tensor_or_none(in[2])));
      cpu::PackedLinear lin(in[1].to_tensor(), tensor_or_none(in[2]), e);
      check_close(lin.run(x, res), want, name);
    }
  }
  if (cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) CHECK(winograd_cases >= 10);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) CHECK(split_cases >= 6);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && pointwise_allowed()) CHECK(pointwise_cases >= 14);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && grouped_allowed()) CHECK(grouped_cases >= 10);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && narrow_allowed()) CHECK(narrow_cases >= 18);
  if (cpu::cpu_features().isa == cpu::Isa::Avx512 && grouped_allowed()) CHECK(wide_cases >= 7);
  if (cpu::cpu_features().isa == cpu::Isa::Avx2 && grouped_allowed()) CHECK(panel_cases >= 15);
  if (cpu::Avx2PackedWeight::preferred() && im2col_allowed()) CHECK(im2col_cases >= 9);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && depthwise_allowed()) CHECK(depthwise_channels_cases >= 16);
  CHECK(conv3d_cases >= 16);
  if (cpu::cpu_features().isa != cpu::Isa::Generic && winograd_allowed()) CHECK(frame_cases >= 12);
}

TEST_CASE("fast paths: a packed linear without epilogue is aten::linear, and checks shapes as PyTorch") {
  const IValue cases = load_family("linear_fast");
  for (const auto& [key, value] : cases.to_dict()->items) {
    const auto& c = value.to_tuple()->items;
    if (c[0].to_string() != "aten::linear") continue;
    const auto& in = c[1].to_tuple()->items;
    cpu::PackedLinear lin(in[1].to_tensor(), tensor_or_none(in[2]), {});
    check_close(lin.run(in[0].to_tensor()), c[2].to_tuple()->items.at(0).to_tensor(), key.to_string());
    Tensor wrong = Tensor::empty(DType::Float32, {3, lin.in_features() + 1});
    CHECK_THROWS_AS(lin.run(wrong), InvalidInput);
  }
}

TEST_CASE("fast paths: small_sgemm matches PyTorch's mm on odd sizes, strided rows and transposed views") {
  // gemm() sends products to small_sgemm only on one thread or inside a parallel region; here it
  // is called directly, with beta 0 and with beta 1 over half the answer.
  const IValue cases = load_family("linear_fast");
  int checked = 0;
  for (const auto& [key, value] : cases.to_dict()->items) {
    const auto& c = value.to_tuple()->items;
    if (c[0].to_string() != "aten::mm") continue;
    const auto& in = c[1].to_tuple()->items;
    const Tensor a = in[0].to_tensor(), b = in[1].to_tensor(), want = c[2].to_tuple()->items.at(0).to_tensor();
    if (a.dtype() != DType::Float32) continue;
    const cpu::MatRef<float> ma = cpu::mat_of<float>(a), mb = cpu::mat_of<float>(b);
    if (!cpu::small_sgemm_takes(ma, mb)) continue;
    const int64_t m = a.sizes()[0], n = b.sizes()[1];
    Tensor got = Tensor::empty(DType::Float32, {m, n});
    auto* g = static_cast<float*>(got.mutable_data());
    std::fill(g, g + m * n, std::nanf(""));
    cpu::small_sgemm(ma, mb, g, n, 1.0f, 0.0f);
    check_close(got, want, key.to_string() + " (beta 0)");
    const Tensor w = cpu::contiguous(want);
    for (int64_t i = 0; i < m * n; ++i) g[i] = 0.5f * static_cast<const float*>(w.data())[i];
    cpu::small_sgemm(ma, mb, g, n, 0.5f, 1.0f);
    check_close(got, want, key.to_string() + " (beta 1)");
    ++checked;
  }
  if (cpu::cpu_features().isa != cpu::Isa::Generic && switched_on("JITCTL_SMALL_GEMM")) CHECK(checked >= 3);
}

TEST_CASE("fast paths: softmax_f32 (masked rows) matches PyTorch") {
  const IValue cases = load_family("softmax_rows");
  const auto& c = cases.to_dict()->items.begin()->second.to_tuple()->items;
  Tensor x = cpu::contiguous(c[0].to_tensor());
  Tensor got = Tensor::view_of(Storage::allocate(x.nbytes()), DType::Float32, 0, x.sizes(), x.strides(), "test");
  std::memcpy(got.mutable_data(), x.data(), x.nbytes());
  const int64_t n = x.sizes()[1];
  for (int64_t r = 0; r < x.sizes()[0]; ++r) cpu::softmax_f32(static_cast<float*>(got.mutable_data()) + r * n, n);
  check_close(got, c[1].to_tensor(), "softmax rows");
}

TEST_CASE("fast paths: a packed linear on raw rows with gaps between them, residual in the output") {
  const IValue cases = load_family("fused");
  int checked_cases = 0, in_place_cases = 0;
  for (const auto& [key, value] : cases.to_dict()->items) {
    const auto& c = value.to_tuple()->items;
    if (c[0].to_string() != "linear") continue;
    const auto& in = c[1].to_tuple()->items;
    const Tensor x = cpu::contiguous(in[0].to_tensor()), res = tensor_or_none(in[3]), want = c[3].to_tensor();
    cpu::PackedLinear lin(in[1].to_tensor(), tensor_or_none(in[2]), epilogue_of(c[2]));
    const int64_t k = lin.in_features(), n = lin.out_features(), rows = x.numel() / k, ld = k + 3, ldo = n + 5;
    std::vector<float> xin(static_cast<size_t>(rows * ld), 1e30f), out(static_cast<size_t>(rows * ldo), 0.f);
    for (int64_t r = 0; r < rows; ++r) std::memcpy(&xin[r * ld], static_cast<const float*>(x.data()) + r * k, k * sizeof(float));
    if (res.defined()) {
      const Tensor rc = cpu::contiguous(cpu::expand_to(res, want.sizes()));
      for (int64_t r = 0; r < rows; ++r) std::memcpy(&out[r * ldo], static_cast<const float*>(rc.data()) + r * n, n * sizeof(float));
    }
    lin.run_rows(xin.data(), rows, ld, out.data(), ldo);
    Tensor got = Tensor::view_of(Storage::allocate(out.size() * sizeof(float)), DType::Float32, 0, want.sizes(),
                                 want.dim() == 3   ? std::vector<int64_t>{want.sizes()[1] * ldo, ldo, 1}
                                 : want.dim() == 2 ? std::vector<int64_t>{ldo, 1}
                                                   : std::vector<int64_t>{1},
                                 "test");
    std::memcpy(got.mutable_data(), out.data(), out.size() * sizeof(float));
    check_close(got, want, key.to_string() + " (raw rows)");
    ++checked_cases;
    // Through run(): a residual the caller alone holds becomes the output (the product adds into
    // its bytes); one held elsewhere too is copied, and left as it was.
    if (res.defined() && res.sizes() == want.sizes()) {
      const auto fresh_copy = [](const Tensor& t) {
        Tensor c = Tensor::empty(DType::Float32, t.sizes());
        cpu::copy_strided(t, c);
        return c;
      };
      const Tensor temporary = fresh_copy(res);
      REQUIRE(temporary.sole_owner());
      const void* bytes = temporary.data();
      const Tensor in_place = lin.run(x, temporary);
      check_close(in_place, want, key.to_string() + " (residual taken in place)");
      CHECK(in_place.data() == bytes);
      const Tensor shared = fresh_copy(res), other_handle = shared;
      check_close(lin.run(x, shared), want, key.to_string() + " (shared residual)");
      check_close(other_handle, res, key.to_string() + " (the shared residual unchanged)");
      ++in_place_cases;
    }
  }
  CHECK(checked_cases > 5);
  CHECK(in_place_cases >= 2);
}

TEST_CASE("fast paths: a residual of the wrong shape is refused, not read out of bounds") {
  cpu::ConvArgs a;
  a.stride = {1, 1};
  a.padding = {1, 1};
  a.dilation = {1, 1};
  cpu::PackedConv conv(Tensor::empty(DType::Float32, {8, 4, 3, 3}), Tensor(), a, {{cpu::PostOp::Kind::Add}});
  const Tensor x = Tensor::empty(DType::Float32, {1, 4, 5, 5});
  CHECK_THROWS_AS(conv.run(x, Tensor::empty(DType::Float32, {1, 8, 5, 4}), true), InvalidInput);
  CHECK_THROWS_AS(conv.run(x, Tensor(), true), InvalidInput);
  CHECK_THROWS_AS(conv.run(Tensor::empty(DType::Float32, {1, 3, 5, 5}), Tensor::empty(DType::Float32, {1, 8, 5, 5}), true), InvalidInput);
}

// Values in [-1, 1), different in every element and reproducible.
Tensor filled(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, uint32_t seed) {
  Tensor t = cpu::new_output_strided(DType::Float32, sizes, strides);
  auto* d = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    d[i] = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

TEST_CASE("fast paths: an expansion and its depthwise layer run band by band, as the two layers run apart") {
  // PyTorch's values for such pairs: testdata/models_fast/expand_blocks_frozen (the run goldens).
  // This checks that the band path is the one that ran there (AVX2 and AVX-512), and that its bands
  // (two images, or one on two threads with as many bands each, bands of unequal rows, rows of
  // zeros above and below) give the layers' own results.
  cpu::ConvArgs one;
  one.stride = {1, 1};
  one.padding = {0, 0};
  one.dilation = {1, 1};
  for (const auto& [k, s, threads, batch] :
       std::vector<std::tuple<int64_t, int64_t, int, int64_t>>{{3, 2, 1, 2}, {3, 1, 2, 2}, {5, 2, 2, 2}, {5, 1, 1, 2}, {3, 1, 2, 1}, {3, 2, 2, 1}}) {
    INFO("kernel " << k << ", stride " << s << ", threads " << threads << ", batch " << batch);
    cpu::ConvArgs dw;
    dw.stride = {s, s};
    dw.padding = {k / 2, k / 2};
    dw.dilation = {1, 1};
    dw.groups = 96;
    const cpu::PackedConv expand(filled({96, 8, 1, 1}, {8, 1, 1, 1}, 1), filled({96}, {1}, 2), one, {{cpu::PostOp::Kind::Clamp, 0.f, 6.f}});
    const cpu::PackedConv depthwise(filled({96, 1, k, k}, {k * k, k * k, k, 1}, 3), filled({96}, {1}, 4), dw, {{cpu::PostOp::Kind::Hardswish}});
    const std::vector<int64_t> sizes{batch, 8, 57, 61};
    const Tensor x = filled(sizes, cpu::channels_last_strides(sizes), 5);
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    const Tensor banded = cpu::expand_depthwise(expand, depthwise, x);
    const Tensor apart = depthwise.run(expand.run(x, Tensor(), true), Tensor(), true);
    omp_set_num_threads(before);
    if (cpu::cpu_features().isa == cpu::Isa::Generic || !switched_on("JITCTL_EXPAND_DEPTHWISE")) {
      CHECK_FALSE(banded.defined());  // the vector ISAs only
      continue;
    }
    REQUIRE(banded.defined());
    CHECK(cpu::is_channels_last(banded));
    check_close(banded, apart, "banded against apart");
  }
  // Under 1 MB expanded, the two layers run apart on one thread.
  cpu::ConvArgs dw;
  dw.stride = {1, 1};
  dw.padding = {1, 1};
  dw.dilation = {1, 1};
  dw.groups = 96;
  const cpu::PackedConv expand(filled({96, 8, 1, 1}, {8, 1, 1, 1}, 1), Tensor(), one, {});
  const cpu::PackedConv depthwise(filled({96, 1, 3, 3}, {9, 9, 3, 1}, 3), Tensor(), dw, {});
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  CHECK_FALSE(cpu::expand_depthwise(expand, depthwise, filled({1, 8, 20, 20}, cpu::channels_last_strides({1, 8, 20, 20}), 6)).defined());
  omp_set_num_threads(before);
}

TEST_CASE("fast paths: on small images an expansion and its depthwise layer split by channels, as the two layers run apart") {
  // Each thread expands its own channels, then runs DepthwiseChannels on them (AVX-512, AVX2). Channel
  // counts off the vector width (an overlapping last vector, a masked last one, one team left
  // without vectors), 5x5 and stride 2, a non-square image, padding wider than the kernel's half,
  // three threads, and every epilogue the kernel takes; a 28x28 image with fewer channels than
  // pixels and one thread do not split.
  cpu::ConvArgs one;
  one.stride = {1, 1};
  one.padding = {0, 0};
  one.dilation = {1, 1};
  using K = cpu::PostOp::Kind;
  const std::vector<cpu::Epilogue> epilogues{{}, {{K::Relu}}, {{K::Clamp, 0.f, 6.f}}, {{K::Hardswish}}, {{K::Silu}}};
  int split = 0;
  for (const auto& [e, k, s, pad, hgt, wid, threads] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int>>{
           {1152, 5, 1, 2, 7, 7, 2}, {208, 3, 1, 1, 14, 14, 2}, {200, 5, 2, 2, 14, 14, 2}, {120, 3, 2, 1, 9, 11, 2},
           {40, 3, 1, 2, 7, 5, 3}, {30, 3, 1, 1, 5, 5, 2}, {120, 5, 1, 2, 28, 28, 2}, {100, 3, 1, 1, 7, 7, 1}}) {
    for (size_t ei = 0; ei < epilogues.size(); ++ei) {
      INFO("channels " << e << ", kernel " << k << ", stride " << s << ", padding " << pad << ", image " << hgt << "x" << wid
                       << ", threads " << threads << ", epilogue " << ei);
      cpu::ConvArgs dw;
      dw.stride = {s, s};
      dw.padding = {pad, pad};
      dw.dilation = {1, 1};
      dw.groups = e;
      const cpu::PackedConv expand(filled({e, 24, 1, 1}, {24, 1, 1, 1}, 11), filled({e}, {1}, 12), one, {{K::Clamp, 0.f, 6.f}});
      const cpu::PackedConv depthwise(filled({e, 1, k, k}, {k * k, k * k, k, 1}, 13), filled({e}, {1}, 14), dw, epilogues[ei]);
      const std::vector<int64_t> sizes{2, 24, hgt, wid};
      Tensor x = filled(sizes, cpu::channels_last_strides(sizes), 15);
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      const Tensor split_out = cpu::expand_depthwise(expand, depthwise, x);
      // A NaN in one channel of the first image's pixel (0, 3): every expanded channel of that pixel
      // is NaN, and so is every output whose window covers it, after any of these activations, as
      // in PyTorch (oneDNN's ReLU, which the layers run apart take, gives 0 there instead).
      Tensor x_nan = filled(sizes, cpu::channels_last_strides(sizes), 15);
      static_cast<float*>(x_nan.mutable_data())[24 * 3 + 5] = std::nanf("");
      const Tensor split_nan = cpu::expand_depthwise(expand, depthwise, x_nan);
      omp_set_num_threads(1);
      const Tensor apart = depthwise.run(expand.run(x, Tensor(), true), Tensor(), true);
      omp_set_num_threads(before);
      // Split by channels only where the expansion has more channels than the image pixels.
      const bool expected = threads > 1 && e > hgt * wid && cpu::cpu_features().isa != cpu::Isa::Generic && pointwise_allowed() &&
                            switched_on("JITCTL_EXPAND_DEPTHWISE");
      CHECK(split_out.defined() == expected);
      if (!split_out.defined()) continue;
      CHECK(cpu::is_channels_last(split_out));
      check_close(split_out, apart, "split by channels against apart");
      const int64_t oh = split_nan.sizes()[2], ow = split_nan.sizes()[3];
      int wrong = 0;
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t ky = 0 - (oy * s - pad), kx = 3 - (ox * s - pad);
          const bool covered = ky >= 0 && ky < k && kx >= 0 && kx < k;
          for (int64_t ch = 0; ch < e; ++ch)
            wrong += std::isnan(static_cast<const float*>(split_nan.data())[(oy * ow + ox) * e + ch]) != covered;
        }
      CHECK(wrong == 0);
      ++split;
    }
  }
  if (cpu::cpu_features().isa != cpu::Isa::Generic && pointwise_allowed() && switched_on("JITCTL_EXPAND_DEPTHWISE")) CHECK(split >= 25);
}

TEST_CASE("fast paths: oneDNN calls too small for the team run on the calling thread, and the team comes back") {
  const int before = omp_get_max_threads();
  omp_set_num_threads(2);
  {
    const cpu::SmallWorkOnOneThread small(1e3);
    CHECK(omp_get_max_threads() == 1);
  }
  CHECK(omp_get_max_threads() == 2);
  {
    const cpu::SmallWorkOnOneThread big(1e9);
    CHECK(omp_get_max_threads() == 2);
  }
  omp_set_num_threads(before);
}

TEST_CASE("op bench: times mm and conv and refuses what it does not know") {
  const auto r = cpu::bench_op("mm", 64, {1}, 0, 2);
  REQUIRE(r.rows.size() == 1);
  CHECK(r.flops == doctest::Approx(2.0 * 64 * 64 * 64));
  CHECK(r.rows[0].gflops_p50 > 0);
  CHECK(r.rows[0].fraction_of_peak > 0);
  CHECK(cpu::bench_op("conv", 8, {1}, 0, 1).rows.size() == 1);
  CHECK_THROWS_AS(cpu::bench_op("fft", 64, {1}), InvalidInput);
  CHECK_THROWS_AS(cpu::bench_op("mm", 0, {1}), InvalidInput);
}

}  // namespace jitctl
