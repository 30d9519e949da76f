#include "lib/check/archive_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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


// Values a re-export could change that are neither tensors nor modules, printed as Python would.
bool plain_value(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::None:
    case IValue::Kind::Bool:
    case IValue::Kind::Int:
    case IValue::Kind::Double:
    case IValue::Kind::String: return true;
    case IValue::Kind::Tuple:
      for (const auto& i : v.to_tuple()->items)
        if (!plain_value(i)) return false;
      return true;
    case IValue::Kind::List:
      for (const auto& i : v.to_list()->items)
        if (!plain_value(i)) return false;
      return true;
    default: return false;
  }
}

std::string joined(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

class TreeDiff {
 public:
  TreeDiff(LoadedModule& a, LoadedModule& b, const ArchiveDiffOptions& o, ArchiveDiff& d) : a_(a), b_(b), o_(o), d_(d) {}

  // A module object (the class from the code: a loaded object's own class is attached lazily).
  static bool is_module(LoadedModule& m, const IValue& v) {
    if (!v.is_object()) return false;
    auto cls = m.cu->find_class(v.to_object()->type_name);
    return cls && cls->is_module_class();
  }

  void module(const ObjectData& x, const ObjectData& y, const std::string& path) {
    const std::string cx = strip_mangling(x.type_name), cy = strip_mangling(y.type_name);
    if (cx != cy) d_.modules.push_back({path, "class", "", cx, cy});
    methods(x, y, path);
    std::vector<std::string> names;
    for (const auto& [name, v] : x.attrs) names.push_back(name);
    for (const auto& [name, v] : y.attrs)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (const auto& name : names) {
      const IValue* vx = x.attr(name);
      const IValue* vy = y.attr(name);
      const std::string sub = joined(path, name);
      const bool mx = vx && is_module(a_, *vx), my = vy && is_module(b_, *vy);
      if (mx || my) {
        if (mx && my) module(*vx->to_object(), *vy->to_object(), sub);
        else if (my) d_.modules.push_back({sub, "added", "", "", strip_mangling(vy->to_object()->type_name)});
        else d_.modules.push_back({sub, "removed", "", strip_mangling(vx->to_object()->type_name), ""});
        continue;
      }
      const bool px = vx && plain_value(*vx), py = vy && plain_value(*vy);
      if (!px && !py) continue;  // tensors (compared above) and other objects
      const std::string fx = px ? format_ivalue(*vx) : "", fy = py ? format_ivalue(*vy) : "";
      if (fx != fy) d_.modules.push_back({path, "attribute", name, fx, fy});
    }
  }

 private:
  // As the class's code defines them (the loaded object's class is defined lazily).
  static std::vector<std::string> method_names(LoadedModule& m, const ObjectData& o) {
    std::vector<std::string> out;
    if (auto cls = m.cu->find_class(o.type_name))
      for (const auto& f : cls->methods()) out.push_back(f.name);
    return out;
  }

  std::shared_ptr<Graph> graph(LoadedModule& m, const ObjectData& o, const std::string& name, bool inlined) {
    GraphFunction* fn = m.cu->graph_function(o.type_name, name);
    if (!fn) throw InvalidInput(fmt::format("{}: class {} has no code for method '{}'", m.archive->path(), o.type_name, name));
    return inlined ? fn->inlined_graph() : fn->graph();
  }

  void methods(const ObjectData& x, const ObjectData& y, const std::string& path) {
    const bool root = path.empty();
    if (!root && (!o_.method.empty() || o_.inline_calls)) return;  // inlined into the root's graphs
    std::vector<std::string> nx = method_names(a_, x), ny = method_names(b_, y), names;
    if (root && !o_.method.empty()) {
      names.push_back(o_.method);
    } else {
      names = nx;
      for (const auto& n : ny)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    for (const auto& name : names) {
      const bool has_x = std::find(nx.begin(), nx.end(), name) != nx.end();
      const bool has_y = std::find(ny.begin(), ny.end(), name) != ny.end();
      if (!has_x && !has_y) throw InvalidInput(fmt::format("diff: neither archive has a method '{}'", name));
      const std::string qualified = joined(path, name);
      if (!has_x || !has_y) {
        d_.methods.push_back({qualified, has_x ? "removed" : "added", ""});
        continue;
      }
      const bool inlined = root && o_.inline_calls;
      GraphDiff g = diff_graphs(canonical_graph_lines(*graph(a_, x, name, inlined)), canonical_graph_lines(*graph(b_, y, name, inlined)));
      if (!g.equal()) d_.methods.push_back({qualified, "graph", format_graph_diff(g, d_.a + " " + qualified, d_.b + " " + qualified)});
    }
  }

  LoadedModule &a_, &b_;
  const ArchiveDiffOptions& o_;
  ArchiveDiff& d_;
};

}  // namespace

ArchiveDiff diff_archives(const std::string& a, const std::string& b, const ArchiveDiffOptions& o) {
  ArchiveDiff d;
  d.a = a;
  d.b = b;
  const ModuleInfo ia = inspect_archive(*Archive::open(a)), ib = inspect_archive(*Archive::open(b));
  diff_tensors("parameter", ia.parameters, ib.parameters, d.tensors);
  diff_tensors("buffer", ia.buffers, ib.buffers, d.tensors);
  LoadedModule ma = load_module(a), mb = load_module(b);
  if (!ma.root.is_object() || !mb.root.is_object())
    throw InvalidInput(fmt::format("diff: {} is not a module archive", ma.root.is_object() ? b : a));
  TreeDiff(ma, mb, o, d).module(*ma.root.to_object(), *mb.root.to_object(), "");
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
  for (const auto& m : d.modules) {
    const std::string where = m.path.empty() ? "the root module" : "module " + m.path;
    if (m.what == "added") out += fmt::format("module {}: added ({})\n", m.path, m.b);
    else if (m.what == "removed") out += fmt::format("module {}: removed ({})\n", m.path, m.a);
    else if (m.what == "class") out += fmt::format("{}: class changed: {} -> {}\n", where, m.a, m.b);
    else out += fmt::format("{}: attribute {} changed: {} -> {}\n", where, m.name, m.a.empty() ? "(none)" : m.a, m.b.empty() ? "(none)" : m.b);
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
  j["modules"] = nlohmann::json::array();
  for (const auto& m : d.modules)
    j["modules"].push_back({{"path", m.path}, {"change", m.what}, {"name", m.name}, {"a", m.a}, {"b", m.b}});
  j["methods"] = nlohmann::json::array();
  for (const auto& m : d.methods) j["methods"].push_back({{"name", m.name}, {"change", m.what}, {"diff", m.diff}});
  return j.dump(1) + "\n";
}

}  // namespace jitctl
