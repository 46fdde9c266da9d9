// AVX2 variant of the motion kernel (built with -mavx2 -mfma -mbmi -mbmi2):
// the kernel of motion_sad.hpp on 256-bit vectors.
#include "features/motion/x86/motion_sad.hpp"

#include "core/cpu_flags.hpp"

namespace speedqa::motion {
namespace {

struct V256 {
    using vi = __m256i;
    static constexpr int kBlock = 16;

    static vi ld(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
    static void st(void* p, vi v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
    // 16 bytes widened to int16, and 8 samples (bytes or uint16) from column j to int32
    static vi load_u8_16(const uint8_t* p) {
        return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    template <bool Bytes>
    static vi load_32(const uint8_t* row, int j) {
        if constexpr (Bytes) return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + j)));
        return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * j)));
    }
    static vi zero() { return _mm256_setzero_si256(); }
    static vi set1_32(int32_t v) { return _mm256_set1_epi32(v); }
    static vi add16(vi a, vi b) { return _mm256_add_epi16(a, b); }
    static vi sub16(vi a, vi b) { return _mm256_sub_epi16(a, b); }
    static vi add32(vi a, vi b) { return _mm256_add_epi32(a, b); }
    static vi sub32(vi a, vi b) { return _mm256_sub_epi32(a, b); }
    static vi mullo32(vi a, vi b) { return _mm256_mullo_epi32(a, b); }
    static vi and_(vi a, vi b) { return _mm256_and_si256(a, b); }
    static vi or_(vi a, vi b) { return _mm256_or_si256(a, b); }
    static vi abs32(vi a) { return _mm256_abs_epi32(a); }
    static vi sra32(vi a, __m128i n) { return _mm256_sra_epi32(a, n); }
    template <int N>
    static vi srai32(vi a) {
        return _mm256_srai_epi32(a, N);
    }
    static vi madd(vi a, vi b) { return _mm256_madd_epi16(a, b); }
    static vi unpacklo16(vi a, vi b) { return _mm256_unpacklo_epi16(a, b); }
    static vi unpackhi16(vi a, vi b) { return _mm256_unpackhi_epi16(a, b); }
    static vi packs32(vi a, vi b) { return _mm256_packs_epi32(a, b); }
    // lanes m with 2 m < limit kept, the others 0
    static vi lanes_below(vi v, int limit) {
        return _mm256_and_si256(v, _mm256_cmpgt_epi32(_mm256_set1_epi32(limit),
                                                      _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)));
    }
    static uint32_t reduce_or32(vi v) {
        const __m128i m4 = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        const __m128i m2 = _mm_or_si128(m4, _mm_shuffle_epi32(m4, 0x4e));
        return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_or_si128(m2, _mm_shuffle_epi32(m2, 0xb1))));
    }
    static uint32_t reduce_add32(vi v) {
        const __m128i r4 = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        const __m128i r2 = _mm_add_epi32(r4, _mm_shuffle_epi32(r4, 0x4e));
        return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(r2, _mm_shuffle_epi32(r2, 0xb1))));
    }
};

constexpr Kernels kAvx2{"avx2", Sad<V256>::sad};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::motion
