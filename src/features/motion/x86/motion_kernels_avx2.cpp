// AVX2 variant of the motion kernel (built with -mavx2 -mfma -mbmi -mbmi2).
//
// Each 5-tap sum of the blur can exceed 32 bits (the reference sums in 64),
// but its three terms c0 (v0 + v4), c1 (v1 + v3) and c2 v2 each fit a signed
// int32. The rounded shift of their sum is taken exactly without 64 bits:
// floor((P1 + P2 + P3 + 2^(s-1)) / 2^s) is the sum of the terms' own floors
// (arithmetic shifts) plus the floor of their remainders' sum, rounded.
// The vertical pass works 8 columns at a time on the difference of the two
// frames; its row goes to a buffer with the mirrored columns beside it, and
// the horizontal pass reads it back 8 columns at a time.
#include <immintrin.h>

#include "core/cpu_flags.hpp"
#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

constexpr int kPad = 8;  // row-buffer positions before column 0

// 8 samples of a row from column j as int32.
template <bool Bytes>
inline __m256i load8(const uint8_t* row, int j) {
    if constexpr (Bytes) return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + j)));
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * j)));
}

// floor((c0 (v0 + v4) + c1 (v1 + v3) + c2 v2 + 2^(s-1)) / 2^s) for |v| < 2^17.
inline __m256i blur5(__m256i s04, __m256i s13, __m256i v2, __m128i shift, __m256i mask, __m256i half) {
    const __m256i p1 = _mm256_mullo_epi32(s13, _mm256_set1_epi32(em::tap(1)));
    const __m256i p2 = _mm256_mullo_epi32(v2, _mm256_set1_epi32(em::tap(2)));
    const __m256i p3 = _mm256_mullo_epi32(s04, _mm256_set1_epi32(em::tap(0)));
    const __m256i whole = _mm256_add_epi32(_mm256_add_epi32(_mm256_sra_epi32(p1, shift), _mm256_sra_epi32(p2, shift)),
                                           _mm256_sra_epi32(p3, shift));
    const __m256i rest = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_and_si256(p1, mask), _mm256_and_si256(p2, mask)),
        _mm256_add_epi32(_mm256_and_si256(p3, mask), half));
    return _mm256_add_epi32(whole, _mm256_sra_epi32(rest, shift));
}

template <bool Bytes>
uint64_t sad_rows(const SadArgs& a) {
    const int bd = a.bitdepth, w = a.w;
    const __m128i vshift = _mm_cvtsi32_si128(bd), hshift = _mm_cvtsi32_si128(16);
    const __m256i vmask = _mm256_set1_epi32((1 << bd) - 1), vhalf = _mm256_set1_epi32(1 << (bd - 1));
    const __m256i hmask = _mm256_set1_epi32(0xffff), hhalf = _mm256_set1_epi32(1 << 15);
    int32_t* y = a.row + kPad;
    uint64_t sad = 0;
    for (int i = 0; i < a.h; i++) {
        const uint8_t *p[em::kTaps], *c[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) {
            const int r = em::mirror(i - em::kRadius + k, a.h);
            p[k] = a.prev + a.prev_stride * r;
            c[k] = a.cur + a.cur_stride * r;
        }
        int j = 0;
        for (; j + 8 <= w; j += 8) {
            __m256i d[em::kTaps];
            for (int k = 0; k < em::kTaps; k++) d[k] = _mm256_sub_epi32(load8<Bytes>(p[k], j), load8<Bytes>(c[k], j));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j),
                                blur5(_mm256_add_epi32(d[0], d[4]), _mm256_add_epi32(d[1], d[3]), d[2], vshift, vmask,
                                      vhalf));
        }
        for (; j < w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < em::kTaps; k++) {
                const int32_t pv = Bytes ? p[k][j] : reinterpret_cast<const uint16_t*>(p[k])[j];
                const int32_t cv = Bytes ? c[k][j] : reinterpret_cast<const uint16_t*>(c[k])[j];
                acc += em::tap(k) * (pv - cv);
            }
            y[j] = em::vertical_round(acc, bd);
        }
        for (int q = 1; q <= em::kRadius; q++) {
            y[-q] = y[em::mirror(-q, w)];
            y[w - 1 + q] = y[em::mirror(w - 1 + q, w)];
        }
        // the reference sums a row in 32 bits (it cannot wrap: |value| < 2^16)
        __m256i row = _mm256_setzero_si256();
        j = 0;
        for (; j + 8 <= w; j += 8) {
            const auto at = [&](int o) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + j + o)); };
            const __m256i v = blur5(_mm256_add_epi32(at(-2), at(2)), _mm256_add_epi32(at(-1), at(1)), at(0), hshift,
                                    hmask, hhalf);
            row = _mm256_add_epi32(row, _mm256_abs_epi32(v));
        }
        const __m128i r4 = _mm_add_epi32(_mm256_castsi256_si128(row), _mm256_extracti128_si256(row, 1));
        const __m128i r2 = _mm_add_epi32(r4, _mm_shuffle_epi32(r4, 0x4e));
        uint32_t row_sad = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(r2, _mm_shuffle_epi32(r2, 0xb1))));
        for (; j < w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < em::kTaps; k++) acc += int64_t{em::tap(k)} * y[j - em::kRadius + k];
            const int32_t v = em::horizontal_round(acc);
            row_sad += static_cast<uint32_t>(v < 0 ? -v : v);
        }
        sad += row_sad;
    }
    return sad;
}

uint64_t sad_avx2(const SadArgs& a) { return a.bitdepth == 8 ? sad_rows<true>(a) : sad_rows<false>(a); }

constexpr Kernels kAvx2{"avx2", sad_avx2};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::motion
