#pragma once
// What `run` and `bench-threads` share: the model/method/inputs flags, and turning them into a
// planned method and its checked argument list.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/ops/schema.h"
#include "lib/runtime/interpreter.h"

namespace jitctl::cli {

struct ModelInputs {
  std::string model, method = "forward", inputs;
  std::vector<std::string> specs;
  uint64_t seed = 0;
  // Words after the model: more --input-spec values (`run M --input-spec A B`), in command-line
  // order with the --input-spec ones (resolve_model_and_specs).
  std::vector<std::string> trailing;
  const CLI::App* command = nullptr;
  const CLI::Option* spec_option = nullptr;
  const CLI::Option* model_option = nullptr;
  const CLI::Option* trailing_option = nullptr;
};

// Registers `model` (required unless `model_required` is false: bench-threads --op has none), --method, --inputs, --input-spec (excluding --inputs) and --seed.
// --input-spec takes one value per occurrence, so `--input-spec S MODEL` never takes the model;
// values typed after the model (`MODEL --input-spec A B`) are specs too.
void add_model_input_options(CLI::App& cmd, ModelInputs& a, bool model_required = true);

// Puts the words of the command line in their places: specs in the order typed, the model the
// one word that is not a spec (`--input-spec A B MODEL` gives the model MODEL and specs A, B).
// Throws InvalidInput for words that are neither. Idempotent.
void resolve_model_and_specs(ModelInputs& a);

// The method, planned before any input is read (a missing operator fails first), and the
// arguments, checked against its schema (count and types, with Python's conversions: an int for
// a float, a tuple for a list; lib/runtime/arguments.h).
struct PreparedCall {
  Runtime runtime;
  Method method;
  FunctionSchema schema;
  std::vector<IValue> args;
};
PreparedCall prepare_call(ModelInputs& a);

}  // namespace jitctl::cli
