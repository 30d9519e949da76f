// Small tensor algebra that models call outside the GEMM paths: einsum (explicit or implicit
// output, repeated letters as diagonals, ellipsis), outer/ger, cross/linalg_cross, trace,
// diag, diag_embed, linalg_vector_norm, cosine_similarity, pairwise_distance. Computed in double
// and written in the result dtype; these run on small operands in the models that use them.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

Tensor as_double(const Tensor& t) { return to_dtype(contiguous(t), DType::Float64); }

// Writes doubles into a new tensor of dtype `dt` and shape `shape`.
Tensor from_doubles(const std::vector<double>& v, DType dt, const std::vector<int64_t>& shape) {
  Tensor d = Tensor::empty(DType::Float64, shape);
  std::copy(v.begin(), v.end(), mutable_data_of<double>(d));
  return dt == DType::Float64 ? d : to_dtype(d, dt);
}

// ---- einsum --------------------------------------------------------------------------------------

// "..." in a term stands for the operand's leading unnamed dims; each becomes an internal letter
// (bytes 1..31, which no equation contains), right-aligned across operands so they broadcast.
Tensor einsum_impl(const std::string& eq_arg, const std::vector<Tensor>& ops) {
  std::string eq;
  for (char c : eq_arg)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  if (terms.size() != ops.size())
    throw InvalidInput(fmt::format("einsum(): more operands were provided than specified in the equation"));
  int64_t ell = 0;  // dims the ellipsis covers (the most any operand gives it)
  for (size_t k = 0; k < ops.size(); ++k) {
    const size_t at = terms[k].find("...");
    if (at == std::string::npos) continue;
    const int64_t named = static_cast<int64_t>(terms[k].size()) - 3;
    ell = std::max(ell, ops[k].dim() - named);
  }
  if (ell > 31) throw Unsupported("einsum with an ellipsis over more than 31 dims");
  auto expand_ellipsis = [&](const std::string& t, int64_t dims) {
    const size_t at = t.find("...");
    if (at == std::string::npos) return t;
    std::string fill;
    for (int64_t i = ell - dims; i < ell; ++i) fill += static_cast<char>(1 + i);
    return t.substr(0, at) + fill + t.substr(at + 3);
  };
  for (size_t k = 0; k < ops.size(); ++k)
    terms[k] = expand_ellipsis(terms[k], std::max<int64_t>(0, ops[k].dim() - (static_cast<int64_t>(terms[k].size()) - 3)));
  auto internal = [](char c) { return c >= 1 && c <= 31; };
  std::map<char, int64_t> size, count;
  for (size_t k = 1; k < ops.size(); ++k)  // ATen multiplies the operands as they are
    if (ops[k].dtype() != ops[0].dtype())
      throw InvalidInput(fmt::format("expected scalar type {} but found {}", scalar_type_name(ops[0].dtype()), scalar_type_name(ops[k].dtype())));
  for (size_t k = 0; k < ops.size(); ++k) {
    if (static_cast<int64_t>(terms[k].size()) != ops[k].dim())
      throw InvalidInput(fmt::format("einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions ({}) for operand {} and no ellipsis was given",
                                     terms[k].size(), ops[k].dim(), k));
    for (size_t d = 0; d < terms[k].size(); ++d) {
      const char c = terms[k][d];
      if (!std::isalpha(static_cast<unsigned char>(c)) && !internal(c))
        throw InvalidInput(fmt::format("einsum(): invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]", d));
      const int64_t n = ops[k].sizes()[d];
      auto it = size.find(c);
      if (it == size.end()) size[c] = n;
      else if (it->second != n) {
        if (it->second == 1) it->second = n;  // broadcast
        else if (n != 1)
          throw InvalidInput(fmt::format("einsum(): subscript {} has size {} for operand {} which does not broadcast with previously seen size {}",
                                         c, n, k, it->second));
      }
      ++count[c];
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    for (auto& [c, n] : count)  // implicit: the ellipsis dims, then letters seen once, alphabetically
      if (internal(c) || n == 1) out += c;
  } else {
    out = expand_ellipsis(eq.substr(arrow + 2), ell);
    for (char c : out)
      if (!size.count(c) && !internal(c)) throw InvalidInput(fmt::format("einsum(): output subscript {} does not appear in the equation for any input operand", c));
  }
  std::string letters = out;
  for (auto& [c, n] : size)
    if (out.find(c) == std::string::npos) letters += c;  // summed letters after the output's
  const size_t nl = letters.size(), no = out.size();
  std::vector<int64_t> extent(nl);
  for (size_t i = 0; i < nl; ++i) extent[i] = size[letters[i]];
  // Per operand: its element stride for each letter (0 where absent or broadcast).
  std::vector<Tensor> data;
  std::vector<std::vector<int64_t>> stride(ops.size(), std::vector<int64_t>(nl, 0));
  DType dt = ops.empty() ? DType::Float32 : ops[0].dtype();
  for (size_t k = 0; k < ops.size(); ++k) {
    dt = promote_types(dt, ops[k].dtype());
    data.push_back(as_double(ops[k]));
    const auto st = contiguous_strides(ops[k].sizes());
    for (size_t d = 0; d < terms[k].size(); ++d) {
      const size_t li = letters.find(terms[k][d]);
      if (ops[k].sizes()[d] != 1) stride[k][li] += st[d];
    }
  }
  std::vector<int64_t> out_shape(extent.begin(), extent.begin() + static_cast<std::ptrdiff_t>(no));
  int64_t out_n = 1, sum_n = 1;
  for (size_t i = 0; i < nl; ++i) (i < no ? out_n : sum_n) *= extent[i];
  std::vector<double> res(static_cast<size_t>(out_n), 0.0);
  std::vector<int64_t> idx(nl, 0);
  for (int64_t o = 0; o < out_n; ++o) {
    int64_t r = o;
    for (size_t i = no; i-- > 0;) idx[i] = r % extent[i], r /= extent[i];
    double acc = 0;
    for (int64_t t = 0; t < sum_n; ++t) {
      int64_t q = t;
      for (size_t i = nl; i-- > no;) idx[i] = q % extent[i], q /= extent[i];
      double prod = 1;
      for (size_t k = 0; k < ops.size(); ++k) {
        int64_t off = 0;
        for (size_t i = 0; i < nl; ++i) off += idx[i] * stride[k][i];
        prod *= data_of<double>(data[k])[off];
      }
      acc += prod;
    }
    res[static_cast<size_t>(o)] = acc;
  }
  return from_doubles(res, dt, out_shape);
}

// ---- outer, cross, trace, diag, diag_embed --------------------------------------------------------

Tensor outer_impl(const Tensor& a, const Tensor& b) {
  if (a.dim() != 1 || b.dim() != 1) throw InvalidInput("outer: expected 1-D tensors");
  Stack s{IValue(a), IValue(int64_t{1})};
  find_kernel("aten::unsqueeze")(s);
  Stack m{s[0], IValue(b), IValue(int64_t{1})};
  find_kernel("aten::mul.Tensor")(m);
  return m[0].to_tensor();
}

Tensor cross_impl(const Tensor& a, const Tensor& b, const IValue& dim_arg, bool linalg) {
  if (a.dim() != b.dim()) throw InvalidInput(fmt::format("linalg.cross: inputs must have the same number of dimensions."));
  const auto shape = broadcast_shapes(a.sizes(), b.sizes());
  int64_t dim = -1;
  if (!dim_arg.is_none()) dim = wrap_dim(dim_arg.to_int(), static_cast<int64_t>(shape.size()));
  else if (linalg) dim = static_cast<int64_t>(shape.size()) - 1;
  else {
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] == 3) {
        dim = static_cast<int64_t>(d);
        break;
      }
    if (dim < 0) throw InvalidInput("no dimension of size 3 in input");
  }
  if (shape[dim] != 3)
    throw InvalidInput(fmt::format("linalg.cross: inputs dimension {} must have length 3. Got {} and {}", dim, a.sizes()[dim], b.sizes()[dim]));
  const DType dt = promote_types(a.dtype(), b.dtype());
  const Tensor x = as_double(expand_to(a, shape)), y = as_double(expand_to(b, shape));
  const auto st = contiguous_strides(shape);
  int64_t n = 1;
  for (auto v : shape) n *= v;
  std::vector<double> out(static_cast<size_t>(n));
  const double* p = data_of<double>(x);
  const double* q = data_of<double>(y);
  const int64_t s = st[dim];
  for (int64_t i = 0; i < n; ++i) {
    if ((i / s) % 3 != 0) continue;  // the first of each triple
    const double a0 = p[i], a1 = p[i + s], a2 = p[i + 2 * s], b0 = q[i], b1 = q[i + s], b2 = q[i + 2 * s];
    out[i] = a1 * b2 - a2 * b1;
    out[i + s] = a2 * b0 - a0 * b2;
    out[i + 2 * s] = a0 * b1 - a1 * b0;
  }
  return from_doubles(out, dt, shape);
}

Tensor trace_impl(const Tensor& self) {
  if (self.dim() != 2) throw InvalidInput(fmt::format("trace: expected a matrix, but got tensor with dim {}", self.dim()));
  const Tensor x = as_double(self);
  double acc = 0;
  for (int64_t i = 0; i < std::min(self.sizes()[0], self.sizes()[1]); ++i) acc += data_of<double>(x)[i * self.sizes()[1] + i];
  const DType dt = is_floating(self.dtype()) ? self.dtype() : DType::Int64;
  return from_doubles({acc}, dt, {});
}

// diag: a 1-D input becomes a square matrix with it on diagonal k; a 2-D input gives diagonal k.
Tensor diag_impl(const Tensor& self, int64_t k) {
  if (self.dim() == 1) {
    const int64_t n = self.sizes()[0], m = n + std::abs(k);
    Tensor out = Tensor::empty(self.dtype(), {m, m});
    Stack z{IValue(out)};
    find_kernel("aten::zero_")(z);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = k >= 0 ? i : i - k, c = k >= 0 ? i + k : i;
      Tensor dst = make_view(out, {}, {}, out.storage_offset() + r * m + c);
      Tensor src = make_view(self, {}, {}, self.storage_offset() + i * self.strides()[0]);
      copy_into(src, dst);
    }
    return out;
  }
  if (self.dim() != 2) throw InvalidInput("diag(): Supports 1D or 2D tensors. Got " + std::to_string(self.dim()) + "D");
  Stack s{IValue(self), IValue(k), IValue(int64_t{0}), IValue(int64_t{1})};
  find_kernel("aten::diagonal")(s);
  const Tensor& v = s[0].to_tensor();
  Tensor c = Tensor::empty(v.dtype(), v.sizes());  // diag copies; diagonal is the view
  copy_strided(v, c);
  return c;
}

// diag_embed: the last dim of self becomes diagonal `offset` of the (dim1, dim2) planes.
Tensor diag_embed_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd), d2 = wrap_dim(dim2, nd);
  if (d1 == d2) throw InvalidInput(fmt::format("diagonal dimensions cannot be identical {}, {}", dim1, dim2));
  const int64_t n = self.sizes().back() + std::abs(offset);
  std::vector<int64_t> shape;
  std::vector<int64_t> rest(self.sizes().begin(), self.sizes().end() - 1);
  size_t ri = 0;
  for (int64_t d = 0; d < nd; ++d) shape.push_back(d == d1 || d == d2 ? n : rest[ri++]);
  Tensor out = Tensor::empty(self.dtype(), shape);
  Stack z{IValue(out)};
  find_kernel("aten::zero_")(z);
  Stack v{IValue(out), IValue(offset), IValue(d1), IValue(d2)};
  find_kernel("aten::diagonal")(v);
  Tensor diag = v[0].to_tensor();
  copy_into(self, diag);
  return out;
}

// ---- norms and distances ---------------------------------------------------------------------------

double vector_norm(const std::vector<double>& v, double ord) {
  double acc = 0;
  if (std::isinf(ord)) {
    acc = ord > 0 ? 0 : std::numeric_limits<double>::infinity();
    for (double x : v) acc = ord > 0 ? std::max(acc, std::abs(x)) : std::min(acc, std::abs(x));
    return acc;
  }
  if (ord == 0) {
    for (double x : v) acc += x != 0;
    return acc;
  }
  for (double x : v) acc += std::pow(std::abs(x), ord);
  return std::pow(acc, 1.0 / ord);
}

Tensor linalg_vector_norm_impl(const Tensor& self, double ord, const IValue& dim, bool keepdim, const IValue& dtype) {
  DType dt = self.dtype();
  if (auto d = optional_scalar_type_arg(dtype)) dt = *d;
  if (!is_floating(dt))
    throw InvalidInput(fmt::format("linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}", scalar_type_name(dt)));
  const std::vector<int64_t> dims = reduction_dims(dim, self.dim(), "linalg.vector_norm");
  std::vector<bool> red(static_cast<size_t>(self.dim()), false);
  for (auto d : dims) red[d] = true;
  std::vector<int64_t> out_shape, kept;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!red[d]) out_shape.push_back(self.sizes()[d]), kept.push_back(d);
    else if (keepdim) out_shape.push_back(1);
  }
  const Tensor x = as_double(self);
  int64_t out_n = 1;
  for (auto d : kept) out_n *= self.sizes()[d];
  std::vector<std::vector<double>> groups(static_cast<size_t>(std::max<int64_t>(out_n, 1)));
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t g = 0, r = i;
    std::vector<int64_t> c(static_cast<size_t>(self.dim()));
    for (int64_t d = self.dim() - 1; d >= 0; --d) c[d] = r % self.sizes()[d], r /= self.sizes()[d];
    for (auto d : kept) g = g * self.sizes()[d] + c[d];
    groups[g].push_back(data_of<double>(x)[i]);
  }
  std::vector<double> res(static_cast<size_t>(out_n));
  for (int64_t g = 0; g < out_n; ++g) res[g] = vector_norm(groups[g], ord);
  return from_doubles(res, dt, out_shape);
}

// cosine_similarity along dim: x1·x2 / max(|x1| |x2|, eps) (the 2.x formula with the product clamped).
Tensor cosine_similarity_impl(const Tensor& a, const Tensor& b, int64_t dim, double eps) {
  const auto shape = broadcast_shapes(a.sizes(), b.sizes());
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t d = wrap_dim(dim, nd);
  const DType dt = promote_types(a.dtype(), b.dtype());
  const Tensor x = as_double(expand_to(a, shape)), y = as_double(expand_to(b, shape));
  const auto st = contiguous_strides(shape);
  std::vector<int64_t> out_shape;
  for (int64_t i = 0; i < nd; ++i)
    if (i != d) out_shape.push_back(shape[i]);
  int64_t n = 1;
  for (auto v : out_shape) n *= v;
  std::vector<double> res(static_cast<size_t>(n));
  for (int64_t o = 0; o < n; ++o) {
    int64_t r = o, base = 0;
    for (int64_t i = nd - 1; i >= 0; --i) {
      if (i == d) continue;
      base += (r % shape[i]) * st[i];
      r /= shape[i];
    }
    double dot = 0, na = 0, nb = 0;
    for (int64_t k = 0; k < shape[d]; ++k) {
      const double u = data_of<double>(x)[base + k * st[d]], v = data_of<double>(y)[base + k * st[d]];
      dot += u * v, na += u * u, nb += v * v;
    }
    res[o] = dot / std::max(std::sqrt(na * nb), eps);
  }
  return from_doubles(res, dt, out_shape);
}

// pairwise_distance: ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance_impl(const Tensor& a, const Tensor& b, double p, double eps, bool keepdim) {
  const auto shape = broadcast_shapes(a.sizes(), b.sizes());
  const DType dt = promote_types(a.dtype(), b.dtype());
  const Tensor x = as_double(expand_to(a, shape)), y = as_double(expand_to(b, shape));
  const int64_t m = shape.empty() ? 1 : shape.back();
  const int64_t rows = m == 0 ? 0 : x.numel() / m;
  std::vector<double> res(static_cast<size_t>(rows));
  std::vector<double> diff(static_cast<size_t>(m));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < m; ++k) diff[k] = data_of<double>(x)[r * m + k] - data_of<double>(y)[r * m + k] + eps;
    res[r] = vector_norm(diff, p);
  }
  std::vector<int64_t> out_shape(shape.begin(), shape.empty() ? shape.end() : shape.end() - 1);
  if (keepdim && !shape.empty()) out_shape.push_back(1);
  return from_doubles(res, dt, out_shape);
}

std::vector<Tensor> tensors_of(const IValue& v) {
  std::vector<Tensor> out;
  for (const auto& x : v.to_list()->items) out.push_back(x.to_tensor());
  return out;
}

}  // namespace

void register_tensor_algebra_kernels() {
  register_kernel("aten::einsum", [](Stack& s) { set_output(s, einsum_impl(s[0].to_string(), tensors_of(s[1]))); });
  for (const char* name : {"aten::outer", "aten::ger"})
    register_kernel(name, [](Stack& s) { set_output(s, outer_impl(targ(s, 0), targ(s, 1))); });
  register_kernel("aten::cross", [](Stack& s) { set_output(s, cross_impl(targ(s, 0), targ(s, 1), s[2], false)); });
  register_kernel("aten::linalg_cross", [](Stack& s) { set_output(s, cross_impl(targ(s, 0), targ(s, 1), s[2], true)); });
  register_kernel("aten::trace", [](Stack& s) { set_output(s, trace_impl(targ(s, 0))); });
  register_kernel("aten::diag", [](Stack& s) { set_output(s, diag_impl(targ(s, 0), s[1].to_int())); });
  register_kernel("aten::diag_embed", [](Stack& s) { set_output(s, diag_embed_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_int())); });
  register_kernel("aten::linalg_vector_norm", [](Stack& s) {
    set_output(s, linalg_vector_norm_impl(targ(s, 0), s[1].to_double(), s[2], s[3].to_bool(), s[4]));
  });
  register_kernel("aten::cosine_similarity", [](Stack& s) {
    set_output(s, cosine_similarity_impl(targ(s, 0), targ(s, 1), s[2].to_int(), s[3].to_double()));
  });
  register_kernel("aten::pairwise_distance", [](Stack& s) {
    set_output(s, pairwise_distance_impl(targ(s, 0), targ(s, 1), s[2].to_double(), s[3].to_double(), s[4].to_bool()));
  });
}

}  // namespace jitctl
