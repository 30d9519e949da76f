#include "kernels/cpu/tensor_util.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/output.h"

namespace jitctl::cpu {

Tensor empty_like(const Tensor& t) { return Tensor::empty(t.dtype(), t.sizes()); }

namespace {

struct Word16 {
  uint64_t lo, hi;
};

// Same-dtype copies only move bytes: one loop per element size, not per dtype.
template <class Word>
void copy_words(const Tensor& src, Tensor& dst) {
  StridedLoop it(dst, {&src});
  unary_loop<Word, Word>(it, [](Word w) { return w; });
}

// dst (contiguous) = src whose last two dims are transposed in memory: 32x32 tiles keep both the
// reads and the writes in cache, where a row-by-row walk would touch a new line per element.
template <class Word>
void tiled_copy(const Tensor& src, Tensor& dst) {
  constexpr int64_t kTile = 32;
  const int64_t nd = src.dim();
  const int64_t M = src.sizes()[nd - 2], N = src.sizes()[nd - 1];
  const int64_t sm = src.strides()[nd - 2], sn = src.strides()[nd - 1];
  const int64_t batch = src.numel() / (M * N), mblocks = (M + kTile - 1) / kTile;
  const Word* s = static_cast<const Word*>(src.data());
  Word* d = static_cast<Word*>(dst.mutable_data());
  parallel_for(0, batch * mblocks, std::max<int64_t>(1, kGrainSize / (kTile * N)), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t bi = t / mblocks, i0 = (t % mblocks) * kTile, i1 = std::min(M, i0 + kTile);
      int64_t off = 0;
      for (int64_t k = nd - 3, r = bi; k >= 0; --k) {
        off += (r % src.sizes()[k]) * src.strides()[k];
        r /= src.sizes()[k];
      }
      Word* out = d + bi * M * N;
      for (int64_t j0 = 0; j0 < N; j0 += kTile) {
        const int64_t j1 = std::min(N, j0 + kTile);
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j) out[i * N + j] = s[off + i * sm + j * sn];
      }
    }
  });
}

}  // namespace

void copy_strided(const Tensor& src, Tensor& dst) {
  const int64_t n = src.numel();
  if (n == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    std::memcpy(dst.mutable_data(), src.data(), static_cast<size_t>(n) * element_size(src.dtype()));
    return;
  }
  if (dst.is_contiguous()) {
    // Dims that are one run of src's memory merged (and size-1 dims dropped), so that a layout
    // change such as channels-last to contiguous ([N, C, H, W] with strides [HWC, 1, WC, C]: the
    // last two dims [C, HW] transposed) is seen as the tiled transpose it is.
    std::vector<int64_t> sz, st;
    for (int64_t i = 0; i < src.dim(); ++i) {
      if (src.sizes()[i] == 1) continue;
      if (!sz.empty() && st.back() == src.strides()[i] * src.sizes()[i]) {
        sz.back() *= src.sizes()[i];
        st.back() = src.strides()[i];
      } else {
        sz.push_back(src.sizes()[i]);
        st.push_back(src.strides()[i]);
      }
    }
    const size_t nd = sz.size();
    if (nd >= 2 && st[nd - 2] < st[nd - 1] && element_size(src.dtype()) <= 8) {
      const Tensor s = make_view(src, sz, st, src.storage_offset());
      Tensor d = make_view(dst, sz, contiguous_strides(sz), dst.storage_offset());
      switch (element_size(src.dtype())) {
        case 1: tiled_copy<uint8_t>(s, d); return;
        case 2: tiled_copy<uint16_t>(s, d); return;
        case 4: tiled_copy<uint32_t>(s, d); return;
        case 8: tiled_copy<uint64_t>(s, d); return;
        default: break;
      }
    }
  }
  switch (element_size(src.dtype())) {
    case 1: copy_words<uint8_t>(src, dst); break;
    case 2: copy_words<uint16_t>(src, dst); break;
    case 4: copy_words<uint32_t>(src, dst); break;
    case 8: copy_words<uint64_t>(src, dst); break;
    case 16: copy_words<Word16>(src, dst); break;
    default:
      throw Unsupported(fmt::format("copying a strided {} tensor is not supported yet", dtype_name(src.dtype())));
  }
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = new_output(t.dtype(), t.sizes());  // every element copied: no zero-fill first
  copy_strided(t, out);
  return out;
}

std::vector<int64_t> int_list(const IValue& v) {
  if (v.is(IValue::Kind::Int)) return {v.to_int()};
  std::vector<int64_t> out;
  for (auto& x : v.to_list()->items) out.push_back(x.to_int());
  return out;
}

DType scalar_type_arg(const IValue& v) {
  const int64_t code = v.to_int();
  if (code < 0 || code > static_cast<int64_t>(DType::QUInt2x4)) throw InvalidInput(fmt::format("unknown ScalarType {}", code));
  return static_cast<DType>(code);
}

double scalar_double(const IValue& v) {
  if (v.is(IValue::Kind::Bool)) return v.to_bool() ? 1.0 : 0.0;
  return v.to_double();
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim >= n)
    throw InvalidInput(fmt::format("Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim));
  return dim < 0 ? dim + n : dim;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    auto width = [](DType d) {
      return d == DType::Complex128 || d == DType::Float64 ? 2 : d == DType::Complex64 || d == DType::Float32 ? 1 : 0;
    };
    return std::max(width(a), width(b)) == 2 ? DType::Complex128 : DType::Complex64;
  }
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;  // float32 with a half type, or float16 with bfloat16
  }
  if (fa) return a;
  if (fb) return b;
  if (a == DType::UInt8 || b == DType::UInt8) {
    const DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

namespace {

// ATen's combine_categories: a lower-priority operand matters only when its category is higher.
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_floating(*higher) && !is_complex(*lower)) return higher;
  if (*higher == DType::Bool || is_floating(*lower) || is_complex(*lower)) return promote_types(*higher, *lower);
  return higher;
}

void promote_into(std::optional<DType>& acc, DType d) { acc = acc ? promote_types(*acc, d) : d; }

}  // namespace

DType result_type(const std::vector<const IValue*>& operands) {
  std::optional<DType> dim, zero, wrapped;
  for (const IValue* v : operands) {
    switch (v->kind()) {
      case IValue::Kind::Tensor: {
        const Tensor& t = v->to_tensor();
        promote_into(t.dim() > 0 ? dim : zero, t.dtype());
        break;
      }
      case IValue::Kind::Bool: promote_into(wrapped, DType::Bool); break;
      case IValue::Kind::Int: promote_into(wrapped, DType::Int64); break;
      case IValue::Kind::Double: promote_into(wrapped, DType::Float32); break;
      case IValue::Kind::Complex: promote_into(wrapped, DType::Complex64); break;
      case IValue::Kind::None: break;
      default:
        throw Unsupported(fmt::format("type promotion with a {} operand is not supported", kind_name(v->kind())));
    }
  }
  auto r = combine_categories(dim, combine_categories(zero, wrapped));
  return r ? *r : DType::Float32;
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw InvalidInput(fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}",
                                     da, db, i));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  // A view's sizes may come from the model (expand, as_strided): its element count must fit in
  // int64, or numel() wraps around and a kernel sees the wrong number of elements.
  unsigned __int128 numel = 1;
  for (int64_t s : sizes) {
    numel *= static_cast<unsigned __int128>(s < 0 ? 0 : s);
    if (numel > (static_cast<unsigned __int128>(1) << 62))
      throw InvalidInput(fmt::format("Storage size calculation overflowed with sizes={}", shape_string(sizes)));
  }
  return Tensor::unchecked_view(base.storage(), base.dtype(), offset, std::move(sizes), std::move(strides));
}

Tensor expand_to(const Tensor& t, const std::vector<int64_t>& shape) {
  const int64_t nd = static_cast<int64_t>(shape.size()), td = t.dim();
  if (td > nd)
    throw InvalidInput(fmt::format("expand: the number of sizes provided ({}) must be greater or equal to the number of "
                                   "dimensions in the tensor ({})", nd, td));
  std::vector<int64_t> strides(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < td; ++i) {
    const int64_t d = nd - td + i;
    const int64_t s = t.sizes()[i];
    if (s == shape[d]) strides[d] = t.strides()[i];
    else if (s != 1)
      throw InvalidInput(fmt::format("The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton "
                                     "dimension {}.  Target sizes: {}.  Tensor sizes: {}", shape[d], s, d,
                                     shape_string(shape), shape_string(t.sizes())));
  }
  return make_view(t, shape, std::move(strides), t.storage_offset());
}

Tensor scalar_to_tensor(const IValue& v, DType dt) {
  Tensor out = Tensor::empty(dt, {});
  if (is_complex(dt)) {
    const std::complex<double> c = v.is(IValue::Kind::Complex) ? v.to_complex() : std::complex<double>(scalar_double(v), 0.0);
    dispatch_complex(dt, "scalar_to_tensor", [&](auto tag) {
      using C = decltype(tag);
      *mutable_data_of<C>(out) = C(c);
    });
    return out;
  }
  dispatch_dtype(dt, "scalar_to_tensor", [&](auto tag) {
    using T = decltype(tag);
    T* p = mutable_data_of<T>(out);
    if (v.is(IValue::Kind::Bool)) *p = static_cast<T>(v.to_bool());
    else if (v.is(IValue::Kind::Int)) *p = static_cast<T>(v.to_int());
    else *p = static_cast<T>(v.to_double());
  });
  return out;
}

Tensor operand_as(const IValue& v, DType dt) {
  if (!v.is_tensor()) return scalar_to_tensor(v, dt);
  const Tensor& t = v.to_tensor();
  return t.dtype() == dt ? t : to_dtype(t, dt);
}

Tensor to_dtype(const Tensor& t, DType dt) {
  if (t.dtype() == dt && t.is_contiguous()) return t;
  Tensor out = new_output(dt, t.sizes());
  copy_into(t, out);
  return out;
}

namespace {

bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// Conversions through float32 (half types) and to/from complex (a real value gains a zero
// imaginary part; a complex one loses it, as PyTorch does with a warning).
void copy_special(const Tensor& src, Tensor& dst) {
  if (is_half(src.dtype())) {
    Tensor f = Tensor::empty(DType::Float32, src.sizes());
    StridedLoop it(f, {&src});
    if (src.dtype() == DType::Float16) unary_loop<float, uint16_t>(it, [](uint16_t h) { return half_to_float(h); });
    else unary_loop<float, uint16_t>(it, [](uint16_t h) { return bfloat16_to_float(h); });
    copy_into(f, dst);
    return;
  }
  if (is_half(dst.dtype())) {
    const Tensor f = to_dtype(src, DType::Float32);
    StridedLoop it(dst, {&f});
    if (dst.dtype() == DType::Float16) unary_loop<uint16_t, float>(it, [](float v) { return float_to_half(v); });
    else unary_loop<uint16_t, float>(it, [](float v) { return float_to_bfloat16(v); });
    return;
  }
  StridedLoop it(dst, {&src});
  if (is_complex(dst.dtype())) {
    dispatch_complex(dst.dtype(), "copy", [&](auto dtag) {
      using D = decltype(dtag);
      if (is_complex(src.dtype())) {
        dispatch_complex(src.dtype(), "copy", [&](auto stag) {
          using S = decltype(stag);
          unary_loop<D, S>(it, [](S x) { return D(x); });
        });
      } else {
        dispatch_dtype(src.dtype(), "copy", [&](auto stag) {
          using S = decltype(stag);
          unary_loop<D, S>(it, [](S x) { return D(static_cast<typename D::value_type>(x)); });
        });
      }
    });
    return;
  }
  dispatch_complex(src.dtype(), "copy", [&](auto stag) {
    using S = decltype(stag);
    dispatch_dtype(dst.dtype(), "copy", [&](auto dtag) {
      using D = decltype(dtag);
      unary_loop<D, S>(it, [](S x) { return static_cast<D>(x.real()); });
    });
  });
}

}  // namespace

void copy_into(const Tensor& src, Tensor& dst) {
  if (src.dtype() == dst.dtype() && src.sizes() == dst.sizes()) {
    copy_strided(src, dst);
    return;
  }
  if (dst.numel() == 0) return;
  if (is_half(src.dtype()) || is_half(dst.dtype()) || is_complex(src.dtype()) || is_complex(dst.dtype())) {
    copy_special(src, dst);
    return;
  }
  StridedLoop it(dst, {&src});
  dispatch_dtype(dst.dtype(), "copy", [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_dtype(src.dtype(), "copy", [&](auto stag) {
      using S = decltype(stag);
      unary_loop<D, S>(it, [](S x) { return static_cast<D>(x); });
    });
  });
}

double element_as_double(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.sizes()[d];
    off += (i % s) * t.strides()[d];
    i /= s;
  }
  double r = 0;
  dispatch_dtype(t.dtype(), "element", [&](auto tag) {
    using T = decltype(tag);
    r = static_cast<double>(data_of<T>(t)[off]);
  });
  return r;
}

StridedLoop::StridedLoop(Tensor& out, std::initializer_list<const Tensor*> inputs) {
  nops_ = 1 + static_cast<int>(inputs.size());
  if (nops_ > kMaxOperands) throw std::logic_error("StridedLoop: too many operands");
  const auto& shape = out.sizes();
  const int64_t nd = out.dim();
  numel_ = out.numel();
  // Per dim (outermost first): its size and every operand's byte stride, size-1 dims dropped.
  std::vector<int64_t> sizes;
  std::vector<std::array<int64_t, kMaxOperands>> strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    std::array<int64_t, kMaxOperands> s{};
    s[0] = out.strides()[d] * static_cast<int64_t>(element_size(out.dtype()));
    int k = 1;
    for (const Tensor* in : inputs) {
      const int64_t id = d - (nd - in->dim());
      if (id >= 0) {
        const int64_t isz = in->sizes()[id];
        if (isz == shape[d]) s[k] = in->strides()[id] * static_cast<int64_t>(element_size(in->dtype()));
        else if (isz != 1)
          throw InvalidInput(fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                                         "dimension {}", isz, shape[d], d));
      }
      ++k;
    }
    sizes.push_back(shape[d]);
    strides.push_back(s);
  }
  for (const Tensor* in : inputs)
    if (in->dim() > nd)
      throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(shape),
                                     shape_string(in->sizes())));
  // Merge a dim into the one outside it wherever every operand steps through both as one.
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!shape_.empty()) {
      auto& ps = strides_.back();
      bool merge = true;
      for (int k = 0; k < nops_; ++k) merge = merge && ps[k] == strides[i][k] * sizes[i];
      if (merge) {
        shape_.back() *= sizes[i];
        ps = strides[i];
        continue;
      }
    }
    shape_.push_back(sizes[i]);
    strides_.push_back(strides[i]);
  }
  if (shape_.empty()) {
    shape_.push_back(1);
    strides_.push_back({});
  }
  if (numel_ == 0) return;
  base_[0] = static_cast<char*>(out.mutable_data());
  int k = 1;
  for (const Tensor* in : inputs) base_[k++] = static_cast<char*>(const_cast<void*>(in->data()));
}

std::optional<DType> optional_scalar_type_arg(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  return scalar_type_arg(v);
}

std::vector<int64_t> reduction_dims(const IValue& v, int64_t ndim, const char* op) {
  std::vector<int64_t> dims;
  if (!v.is_none()) dims = int_list(v);
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
    return dims;
  }
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (auto& d : dims) {
    d = wrap_dim(d, ndim);
    if (seen[d]) throw InvalidInput(fmt::format("{}: dim {} appears multiple times in the list of dims", op, d));
    seen[d] = true;
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

}  // namespace jitctl::cpu
