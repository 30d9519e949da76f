// Shape and view ops. Views (view, reshape when possible, permute, transpose, select, slice,
// expand, squeeze, split outputs, ...) share the input's storage with new sizes/strides/offset,
// so in-place ops on them write through; the rest (cat, stack, repeat, pad, index, ...) copy.
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "kernels/cpu/output.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/shape_ops.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;
using K = IValue::Kind;

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

IValue tensor_list(std::vector<Tensor> ts) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "Tensor";
  for (auto& t : ts) l->items.emplace_back(std::move(t));
  return IValue(std::move(l));
}

std::vector<Tensor> tensors_of(const IValue& v) {
  std::vector<Tensor> out;
  for (const auto& x : v.to_list()->items) out.push_back(x.to_tensor());
  return out;
}

// ---- view / reshape --------------------------------------------------------------------------

// Resolves one -1 in `shape` against `numel`, as PyTorch's infer_size.
std::vector<int64_t> infer_size(std::vector<int64_t> shape, int64_t numel) {
  int64_t prod = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) throw InvalidInput("only one dimension can be inferred");
      infer = i;
    } else if (shape[i] < 0) {
      throw InvalidInput(fmt::format("invalid shape dimension {}", shape[i]));
    } else {
      prod *= shape[i];
    }
  }
  if (infer && prod > 0 && numel % prod == 0) {
    shape[*infer] = numel / prod;
    return shape;
  }
  if (!infer && prod == numel) return shape;
  throw InvalidInput(fmt::format("shape '{}' is invalid for input of size {}", shape_string(shape), numel));
}

// Strides viewing (old sizes, strides) as `shape` without a copy, or nullopt (ATen's computeStride).
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& old_sizes, const std::vector<int64_t>& old_strides,
                                                 const std::vector<int64_t>& shape) {
  std::vector<int64_t> ns(shape.size());
  if (old_sizes.empty()) {
    std::fill(ns.begin(), ns.end(), 1);
    return ns;
  }
  int64_t numel = 1;
  for (auto s : old_sizes) numel *= s;
  if (numel == 0 && old_sizes == shape) return old_strides;
  if (numel == 0) return contiguous_strides(shape);
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return ns;
}

Tensor view_impl(const Tensor& self, const std::vector<int64_t>& size) {
  auto shape = infer_size(size, self.numel());
  auto st = view_strides(self.sizes(), self.strides(), shape);
  if (!st)
    throw InvalidInput("view size is not compatible with input tensor's size and stride (at least one dimension spans across "
                       "two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, std::move(shape), std::move(*st), self.storage_offset());
}

Tensor reshape_impl(const Tensor& self, const std::vector<int64_t>& size) {
  auto shape = infer_size(size, self.numel());
  if (auto st = view_strides(self.sizes(), self.strides(), shape))
    return make_view(self, std::move(shape), std::move(*st), self.storage_offset());
  const Tensor c = contiguous(self);
  return make_view(c, shape, contiguous_strides(shape), c.storage_offset());
}

Tensor flatten_impl(const Tensor& self, int64_t start, int64_t end) {
  if (self.dim() == 0) return reshape_impl(self, {1});
  start = wrap_dim(start, self.dim());
  end = wrap_dim(end, self.dim());
  if (start > end) throw InvalidInput("flatten() has invalid args: start_dim cannot come after end_dim");
  if (start == end) return self;
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + start);
  int64_t n = 1;
  for (int64_t d = start; d <= end; ++d) n *= self.sizes()[d];
  shape.push_back(n);
  shape.insert(shape.end(), self.sizes().begin() + end + 1, self.sizes().end());
  return reshape_impl(self, shape);
}

Tensor unflatten_impl(const Tensor& self, int64_t dim, std::vector<int64_t> sizes) {
  dim = wrap_dim(dim, self.dim());
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) infer = static_cast<int64_t>(i);
    else known *= sizes[i];
  }
  if (infer >= 0 && known > 0) sizes[infer] = self.sizes()[dim] / known;
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + dim);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), self.sizes().begin() + dim + 1, self.sizes().end());
  return view_impl(self, shape);
}

// ---- dimension reordering --------------------------------------------------------------------

Tensor permute_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  const int64_t nd = self.dim();
  if (static_cast<int64_t>(dims.size()) != nd)
    throw InvalidInput(fmt::format("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                                   "the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                                   nd, dims.size()));
  std::vector<int64_t> sz(dims.size()), st(dims.size());
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], nd);
    if (seen[d]) throw InvalidInput("permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sz[i] = self.sizes()[d];
    st[i] = self.strides()[d];
  }
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor transpose_impl(const Tensor& self, int64_t d0, int64_t d1) {
  if (self.dim() == 0) return make_view(self, {}, {}, self.storage_offset());
  d0 = wrap_dim(d0, self.dim());
  d1 = wrap_dim(d1, self.dim());
  auto sz = self.sizes();
  auto st = self.strides();
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor t_impl(const Tensor& self) {
  if (self.dim() > 2) throw InvalidInput(fmt::format("t() expects a tensor with <= 2 dimensions, but self is {}D", self.dim()));
  return self.dim() < 2 ? make_view(self, self.sizes(), self.strides(), self.storage_offset()) : transpose_impl(self, 0, 1);
}

Tensor movedim_impl(const Tensor& self, std::vector<int64_t> src, std::vector<int64_t> dst) {
  const int64_t nd = self.dim();
  if (src.size() != dst.size())
    throw InvalidInput(fmt::format("movedim: Invalid source or destination dims: source ({} dims) should contain the same number "
                                   "of dims as destination ({} dims)", src.size(), dst.size()));
  std::vector<int64_t> order(static_cast<size_t>(nd), -1);
  std::vector<bool> used(static_cast<size_t>(nd), false);
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = wrap_dim(src[i], nd);
    dst[i] = wrap_dim(dst[i], nd);
    order[dst[i]] = src[i];
    used[src[i]] = true;
  }
  int64_t next = 0;
  for (auto& o : order) {
    if (o != -1) continue;
    while (used[next]) ++next;
    o = next++;
  }
  return permute_impl(self, order);
}

Tensor squeeze_all(const Tensor& self) {
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.sizes()[d] != 1) sz.push_back(self.sizes()[d]), st.push_back(self.strides()[d]);
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor squeeze_dim(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0 || self.sizes()[d] != 1) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  auto sz = self.sizes();
  auto st = self.strides();
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor unsqueeze_impl(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim() + 1);
  auto sz = self.sizes();
  auto st = self.strides();
  const int64_t stride = d >= self.dim() ? 1 : sz[d] * st[d];
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, stride);
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor expand_impl(const Tensor& self, std::vector<int64_t> size) {
  const int64_t nd = static_cast<int64_t>(size.size()), td = self.dim();
  if (nd < td)
    throw InvalidInput(fmt::format("expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the "
                                   "number of dimensions in the tensor ({})", "torch.FloatTensor", shape_string(self.sizes()),
                                   nd, nd, td));
  for (int64_t i = 0; i < nd; ++i) {
    if (size[i] != -1) continue;
    const int64_t ti = i - (nd - td);
    if (ti < 0) throw InvalidInput("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
    size[i] = self.sizes()[ti];
  }
  return expand_to(self, size);
}

// ---- slicing ---------------------------------------------------------------------------------

Tensor slice_impl(const Tensor& self, int64_t dim, const IValue& start_v, const IValue& end_v, int64_t step) {
  if (self.dim() == 0) throw InvalidInput("slice() cannot be applied to a 0-dim tensor.");
  if (step <= 0) throw InvalidInput("slice step must be positive");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  int64_t start = start_v.is_none() ? 0 : start_v.to_int();
  int64_t end = end_v.is_none() ? INT64_MAX : end_v.to_int();
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  auto sz = self.sizes();
  auto st = self.strides();
  sz[d] = (end - start + step - 1) / step;
  const int64_t offset = self.storage_offset() + start * st[d];
  st[d] *= step;
  return make_view(self, std::move(sz), std::move(st), offset);
}

Tensor select_impl(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() == 0) throw InvalidInput("select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  if (index < -n || index >= n)
    throw InvalidInput(fmt::format("select(): index {} out of range for tensor of size {} at dimension {}", index,
                                   shape_string(self.sizes()), d));
  if (index < 0) index += n;
  auto sz = self.sizes();
  auto st = self.strides();
  const int64_t offset = self.storage_offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(self, std::move(sz), std::move(st), offset);
}

Tensor narrow_impl(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  if (self.dim() == 0) throw InvalidInput("narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  if (start < -n || start > n)
    throw InvalidInput(fmt::format("start out of range (expected to be in range of [{}, {}], but got {})", -n, n, start));
  if (start < 0) start += n;
  if (length < 0 || start + length > n) throw InvalidInput(fmt::format("start ({}) + length ({}) exceeds dimension size ({}).", start, length, n));
  auto sz = self.sizes();
  sz[d] = length;
  return make_view(self, std::move(sz), self.strides(), self.storage_offset() + start * self.strides()[d]);
}

std::vector<Tensor> split_sizes_impl(const Tensor& self, const std::vector<int64_t>& sizes, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  int64_t total = 0;
  for (auto s : sizes) {
    if (s < 0) throw InvalidInput(fmt::format("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={}", shape_string(sizes)));
    total += s;
  }
  if (total != n)
    throw InvalidInput(fmt::format("split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension "
                                   "{}), but got split_sizes={}", n, d, shape_string(sizes)));
  std::vector<Tensor> out;
  int64_t at = 0;
  for (auto s : sizes) {
    out.push_back(narrow_impl(self, d, at, s));
    at += s;
  }
  return out;
}

std::vector<Tensor> split_impl(const Tensor& self, int64_t split_size, int64_t dim) {
  if (self.dim() == 0) throw InvalidInput("split expects at least a 1-dimensional tensor");
  if (split_size < 0) throw InvalidInput(fmt::format("split expects split_size be non-negative, but got split_size={}", split_size));
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  if (split_size == 0 && n != 0)
    throw InvalidInput(fmt::format("split_size can only be 0 if dimension size is 0, but got dimension size of {}", n));
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((n + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow_impl(self, d, start, std::min(split_size, n - start)));
  }
  return out;
}

std::vector<Tensor> chunk_impl(const Tensor& self, int64_t chunks, int64_t dim) {
  if (self.dim() == 0) throw InvalidInput("chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0) throw InvalidInput(fmt::format("chunk expects `chunks` to be greater than 0, got: {}", chunks));
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  const int64_t split_size = (n + chunks - 1) / chunks;
  if (split_size == 0 && n == 0) {
    std::vector<int64_t> sizes(static_cast<size_t>(chunks), 0);
    return split_sizes_impl(self, sizes, d);
  }
  return split_impl(self, split_size, d);
}

std::vector<Tensor> unbind_impl(const Tensor& self, int64_t dim) {
  if (self.dim() == 0) throw InvalidInput("Dimension specified as 0 but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(select_impl(self, d, i));
  return out;
}

Tensor diagonal_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t d1 = wrap_dim(dim1, self.dim()), d2 = wrap_dim(dim2, self.dim());
  if (d1 == d2) throw InvalidInput(fmt::format("diagonal dimensions cannot be identical {}, {}", dim1, dim2));
  int64_t off = self.storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.sizes()[d1], self.sizes()[d2] - offset), 0);
    if (len > 0) off += offset * self.strides()[d2];
  } else {
    len = std::max<int64_t>(std::min(self.sizes()[d1] + offset, self.sizes()[d2]), 0);
    if (len > 0) off -= offset * self.strides()[d1];
  }
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != d1 && d != d2) sz.push_back(self.sizes()[d]), st.push_back(self.strides()[d]);
  sz.push_back(len);
  st.push_back(self.strides()[d1] + self.strides()[d2]);
  return make_view(self, std::move(sz), std::move(st), off);
}

Tensor unfold_impl(const Tensor& self, int64_t dim, int64_t size, int64_t step) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  if (size > n) throw InvalidInput(fmt::format("maximum size for tensor at dimension {} is {} but size is {}", d, n, size));
  if (step <= 0) throw InvalidInput(fmt::format("step is {} but must be > 0", step));
  auto sz = self.sizes();
  auto st = self.strides();
  const int64_t base_stride = self.dim() == 0 ? 1 : st[d];
  if (self.dim() > 0) {
    sz[d] = (n - size) / step + 1;
    st[d] *= step;
  }
  sz.push_back(size);
  st.push_back(base_stride);
  return make_view(self, std::move(sz), std::move(st), self.storage_offset());
}

Tensor as_strided_impl(const Tensor& self, const std::vector<int64_t>& size, const std::vector<int64_t>& stride, const IValue& off) {
  const int64_t offset = off.is_none() ? self.storage_offset() : off.to_int();
  return Tensor::view_of(self.storage(), self.dtype(), offset, size, stride, "as_strided");
}

Tensor view_as_real_impl(const Tensor& self) {
  DType real;
  if (self.dtype() == DType::Complex64) real = DType::Float32;
  else if (self.dtype() == DType::Complex128) real = DType::Float64;
  else throw InvalidInput("view_as_real is only supported for complex tensors");
  auto sz = self.sizes();
  auto st = self.strides();
  for (auto& s : st) s *= 2;
  sz.push_back(2);
  st.push_back(1);
  return Tensor::view_of(self.storage(), real, self.storage_offset() * 2, sz, st, "view_as_real");
}

// ---- copies: cat, stack, repeat, pad, pixel shuffle, indexing ----------------------------------

}  // namespace

namespace cpu {

CatPlan plan_cat(const std::vector<Tensor>& ts, int64_t dim) {
  if (ts.empty()) throw InvalidInput("torch.cat(): expected a non-empty list of Tensors");
  CatPlan p;
  // Legacy behavior: 1-D empty tensors are skipped whatever the other shapes.
  std::optional<DType> dt;
  for (const auto& t : ts) {
    dt = dt ? promote_types(*dt, t.dtype()) : t.dtype();
    if (!(t.dim() == 1 && t.sizes()[0] == 0)) p.parts.push_back(&t);
  }
  p.dtype = *dt;
  if (p.parts.empty()) {
    p.shape = ts[0].sizes();
    return p;
  }
  const Tensor& ref = *p.parts[0];
  if (ref.dim() == 0) throw InvalidInput("zero-dimensional tensor (at position 0) cannot be concatenated");
  const int64_t d = wrap_dim(dim, ref.dim());
  p.dim = d;
  p.shape = ref.sizes();
  p.shape[d] = 0;
  for (size_t i = 0; i < p.parts.size(); ++i) {
    const Tensor& t = *p.parts[i];
    if (t.dim() != ref.dim())
      throw InvalidInput(fmt::format("Tensors must have same number of dimensions: got {} and {}", ref.dim(), t.dim()));
    for (int64_t k = 0; k < ref.dim(); ++k)
      if (k != d && t.sizes()[k] != ref.sizes()[k])
        throw InvalidInput(fmt::format("Sizes of tensors must match except in dimension {}. Expected size {} but got size {} for "
                                       "tensor number {} in the list.", d, ref.sizes()[k], t.sizes()[k], i));
    p.shape[d] += t.sizes()[d];
  }
  return p;
}

StackPlan plan_stack(const std::vector<Tensor>& ts, int64_t dim) {
  if (ts.empty()) throw InvalidInput("stack expects a non-empty TensorList");
  StackPlan p;
  p.dim = wrap_dim(dim, ts[0].dim() + 1);
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].sizes() != ts[0].sizes())
      throw InvalidInput(fmt::format("stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                                     shape_string(ts[0].sizes()), shape_string(ts[i].sizes()), i));
    p.parts.push_back(unsqueeze_impl(ts[i], p.dim));
  }
  return p;
}

}  // namespace cpu

namespace {

Tensor cat_impl(const std::vector<Tensor>& ts, int64_t dim) {
  const CatPlan p = plan_cat(ts, dim);
  Tensor out = new_output(p.dtype, p.shape);  // the parts cover every element
  int64_t at = 0;
  for (const Tensor* t : p.parts) {
    Tensor region = narrow_impl(out, p.dim, at, t->sizes()[p.dim]);
    copy_into(*t, region);
    at += t->sizes()[p.dim];
  }
  return out;
}

Tensor stack_impl(const std::vector<Tensor>& ts, int64_t dim) {
  const StackPlan p = plan_stack(ts, dim);
  return cat_impl(p.parts, p.dim);
}

Tensor repeat_impl(const Tensor& self, const std::vector<int64_t>& reps) {
  const int64_t m = static_cast<int64_t>(reps.size()), nd = self.dim();
  if (m < nd)
    throw InvalidInput("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // Source viewed as [r0, s0, r1, s1, ...] with stride 0 on the repeat dims; the output is that
  // shape, contiguous.
  std::vector<int64_t> src_sz, src_st, out_shape;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t ti = i - (m - nd);
    const int64_t s = ti >= 0 ? self.sizes()[ti] : 1;
    const int64_t st = ti >= 0 ? self.strides()[ti] : 0;
    if (reps[i] < 0) throw InvalidInput(fmt::format("Trying to create tensor with negative dimension {}: {}", reps[i], shape_string(reps)));
    src_sz.push_back(reps[i]), src_st.push_back(0);
    src_sz.push_back(s), src_st.push_back(st);
    out_shape.push_back(reps[i] * s);
  }
  Tensor out = new_output(self.dtype(), out_shape);
  if (out.numel() == 0) return out;
  Tensor src = make_view(self, src_sz, src_st, self.storage_offset());
  Tensor dst = make_view(out, src_sz, contiguous_strides(src_sz), 0);
  copy_strided(src, dst);
  return out;
}

Tensor fill_scalar(DType dt, const std::vector<int64_t>& shape, const IValue& value) {
  Tensor out = Tensor::empty(dt, shape);
  const Tensor v = scalar_to_tensor(value, dt);
  copy_into(v, out);
  return out;
}

Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index);

Tensor constant_pad(const Tensor& self, const std::vector<int64_t>& pad, const IValue& value) {
  if (pad.size() % 2 != 0) throw InvalidInput("Length of pad must be even but instead it equals " + std::to_string(pad.size()));
  const int64_t np = static_cast<int64_t>(pad.size()) / 2;
  if (np > self.dim())
    throw InvalidInput(fmt::format("Length of pad should be no more than twice the number of dimensions of the input. Pad length "
                                   "is {} while the input has {} dimensions.", pad.size(), self.dim()));
  std::vector<int64_t> shape = self.sizes();
  Tensor src = self;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = self.dim() - 1 - i;
    const int64_t lo = pad[2 * i], hi = pad[2 * i + 1];
    shape[d] += lo + hi;
    if (shape[d] < 0)
      throw InvalidInput(fmt::format("The input size {}, plus negative padding {} and {} resulted in a negative output size, which "
                                     "is invalid. Check dimension {} of your input.", self.sizes()[d], lo, hi, d));
    // Negative padding crops the input.
    const int64_t crop_lo = std::max<int64_t>(-lo, 0), crop_hi = std::max<int64_t>(-hi, 0);
    src = narrow_impl(src, d, crop_lo, std::max<int64_t>(src.sizes()[d] - crop_lo - crop_hi, 0));
  }
  Tensor out = fill_scalar(self.dtype(), shape, value.is_none() ? IValue(0.0) : value);
  Tensor region = out;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = self.dim() - 1 - i;
    region = narrow_impl(region, d, std::max<int64_t>(pad[2 * i], 0), src.sizes()[d]);
  }
  if (src.numel() > 0) copy_into(src, region);
  return out;
}

// reflect / replicate / circular: gather each padded dim through an index map.
Tensor index_pad(const Tensor& self, const std::vector<int64_t>& pad, const std::string& mode) {
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) / 2 > self.dim())
    throw InvalidInput(fmt::format("Padding length must be divisible by 2 and at most twice the input dims, got {}", pad.size()));
  Tensor out = self;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = self.dim() - 1 - static_cast<int64_t>(i);
    const int64_t n = self.sizes()[d], lo = pad[2 * i], hi = pad[2 * i + 1];
    if (mode == "reflect" && (lo >= n || hi >= n))
      throw InvalidInput(fmt::format("Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                                     "padding ({}, {}) at dimension {} of input {}", lo, hi, d, shape_string(self.sizes())));
    const int64_t m = n + lo + hi;
    Tensor idx = Tensor::empty(DType::Int64, {m});
    int64_t* p = mutable_data_of<int64_t>(idx);
    for (int64_t j = 0; j < m; ++j) {
      int64_t k = j - lo;
      if (mode == "reflect") {
        if (k < 0) k = -k;
        if (k >= n) k = 2 * (n - 1) - k;
      } else if (mode == "replicate") {
        k = std::clamp<int64_t>(k, 0, n - 1);
      } else {
        k = ((k % n) + n) % n;
      }
      p[j] = k;
    }
    out = index_select_impl(out, d, idx);
  }
  return out;
}

Tensor pad_impl(const Tensor& self, const std::vector<int64_t>& pad, const std::string& mode, const IValue& value) {
  if (mode == "constant") return constant_pad(self, pad, value);
  if (!value.is_none() && scalar_double(value) != 0.0)
    throw InvalidInput(fmt::format("Padding mode \"{}\" doesn't take in value argument", mode));
  if (mode == "reflect" || mode == "replicate" || mode == "circular") return index_pad(self, pad, mode);
  throw InvalidInput(fmt::format("Unrecognised padding mode {}", mode));
}

Tensor pixel_shuffle_impl(const Tensor& self, int64_t r, bool inverse) {
  if (self.dim() < 3)
    throw InvalidInput(fmt::format("pixel_{}shuffle expects input to have at least 3 dimensions, but got input with {} dimension(s)",
                                   inverse ? "un" : "", self.dim()));
  if (r <= 0) throw InvalidInput(fmt::format("pixel_{}shuffle expects a positive factor, but got {}", inverse ? "un" : "", r));
  const int64_t nd = self.dim();
  const int64_t c = self.sizes()[nd - 3], h = self.sizes()[nd - 2], w = self.sizes()[nd - 1];
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t b = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split, order, final_shape = batch;
  for (int64_t i = 0; i < b; ++i) order.push_back(i);
  if (!inverse) {
    if (c % (r * r) != 0)
      throw InvalidInput(fmt::format("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                                     "upscale_factor, but input.size(-3)={} is not divisible by {}", c, r * r));
    split = batch;
    split.insert(split.end(), {c / (r * r), r, r, h, w});
    for (int64_t k : {0, 3, 1, 4, 2}) order.push_back(b + k);
    final_shape.insert(final_shape.end(), {c / (r * r), h * r, w * r});
  } else {
    if (h % r != 0 || w % r != 0)
      throw InvalidInput(fmt::format("pixel_unshuffle expects height and width to be divisible by downscale_factor, got {}x{} and {}",
                                     h, w, r));
    split = batch;
    split.insert(split.end(), {c, h / r, r, w / r, r});
    for (int64_t k : {0, 2, 4, 1, 3}) order.push_back(b + k);
    final_shape.insert(final_shape.end(), {c * r * r, h / r, w / r});
  }
  Tensor v = permute_impl(reshape_impl(self, split), order);
  Tensor c_out = Tensor::empty(self.dtype(), v.sizes());
  copy_strided(v, c_out);
  return make_view(c_out, final_shape, contiguous_strides(final_shape), 0);
}

// Index tensors as int64 positions along a dim of size n (negative positions count from the end).
std::vector<int64_t> positions(const Tensor& index, int64_t n, int64_t dim) {
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32)
    throw InvalidInput("tensors used as indices must be long, int, byte or bool tensors");
  const Tensor c = to_dtype(index, DType::Int64);
  const int64_t* p = data_of<int64_t>(c);
  std::vector<int64_t> out(p, p + c.numel());
  for (auto& v : out) {
    if (v < -n || v >= n) throw InvalidInput(fmt::format("index {} is out of bounds for dimension {} with size {}", v, dim, n));
    if (v < 0) v += n;
  }
  return out;
}

Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  if (index.dim() > 1) throw InvalidInput("index_select(): Index is supposed to be a vector");
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  std::vector<int64_t> pos;
  try {
    pos = positions(index, n, d);
  } catch (const InvalidInput&) {
    throw InvalidInput("index out of range in self");
  }
  std::vector<int64_t> shape = self.sizes();
  if (self.dim() > 0) shape[d] = static_cast<int64_t>(pos.size());
  Tensor out = Tensor::empty(self.dtype(), shape);
  if (self.dim() == 0) {
    copy_strided(self, out);
    return out;
  }
  for (size_t i = 0; i < pos.size(); ++i) {
    Tensor dst = select_impl(out, d, static_cast<int64_t>(i));
    copy_strided(select_impl(self, d, pos[i]), dst);
  }
  return out;
}

// Nonzero positions of a bool mask, one int64 tensor per mask dim.
std::vector<Tensor> mask_to_indices(const Tensor& mask) {
  const Tensor m = contiguous(mask);
  const int64_t nd = m.dim(), n = m.numel();
  std::vector<std::vector<int64_t>> idx(static_cast<size_t>(nd));
  const auto* p = static_cast<const uint8_t*>(m.data());
  for (int64_t i = 0; i < n; ++i) {
    if (!p[i]) continue;
    int64_t r = i;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d].push_back(r % m.sizes()[d]);
      r /= m.sizes()[d];
    }
  }
  std::vector<Tensor> out;
  for (auto& v : idx) {
    Tensor t = Tensor::empty(DType::Int64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), mutable_data_of<int64_t>(t));
    out.push_back(t);
  }
  return out;
}

// One entry per indexed dim of `self`: a boolean (or uint8) mask stands for as many index tensors
// as it has dims; None leaves a dim whole.
std::vector<std::optional<Tensor>> index_list(const Tensor& self, const IValue& list) {
  std::vector<std::optional<Tensor>> idx;
  for (const auto& v : list.to_list()->items) {
    if (v.is_none()) {
      idx.emplace_back();
      continue;
    }
    const Tensor& t = v.to_tensor();
    if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
      for (auto& m : mask_to_indices(t.dtype() == DType::Bool ? t : to_dtype(t, DType::Bool))) idx.emplace_back(m);
    } else {
      idx.emplace_back(t);
    }
  }
  if (static_cast<int64_t>(idx.size()) > self.dim())
    throw InvalidInput(fmt::format("too many indices for tensor of dimension {} (got {})", self.dim(), idx.size()));
  return idx;
}

// self[indices] with PyTorch's advanced-indexing rules: the indexed dims are replaced by the
// broadcast index shape, in place when they are adjacent, else at the front.
Tensor index_impl(const Tensor& self, const IValue& list) {
  std::vector<std::optional<Tensor>> idx = index_list(self, list);
  while (static_cast<int64_t>(idx.size()) < self.dim()) idx.emplace_back();
  std::vector<int64_t> indexed, rest;
  std::vector<int64_t> bshape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (idx[d]) {
      indexed.push_back(d);
      bshape = bshape.empty() && indexed.size() == 1 ? idx[d]->sizes() : broadcast_shapes(bshape, idx[d]->sizes());
    } else {
      rest.push_back(d);
    }
  }
  if (indexed.empty()) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  const bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  int64_t bnumel = 1;
  for (auto s : bshape) bnumel *= s;
  // Flat element offsets of each broadcast index position.
  std::vector<int64_t> offs(static_cast<size_t>(bnumel), self.storage_offset());
  for (auto d : indexed) {
    const Tensor b = expand_to(*idx[d], bshape);
    const Tensor bc = contiguous(to_dtype(b, DType::Int64));
    const auto pos = positions(bc, self.sizes()[d], d);
    for (int64_t i = 0; i < bnumel; ++i) offs[i] += pos[i] * self.strides()[d];
  }
  std::vector<int64_t> rest_sz, rest_st;
  for (auto d : rest) rest_sz.push_back(self.sizes()[d]), rest_st.push_back(self.strides()[d]);
  std::vector<int64_t> gathered_shape = bshape;
  gathered_shape.insert(gathered_shape.end(), rest_sz.begin(), rest_sz.end());
  Tensor out = Tensor::empty(self.dtype(), gathered_shape);
  int64_t rest_numel = 1;
  for (auto s : rest_sz) rest_numel *= s;
  for (int64_t i = 0; i < bnumel; ++i) {
    Tensor src = make_view(self, rest_sz, rest_st, offs[i]);
    Tensor dst = make_view(out, rest_sz, contiguous_strides(rest_sz), i * rest_numel);
    copy_strided(src, dst);
  }
  const int64_t lead = adjacent ? indexed.front() : 0;
  if (lead == 0) return out;
  // Move the broadcast dims after the `lead` leading non-indexed dims.
  const int64_t nb = static_cast<int64_t>(bshape.size());
  std::vector<int64_t> order;
  for (int64_t i = 0; i < lead; ++i) order.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) order.push_back(i);
  for (int64_t i = nb + lead; i < out.dim(); ++i) order.push_back(i);
  return contiguous(permute_impl(out, order));
}

// self[indices] = values (or += with accumulate): the positions index_impl reads, in the layout of
// its result, which `values` is broadcast to.
void index_put_into(Tensor& self, const IValue& list, const Tensor& values, bool accumulate) {
  std::vector<std::optional<Tensor>> idx = index_list(self, list);
  if (values.dtype() != self.dtype())
    throw InvalidInput(fmt::format("Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
                                   scalar_type_name(self.dtype()), scalar_type_name(values.dtype())));
  while (static_cast<int64_t>(idx.size()) < self.dim()) idx.emplace_back();
  std::vector<int64_t> indexed, pre, post, bshape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (idx[d]) {
      indexed.push_back(d);
      bshape = indexed.size() == 1 ? idx[d]->sizes() : broadcast_shapes(bshape, idx[d]->sizes());
    }
  }
  const bool adjacent = !indexed.empty() && indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (idx[d]) continue;
    if (adjacent && d < indexed.front()) pre.push_back(d);
    else post.push_back(d);
  }
  int64_t bnumel = 1;
  for (auto n : bshape) bnumel *= n;
  std::vector<int64_t> offs(static_cast<size_t>(bnumel), self.storage_offset());
  for (auto d : indexed) {
    const Tensor bc = contiguous(to_dtype(expand_to(*idx[d], bshape), DType::Int64));
    const auto pos = positions(bc, self.sizes()[d], d);
    for (int64_t i = 0; i < bnumel; ++i) offs[i] += pos[i] * self.strides()[d];
  }
  // The result layout: pre dims, broadcast index dims, post dims.
  std::vector<int64_t> rshape;
  for (auto d : pre) rshape.push_back(self.sizes()[d]);
  rshape.insert(rshape.end(), bshape.begin(), bshape.end());
  for (auto d : post) rshape.push_back(self.sizes()[d]);
  std::vector<int64_t> vb;
  try {
    vb = broadcast_shapes(values.sizes(), rshape);
  } catch (const InvalidInput&) {
  }
  if (vb != rshape)
    throw InvalidInput(fmt::format("shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                                   shape_string(values.sizes()), shape_string(rshape)));
  const Tensor src = contiguous(expand_to(values, rshape));
  int64_t rnumel = 1;
  for (auto n : rshape) rnumel *= n;
  const int64_t npre = static_cast<int64_t>(pre.size()), nb = static_cast<int64_t>(bshape.size());
  std::vector<int64_t> c(rshape.size(), 0);
  dispatch_dtype(self.dtype(), "index_put_", [&](auto tag) {
    using T = decltype(tag);
    T* base = static_cast<T*>(self.mutable_data()) - self.storage_offset();
    const T* sv = data_of<T>(src);
    for (int64_t i = 0; i < rnumel; ++i) {
      int64_t b = 0, off = 0;
      for (int64_t k = 0; k < nb; ++k) b = b * bshape[k] + c[npre + k];
      off = offs.empty() ? self.storage_offset() : offs[b];
      for (int64_t k = 0; k < npre; ++k) off += c[k] * self.strides()[pre[k]];
      for (size_t k = 0; k < post.size(); ++k) off += c[npre + nb + k] * self.strides()[post[k]];
      if (accumulate) base[off] = static_cast<T>(base[off] + sv[i]);
      else base[off] = sv[i];
      for (int64_t d = static_cast<int64_t>(rshape.size()) - 1; d >= 0; --d) {
        if (++c[d] < rshape[d]) break;
        c[d] = 0;
      }
    }
  });
}

// triu/tril over the last two dims: entries below (triu) or above (tril) diagonal `k` become 0.
void triangle_into(Tensor& out, int64_t k, bool upper, const char* op) {
  if (out.dim() < 2) throw InvalidInput(fmt::format("{}: input tensor must have at least 2 dimensions", op));
  const int64_t r = out.sizes()[out.dim() - 2], c = out.sizes()[out.dim() - 1];
  const int64_t mats = r * c == 0 ? 0 : out.numel() / (r * c);
  std::vector<int64_t> batch(out.sizes().begin(), out.sizes().end() - 2);
  const size_t es = element_size(out.dtype());
  char* base = static_cast<char*>(out.mutable_data()) - out.storage_offset() * static_cast<int64_t>(es);
  std::vector<int64_t> bi(batch.size(), 0);
  for (int64_t m = 0; m < mats; ++m) {
    int64_t off = out.storage_offset();
    for (size_t d = 0; d < batch.size(); ++d) off += bi[d] * out.strides()[d];
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j)
        if (upper ? j - i < k : j - i > k)
          std::memset(base + (off + i * out.strides()[out.dim() - 2] + j * out.strides()[out.dim() - 1]) * static_cast<int64_t>(es), 0, es);
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      if (++bi[d] < batch[d]) break;
      bi[d] = 0;
    }
  }
}

// Runs another registered kernel on `args` and returns its first output.
IValue call_kernel(const char* name, Stack args) {
  const KernelFn fn = find_kernel(name);
  if (!fn) throw Unsupported(fmt::format("no kernel for {}", name));
  fn(args);
  return args[0];
}

// repeat_interleave: each element (each slice along dim) repeated repeats[i] times.
Tensor repeat_interleave_impl(const Tensor& self, const Tensor& repeats, const IValue& dim_arg) {
  Tensor x = self;
  int64_t dim = 0;
  if (dim_arg.is_none()) {
    Tensor c = contiguous(self);
    x = make_view(c, {c.numel()}, {1}, c.storage_offset());
  } else {
    dim = wrap_dim(dim_arg.to_int(), std::max<int64_t>(self.dim(), 1));
  }
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  const Tensor r = to_dtype(contiguous(repeats), DType::Int64);
  if (r.dim() > 1) throw InvalidInput("repeat_interleave only accept 1D vector as repeat");
  if (r.numel() != 1 && r.numel() != n) throw InvalidInput("repeats must have the same size as input along dim");
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = data_of<int64_t>(r)[r.numel() == 1 ? 0 : i];
    if (k < 0) throw InvalidInput("repeats can not be negative");
    for (int64_t j = 0; j < k; ++j) idx.push_back(i);
  }
  Tensor it = Tensor::empty(DType::Int64, {static_cast<int64_t>(idx.size())});
  std::copy(idx.begin(), idx.end(), mutable_data_of<int64_t>(it));
  return index_select_impl(x, dim, it);
}

// meshgrid: input i (0- or 1-D) laid along dim i of the common shape, expanded ("xy" swaps the
// first two inputs' dims).
std::vector<Tensor> meshgrid_impl(const std::vector<Tensor>& ts, const std::string& indexing) {
  if (indexing != "ij" && indexing != "xy")
    throw InvalidInput(fmt::format("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}", indexing));
  std::vector<int64_t> shape;
  for (const auto& t : ts) {
    if (t.dim() > 1) throw InvalidInput(fmt::format("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}", t.dim()));
    shape.push_back(t.numel());
  }
  const bool swap = indexing == "xy" && ts.size() >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < ts.size(); ++i) {
    const size_t at = swap && i < 2 ? 1 - i : i;
    std::vector<int64_t> sizes(shape.size(), 1), strides(shape.size(), 0);
    sizes[at] = ts[i].numel();
    strides[at] = ts[i].dim() == 0 ? 0 : ts[i].strides()[0];
    std::vector<int64_t> full_strides(shape.size(), 0);
    full_strides[at] = strides[at];
    out.push_back(make_view(ts[i], shape, full_strides, ts[i].storage_offset()));
  }
  return out;
}

Tensor one_hot_impl(const Tensor& self, int64_t classes) {
  if (self.dtype() != DType::Int64) throw InvalidInput("one_hot is only applicable to index tensor of type LongTensor.");
  const Tensor x = contiguous(self);
  int64_t mx = -1;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t v = data_of<int64_t>(x)[i];
    if (v < 0) throw InvalidInput("Class values must be non-negative.");
    mx = std::max(mx, v);
  }
  if (classes == -1) {
    if (x.numel() == 0) throw InvalidInput("Can not infer total number of classes from empty tensor.");
    classes = mx + 1;
  } else if (mx >= classes) {
    throw InvalidInput("Class values must be smaller than num_classes.");
  }
  std::vector<int64_t> shape = self.sizes();
  shape.push_back(classes);
  Tensor out = Tensor::empty(DType::Int64, shape);
  int64_t* o = mutable_data_of<int64_t>(out);
  std::fill(o, o + out.numel(), 0);
  for (int64_t i = 0; i < x.numel(); ++i) o[i * classes + data_of<int64_t>(x)[i]] = 1;
  return out;
}

// tensor_split at the given boundaries along dim (views); sections: the first len % n get one more.
std::vector<Tensor> split_at(const Tensor& self, const std::vector<int64_t>& bounds, int64_t dim) {
  std::vector<Tensor> out;
  const int64_t len = self.sizes()[dim];
  int64_t start = 0;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    int64_t end = i < bounds.size() ? bounds[i] : len;
    end = std::clamp<int64_t>(end, 0, len);
    const int64_t b = std::clamp<int64_t>(start, 0, len);
    out.push_back(call_kernel("aten::slice.Tensor", {IValue(self), IValue(dim), IValue(b), IValue(std::max(b, end)), IValue(int64_t{1})}).to_tensor());
    start = i < bounds.size() ? bounds[i] : len;
  }
  return out;
}

std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t n, int64_t dim0) {
  if (self.dim() == 0) throw InvalidInput("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  if (n <= 0) throw InvalidInput(fmt::format("number of sections must be larger than 0, got {}", n));
  const int64_t dim = wrap_dim(dim0, self.dim());
  const int64_t len = self.sizes()[dim], base = len / n, extra = len % n;
  std::vector<int64_t> bounds;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    at += base + (i < extra ? 1 : 0);
    bounds.push_back(at);
  }
  return split_at(self, bounds, dim);
}

// hsplit/vsplit with a section count: an even split or an error.
std::vector<Tensor> even_split(const Tensor& self, int64_t sections, int64_t dim, const char* op) {
  if (sections <= 0 || self.sizes()[dim] % sections != 0)
    throw InvalidInput(fmt::format("torch.{} attempted to split along dimension {}, but the size of the dimension {} is not divisible by the split_size {}!",
                                   op, dim, self.sizes()[dim], sections));
  return tensor_split_sections(self, sections, dim);
}

// A new contiguous tensor with self's values (ops that always copy, even when nothing moves).
Tensor copy_of(const Tensor& self) {
  Tensor c = empty_like(self);
  copy_strided(self, c);
  return c;
}

Tensor flip_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  Tensor out = self;
  for (auto d0 : dims) {
    const int64_t d = wrap_dim(d0, self.dim());
    const int64_t n = self.sizes()[d];
    Tensor idx = Tensor::empty(DType::Int64, {n});
    for (int64_t i = 0; i < n; ++i) mutable_data_of<int64_t>(idx)[i] = n - 1 - i;
    out = index_select_impl(out, d, idx);
  }
  return out.same(self) ? copy_of(self) : out;
}

Tensor gather_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  if (index.dtype() != DType::Int64) throw InvalidInput("gather(): Expected dtype int64 for index");
  if (index.dim() != self.dim() && !(self.dim() == 0 && index.dim() <= 1))
    throw InvalidInput("Index tensor must have the same number of dimensions as input tensor");
  Tensor out = Tensor::empty(self.dtype(), index.sizes());
  const int64_t n = out.numel();
  const int64_t nd = index.dim();
  const int64_t es = static_cast<int64_t>(element_size(self.dtype()));
  const auto* src = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.mutable_data());
  const int64_t size_d = self.dim() == 0 ? 1 : self.sizes()[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i, ioff = 0, soff = 0;
    int64_t pos_d = 0;
    for (int64_t k = nd - 1; k >= 0; --k) {
      const int64_t c = r % index.sizes()[k];
      r /= index.sizes()[k];
      ioff += c * index.strides()[k];
      if (k != d) {
        if (c >= self.sizes()[k]) throw InvalidInput(fmt::format("Size does not match at dimension {} expected index {} to be smaller than self {} apart from dimension {}", k, shape_string(index.sizes()), shape_string(self.sizes()), d));
        soff += c * self.strides()[k];
      }
    }
    pos_d = data_of<int64_t>(index)[ioff];
    if (pos_d < -size_d || pos_d >= size_d)
      throw InvalidInput(fmt::format("index {} is out of bounds for dimension {} with size {}", pos_d, d, size_d));
    if (pos_d < 0) pos_d += size_d;
    if (self.dim() > 0) soff += pos_d * self.strides()[d];
    std::memcpy(dst + i * es, src + soff * es, static_cast<size_t>(es));
  }
  return out;
}

Tensor roll_impl(const Tensor& self, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  if (dims.empty()) {
    if (shifts.size() != 1) throw InvalidInput("shifts and dimensions must align");
    const Tensor flat = reshape_impl(self, {-1});
    return reshape_impl(roll_impl(flat, shifts, {0}), self.sizes());
  }
  if (shifts.size() != dims.size())
    throw InvalidInput(fmt::format("shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(), dims.size()));
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim());
    const int64_t n = self.sizes()[d];
    if (n == 0) continue;
    Tensor idx = Tensor::empty(DType::Int64, {n});
    for (int64_t j = 0; j < n; ++j) mutable_data_of<int64_t>(idx)[j] = (((j - shifts[i]) % n) + n) % n;
    out = index_select_impl(out, d, idx);
  }
  return out.same(self) ? copy_of(self) : out;
}

}  // namespace

void register_shape_kernels() {
  register_kernel("aten::view", [](Stack& s) { set_output(s, view_impl(targ(s, 0), int_list(s[1]))); });
  register_kernel("aten::view_as", [](Stack& s) { set_output(s, view_impl(targ(s, 0), targ(s, 1).sizes())); });
  register_kernel("aten::reshape", [](Stack& s) { set_output(s, reshape_impl(targ(s, 0), int_list(s[1]))); });
  register_kernel("aten::reshape_as", [](Stack& s) { set_output(s, reshape_impl(targ(s, 0), targ(s, 1).sizes())); });
  register_kernel("aten::flatten.using_ints",
                  [](Stack& s) { set_output(s, flatten_impl(targ(s, 0), s[1].to_int(), s[2].to_int())); });
  register_kernel("aten::unflatten.int", [](Stack& s) { set_output(s, unflatten_impl(targ(s, 0), s[1].to_int(), int_list(s[2]))); });
  register_kernel("aten::permute", [](Stack& s) { set_output(s, permute_impl(targ(s, 0), int_list(s[1]))); });
  for (const char* name : {"aten::transpose.int", "aten::swapaxes"})
    register_kernel(name, [](Stack& s) { set_output(s, transpose_impl(targ(s, 0), s[1].to_int(), s[2].to_int())); });
  register_kernel("aten::t", [](Stack& s) { set_output(s, t_impl(targ(s, 0))); });
  for (const char* name : {"aten::movedim.int", "aten::movedim.intlist", "aten::moveaxis.int", "aten::moveaxis.intlist"})
    register_kernel(name, [](Stack& s) { set_output(s, movedim_impl(targ(s, 0), int_list(s[1]), int_list(s[2]))); });
  register_kernel("aten::squeeze", [](Stack& s) { set_output(s, squeeze_all(targ(s, 0))); });
  register_kernel("aten::squeeze.dim", [](Stack& s) { set_output(s, squeeze_dim(targ(s, 0), s[1].to_int())); });
  register_kernel("aten::unsqueeze", [](Stack& s) { set_output(s, unsqueeze_impl(targ(s, 0), s[1].to_int())); });
  register_kernel("aten::expand", [](Stack& s) { set_output(s, expand_impl(targ(s, 0), int_list(s[1]))); });
  register_kernel("aten::expand_as", [](Stack& s) { set_output(s, expand_impl(targ(s, 0), targ(s, 1).sizes())); });
  register_kernel("aten::contiguous", [](Stack& s) { set_output(s, contiguous(targ(s, 0))); });

  register_kernel("aten::slice.Tensor",
                  [](Stack& s) { set_output(s, slice_impl(targ(s, 0), s[1].to_int(), s[2], s[3], s[4].to_int())); });
  register_kernel("aten::select.int", [](Stack& s) { set_output(s, select_impl(targ(s, 0), s[1].to_int(), s[2].to_int())); });
  register_kernel("aten::narrow",
                  [](Stack& s) { set_output(s, narrow_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_int())); });
  register_kernel("aten::chunk", [](Stack& s) { set_output(s, tensor_list(chunk_impl(targ(s, 0), s[1].to_int(), s[2].to_int()))); });
  for (const char* name : {"aten::split.Tensor", "aten::unsafe_split.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, tensor_list(split_impl(targ(s, 0), s[1].to_int(), s[2].to_int()))); });
  for (const char* name : {"aten::split.sizes", "aten::split", "aten::split_with_sizes"})
    register_kernel(name, [](Stack& s) { set_output(s, tensor_list(split_sizes_impl(targ(s, 0), int_list(s[1]), s[2].to_int()))); });
  register_kernel("aten::unbind.int", [](Stack& s) { set_output(s, tensor_list(unbind_impl(targ(s, 0), s[1].to_int()))); });
  register_kernel("aten::diagonal",
                  [](Stack& s) { set_output(s, diagonal_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_int())); });
  register_kernel("aten::unfold",
                  [](Stack& s) { set_output(s, unfold_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_int())); });
  register_kernel("aten::as_strided",
                  [](Stack& s) { set_output(s, as_strided_impl(targ(s, 0), int_list(s[1]), int_list(s[2]), s[3])); });
  register_kernel("aten::view_as_real", [](Stack& s) { set_output(s, view_as_real_impl(targ(s, 0))); });

  register_kernel("aten::cat", [](Stack& s) { set_output(s, cat_impl(tensors_of(s[0]), s[1].to_int())); });
  register_kernel("aten::stack", [](Stack& s) { set_output(s, stack_impl(tensors_of(s[0]), s[1].to_int())); });
  register_kernel("aten::repeat", [](Stack& s) { set_output(s, repeat_impl(targ(s, 0), int_list(s[1]))); });
  register_kernel("aten::pad", [](Stack& s) { set_output(s, pad_impl(targ(s, 0), int_list(s[1]), s[2].to_string(), s[3])); });
  register_kernel("aten::constant_pad_nd", [](Stack& s) { set_output(s, constant_pad(targ(s, 0), int_list(s[1]), s[2])); });
  register_kernel("aten::pixel_shuffle", [](Stack& s) { set_output(s, pixel_shuffle_impl(targ(s, 0), s[1].to_int(), false)); });
  register_kernel("aten::pixel_unshuffle", [](Stack& s) { set_output(s, pixel_shuffle_impl(targ(s, 0), s[1].to_int(), true)); });
  for (const char* name : {"aten::index.Tensor", "aten::index.Tensor_hacked_twin"})
    register_kernel(name, [](Stack& s) { set_output(s, index_impl(targ(s, 0), s[1])); });
  for (const char* name : {"aten::index_put_", "aten::index_put_.hacked_twin", "aten::_index_put_impl_", "aten::_index_put_impl_.hacked_twin"})
    register_kernel(name, [](Stack& s) {
      Tensor self = targ(s, 0);
      index_put_into(self, s[1], targ(s, 2), s[3].to_bool());
      set_output(s, std::move(self));
    });
  for (const char* name : {"aten::index_put", "aten::index_put.hacked_twin"})
    register_kernel(name, [](Stack& s) {
      Tensor self = copy_of(targ(s, 0));
      index_put_into(self, s[1], targ(s, 2), s[3].to_bool());
      set_output(s, std::move(self));
    });
  for (bool upper : {true, false}) {
    register_kernel(upper ? "aten::triu" : "aten::tril", upper ? KernelFn([](Stack& s) {
      Tensor out = copy_of(targ(s, 0));
      triangle_into(out, s[1].to_int(), true, "triu");
      set_output(s, std::move(out));
    }) : KernelFn([](Stack& s) {
      Tensor out = copy_of(targ(s, 0));
      triangle_into(out, s[1].to_int(), false, "tril");
      set_output(s, std::move(out));
    }));
    register_kernel(upper ? "aten::triu_" : "aten::tril_", upper ? KernelFn([](Stack& s) {
      Tensor self = targ(s, 0);
      triangle_into(self, s[1].to_int(), true, "triu_");
      set_output(s, std::move(self));
    }) : KernelFn([](Stack& s) {
      Tensor self = targ(s, 0);
      triangle_into(self, s[1].to_int(), false, "tril_");
      set_output(s, std::move(self));
    }));
  }
  register_kernel("aten::repeat_interleave.self_int", [](Stack& s) {
    set_output(s, repeat_interleave_impl(targ(s, 0), scalar_to_tensor(s[1], DType::Int64), s[2]));
  });
  register_kernel("aten::repeat_interleave.self_Tensor", [](Stack& s) { set_output(s, repeat_interleave_impl(targ(s, 0), targ(s, 1), s[2])); });
  register_kernel("aten::repeat_interleave.Tensor", [](Stack& s) {  // the indices each repeat count makes
    const Tensor& r = targ(s, 0);
    Tensor ar = Tensor::empty(DType::Int64, {r.numel()});
    for (int64_t i = 0; i < r.numel(); ++i) mutable_data_of<int64_t>(ar)[i] = i;
    set_output(s, repeat_interleave_impl(ar, r, IValue(int64_t{0})));
  });
  register_kernel("aten::tile", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    std::vector<int64_t> dims = int_list(s[1]);
    while (static_cast<int64_t>(dims.size()) < x.dim()) dims.insert(dims.begin(), 1);
    set_output(s, repeat_impl(x, dims));
  });
  register_kernel("aten::meshgrid", [](Stack& s) { set_output(s, tensor_list(meshgrid_impl(tensors_of(s[0]), "ij"))); });
  register_kernel("aten::meshgrid.indexing", [](Stack& s) { set_output(s, tensor_list(meshgrid_impl(tensors_of(s[0]), s[1].to_string()))); });
  register_kernel("aten::one_hot", [](Stack& s) { set_output(s, one_hot_impl(targ(s, 0), s[1].to_int())); });
  register_kernel("aten::tensor_split.sections", [](Stack& s) {
    set_output(s, tensor_list(tensor_split_sections(targ(s, 0), s[1].to_int(), s[2].to_int())));
  });
  register_kernel("aten::tensor_split.indices", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    if (x.dim() == 0) throw InvalidInput("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    set_output(s, tensor_list(split_at(x, int_list(s[1]), wrap_dim(s[2].to_int(), x.dim()))));
  });
  register_kernel("aten::hsplit.int", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    if (x.dim() < 1) throw InvalidInput("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!");
    set_output(s, tensor_list(even_split(x, s[1].to_int(), x.dim() == 1 ? 0 : 1, "hsplit")));
  });
  register_kernel("aten::vsplit.int", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    if (x.dim() < 2)
      throw InvalidInput(fmt::format("torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with {} dimensions!", x.dim()));
    set_output(s, tensor_list(even_split(x, s[1].to_int(), 0, "vsplit")));
  });
  register_kernel("aten::index_select", [](Stack& s) { set_output(s, index_select_impl(targ(s, 0), s[1].to_int(), targ(s, 2))); });
  register_kernel("aten::gather", [](Stack& s) { set_output(s, gather_impl(targ(s, 0), s[1].to_int(), targ(s, 2))); });
  register_kernel("aten::flip", [](Stack& s) { set_output(s, flip_impl(targ(s, 0), int_list(s[1]))); });
  register_kernel("aten::roll", [](Stack& s) { set_output(s, roll_impl(targ(s, 0), int_list(s[1]), int_list(s[2]))); });
}

}  // namespace jitctl
