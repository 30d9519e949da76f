#include "lib/core/storage.h"

#include <cstring>
#include <new>

namespace jitctl {
namespace {

// 64-byte alignment keeps vectorized kernels on aligned loads.
std::shared_ptr<uint8_t> aligned_buffer(size_t nbytes, bool zero = true) {
  constexpr std::align_val_t kAlign{64};
  auto* p = static_cast<uint8_t*>(::operator new[](nbytes ? nbytes : 1, kAlign));
  if (zero) std::memset(p, 0, nbytes ? nbytes : 1);
  return std::shared_ptr<uint8_t>(p, [](uint8_t* q) { ::operator delete[](q, kAlign); });
}

}  // namespace

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) { return owned(nbytes, device, true); }

std::shared_ptr<Storage> Storage::allocate_uninitialized(size_t nbytes, Device device) { return owned(nbytes, device, false); }

std::shared_ptr<Storage> Storage::owned(size_t nbytes, Device device, bool zero) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->origin_ = "memory";
  auto buf = aligned_buffer(nbytes, zero);
  s->data_ = buf.get();
  s->keepalive_ = std::shared_ptr<const void>(buf, buf.get());
  s->owned_ = true;
  return s;
}

std::shared_ptr<Storage> Storage::lazy(size_t nbytes, Device device, std::string origin, Loader loader) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->origin_ = std::move(origin);
  s->loader_ = std::move(loader);
  return s;
}

const uint8_t* Storage::data() const {
  if (!data_ && loader_) std::call_once(once_, [this] { data_ = loader_(keepalive_); });
  return data_;
}

uint8_t* Storage::mutable_data() {
  const uint8_t* src = data();
  if (!owned_) {
    auto buf = aligned_buffer(nbytes_, !(src && nbytes_));  // the copy overwrites every byte
    if (src && nbytes_) std::memcpy(buf.get(), src, nbytes_);
    data_ = buf.get();
    keepalive_ = std::shared_ptr<const void>(buf, buf.get());
    owned_ = true;
  }
  return const_cast<uint8_t*>(data_);
}

}  // namespace jitctl
