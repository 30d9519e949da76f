#include "lib/check/check_trace_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lib/core/string_literal.h"

namespace jitctl {
namespace {

std::string where_text(const TracerWarning& w) {
  return w.where ? fmt::format("{}:{}", w.where->file, w.where->line) : std::string("<unknown>");
}

// Why a traced archive's verdict is never certain.
std::string traced_caveat() {
  return "cannot tell from a traced archive whether the Python would trace the same graph for every input set: a "
         "branch on the data or on a size, or a number computed from a tensor, leaves no mark in a trace";
}

std::string verdict_text(const CheckTraceReport& r) {
  if (r.verdict == "ok" && !r.certain)
    return "no input set shows the trace failing to generalize; but " + traced_caveat();
  if (r.verdict == "ok") return "the trace generalizes: every input set gives the same graph and the model's outputs";
  if (r.verdict == "graphs_differ" && !r.certain)
    return "the trace probably does not generalize (cannot tell from a traced archive: see the input sets above)";
  if (r.verdict == "graphs_differ") return "the trace does not generalize: graphs differed across invocations";
  if (r.verdict == "outputs_differ") return "the trace does not generalize: outputs differ";
  return "the model cannot be traced: " + r.untraceable;
}

std::string set_label(const CheckTraceReport& r, size_t i) {
  return fmt::format("input set {} ({})", i + 1, r.sets[i].inputs);
}

// What a failed input set says, for the text report and JUnit's failure body.
std::string set_details(const CheckTraceReport& r, size_t i) {
  const InputSetCheck& s = r.sets[i];
  std::string out;
  if (!s.run_error.empty())
    out += fmt::format("The first trace fails on this input set:\n  {}\n", s.run_error);
  if (s.graphs_differ) {
    out += "ERROR: Graphs differed across invocations!\n";
    out += s.graph_diff;
    out += "First diverging operator:\n" + s.first_difference;
  }
  for (const auto& a : s.assumptions) out += fmt::format("ERROR: Graphs would differ: {}\n", a);
  for (const auto& c : s.cannot_tell) out += fmt::format("Cannot tell from a traced archive: {}\n", c);
  if (!s.constants_differ.empty())
    out += fmt::format("ERROR: Tensor-valued constant nodes differed in value across invocations:\n  {}\n",
                       s.constants_differ);
  for (const auto& m : s.outputs)
    out += fmt::format("Output nr {}. of the traced function does not match the corresponding output of {}: {}\n",
                       m.output, m.against, m.detail);
  if (!s.outputs.empty() && !r.nondeterministic.empty()) {
    out += "Trace had nondeterministic nodes (did you forget to call .eval() on your model?):\n";
    for (const auto& n : r.nondeterministic) out += "  " + n + "\n";
  }
  return out;
}


}  // namespace

std::string check_trace_text(const CheckTraceReport& r) {
  std::string out = fmt::format("check-trace {} (method {}), {} input set(s){}\n", r.model, r.method, r.sets.size(),
                                r.traced_archive ? ", a traced archive" : "");
  for (size_t i = 0; i < r.sets.size(); ++i) out += fmt::format("  {}: {}\n", set_label(r, i), r.sets[i].status());
  for (size_t i = 0; i < r.sets.size(); ++i) {
    if (r.sets[i].ok()) continue;
    out += fmt::format("\n{}:\n{}", set_label(r, i), set_details(r, i));
  }
  if (!r.warnings.empty()) {
    out += "\nTracer warnings (the first trace):\n";
    for (const auto& w : r.warnings) out += fmt::format("  {}: {}\n", where_text(w), w.message);
  }
  out += fmt::format("\n{}\n", verdict_text(r));
  return out;
}

std::string check_trace_json(const CheckTraceReport& r) {
  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["method"] = r.method;
  j["verdict"] = r.verdict;
  j["generalizes"] = r.generalizes();
  if (!r.untraceable.empty()) j["untraceable"] = r.untraceable;
  j["traced_archive"] = r.traced_archive;
  j["certain"] = r.certain;
  if (r.traced_archive) j["caveat"] = traced_caveat();
  j["seconds"] = r.seconds;
  j["rtol"] = r.rtol;
  j["atol"] = r.atol ? nlohmann::ordered_json(*r.atol) : nlohmann::ordered_json("default");
  auto sets = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.sets.size(); ++i) {
    const InputSetCheck& s = r.sets[i];
    nlohmann::ordered_json e;
    e["index"] = i + 1;
    e["inputs"] = s.inputs;
    if (!s.expected.empty()) e["expected"] = s.expected;
    e["status"] = s.status();
    e["ok"] = s.ok();
    e["graphs_differ"] = s.graphs_differ;
    if (s.graphs_differ) {
      e["graph_diff"] = s.graph_diff;
      e["first_difference"] = s.first_difference;
    }
    if (!s.assumptions.empty()) e["broken_assumptions"] = s.assumptions;
    if (!s.cannot_tell.empty()) e["cannot_tell"] = s.cannot_tell;
    if (!s.constants_differ.empty()) e["tensor_constants_differ"] = s.constants_differ;
    if (!s.run_error.empty()) e["run_error"] = s.run_error;
    auto outs = nlohmann::ordered_json::array();
    for (const auto& m : s.outputs) outs.push_back({{"output", m.output}, {"against", m.against}, {"detail", m.detail}});
    e["output_mismatches"] = outs;
    e["seconds"] = s.seconds;
    sets.push_back(e);
  }
  j["input_sets"] = sets;
  auto warnings = nlohmann::ordered_json::array();
  for (const auto& w : r.warnings)
    warnings.push_back({{"message", w.message}, {"where", w.where ? where_text(w) : ""}});
  j["warnings"] = warnings;
  j["nondeterministic_nodes"] = r.nondeterministic;
  return j.dump(1) + "\n";
}

std::string check_trace_junit(const CheckTraceReport& r) {
  size_t failures = 0;
  const double seconds = r.seconds;
  for (const auto& s : r.sets) failures += s.ok() ? 0 : 1;
  const bool untraceable = r.verdict == "untraceable";
  const size_t tests = untraceable ? 1 : r.sets.size();
  if (untraceable) failures = 1;
  const std::string suite = xml_escape(fmt::format("check-trace {} ({})", r.model, r.method));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"jitctl check-trace\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.6f}\">\n",
                     tests, failures, seconds);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.6f}\">\n",
                     suite, tests, failures, seconds);
  const std::string classname = xml_escape(fmt::format("check-trace.{}", r.model));
  if (untraceable) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"trace\" time=\"{:.6f}\">\n", classname, seconds);
    out += fmt::format("      <failure type=\"untraceable\" message=\"{}\"/>\n", xml_escape(r.untraceable));
    out += "    </testcase>\n";
  }
  for (size_t i = 0; !untraceable && i < r.sets.size(); ++i) {
    const InputSetCheck& s = r.sets[i];
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\"", classname, xml_escape(set_label(r, i)),
                       s.seconds);
    if (s.ok()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", xml_escape(s.status()),
                       xml_escape(s.status()), xml_escape(set_details(r, i)));
    out += "    </testcase>\n";
  }
  if (!r.warnings.empty()) {
    std::string w;
    for (const auto& x : r.warnings) w += fmt::format("{}: {}\n", where_text(x), x.message);
    out += fmt::format("    <system-err>{}</system-err>\n", xml_escape(w));
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace jitctl
