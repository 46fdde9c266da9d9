// AVX2 variant of the motion kernel (built with -mavx2 -mfma -mbmi -mbmi2):
// the kernel of motion_sad.hpp on 256-bit vectors.
#include "features/motion/x86/motion_sad.hpp"

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"

namespace speedqa::motion {
namespace {

struct V256 : Vec256 {
    // 8 samples (bytes or uint16) from column j to int32
    template <bool Bytes>
    static vi load_32(const uint8_t* row, int j) {
        if constexpr (Bytes) return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + j)));
        return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * j)));
    }
    static vi add16(vi a, vi b) { return _mm256_add_epi16(a, b); }
    static vi sub16(vi a, vi b) { return _mm256_sub_epi16(a, b); }
    static vi mullo32(vi a, vi b) { return _mm256_mullo_epi32(a, b); }
    static vi abs32(vi a) { return _mm256_abs_epi32(a); }
    // lanes m with 2 m < limit kept, the others 0
    static vi lanes_below(vi v, int limit) {
        return _mm256_and_si256(v, _mm256_cmpgt_epi32(_mm256_set1_epi32(limit),
                                                      _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)));
    }
};

constexpr Kernels kAvx2{"avx2", Sad<V256>::sad};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::motion
