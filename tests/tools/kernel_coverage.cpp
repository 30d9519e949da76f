// kernel_coverage [--check README.md | --missing FAMILY]: how many operator schemas have a CPU kernel, overall and per
// family, as a Markdown table. The schemas counted are the aten:: overloads of every PyTorch
// version jitctl knows (1.13, 2.0, 2.4, 2.15; one per overload name) that a model calls: out= forms,
// named-tensor (Dimname) overloads and *_backward ops are left out. With --check, the table
// between the `<!-- kernel-coverage -->` markers of the file must be exactly this one (exit 1
// otherwise), so the README's numbers stay true.
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "lib/ops/schema_registry.h"

namespace {

using namespace jitctl;

// Families by operator name (without "aten::"); the first family listing a name wins.
const std::vector<std::pair<std::string, std::set<std::string>>>& families() {
  static const std::vector<std::pair<std::string, std::set<std::string>>> f = {
      {"reduction",
       {"sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "any", "all", "norm", "frobenius_norm",
        "nuclear_norm", "logsumexp", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "softmax", "log_softmax", "topk",
        "sort", "argsort", "msort", "kthvalue", "count_nonzero", "nansum", "nanmean"}},
      {"statistics",
       {"std", "var", "std_mean", "var_mean", "median", "nanmedian", "mode", "quantile", "nanquantile", "histc", "bincount",
        "cov", "corrcoef", "cdist", "pdist", "dist"}},
      {"indexing",
       {"index", "index_put", "index_put_", "_index_put_impl_", "index_select", "gather", "scatter", "scatter_", "scatter_add",
        "scatter_add_", "scatter_reduce", "scatter_reduce_", "masked_fill", "masked_fill_", "masked_select", "masked_scatter",
        "masked_scatter_", "take", "take_along_dim", "put", "put_", "nonzero", "argwhere", "nonzero_static", "index_fill",
        "index_fill_", "index_add", "index_add_", "index_copy", "index_copy_", "where", "select_scatter", "slice_scatter",
        "diagonal_scatter", "searchsorted", "bucketize"}},
      {"math",
       {"abs", "absolute", "neg", "negative", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsin", "arccos",
        "arctan", "atan2", "arctan2", "sigmoid", "logit", "erf", "erfc", "erfinv", "floor", "ceil", "round", "trunc", "fix",
        "frac", "sign", "sgn", "signbit", "reciprocal", "add", "sub", "subtract", "mul", "multiply", "div", "divide",
        "true_divide", "floor_divide", "remainder", "fmod", "pow", "float_power", "clamp", "clip", "clamp_min", "clamp_max",
        "maximum", "minimum", "fmax", "fmin", "lerp", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "nan_to_num",
        "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose", "allclose", "eq", "ne", "lt", "le", "gt", "ge",
        "equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
        "bitwise_not", "addcmul", "addcdiv", "rsub", "deg2rad", "rad2deg", "heaviside", "gcd", "lcm", "i0", "sinc",
        "mvlgamma", "lgamma", "digamma", "polygamma"}},
      {"factory",
       {"zeros", "ones", "full", "empty", "arange", "range", "linspace", "logspace", "eye", "zeros_like", "ones_like",
        "full_like", "empty_like", "new_zeros", "new_ones", "new_full", "new_empty", "tensor", "scalar_tensor", "as_tensor",
        "tril_indices", "triu_indices"}},
      {"attention",
       {"scaled_dot_product_attention", "_native_multi_head_attention", "_transformer_encoder_layer_fwd"}},
  };
  return f;
}

bool counted(const FunctionSchema& s) {
  if (s.name.rfind("aten::", 0) != 0) return false;
  const std::string& o = s.overload_name;
  if (o == "out" || (o.size() > 4 && o.compare(o.size() - 4, 4, "_out") == 0) || o.rfind("out_", 0) == 0) return false;
  if (o.find("dimname") != std::string::npos || o.find("Dimname") != std::string::npos || o.find("names") != std::string::npos)
    return false;
  for (const auto& a : s.arguments)
    if (a.is_write() && a.kwarg_only) return false;  // out= arguments under other overload names
  return s.name.find("_backward") == std::string::npos;
}

// family -> counted schema names of that family ("all aten ops": every counted one).
std::map<std::string, std::set<std::string>> schemas_by_family() {
  std::map<std::string, std::set<std::string>> all;
  for (std::string_view v : SchemaRegistry::versions()) {
    const SchemaRegistry& reg = SchemaRegistry::for_version(v);
    for (std::string_view name : reg.names())
      for (const FunctionSchema& s : reg.overloads(name)) {
        if (!counted(s)) continue;
        const std::string full = s.full_name();
        all["all aten ops"].insert(full);
        const std::string base = s.name.substr(6);
        for (const auto& [family, ops] : families())
          if (ops.count(base)) {
            all[family].insert(full);
            break;
          }
      }
  }
  return all;
}

std::string table() {
  std::set<std::string> kernels;
  for (auto& k : registered_kernels()) kernels.insert(k);
  auto all = schemas_by_family();
  auto row = [&](const std::string& what, const std::set<std::string>& names) {
    size_t with = 0;
    for (const auto& n : names) with += kernels.count(n);
    return fmt::format("| {} | {} | {} | {:.1f}% |\n", what, with, names.size(), names.empty() ? 0.0 : 100.0 * with / names.size());
  };
  std::string out = "| family | schemas with a kernel | schemas | coverage |\n|---|---|---|---|\n";
  for (const auto& [family, ops] : families()) out += row(family, all[family]);
  out += row("all aten ops", all["all aten ops"]);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string t = table();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream f(argv[2]);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    const std::string open = "<!-- kernel-coverage -->\n", close = "<!-- /kernel-coverage -->";
    const size_t a = text.find(open), b = text.find(close);
    if (a == std::string::npos || b == std::string::npos || b < a) {
      fmt::print(stderr, "kernel_coverage: {} has no {} ... {} block\n", argv[2], open.substr(0, open.size() - 1), close);
      return 1;
    }
    const std::string have = text.substr(a + open.size(), b - a - open.size());
    if (have != t) {
      fmt::print(stderr, "kernel_coverage: the table in {} is not the measured one; it should be:\n{}", argv[2], t);
      return 1;
    }
    fmt::print("kernel coverage table in {} is current\n", argv[2]);
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--missing") {  // the schemas of a family without a kernel
    std::set<std::string> kernels;
    for (auto& k : registered_kernels()) kernels.insert(k);
    auto all = schemas_by_family();
    for (const auto& n : all[argv[2]])
      if (!kernels.count(n)) fmt::print("{}\n", n);
    return 0;
  }
  if (argc != 1) {
    fmt::print(stderr, "usage: kernel_coverage [--check README.md | --missing FAMILY]\n");
    return 2;
  }
  fmt::print("{}", t);
  return 0;
}
