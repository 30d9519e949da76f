// Indexing writes and selections: scatter (src, value, reduce), scatter_add, scatter_reduce,
// index_fill/index_add/index_copy, masked_select/masked_scatter, take/put, nonzero/argwhere and
// where(condition), take_along_dim, select/slice/diagonal_scatter, searchsorted/bucketize.
// (index, index_put, index_select and gather are in shape_ops.cpp with the other views and
// gathers.) In-place forms write through self's strides; the out-of-place forms write a
// contiguous copy of self.
#include <algorithm>
#include <cmath>
#include <cstring>
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

Tensor copy_of(const Tensor& t) {
  Tensor c = empty_like(t);
  copy_strided(t, c);
  return c;
}

// Calls f(coords) for every position of `shape`, row-major.
template <class F>
void for_each_position(const std::vector<int64_t>& shape, const F& f) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<int64_t> c(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(c);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++c[d] < shape[d]) break;
      c[d] = 0;
    }
  }
}

int64_t offset_of(const Tensor& t, const std::vector<int64_t>& c) {
  int64_t o = t.storage_offset();
  for (size_t d = 0; d < c.size(); ++d) o += c[d] * t.strides()[d];
  return o;
}

// The element pointer of `t` at element offset `o` (storage-relative, as offset_of gives).
template <class T>
T* at(Tensor& t, int64_t o) {
  return static_cast<T*>(t.mutable_data()) - t.storage_offset() + o;
}
template <class T>
const T* at(const Tensor& t, int64_t o) {
  return static_cast<const T*>(t.data()) - t.storage_offset() + o;
}

enum class Reduce { None, Sum, Prod, Mean, Amax, Amin };

Reduce reduce_arg(const std::string& r, bool two) {
  if (r == "sum" && two) return Reduce::Sum;
  if (r == "add" && !two) return Reduce::Sum;
  if (r == "prod" && two) return Reduce::Prod;
  if (r == "multiply" && !two) return Reduce::Prod;
  if (two && r == "mean") return Reduce::Mean;
  if (two && r == "amax") return Reduce::Amax;
  if (two && r == "amin") return Reduce::Amin;
  if (two) throw InvalidInput(fmt::format("reduce argument must be either sum, prod, mean, amax or amin, got {}", r));
  throw InvalidInput(fmt::format("reduce argument must be either add or multiply., got {}", r));
}

void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32)
    throw InvalidInput(fmt::format("{}(): Expected dtype int32/int64 for index", op));
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  if (std::max<int64_t>(index.dim(), 1) != nd)
    throw InvalidInput("Index tensor must have the same number of dimensions as self tensor");
  if (src && std::max<int64_t>(src->dim(), 1) != nd)
    throw InvalidInput("Index tensor must have the same number of dimensions as src tensor");
  if (src && src->dtype() != self.dtype())
    throw InvalidInput(fmt::format("{}(): Expected self.dtype to be equal to src.dtype", op));
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim && self.dim() > 0 && index.sizes()[d] > self.sizes()[d])
      throw InvalidInput(fmt::format("Size does not match at dimension {} expected index {} to be smaller than self {} apart from dimension {}", d,
                                     shape_string(index.sizes()), shape_string(self.sizes()), dim));
    if (src && src->dim() > 0 && index.sizes()[d] > src->sizes()[d])
      throw InvalidInput(fmt::format("Size does not match at dimension {} expected index {} to be smaller than src {}", d,
                                     shape_string(index.sizes()), shape_string(src->sizes())));
  }
}

// scatter into `self` (modified): self[..., index[i], ...] (op)= src[i] or value.
void scatter_into(Tensor& self, int64_t dim0, const Tensor& index_arg, const Tensor* src, const IValue* value, Reduce red, bool include_self,
                  const char* op) {
  const int64_t dim = wrap_dim(dim0, std::max<int64_t>(self.dim(), 1));
  check_scatter(self, dim, index_arg, src, op);
  const Tensor index = index_arg.dtype() == DType::Int64 ? index_arg : to_dtype(index_arg, DType::Int64);
  if (index.numel() == 0) return;
  const int64_t limit = self.dim() == 0 ? 1 : self.sizes()[dim];
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T fill = value ? static_cast<T>(value->is(IValue::Kind::Double) ? value->to_double() : static_cast<double>(value->to_int())) : T(0);
    std::vector<int64_t> count;  // mean: how many values each target got
    std::vector<bool> touched;   // include_self=False: the first write replaces
    const bool need_track = red == Reduce::Mean || !include_self;
    if (need_track) {
      count.assign(static_cast<size_t>(self.numel()), include_self ? 1 : 0);
      touched.assign(static_cast<size_t>(self.numel()), false);
    }
    std::vector<int64_t> idx_shape = index.dim() == 0 ? std::vector<int64_t>{1} : index.sizes();
    std::vector<int64_t> target_offsets;
    for_each_position(idx_shape, [&](const std::vector<int64_t>& c) {
      const std::vector<int64_t> ci = index.dim() == 0 ? std::vector<int64_t>{} : c;
      int64_t k = *at<int64_t>(index, offset_of(index, ci));
      if (k < -limit || k >= limit)
        throw InvalidInput(fmt::format("index {} is out of bounds for dimension {} with size {}", k, dim, limit));
      if (k < 0) k += limit;
      std::vector<int64_t> tc = ci;
      if (!tc.empty()) tc[dim] = k;
      const int64_t to = offset_of(self, tc);
      T* dst = at<T>(self, to);
      T v = fill;
      if (src) v = *at<T>(*src, offset_of(*src, src->dim() == 0 ? std::vector<int64_t>{} : ci));
      int64_t flat = 0;  // position of the target in row-major order, for the trackers
      if (need_track) {
        for (size_t d = 0; d < tc.size(); ++d) flat = flat * self.sizes()[d] + tc[d];
        if (!include_self && !touched[flat]) {
          touched[flat] = true;
          *dst = v;
          if (red == Reduce::Mean) count[flat] = 1;
          return;
        }
        if (red == Reduce::Mean) ++count[flat];
      }
      switch (red) {
        case Reduce::None: *dst = v; break;
        case Reduce::Sum:
        case Reduce::Mean: *dst = static_cast<T>(*dst + v); break;
        case Reduce::Prod: *dst = static_cast<T>(*dst * v); break;
        case Reduce::Amax: *dst = (v != v || v > *dst) ? v : *dst; break;
        case Reduce::Amin: *dst = (v != v || v < *dst) ? v : *dst; break;
      }
    });
    if (red == Reduce::Mean) {
      std::vector<int64_t> shape = self.dim() == 0 ? std::vector<int64_t>{} : self.sizes();
      int64_t flat = 0;
      for_each_position(shape, [&](const std::vector<int64_t>& c) {
        const int64_t n = count[flat++];
        if (n > 1 || (n == 1 && !include_self)) {
          T* dst = at<T>(self, offset_of(self, c));
          if constexpr (std::is_floating_point_v<T>) *dst = *dst / static_cast<T>(n);
          else *dst = static_cast<T>(std::floor(static_cast<double>(*dst) / static_cast<double>(n)));
        }
      });
    }
  });
}

// index_fill / index_add / index_copy along `dim`: the slices self.select(dim, index[i]).
enum class IndexOp { Fill, Add, Copy };

void index_op_into(Tensor& self, int64_t dim0, const Tensor& index, const Tensor* source, const IValue* value, double alpha, IndexOp kind,
                   const char* op) {
  const int64_t dim = wrap_dim(dim0, std::max<int64_t>(self.dim(), 1));
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32)
    throw InvalidInput(fmt::format("{}(): Expected dtype int32/int64 for index", op));
  if (index.dim() > 1) throw InvalidInput(fmt::format("{}(): Index is supposed to be a vector", op));
  if (source && source->dtype() != self.dtype())
    throw InvalidInput(fmt::format("{}(): self ({}) and source ({}) must have the same scalar type", op, scalar_type_name(self.dtype()),
                                   scalar_type_name(source->dtype())));
  const int64_t limit = self.dim() == 0 ? 1 : self.sizes()[dim];
  const Tensor idx = to_dtype(contiguous(index), DType::Int64);
  const int64_t n = idx.numel();
  if (source && self.dim() > 0 && (source->dim() == 0 ? 1 : source->sizes()[dim]) != n)
    throw InvalidInput(fmt::format("{}(): Number of indices ({}) should be equal to source.size(dim) ({})", op, n,
                                   source->dim() == 0 ? 1 : source->sizes()[dim]));
  std::vector<int64_t> slice_shape;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) slice_shape.push_back(self.sizes()[d]);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T fill{};
    if (value) {
      fill = value->is_tensor() ? static_cast<T>(element_as_double(value->to_tensor(), 0))
                                : static_cast<T>(value->is(IValue::Kind::Double) ? value->to_double() : static_cast<double>(value->to_int()));
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = data_of<int64_t>(idx)[i];
      if (k < -limit || k >= limit) throw InvalidInput(fmt::format("index out of range in self"));
      if (k < 0) k += limit;
      for_each_position(slice_shape, [&](const std::vector<int64_t>& c) {
        std::vector<int64_t> tc = c, sc = c;
        if (self.dim() > 0) {
          tc.insert(tc.begin() + dim, k);
          sc.insert(sc.begin() + dim, i);
        }
        T* dst = at<T>(self, offset_of(self, tc));
        switch (kind) {
          case IndexOp::Fill: *dst = fill; break;
          case IndexOp::Copy: *dst = *at<T>(*source, offset_of(*source, source->dim() == 0 ? std::vector<int64_t>{} : sc)); break;
          case IndexOp::Add: {
            const T v = *at<T>(*source, offset_of(*source, source->dim() == 0 ? std::vector<int64_t>{} : sc));
            *dst = static_cast<T>(*dst + static_cast<T>(alpha) * v);
          }
        }
      });
    }
  });
}

Tensor bool_mask(const Tensor& mask, const char* op) {
  if (mask.dtype() != DType::Bool && mask.dtype() != DType::UInt8)
    throw InvalidInput(fmt::format("{}: expected BoolTensor for mask", op));
  return mask.dtype() == DType::Bool ? mask : to_dtype(mask, DType::Bool);
}

Tensor masked_select_impl(const Tensor& self, const Tensor& mask0) {
  const Tensor mask = bool_mask(mask0, "masked_select");
  const auto shape = broadcast_shapes(self.sizes(), mask.sizes());
  const Tensor x = contiguous(expand_to(self, shape)), m = contiguous(expand_to(mask, shape));
  const bool* mp = data_of<bool>(m);
  int64_t n = 0;
  for (int64_t i = 0; i < m.numel(); ++i) n += mp[i];
  Tensor out = Tensor::empty(self.dtype(), {n});
  const int64_t es = static_cast<int64_t>(element_size(self.dtype()));
  const char* src = static_cast<const char*>(x.data());
  char* dst = static_cast<char*>(out.mutable_data());
  for (int64_t i = 0, j = 0; i < m.numel(); ++i)
    if (mp[i]) std::memcpy(dst + (j++) * es, src + i * es, static_cast<size_t>(es));
  return out;
}

void masked_scatter_into(Tensor& self, const Tensor& mask0, const Tensor& source) {
  const Tensor mask = bool_mask(mask0, "masked_scatter_");
  if (source.dtype() != self.dtype())
    throw InvalidInput(fmt::format("masked_scatter_: expected self and source to have same dtypes but got {} and {}",
                                   scalar_type_name(self.dtype()), scalar_type_name(source.dtype())));
  const Tensor m = contiguous(expand_to(mask, self.sizes()));
  const Tensor src = contiguous(source);
  const bool* mp = data_of<bool>(m);
  const int64_t es = static_cast<int64_t>(element_size(self.dtype()));
  int64_t j = 0, flat = 0;
  for_each_position(self.sizes(), [&](const std::vector<int64_t>& c) {
    if (mp[flat++]) {
      if (j >= src.numel()) throw InvalidInput("masked_scatter: expected source to have at least as many elements as ones in mask");
      std::memcpy(static_cast<char*>(self.mutable_data()) + (offset_of(self, c) - self.storage_offset()) * es,
                  static_cast<const char*>(src.data()) + (j++) * es, static_cast<size_t>(es));
    }
  });
}

Tensor nonzero_impl(const Tensor& self) {
  const Tensor x = contiguous(self);
  std::vector<int64_t> hits;
  const int64_t nd = self.dim();
  dispatch_dtype(self.dtype(), "nonzero", [&](auto tag) {
    using T = decltype(tag);
    const T* p = data_of<T>(x);
    int64_t flat = 0;
    for_each_position(self.sizes(), [&](const std::vector<int64_t>& c) {
      if (p[flat++] != T(0)) hits.insert(hits.end(), c.begin(), c.end());
    });
  });
  const int64_t n = nd == 0 ? (element_as_double(x, 0) != 0 ? 1 : 0) : static_cast<int64_t>(hits.size()) / nd;
  Tensor out = Tensor::empty(DType::Int64, {n, nd});
  std::copy(hits.begin(), hits.end(), mutable_data_of<int64_t>(out));
  return out;
}

Tensor take_impl(const Tensor& self, const Tensor& index) {
  if (index.dtype() != DType::Int64) throw InvalidInput("take(): Expected a long tensor for index, but got " + std::string(scalar_type_name(index.dtype())));
  const Tensor x = contiguous(self), idx = contiguous(index);
  Tensor out = Tensor::empty(self.dtype(), index.sizes());
  const int64_t n = x.numel(), es = static_cast<int64_t>(element_size(self.dtype()));
  for (int64_t i = 0; i < idx.numel(); ++i) {
    int64_t k = data_of<int64_t>(idx)[i];
    if (k < -n || k >= n) throw InvalidInput(fmt::format("out of range: tried to access index {} on a tensor of {} elements.", k, n));
    if (k < 0) k += n;
    std::memcpy(static_cast<char*>(out.mutable_data()) + i * es, static_cast<const char*>(x.data()) + k * es, static_cast<size_t>(es));
  }
  return out;
}

void put_into(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  if (index.dtype() != DType::Int64) throw InvalidInput("put_(): Expected a long tensor for index");
  if (source.dtype() != self.dtype()) throw InvalidInput("put_(): self and source expected to have the same dtype");
  if (index.numel() != source.numel())
    throw InvalidInput(fmt::format("put_(): Expected source and index to have the same number of elements, but got source.numel() = {}, index.numel() = {}",
                                   source.numel(), index.numel()));
  const Tensor idx = contiguous(index), src = contiguous(source);
  const int64_t n = self.numel();
  std::vector<int64_t> offs;
  offs.reserve(static_cast<size_t>(n));
  for_each_position(self.sizes(), [&](const std::vector<int64_t>& c) { offs.push_back(offset_of(self, c)); });
  dispatch_dtype(self.dtype(), "put_", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < idx.numel(); ++i) {
      int64_t k = data_of<int64_t>(idx)[i];
      if (k < -n || k >= n) throw InvalidInput(fmt::format("out of range: tried to access index {} on a tensor of {} elements.", k, n));
      if (k < 0) k += n;
      T* dst = at<T>(self, offs[k]);
      *dst = accumulate ? static_cast<T>(*dst + data_of<T>(src)[i]) : data_of<T>(src)[i];
    }
  });
}

// Runs another registered kernel (the view ops the *_scatter kernels write through).
Stack call(const char* name, Stack args) {
  const KernelFn fn = find_kernel(name);
  if (!fn) throw Unsupported(fmt::format("no kernel for {}", name));
  fn(args);
  return args;
}

// self with `view_op(self, args...)` overwritten by src: select/slice/diagonal_scatter.
Tensor view_scatter(const Tensor& self, const Tensor& src, const char* view_op, Stack view_args, const char* op) {
  Tensor out = copy_of(self);
  view_args.insert(view_args.begin(), IValue(out));
  Tensor view = call(view_op, std::move(view_args))[0].to_tensor();
  if (view.sizes() != src.sizes())
    throw InvalidInput(fmt::format("{}: expected src to have a size equal to the slice of self. src size = {}, slice size = {}", op,
                                   shape_string(src.sizes()), shape_string(view.sizes())));
  copy_into(src, view);
  return out;
}

// take_along_dim: gather along `dim` with self and indices broadcast against each other in the
// other dims; dim None: over the flattened self.
Tensor take_along_dim_impl(const Tensor& self, const Tensor& indices, const IValue& dim_arg) {
  if (indices.dtype() != DType::Int64)
    throw InvalidInput(fmt::format("torch.take_along_dim(): dtype of indices should be Long but got {}", scalar_type_name(indices.dtype())));
  if (dim_arg.is_none()) {
    const Tensor sc = contiguous(self), ic = contiguous(indices);
    const Tensor flat = make_view(sc, {sc.numel()}, {1}, sc.storage_offset());
    const Tensor iflat = make_view(ic, {ic.numel()}, {1}, ic.storage_offset());
    return call("aten::gather", {IValue(flat), IValue(int64_t{0}), IValue(iflat), IValue(false)})[0].to_tensor();
  }
  if (self.dim() != indices.dim())
    throw InvalidInput(fmt::format("torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
                                   self.dim(), indices.dim()));
  const int64_t d = wrap_dim(dim_arg.to_int(), self.dim());
  std::vector<int64_t> ss = self.sizes(), is = indices.sizes();
  ss[d] = is[d] = 1;
  std::vector<int64_t> b = broadcast_shapes(ss, is);
  std::vector<int64_t> sb = b, ib = b;
  sb[d] = self.sizes()[d];
  ib[d] = indices.sizes()[d];
  const Tensor se = contiguous(expand_to(self, sb)), ie = contiguous(expand_to(indices, ib));
  return call("aten::gather", {IValue(se), IValue(d), IValue(ie), IValue(false)})[0].to_tensor();
}

// searchsorted: per row of `sorted` (1-D: one row for all), the insertion point of each value;
// right (or side="right"): after equal entries. `sorter` gives the order of an unsorted sequence.
Tensor searchsorted_impl(const Tensor& sorted_arg, const IValue& values, bool out_int32, bool right_arg, const IValue& side, const IValue& sorter_arg) {
  bool right = right_arg;
  if (!side.is_none()) {
    const std::string& sd = side.to_string();
    if (sd != "left" && sd != "right")
      throw InvalidInput(fmt::format("torch.searchsorted(): side can only be 'left' or 'right' but got {}", sd));
    if (right && sd == "left")
      throw InvalidInput("torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
    right = sd == "right";
  }
  if (sorted_arg.dim() == 0)
    throw InvalidInput("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  Tensor sorted = sorted_arg;
  if (!sorter_arg.is_none())
    sorted = call("aten::gather", {IValue(sorted_arg), IValue(int64_t{-1}), sorter_arg, IValue(false)})[0].to_tensor();
  const Tensor v = values.is_tensor() ? values.to_tensor() : scalar_to_tensor(values, sorted.dtype());
  if (sorted.dim() > 1 && (v.dim() != sorted.dim() ||
                           !std::equal(sorted.sizes().begin(), sorted.sizes().end() - 1, v.sizes().begin())))
    throw InvalidInput(fmt::format("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
                                   shape_string(sorted.sizes()), shape_string(v.sizes())));
  const DType dt = promote_types(sorted.dtype(), v.dtype());
  const Tensor s = to_dtype(contiguous(sorted), dt), x = to_dtype(contiguous(v), dt);
  Tensor out = Tensor::empty(out_int32 ? DType::Int32 : DType::Int64, v.sizes());
  const int64_t n = s.dim() == 0 ? 1 : s.sizes().back();
  const int64_t per_row = sorted.dim() > 1 && v.dim() > 0 ? v.sizes().back() : std::max<int64_t>(x.numel(), 1);
  dispatch_dtype(dt, "searchsorted", [&](auto tag) {
    using T = decltype(tag);
    const T* sp = data_of<T>(s);
    const T* xp = data_of<T>(x);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T* row = sp + (sorted.dim() > 1 ? (i / per_row) * n : 0);
      const T* pos = right ? std::upper_bound(row, row + n, xp[i]) : std::lower_bound(row, row + n, xp[i]);
      const int64_t k = pos - row;
      if (out_int32) mutable_data_of<int32_t>(out)[i] = static_cast<int32_t>(k);
      else mutable_data_of<int64_t>(out)[i] = k;
    }
  });
  return out;
}

// The kernels: out-of-place forms copy self first; in-place forms return self.
void k_scatter_src(Stack& s) {
  Tensor out = copy_of(targ(s, 0));
  scatter_into(out, s[1].to_int(), targ(s, 2), &targ(s, 3), nullptr, Reduce::None, true, "scatter");
  set_output(s, std::move(out));
}
void k_scatter_src_(Stack& s) {
  Tensor self = targ(s, 0);
  scatter_into(self, s[1].to_int(), targ(s, 2), &targ(s, 3), nullptr, Reduce::None, true, "scatter_");
  set_output(s, std::move(self));
}
void k_scatter_value(Stack& s) {
  Tensor out = copy_of(targ(s, 0));
  scatter_into(out, s[1].to_int(), targ(s, 2), nullptr, &s[3], Reduce::None, true, "scatter");
  set_output(s, std::move(out));
}
void k_scatter_value_(Stack& s) {
  Tensor self = targ(s, 0);
  scatter_into(self, s[1].to_int(), targ(s, 2), nullptr, &s[3], Reduce::None, true, "scatter_");
  set_output(s, std::move(self));
}
template <bool InPlace, bool Value>
void k_scatter_reduce_legacy(Stack& s) {
  Tensor t = InPlace ? targ(s, 0) : copy_of(targ(s, 0));
  const Reduce r = reduce_arg(s[4].to_string(), false);
  scatter_into(t, s[1].to_int(), targ(s, 2), Value ? nullptr : &targ(s, 3), Value ? &s[3] : nullptr, r, true, "scatter");
  set_output(s, std::move(t));
}
template <bool InPlace>
void k_scatter_add(Stack& s) {
  Tensor t = InPlace ? targ(s, 0) : copy_of(targ(s, 0));
  scatter_into(t, s[1].to_int(), targ(s, 2), &targ(s, 3), nullptr, Reduce::Sum, true, "scatter_add");
  set_output(s, std::move(t));
}
template <bool InPlace>
void k_scatter_reduce_two(Stack& s) {
  Tensor t = InPlace ? targ(s, 0) : copy_of(targ(s, 0));
  scatter_into(t, s[1].to_int(), targ(s, 2), &targ(s, 3), nullptr, reduce_arg(s[4].to_string(), true), s[5].to_bool(), "scatter_reduce");
  set_output(s, std::move(t));
}
template <bool InPlace, IndexOp Kind>
void k_index_op(Stack& s) {
  Tensor t = InPlace ? targ(s, 0) : copy_of(targ(s, 0));
  const char* op = Kind == IndexOp::Fill ? "index_fill_" : Kind == IndexOp::Add ? "index_add_" : "index_copy_";
  if constexpr (Kind == IndexOp::Fill) {
    if (s[3].is_tensor() && s[3].to_tensor().dim() != 0)
      throw InvalidInput(fmt::format("index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                                     s[3].to_tensor().dim()));
    index_op_into(t, s[1].to_int(), targ(s, 2), nullptr, &s[3], 1.0, Kind, op);
  } else {
    const double alpha = Kind == IndexOp::Add ? s[4].to_double() : 1.0;
    index_op_into(t, s[1].to_int(), targ(s, 2), &targ(s, 3), nullptr, alpha, Kind, op);
  }
  set_output(s, std::move(t));
}

}  // namespace

void register_indexing_kernels() {
  register_kernel("aten::scatter.src", k_scatter_src);
  register_kernel("aten::scatter_.src", k_scatter_src_);
  register_kernel("aten::scatter.value", k_scatter_value);
  register_kernel("aten::scatter_.value", k_scatter_value_);
  register_kernel("aten::scatter.reduce", k_scatter_reduce_legacy<false, false>);
  register_kernel("aten::scatter_.reduce", k_scatter_reduce_legacy<true, false>);
  register_kernel("aten::scatter.value_reduce", k_scatter_reduce_legacy<false, true>);
  register_kernel("aten::scatter_.value_reduce", k_scatter_reduce_legacy<true, true>);
  register_kernel("aten::scatter_add", k_scatter_add<false>);
  register_kernel("aten::scatter_add_", k_scatter_add<true>);
  register_kernel("aten::scatter_reduce.two", k_scatter_reduce_two<false>);
  register_kernel("aten::scatter_reduce_.two", k_scatter_reduce_two<true>);
  register_kernel("aten::index_fill.int_Scalar", k_index_op<false, IndexOp::Fill>);
  register_kernel("aten::index_fill.int_Tensor", k_index_op<false, IndexOp::Fill>);
  register_kernel("aten::index_fill_.int_Scalar", k_index_op<true, IndexOp::Fill>);
  register_kernel("aten::index_fill_.int_Tensor", k_index_op<true, IndexOp::Fill>);
  register_kernel("aten::index_add", k_index_op<false, IndexOp::Add>);
  register_kernel("aten::index_add_", k_index_op<true, IndexOp::Add>);
  register_kernel("aten::index_copy", k_index_op<false, IndexOp::Copy>);
  register_kernel("aten::index_copy_", k_index_op<true, IndexOp::Copy>);
  register_kernel("aten::masked_select", [](Stack& s) { set_output(s, masked_select_impl(targ(s, 0), targ(s, 1))); });
  register_kernel("aten::masked_scatter", [](Stack& s) {
    Tensor t = copy_of(targ(s, 0));
    masked_scatter_into(t, targ(s, 1), targ(s, 2));
    set_output(s, std::move(t));
  });
  register_kernel("aten::masked_scatter_", [](Stack& s) {
    Tensor t = targ(s, 0);
    masked_scatter_into(t, targ(s, 1), targ(s, 2));
    set_output(s, std::move(t));
  });
  register_kernel("aten::nonzero", [](Stack& s) { set_output(s, nonzero_impl(targ(s, 0))); });
  register_kernel("aten::where", [](Stack& s) {  // where(condition): nonzero's columns
    const Tensor nz = nonzero_impl(targ(s, 0));
    auto l = std::make_shared<ListData>();
    l->elem_type = "Tensor";
    for (int64_t d = 0; d < nz.sizes()[1]; ++d) {
      Tensor col = Tensor::empty(DType::Int64, {nz.sizes()[0]});
      for (int64_t i = 0; i < nz.sizes()[0]; ++i) mutable_data_of<int64_t>(col)[i] = data_of<int64_t>(nz)[i * nz.sizes()[1] + d];
      l->items.emplace_back(std::move(col));
    }
    set_output(s, IValue(std::move(l)));
  });
  register_kernel("aten::take_along_dim", [](Stack& s) { set_output(s, take_along_dim_impl(targ(s, 0), targ(s, 1), s[2])); });
  register_kernel("aten::select_scatter", [](Stack& s) {
    set_output(s, view_scatter(targ(s, 0), targ(s, 1), "aten::select.int", {s[2], s[3]}, "select_scatter"));
  });
  register_kernel("aten::slice_scatter", [](Stack& s) {
    set_output(s, view_scatter(targ(s, 0), targ(s, 1), "aten::slice.Tensor", {s[2], s[3], s[4], s[5]}, "slice_scatter"));
  });
  register_kernel("aten::diagonal_scatter", [](Stack& s) {
    set_output(s, view_scatter(targ(s, 0), targ(s, 1), "aten::diagonal", {s[2], s[3], s[4]}, "diagonal_scatter"));
  });
  for (const char* name : {"aten::searchsorted.Tensor", "aten::searchsorted.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, searchsorted_impl(targ(s, 0), s[1], s[2].to_bool(), s[3].to_bool(), s[4], s[5])); });
  for (const char* name : {"aten::bucketize.Tensor", "aten::bucketize.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, searchsorted_impl(targ(s, 1), s[0], s[2].to_bool(), s[3].to_bool(), IValue(), IValue())); });
  register_kernel("aten::argwhere", [](Stack& s) { set_output(s, nonzero_impl(targ(s, 0))); });
  register_kernel("aten::nonzero_static", [](Stack& s) {  // nonzero cut or padded to `size` rows
    const Tensor nz = nonzero_impl(targ(s, 0));
    const int64_t size = s[1].to_int(), fill = s[2].to_int(), nd = nz.sizes()[1];
    if (size < 0) throw InvalidInput(fmt::format("nonzero_static: 'size' must be an non-negative integer, got {}", size));
    Tensor out = Tensor::empty(DType::Int64, {size, nd});
    int64_t* o = mutable_data_of<int64_t>(out);
    for (int64_t i = 0; i < size * nd; ++i) o[i] = i < nz.numel() ? data_of<int64_t>(nz)[i] : fill;
    set_output(s, std::move(out));
  });
  register_kernel("aten::take", [](Stack& s) { set_output(s, take_impl(targ(s, 0), targ(s, 1))); });
  register_kernel("aten::put", [](Stack& s) {
    Tensor t = copy_of(targ(s, 0));
    put_into(t, targ(s, 1), targ(s, 2), s[3].to_bool());
    set_output(s, std::move(t));
  });
  register_kernel("aten::put_", [](Stack& s) {
    Tensor t = targ(s, 0);
    put_into(t, targ(s, 1), targ(s, 2), s[3].to_bool());
    set_output(s, std::move(t));
  });
}

}  // namespace jitctl
