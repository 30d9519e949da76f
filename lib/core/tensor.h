#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/dtype.h"
#include "lib/core/storage.h"

namespace jitctl {

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  int64_t storage_offset = 0;  // in elements
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements
  DType dtype = DType::Float32;
  bool requires_grad = false;
  bool is_parameter = false;  // rebuilt through torch._utils._rebuild_parameter
};

// A view of a Storage. Copies share the same TensorImpl: identity (same()) is what PyTorch's
// named_parameters() uses to list a tied weight once.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // Builds a view and checks it against its storage: sizes and strides non-negative, no
  // overflow, every element inside the storage. Throws InvalidInput naming `where`.
  static Tensor view_of(std::shared_ptr<Storage> storage, DType dtype, int64_t offset,
                        std::vector<int64_t> sizes, std::vector<int64_t> strides,
                        const std::string& where);
  // view_of without its checks, for callers whose geometry is right by construction.
  static Tensor unchecked_view(std::shared_ptr<Storage> storage, DType dtype, int64_t offset, std::vector<int64_t> sizes,
                               std::vector<int64_t> strides);
  static Tensor empty(DType dtype, std::vector<int64_t> sizes, Device device = {});

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const { return impl_->dtype; }
  const std::vector<int64_t>& sizes() const { return impl_->sizes; }
  const std::vector<int64_t>& strides() const { return impl_->strides; }
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
  int64_t storage_offset() const { return impl_->storage_offset; }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(impl_->dtype); }
  bool is_contiguous() const;
  bool requires_grad() const { return impl_->requires_grad; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  const Device& device() const { return impl_->storage->device(); }
  TensorImpl& impl() const { return *impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }
  // Whether this handle is the only one to the tensor and the tensor the only view of its
  // storage: nothing else can see a write to it (a kernel may then reuse its bytes in place).
  bool sole_owner() const { return impl_ && impl_.use_count() == 1 && impl_->storage && impl_->storage.use_count() == 1; }

  // Pointer to the first element (loads a lazy storage).
  const void* data() const;
  void* mutable_data();

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
// "[2, 3, 4]"
std::string shape_string(const std::vector<int64_t>& sizes);

}  // namespace jitctl
