#pragma once
// What `run` and `bench-threads` share: the model/method/inputs flags, and turning them into a
// compiled method and its argument list.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/runtime/interpreter.h"

namespace jitctl::cli {

struct ModelInputs {
  std::string model, method = "forward", inputs;
  std::vector<std::string> specs;
  uint64_t seed = 0;
};

// Registers `model` (required unless `model_required` is false: bench-threads --op has none),
// --method, --inputs, --input-spec (excluding --inputs) and --seed.
void add_model_input_options(CLI::App& cmd, ModelInputs& a, bool model_required = true);

// The method, compiled before any input is read (a missing operator fails first), and the
// arguments, checked against its count (trailing arguments with defaults may be left out).
struct PreparedCall {
  Runtime runtime;
  Method method;
  std::vector<IValue> args;
};
PreparedCall prepare_call(const ModelInputs& a);

}  // namespace jitctl::cli
