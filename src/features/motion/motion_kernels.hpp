// The hot loop of integer motion, a C reference and SIMD variants beside it,
// each returning the C reference's sum (tests/motion_checkasm_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/feature.hpp"

namespace speedqa::motion {

// Two luma planes of w x h samples (uint8 for 8-bit, else little-endian
// uint16), strides in bytes. `row` is scratch for one blurred row:
// row_len(w) int32s.
struct SadArgs {
    const uint8_t* prev = nullptr;
    ptrdiff_t prev_stride = 0;
    const uint8_t* cur = nullptr;
    ptrdiff_t cur_stride = 0;
    int w = 0, h = 0, bitdepth = 8;
    int32_t* row = nullptr;
};

size_t row_len(int w);

struct Kernels {
    const char* name;
    // Sum over the frame of |blur(prev - cur)|, w, h >= 3.
    uint64_t (*sad)(const SadArgs& args);
};

const Kernels& kernels_c();
const Kernels* kernels_avx2();    // nullptr where the build or the CPU lacks AVX2
const Kernels* kernels_avx512();  // nullptr where the build or the CPU lacks AVX-512 with VNNI
const Kernels& kernels_for(Isa isa);

}  // namespace speedqa::motion
