#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "lib/core/device.h"
#include "lib/core/error.h"

namespace jitctl {

// Host code read a storage in device memory: a CPU kernel was given a device tensor. The CUDA
// dispatcher (lib/runtime/device_dispatch.h) catches it and runs that kernel on host copies.
struct DeviceMemoryRead : Unsupported {
  using Unsupported::Unsupported;
};

// A block of bytes that tensors view. Storages read from an archive are lazy: the bytes are
// fetched on the first data() call (commands that only print structure never touch weights), and
// when the archive entry is stored uncompressed they point straight into the mapped file.
class Storage {
 public:
  // Fetches the bytes: returns a pointer valid for as long as `keepalive` lives.
  using Loader = std::function<const uint8_t*(std::shared_ptr<const void>& keepalive)>;

  // Zero-filled bytes.
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device = {});
  // Bytes with whatever the allocator left there: for kernel outputs the kernel fully overwrites
  // (zero-filling a large output first costs as much memory traffic as writing it).
  static std::shared_ptr<Storage> allocate_uninitialized(size_t nbytes, Device device = {});
  static std::shared_ptr<Storage> lazy(size_t nbytes, Device device, std::string origin, Loader loader);
  // Bytes in an accelerator's memory (kernels/cuda): `address` is a device address, which host
  // code must never dereference, so data() and mutable_data() throw Unsupported for it. `owner`
  // returns the memory to its allocator when the last view goes.
  static std::shared_ptr<Storage> in_device_memory(size_t nbytes, Device device, void* address, std::shared_ptr<const void> owner);

  size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }
  // Where the bytes come from, for messages: "model.pt:archive/data/3".
  const std::string& origin() const { return origin_; }
  bool loaded() const { return data_ != nullptr || device_address_ != nullptr; }
  // Whether the bytes live in accelerator memory (not merely tagged with a device: an archive
  // saved from a GPU loads its storages into host memory tagged cuda:0).
  bool in_device_memory() const { return device_address_ != nullptr; }
  // The device address of byte 0 (in_device_memory() only; nullptr otherwise).
  void* device_address() const { return device_address_; }

  const uint8_t* data() const;
  // Copy-on-write is not needed: storages from archives are read-only mappings, so mutation
  // first materializes an owned copy.
  uint8_t* mutable_data();

 private:
  Storage() = default;
  static std::shared_ptr<Storage> owned(size_t nbytes, Device device, bool zero);
  size_t nbytes_ = 0;
  Device device_;
  std::string origin_;
  Loader loader_;
  mutable std::once_flag once_;
  mutable const uint8_t* data_ = nullptr;
  mutable std::shared_ptr<const void> keepalive_;
  bool owned_ = false;
  void* device_address_ = nullptr;
};

// Gives back at least `bytes` of the tensor buffers kept for reuse (the oldest first), or all of
// them: a method's memory pattern (memory_pattern.h) calls it once its arena takes their place.
void trim_buffer_pool(size_t bytes);

}  // namespace jitctl
