#include "lib/core/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "lib/core/error.h"

namespace jitctl {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    // Hostile shapes reach here before their element count is checked: saturate instead of
    // overflowing (undefined); the count check refuses such a shape.
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s)) s = INT64_MAX;
  }
  return strides;
}

std::string shape_string(const std::vector<int64_t>& sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

Tensor Tensor::view_of(std::shared_ptr<Storage> storage, DType dtype, int64_t offset,
                       std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       const std::string& where) {
  if (sizes.size() != strides.size())
    throw InvalidInput(fmt::format("{}: tensor has {} sizes but {} strides", where, sizes.size(), strides.size()));
  if (offset < 0) throw InvalidInput(fmt::format("{}: negative storage offset {}", where, offset));
  // Bound checks in unsigned 128-bit arithmetic so hostile sizes cannot overflow them.
  using u128 = unsigned __int128;
  u128 numel = 1, last = static_cast<u128>(offset);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) throw InvalidInput(fmt::format("{}: negative size {} in dimension {}", where, sizes[i], i));
    if (strides[i] < 0) throw InvalidInput(fmt::format("{}: negative stride {} in dimension {}", where, strides[i], i));
    numel *= static_cast<u128>(sizes[i]);
    if (numel > (u128(1) << 62)) throw InvalidInput(fmt::format("{}: tensor of shape {} is too large", where, shape_string(sizes)));
  }
  const size_t esize = element_size(dtype);
  if (numel > 0) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      last += static_cast<u128>(sizes[i] - 1) * static_cast<u128>(strides[i]);
      if (last > (u128(1) << 100)) throw InvalidInput(fmt::format("{}: tensor strides reach past any storage", where));
    }
    const u128 need = (last + 1) * esize;
    if (need > storage->nbytes())
      throw InvalidInput(fmt::format(
          "{}: tensor of shape {} ({}) at offset {} needs {} bytes but its storage {} holds {}", where,
          shape_string(sizes), dtype_name(dtype), offset, static_cast<uint64_t>(need), storage->origin(),
          storage->nbytes()));
  }
  return unchecked_view(std::move(storage), dtype, offset, std::move(sizes), std::move(strides));
}

Tensor Tensor::unchecked_view(std::shared_ptr<Storage> storage, DType dtype, int64_t offset, std::vector<int64_t> sizes,
                              std::vector<int64_t> strides) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->storage_offset = offset;
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor Tensor::empty(DType dtype, std::vector<int64_t> sizes, Device device) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->strides = contiguous_strides(sizes);
  impl->sizes = std::move(sizes);
  // Sizes come from models and inputs: checked before the product can wrap around (a shape of
  // [2**32, 2**32] would otherwise make an empty storage for 2**64 elements).
  unsigned __int128 bytes = element_size(dtype);
  for (auto s : impl->sizes) {
    if (s < 0)
      throw InvalidInput(fmt::format("Trying to create tensor with negative dimension {}: {}", s, shape_string(impl->sizes)));
    bytes *= static_cast<unsigned __int128>(s);
    if (bytes > (static_cast<unsigned __int128>(1) << 62))
      throw InvalidInput(fmt::format("Storage size calculation overflowed with sizes={}", shape_string(impl->sizes)));
  }
  impl->storage = Storage::allocate(static_cast<size_t>(bytes), device);
  return Tensor(std::move(impl));
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (auto s : impl_->sizes) n *= s;
  return n;
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = impl_->sizes.size(); i-- > 0;) {
    if (impl_->sizes[i] == 1) continue;
    if (impl_->strides[i] != expected) return false;
    expected *= impl_->sizes[i];
  }
  return true;
}

const void* Tensor::data() const {
  return impl_->storage->data() + impl_->storage_offset * static_cast<int64_t>(element_size(impl_->dtype));
}

void* Tensor::mutable_data() {
  return impl_->storage->mutable_data() + impl_->storage_offset * static_cast<int64_t>(element_size(impl_->dtype));
}

}  // namespace jitctl
