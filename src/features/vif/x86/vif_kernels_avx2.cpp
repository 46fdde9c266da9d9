// AVX2 variants of the VIF kernels (built with -mavx2 -mfma -mbmi -mbmi2).
#include <immintrin.h>

#include "core/cpu_flags.hpp"
#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {

const Kernels* kernels_avx2() { return nullptr; }

}  // namespace speedqa::vif
