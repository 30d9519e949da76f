#pragma once
// NumPy's .npy and .npz files (numpy/lib/format.py): the array inputs and outputs of `jitctl run`.
//
// .npy: "\x93NUMPY", version (1.0, 2.0 or 3.0), header length, then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } and the raw data. Read: bool and
// every numeric dtype torch has (no uint16/32/64: Unsupported), either byte order (big-endian
// data is swapped), C or Fortran order (returned as a contiguous tensor). Written: version 1.0,
// little-endian, C order, header padded to 64 bytes as numpy does.
// .npz: a zip of NAME.npy members, stored or deflated (np.savez_compressed); written stored.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl {

// `name` is what messages say: the file, or "f.npz:arg0.npy".
Tensor parse_npy(const uint8_t* data, size_t size, const std::string& name);
Tensor load_npy(const std::string& path);

std::string npy_bytes(const Tensor& t);  // Unsupported for dtypes numpy lacks (bfloat16, ...)
void save_npy(const std::string& path, const Tensor& t);

// Members in the zip's order, names without ".npy".
std::vector<std::pair<std::string, Tensor>> load_npz(const std::string& path);
void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays);

}  // namespace jitctl
