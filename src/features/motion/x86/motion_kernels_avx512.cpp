// AVX-512 variant of the motion kernel (built with the AVX-512 flags: F, BW,
// DQ, VL, CD, and -mavx512vnni; picked only where the CPU has both, as VIF's):
// the kernel of motion_sad.hpp on 512-bit vectors, each vpmaddwd and its add
// one vpdpwssd (5-8% of the kernel's time at 1080p, in-process A/B).
#include "features/motion/x86/motion_sad.hpp"

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"

namespace speedqa::motion {
namespace {

struct V512 : Vec512Vnni {
    // 16 samples (bytes or uint16) from column j to int32
    template <bool Bytes>
    static vi load_32(const uint8_t* row, int j) {
        if constexpr (Bytes) return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + j)));
        return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * j)));
    }
    static vi add16(vi a, vi b) { return _mm512_add_epi16(a, b); }
    static vi sub16(vi a, vi b) { return _mm512_sub_epi16(a, b); }
    static vi mullo32(vi a, vi b) { return _mm512_mullo_epi32(a, b); }
    static vi abs32(vi a) { return _mm512_abs_epi32(a); }
    // lanes m with 2 m < limit kept, the others 0
    static vi lanes_below(vi v, int limit) {
        const __mmask16 k = _mm512_cmpgt_epi32_mask(
            _mm512_set1_epi32(limit), _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
        return _mm512_maskz_mov_epi32(k, v);
    }
};

constexpr Kernels kAvx512{"avx512", Sad<V512>::sad};

}  // namespace

const Kernels* kernels_avx512() { return detect_cpu_flags().avx512vnni ? &kAvx512 : nullptr; }

}  // namespace speedqa::motion
