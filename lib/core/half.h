#pragma once
// float16 and bfloat16 storage formats, converted through float with round-to-nearest-even (as
// c10::Half and c10::BFloat16 do), NaN kept a NaN. One implementation for the whole project:
// printers, passes, kernels and the run command's inputs and outputs all read these formats.
#include <cstdint>

namespace jitctl {

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

}  // namespace jitctl
