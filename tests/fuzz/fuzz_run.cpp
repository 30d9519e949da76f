// Fuzz target: `jitctl run` on a small fuzzed model: archive bytes -> load -> plan forward -> run
// it on small seeded inputs under tight limits. The inputs are the --input-spec text of the
// archive's record extra/fuzz_input_spec when it has one (tests/fuzz/make_seeds.py writes the
// shapes of each model's own inputs there, so mutations of the model run past the first shape
// check), else the example values of forward's schema (`run --describe-inputs`). Inputs bigger
// than a small bound are skipped, so that the per-input work stays bounded and the fuzzer does not
// time out on legitimately slow models; fuzz::run_limits bounds the rest.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/tensor.h"
#include "lib/runtime/arguments.h"
#include "lib/runtime/input_spec.h"
#include "lib/runtime/interpreter.h"
#include "lib/serialization/load_module.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

namespace {

constexpr int64_t kMaxInputElements = 1 << 14;

// False when the spec asks for more elements than the bound.
bool small(const SpecValue& v, int64_t& budget) {
  if (v.kind == SpecValue::Kind::Tensor) {
    int64_t n = 1;
    for (int64_t d : v.shape) {
      if (d < 0 || d > kMaxInputElements) return false;
      n *= d;
      if (n > kMaxInputElements) return false;
    }
    budget -= n;
  }
  for (const auto& x : v.items)
    if (!small(x, budget)) return false;
  return budget >= 0;
}

// The arguments after self, or nullopt-like empty `ok` when none can be made within bounds.
bool make_inputs(Runtime& rt, const FunctionSchema& schema, std::vector<IValue>& args) {
  std::vector<SpecValue> specs;
  const Archive& archive = *rt.loaded_module().archive;
  if (archive.has("extra/fuzz_input_spec")) {
    specs = parse_input_spec(archive.read("extra/fuzz_input_spec"));
  } else {
    for (size_t i = 1; i < schema.arguments.size(); ++i) {
      const auto example = example_spec(schema.arguments[i].type);
      if (!example) {
        if (schema.arguments[i].default_value) break;
        return false;
      }
      for (auto& s : parse_input_spec(*example)) specs.push_back(std::move(s));
    }
  }
  int64_t budget = kMaxInputElements;
  for (const auto& s : specs)
    if (!small(s, budget)) return false;
  uint64_t next_tensor = 0;
  for (const auto& s : specs) args.push_back(spec_to_ivalue(s, 0, next_tensor));
  args = check_arguments(schema, std::move(args));
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_clean("run", [&] {
    Runtime rt = Runtime::load(MappedFile::from_bytes(std::string(fuzz::as_text(data, size)), "fuzz.pt"));
    const auto names = rt.method_names();
    if (std::find(names.begin(), names.end(), "forward") == names.end()) return;
    const FunctionSchema schema = rt.schema("forward");
    const Method forward = rt.method("forward");
    std::vector<IValue> args;
    if (!make_inputs(rt, schema, args)) return;
    const fuzz::RunLimits limits;
    fuzz::touch(forward(std::move(args)));
  });
  return 0;
}
