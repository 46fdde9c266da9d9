// Qualifiers for the arithmetic that both backends share.
//
// Every function in src/exact/ and in a feature's exact/ folder is compiled by the host compiler for the CPU
// engine and by nvcc for the CUDA engine. Exactness across backends rests on
// three things: the same statements (this directory), the same evaluation
// (no contraction: -ffp-contract=off on the host, --fmad=false on the device)
// and correctly rounded division and square root on both sides.
#pragma once

#if defined(__CUDACC__)
#define SPEEDQA_HD __host__ __device__ __forceinline__
#else
#define SPEEDQA_HD inline
#endif
// No aliasing between the arrays so marked (lets a row of a product stay in
// registers; changes no arithmetic).
#define SPEEDQA_RESTRICT __restrict__

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace speedqa::exact {

// sqrt evaluated in double and rounded to float, as C does for
// `float r = sqrt(float_expr)`. (Equal to sqrtf, since double carries more
// than 2*24+2 bits, but we say what the reference says.)
SPEEDQA_HD int sign_of(float x) { return x >= 0 ? 1 : -1; }

SPEEDQA_HD float sqrt_via_double(float x) { return static_cast<float>(::sqrt(static_cast<double>(x))); }

}  // namespace speedqa::exact
