// The runtime's prepared convolutions and linears (lib/runtime/prepare.h) across calls in one
// process: packed parameters must follow what the module holds, as PyTorch computes it
// (testdata/gen/make_fast_path_models.py). One-call behaviour is in the run goldens
// (testdata/models_fast, tests/corpus/test_run_golden.cpp).
#include <doctest/doctest.h>

#include <cmath>

#include "lib/archive/torch_save.h"
#include "lib/runtime/interpreter.h"
#include "tests/support/testdata_path.h"

namespace jitctl {
namespace {

void check_close(const Tensor& got, const Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  REQUIRE(got.dtype() == DType::Float32);
  int bad = 0;
  for (int64_t i = 0; i < want.numel() && bad < 5; ++i) {
    // Both contiguous here: the model's outputs are fresh sums.
    const double g = static_cast<const float*>(got.data())[i], w = static_cast<const float*>(want.data())[i];
    if (!(std::fabs(g - w) <= 1e-5 + 1e-4 * std::fabs(w))) {
      ++bad;
      FAIL_CHECK("element " << i << ": got " << g << ", want " << w);
    }
  }
}

}  // namespace

TEST_CASE("prepared runtime: a parameter the method writes in place is read afresh on every call") {
  const auto dir = test::testdata_dir() / "models_fast";
  Runtime rt = Runtime::load((dir / "writes_weight_scripted.pt").string());
  const IValue calls = load_torch_save((dir / "writes_weight_scripted.calls.pt").string());
  const auto& c = calls.to_tuple()->items;
  const Tensor x = c[0].to_tensor();
  Method forward = rt.method("forward");
  int k = 0;
  for (const IValue& want : c[1].to_tuple()->items) {
    CAPTURE(k);
    const IValue got = forward({IValue(x)});
    REQUIRE(got.is_tensor());
    check_close(got.to_tensor(), want.to_tensor());
    ++k;
  }
  CHECK(k == 3);
}

}  // namespace jitctl
