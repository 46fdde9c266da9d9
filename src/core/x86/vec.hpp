// The integer vector operations the SIMD kernels of several features share,
// for 256-bit (Vec256, under AVX2) and 512-bit (Vec512, under AVX-512)
// registers, so that a kernel written once over a vector type V builds for
// either. A kernel's V derives from one of them and adds its own operations.
// Only files built for that instruction set include this, and everything is
// in an unnamed namespace: no object built for a wider set hands the linker
// code that another file shares (tests/simd_objects_check.sh).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace speedqa {
namespace {

// Asks for the cache line a page (4 KiB) ahead of p: for a kernel's first
// pass over a picture's rows (frames come from the page cache, cold), which
// the hardware prefetcher follows only within a page. Call it once per 64
// bytes read.
inline void prefetch_page_ahead(const void* p) { _mm_prefetch(static_cast<const char*>(p) + 4096, _MM_HINT_T0); }

#if defined(__AVX2__)
struct Vec256 {
    using vi = __m256i;
    static constexpr int kBlock = 16;  // int16 lanes

    static vi ld(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
    static void st(void* p, vi v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
    // kBlock bytes widened to int16
    static vi load_u8_16(const uint8_t* p) {
        return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static vi zero() { return _mm256_setzero_si256(); }
    static vi set1_16(int16_t v) { return _mm256_set1_epi16(v); }
    static vi set1_32(int32_t v) { return _mm256_set1_epi32(v); }
    static vi add32(vi a, vi b) { return _mm256_add_epi32(a, b); }
    static vi sub32(vi a, vi b) { return _mm256_sub_epi32(a, b); }
    static vi and_(vi a, vi b) { return _mm256_and_si256(a, b); }
    static vi or_(vi a, vi b) { return _mm256_or_si256(a, b); }
    static vi xor_(vi a, vi b) { return _mm256_xor_si256(a, b); }
    static vi srl32(vi a, __m128i n) { return _mm256_srl_epi32(a, n); }
    static vi sll32(vi a, __m128i n) { return _mm256_sll_epi32(a, n); }
    static vi sra32(vi a, __m128i n) { return _mm256_sra_epi32(a, n); }
    template <int N>
    static vi srli32(vi a) {
        return _mm256_srli_epi32(a, N);
    }
    template <int N>
    static vi srai32(vi a) {
        return _mm256_srai_epi32(a, N);
    }
    static vi madd(vi a, vi b) { return _mm256_madd_epi16(a, b); }
    // acc + vpmaddwd(a, c), modulo 2^32
    static vi madd_add(vi acc, vi a, vi c) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, c)); }
    // whether any bit of v is set
    static bool any(vi v) { return !_mm256_testz_si256(v, v); }
    static vi unpacklo16(vi a, vi b) { return _mm256_unpacklo_epi16(a, b); }
    static vi unpackhi16(vi a, vi b) { return _mm256_unpackhi_epi16(a, b); }
    static vi packs32(vi a, vi b) { return _mm256_packs_epi32(a, b); }
    static vi packus32(vi a, vi b) { return _mm256_packus_epi32(a, b); }
    // The sum of the 64-bit (32-bit) lanes modulo 2^64 (2^32), in vector adds.
    static uint64_t sum64(vi v) {
        const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s))));
    }
    static uint32_t sum32(vi v) {
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
        return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1))));
    }
};
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
struct Vec512 {
    using vi = __m512i;
    static constexpr int kBlock = 32;  // int16 lanes

    static vi ld(const void* p) { return _mm512_loadu_si512(p); }
    static void st(void* p, vi v) { _mm512_storeu_si512(p, v); }
    // kBlock bytes widened to int16
    static vi load_u8_16(const uint8_t* p) {
        return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static vi zero() { return _mm512_setzero_si512(); }
    static vi set1_16(int16_t v) { return _mm512_set1_epi16(v); }
    static vi set1_32(int32_t v) { return _mm512_set1_epi32(v); }
    static vi add32(vi a, vi b) { return _mm512_add_epi32(a, b); }
    static vi sub32(vi a, vi b) { return _mm512_sub_epi32(a, b); }
    static vi and_(vi a, vi b) { return _mm512_and_si512(a, b); }
    static vi or_(vi a, vi b) { return _mm512_or_si512(a, b); }
    static vi xor_(vi a, vi b) { return _mm512_xor_si512(a, b); }
    static vi srl32(vi a, __m128i n) { return _mm512_srl_epi32(a, n); }
    static vi sll32(vi a, __m128i n) { return _mm512_sll_epi32(a, n); }
    static vi sra32(vi a, __m128i n) { return _mm512_sra_epi32(a, n); }
    template <int N>
    static vi srli32(vi a) {
        return _mm512_srli_epi32(a, N);
    }
    template <int N>
    static vi srai32(vi a) {
        return _mm512_srai_epi32(a, N);
    }
    static vi madd(vi a, vi b) { return _mm512_madd_epi16(a, b); }
    // acc + vpmaddwd(a, c), modulo 2^32
    static vi madd_add(vi acc, vi a, vi c) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, c)); }
    // whether any bit of v is set
    static bool any(vi v) { return _mm512_test_epi32_mask(v, v) != 0; }
    static vi unpacklo16(vi a, vi b) { return _mm512_unpacklo_epi16(a, b); }
    static vi unpackhi16(vi a, vi b) { return _mm512_unpackhi_epi16(a, b); }
    static vi packs32(vi a, vi b) { return _mm512_packs_epi32(a, b); }
    static vi packus32(vi a, vi b) { return _mm512_packus_epi32(a, b); }
    // The sum of the 64-bit (32-bit) lanes modulo 2^64 (2^32), in vector
    // adds (_mm512_reduce_add_epi64/epi32 do their last add in signed C
    // arithmetic, whose overflow is undefined).
    static uint64_t sum64(vi v) {
        return Vec256::sum64(_mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)));
    }
    static uint32_t sum32(vi v) {
        return Vec256::sum32(_mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)));
    }
};
#endif

#if defined(__AVX512VNNI__)
// Vec512 where each vpmaddwd and its add are one vpdpwssd (files built with
// -mavx512vnni, whose kernels are picked only where the CPU has VNNI).
struct Vec512Vnni : Vec512 {
    // acc + vpmaddwd(a, c) in one instruction; both wrap modulo 2^32 alike
    static vi madd_add(vi acc, vi a, vi c) { return _mm512_dpwssd_epi32(acc, a, c); }
};
#endif

}  // namespace
}  // namespace speedqa
