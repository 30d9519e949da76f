// jitctl run M [--method N] [--inputs F | --input-spec S...] [-o OUT] [--format text|json]
// [--describe-inputs]: run a method, as `m(*inputs)` does in PyTorch, and write or summarize its
// result; or say what arguments the method takes and how to write them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/device_options.h"
#include "cli/limit_options.h"
#include "cli/model_inputs.h"
#include "cli/validators.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/runtime/arguments.h"
#include "lib/runtime/device_runner.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/outputs.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {
namespace {

using Json = nlohmann::ordered_json;

// A word as a POSIX shell reads it back: plain words as they are, anything else in single quotes.
std::string shell_word(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/' || c == ',');
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct ArgumentRow {
  std::string name, type, default_text;
  std::optional<std::string> example;
};

std::vector<ArgumentRow> argument_rows(const FunctionSchema& schema) {
  std::vector<ArgumentRow> rows;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    if (i == 0 && has_self(schema)) continue;
    ArgumentRow r{a.name, a.type->annotation_str(), "", example_spec(a.type)};
    if (a.default_value) {
      const std::string whole = a.str();
      const size_t eq = whole.rfind('=');
      r.default_text = eq == std::string::npos ? "" : whole.substr(eq + 1);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// "forward(Tensor x, int n=3) -> Tensor": the schema as PyTorch prints it, without self.
std::string signature(const FunctionSchema& schema, const std::string& method) {
  std::vector<std::string> args;
  for (size_t i = 0; i < schema.arguments.size(); ++i)
    if (!(i == 0 && has_self(schema))) args.push_back(schema.arguments[i].str());
  const std::string whole = schema.str();
  const size_t arrow = whole.rfind(") -> ");
  return fmt::format("{}({}){}", method, fmt::join(args, ", "), arrow == std::string::npos ? "" : whole.substr(arrow + 1));
}

void describe_inputs(const std::string& model, const std::string& method, const FunctionSchema& schema, bool json) {
  const auto rows = argument_rows(schema);
  std::vector<std::string> example;  // the required arguments
  bool writable = true;
  for (const auto& r : rows) {
    if (!r.default_text.empty()) continue;
    if (!r.example) writable = false;
    else example.push_back(*r.example);
  }
  std::string command = "jitctl run " + shell_word(model);
  if (method != "forward") command += " --method " + shell_word(method);
  if (!example.empty()) {
    command += " --input-spec";
    for (const auto& e : example) command += " " + shell_word(e);
  }
  if (json) {
    Json j;
    j["model"] = model;
    j["method"] = method;
    j["schema"] = signature(schema, method);
    j["arguments"] = Json::array();
    for (const auto& r : rows)
      j["arguments"].push_back({{"name", r.name},
                                {"type", r.type},
                                {"default", r.default_text.empty() ? Json(nullptr) : Json(r.default_text)},
                                {"example", r.example ? Json(*r.example) : Json(nullptr)}});
    j["example"] = writable ? Json(example) : Json(nullptr);
    j["command"] = writable ? Json(command) : Json(nullptr);
    fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
    return;
  }
  fmt::print("{}\n", signature(schema, method));
  size_t wn = 4, wt = 4;
  for (const auto& r : rows) wn = std::max(wn, r.name.size()), wt = std::max(wt, r.type.size());
  for (const auto& r : rows) {
    std::string note = r.example ? "e.g. " + *r.example : "cannot be written as --input-spec (use --inputs F.pt)";
    if (r.type == "Tensor") note += "  (any dtype[shape])";
    if (!r.default_text.empty()) note += fmt::format("  (default {}: may be left out)", r.default_text);
    fmt::print("  {:<{}}  {:<{}}  {}\n", r.name, wn, r.type, wt, note);
  }
  if (rows.empty()) fmt::print("  (no arguments)\n");
  if (writable) fmt::print("example: {}\n", command);
}

void print_summary_json(const std::string& model, const std::string& method, const IValue& result) {
  Json j;
  j["model"] = model;
  j["method"] = method;
  j["outputs"] = Json::array();
  for (const auto& leaf : output_leaves(result)) {
    Json o;
    o["path"] = leaf.path;
    o["kind"] = leaf.kind;
    if (leaf.kind == "Tensor") {
      o["dtype"] = leaf.dtype;
      o["shape"] = leaf.shape;
      o["min"] = leaf.min ? Json(*leaf.min) : Json(nullptr);
      o["max"] = leaf.max ? Json(*leaf.max) : Json(nullptr);
      o["mean"] = leaf.mean ? Json(*leaf.mean) : Json(nullptr);
      if (!leaf.note.empty()) o["note"] = leaf.note;
    } else {
      o["value"] = leaf.value;
    }
    j["outputs"].push_back(std::move(o));
  }
  fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
}

}  // namespace

void add_run_command(CLI::App& app) {
  struct Args : ModelInputs {
    std::string output, output_format, save_inputs, format = "text";
    DeviceOptions device;
    int threads = 0, interop = 0;
    bool describe = false, force = false;
    LimitOptions limits;
  };
  static Args a;
  auto* cmd = app.add_subcommand("run", "Run a method on inputs, as m(*inputs)");
  add_model_input_options(*cmd, a);
  cmd->add_option("-o,--output", a.output, "write outputs (.pt, .npy, .npz; - for standard output); without it, print a summary");
  cmd->add_option("--output-format", a.output_format, "format of -o when its name does not say: pt, npy or npz (pt for -)")
      ->check(CLI::IsMember({"pt", "npy", "npz"}));
  cmd->add_option("--format", a.format, "summary format: text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->add_flag("--describe-inputs", a.describe, "print the method's arguments and an --input-spec example, and run nothing");
  cmd->add_option("--save-inputs", a.save_inputs, "also write the arguments used (e.g. drawn by --input-spec) as a torch.save file");
  cmd->add_option("--threads", a.threads, "intra-op threads (default: as parallel-info says)")->check(whole_number(1, kMaxThreads));
  cmd->add_option("--interop-threads", a.interop, "inter-op threads")->check(whole_number(1, kMaxThreads));
  add_device_options(*cmd, a.device);
  cmd->add_flag("--force", a.force, "let -o or --save-inputs replace the model or the --inputs file");
  add_limit_options(*cmd, a.limits);
  cmd->callback([] {
    resolve_model_and_specs(a);
    const RunLimitsScope limits(run_limits(a.limits, a.model));
    if (a.describe) {
      Runtime rt = Runtime::load(a.model);
      describe_inputs(a.model, a.method, rt.schema(a.method), a.format == "json");
      return;
    }
    if (a.model == "-" && a.inputs == "-") throw InvalidInput("the model and --inputs cannot both be standard input (-)");
    if (a.output == "-" && a.save_inputs == "-") throw InvalidInput("-o and --save-inputs cannot both be standard output (-)");
    if (a.output == "-" && a.format == "json")
      throw InvalidInput("-o - writes the outputs to standard output, where the --format json summary would go; use one");
    if (!a.output.empty() && !a.save_inputs.empty() && a.output != "-" && a.output == a.save_inputs)
      throw InvalidInput(fmt::format("-o and --save-inputs name the same file {}", a.output));
    for (const std::string* out : {&a.output, &a.save_inputs})
      if (!out->empty() && *out != "-") {
        check_output_path(*out, {a.model, a.inputs}, a.force, out == &a.output ? "-o" : "--save-inputs");
        (void)output_format(*out, out == &a.output ? a.output_format : "");  // a bad name fails before running
      }
    init_threads(a.threads, a.interop);
    select_device(a.device);  // before the method is planned
    PreparedCall call = prepare_call(a);
    if (!a.save_inputs.empty()) {
      auto t = std::make_shared<TupleData>();
      t->items = call.args;
      // A .npy file is one tensor, which --inputs reads as the one argument: save it that way.
      const bool one_array = call.args.size() == 1 && a.save_inputs != "-" && output_format(a.save_inputs, "") == "npy";
      write_outputs(a.save_inputs, one_array ? call.args[0] : IValue(std::move(t)));
    }
    IValue result;
    try {
      result = a.device.on_cuda() ? DeviceRunner(call.method, false)(call.args) : call.method(std::move(call.args));
    } catch (const RaisedException&) {
      throw;  // PyTorch's words for the model's own exception
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", a.model == "-" ? "<stdin>" : a.model, e.what()));
    }
    if (!a.output.empty())
      write_outputs(a.output, result, a.output_format);
    else if (a.format == "json")
      print_summary_json(a.model, a.method, result);
    else
      fmt::print("{}", summarize_outputs(result));
  });
}

}  // namespace jitctl::cli
