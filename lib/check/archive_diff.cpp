#include "lib/check/archive_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/archive/archive.h"
#include "lib/check/graph_diff.h"
#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "lib/serialization/load_module.h"
#include "lib/serialization/module_info.h"

namespace jitctl {
namespace {

// FNV-1a over the elements' bytes in logical (row-major) order, so that a re-export that lays a
// tensor out differently (another storage offset, shared storage) checksums the same.
uint64_t checksum(const Tensor& t) {
  uint64_t h = 1469598103934665603ULL;
  const int64_t n = t.numel();
  if (n == 0) return h;
  const size_t es = element_size(t.dtype());
  const auto* base = static_cast<const unsigned char*>(t.data());
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off += idx[d] * strides[d];
    const unsigned char* p = base + off * static_cast<int64_t>(es);
    for (size_t i = 0; i < es; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    for (size_t d = sizes.size(); d-- > 0;)
      if (++idx[d] < sizes[d]) break;
      else idx[d] = 0;
  }
  return h;
}

void diff_tensors(const char* kind, const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b,
                  std::vector<TensorChange>& out) {
  std::map<std::string, const Tensor*> in_b;
  for (const auto& t : b) in_b[t.name] = &t.tensor;
  std::map<std::string, bool> in_a;
  for (const auto& t : a) {
    in_a[t.name] = true;
    auto it = in_b.find(t.name);
    if (it == in_b.end()) {
      out.push_back({kind, t.name, "removed", fmt::format("{} {}", dtype_name(t.tensor.dtype()), shape_string(t.tensor.sizes())), ""});
      continue;
    }
    const Tensor& u = *it->second;
    if (t.tensor.dtype() != u.dtype())
      out.push_back({kind, t.name, "dtype", std::string(dtype_name(t.tensor.dtype())), std::string(dtype_name(u.dtype()))});
    else if (t.tensor.sizes() != u.sizes())
      out.push_back({kind, t.name, "shape", shape_string(t.tensor.sizes()), shape_string(u.sizes())});
    else if (const uint64_t ca = checksum(t.tensor), cb = checksum(u); ca != cb)
      out.push_back({kind, t.name, "values", fmt::format("{:016x}", ca), fmt::format("{:016x}", cb)});
  }
  for (const auto& t : b)
    if (!in_a.count(t.name))
      out.push_back({kind, t.name, "added", "", fmt::format("{} {}", dtype_name(t.tensor.dtype()), shape_string(t.tensor.sizes()))});
}

std::shared_ptr<Graph> method_graph(LoadedModule& m, const std::string& name, bool inline_calls) {
  GraphFunction* fn = m.cu->graph_function(m.class_name, name);
  if (!fn) throw InvalidInput(fmt::format("{}: class {} has no method '{}'", m.archive->path(), m.class_name, name));
  return inline_calls ? fn->inlined_graph() : fn->graph();
}

}  // namespace

ArchiveDiff diff_archives(const std::string& a, const std::string& b, const ArchiveDiffOptions& o) {
  ArchiveDiff d;
  d.a = a;
  d.b = b;
  const ModuleInfo ia = inspect_archive(*Archive::open(a)), ib = inspect_archive(*Archive::open(b));
  diff_tensors("parameter", ia.parameters, ib.parameters, d.tensors);
  diff_tensors("buffer", ia.buffers, ib.buffers, d.tensors);

  LoadedModule ma = load_module(a), mb = load_module(b);
  std::vector<std::string> names;
  if (!o.method.empty()) {
    names.push_back(o.method);
  } else {
    names = ia.methods;
    for (const auto& n : ib.methods)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  for (const auto& name : names) {
    const bool has_a = std::find(ia.methods.begin(), ia.methods.end(), name) != ia.methods.end();
    const bool has_b = std::find(ib.methods.begin(), ib.methods.end(), name) != ib.methods.end();
    if (!has_a && !has_b) throw InvalidInput(fmt::format("diff: neither archive has a method '{}'", name));
    if (!has_a || !has_b) {
      d.methods.push_back({name, has_a ? "removed" : "added", ""});
      continue;
    }
    GraphDiff g = diff_graphs(canonical_graph_lines(*method_graph(ma, name, o.inline_calls)),
                              canonical_graph_lines(*method_graph(mb, name, o.inline_calls)));
    if (!g.equal()) d.methods.push_back({name, "graph", format_graph_diff(g, a + " " + name, b + " " + name)});
  }
  return d;
}

std::string archive_diff_text(const ArchiveDiff& d) {
  if (d.equal()) return fmt::format("{} and {}: the same parameters, buffers and method graphs\n", d.a, d.b);
  std::string out = fmt::format("--- {}\n+++ {}\n", d.a, d.b);
  for (const auto& t : d.tensors) {
    if (t.what == "added") out += fmt::format("{} {}: added ({})\n", t.kind, t.name, t.b);
    else if (t.what == "removed") out += fmt::format("{} {}: removed ({})\n", t.kind, t.name, t.a);
    else if (t.what == "values") out += fmt::format("{} {}: values changed (checksum {} -> {})\n", t.kind, t.name, t.a, t.b);
    else out += fmt::format("{} {}: {} changed: {} -> {}\n", t.kind, t.name, t.what, t.a, t.b);
  }
  for (const auto& m : d.methods) {
    if (m.what != "graph") out += fmt::format("method {}: {}\n", m.name, m.what);
    else out += fmt::format("method {}: graph changed\n{}", m.name, m.diff);
  }
  return out;
}

std::string archive_diff_json(const ArchiveDiff& d) {
  nlohmann::json j;
  j["a"] = d.a;
  j["b"] = d.b;
  j["equal"] = d.equal();
  j["tensors"] = nlohmann::json::array();
  for (const auto& t : d.tensors) j["tensors"].push_back({{"kind", t.kind}, {"name", t.name}, {"change", t.what}, {"a", t.a}, {"b", t.b}});
  j["methods"] = nlohmann::json::array();
  for (const auto& m : d.methods) j["methods"].push_back({{"name", m.name}, {"change", m.what}, {"diff", m.diff}});
  return j.dump(1) + "\n";
}

}  // namespace jitctl
