// AVX2 variant of the motion kernel (built with -mavx2 -mfma -mbmi -mbmi2).
#include <immintrin.h>

#include "core/cpu_flags.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {

const Kernels* kernels_avx2() { return nullptr; }

}  // namespace speedqa::motion
