// AVX2 variant of the VIF scale pass (built with -mavx2 -mfma -mbmi -mbmi2):
// the strip pass of vif_strip.hpp on 256-bit vectors, its statistic on 4
// doubles at a time.
#include "features/vif/x86/vif_strip.hpp"

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"

namespace speedqa::vif {
namespace {

struct V256 : Vec256 {
    static vi bias16() { return _mm256_set1_epi16(static_cast<short>(0x8000)); }
    static vi mullo16(vi a, vi b) { return _mm256_mullo_epi16(a, b); }
    static vi mulhi16(vi a, vi b) { return _mm256_mulhi_epu16(a, b); }
    // The first n (< kBlock) samples of a row as uint16, zeros after (not
    // read): AVX2 has no masked loads of bytes or words, so a copy.
    static vi load_first(const void* row, int n, bool bytes) {
        alignas(32) uint16_t tmp[kBlock] = {};
        for (int j = 0; j < n; j++)
            tmp[j] = bytes ? static_cast<const uint8_t*>(row)[j] : static_cast<const uint16_t*>(row)[j];
        return ld(tmp);
    }
    // a value the compiler must hold in a register here
    static void keep(vi& v) { asm("" : "+x"(v)); }

    // ((a b + 2^31) >> 32) + 2^31 (mod 2^32) for unsigned 32-bit lanes: the mean
    // product, biased as the filter sums are (they lack 2^31).
    static vi biased_mean_product(vi a, vi b) {
        // (2^63: the 2^31 added to each 32-bit result, free in the rounding's add)
        const vi r = _mm256_set1_epi64x(static_cast<long long>(0x8000000080000000ull));
        const vi even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), r), 32);
        const vi odd = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), r);
        return _mm256_blend_epi32(even, odd, 0xaa);
    }

    // The first n (<= 8) int32 lanes, each below 2^16, as uint16.
    static void store_u16(uint16_t* dst, vi v, int n) {
        const __m128i r = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        if (n == 8) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), r);
            return;
        }
        alignas(16) uint16_t tmp[8];
        _mm_store_si128(reinterpret_cast<__m128i*>(tmp), r);
        std::memcpy(dst, tmp, sizeof(uint16_t) * static_cast<size_t>(n));
    }

    // ev::accumulate over the pixels of a row, 4 at a time.
    class StatAcc {
    public:
        StatAcc(double gain_limit, const StatTables& t)
            : nsq_(_mm256_set1_pd(static_cast<double>(ev::kSigmaNsq))), eps_(_mm256_set1_pd(ev::kEps)),
              gain_limit_(_mm256_set1_pd(gain_limit)), t_(t) {}

        // The pixels of lanes m with 2 m < limit: sigma1, sigma2 (not yet
        // clamped), sigma12 as int32 lanes.
        void add(vi s1, vi s2, vi s12, int limit) {
            const vi valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(limit), _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
            stat4(lo_pd(s1), lo_pd(s2), lo_pd(s12), lo_mask(valid));
            stat4(hi_pd(s1), hi_pd(s2), hi_pd(s12), hi_mask(valid));
        }

        ev::Sums sums() const {
            ev::Sums s;
            s.num_log = hsum(num_log_);
            s.den_log = hsum(den_log_);
            s.den_non_log = hsum(den_non_log_);
            // below 2^31 a pixel: exact over a row
            const __m256d magic = _mm256_set1_pd(4503599627370496.0);  // 2^52: integer-valued doubles to int64
            s.num_non_log = hsum(_mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(num_non_log_, magic)),
                                                      _mm256_castpd_si256(magic)));
            return s;
        }

    private:
        static int64_t hsum(vi v) { return static_cast<int64_t>(Vec256::sum64(v)); }
        static __m256d lo_pd(vi v) { return _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)); }
        static __m256d hi_pd(vi v) { return _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)); }
        static __m256d lo_mask(vi v) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v))); }
        static __m256d hi_mask(vi v) {
            return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
        }

        // table[v >> k] + 2048 (k + 1038) + t_.log2_offset() for
        // integer-valued doubles v >= 2^16, with k = exponent - 15 (v >> k is
        // the top 16 bits, 2^15 + m).
        vi log2_biased(__m256d v) const {
            const vi bits = _mm256_castpd_si256(v);
            const vi m = _mm256_and_si256(_mm256_srli_epi64(bits, 37), _mm256_set1_epi64x(0x7fff));
            if (t_.bytes) {
                // the byte at m (8 read, one kept: no widening afterwards), plus
                // 2048 (biased exponent) + (m >> 4), which are the double's bits
                // from its exponent down to the mantissa's top 11 (v > 0); the
                // chord's constant is log2_offset()
                const vi t = _mm256_and_si256(_mm256_i64gather_epi64(reinterpret_cast<const long long*>(t_.bytes), m, 1),
                                              _mm256_set1_epi64x(0xff));
                return _mm256_add_epi64(t, _mm256_srli_epi64(bits, 41));
            }
            const vi exponent_part = _mm256_slli_epi64(_mm256_srli_epi64(bits, 52), 11);
            const vi idx = _mm256_or_si256(m, _mm256_set1_epi64x(0x8000));
            const __m128i t = _mm_and_si128(_mm256_i64gather_epi32(t_.table, idx, 2), _mm_set1_epi32(0xffff));
            return _mm256_add_epi64(_mm256_cvtepu32_epi64(t), exponent_part);
        }

        // ev::accumulate for the 4 pixels of `valid` (all-ones lanes). Flat
        // areas (no pixel above the noise floor) skip the logarithms; the
        // masks keep the bits the same either way.
        void stat4(__m256d s1, __m256d s2, __m256d s12, __m256d valid) {
            const __m256d zero = _mm256_setzero_pd();
            s2 = _mm256_max_pd(s2, zero);
            const __m256d ge = _mm256_cmp_pd(s1, nsq_, _CMP_GE_OQ);
            const __m256d log_mask = _mm256_and_pd(ge, valid);
            const __m256d non_log = _mm256_andnot_pd(ge, valid);
            den_non_log_ = _mm256_sub_epi64(den_non_log_, _mm256_castpd_si256(non_log));  // -(-1) per pixel
            num_non_log_ = _mm256_add_pd(num_non_log_, _mm256_and_pd(non_log, s2));
            if (_mm256_testz_pd(log_mask, log_mask)) return;
            const vi den = _mm256_sub_epi64(log2_biased(_mm256_add_pd(s1, nsq_)), _mm256_set1_epi64x(2048 * (1038 + 17) + t_.log2_offset()));
            den_log_ = _mm256_add_epi64(den_log_, _mm256_and_si256(den, _mm256_castpd_si256(log_mask)));

            const __m256d num_mask = _mm256_and_pd(
                log_mask, _mm256_and_pd(_mm256_cmp_pd(s12, zero, _CMP_GT_OQ), _mm256_cmp_pd(s2, zero, _CMP_GT_OQ)));
            if (_mm256_testz_pd(num_mask, num_mask)) return;
            const __m256d g = _mm256_div_pd(s12, _mm256_add_pd(s1, eps_));
            // (int32)(s2 - g s12) clamped at 0: truncation, then max with 0 (-0.0 too)
            const __m256d sv = _mm256_max_pd(
                _mm256_round_pd(_mm256_sub_pd(s2, _mm256_mul_pd(g, s12)), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                zero);
            const __m256d gl = _mm256_min_pd(g, gain_limit_);  // g < limit ? g : limit, as the C code
            const __m256d numer1 = _mm256_add_pd(sv, nsq_);
            const __m256d numer1_tmp = _mm256_add_pd(
                _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(gl, gl), s1), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                numer1);
            const vi num = _mm256_sub_epi64(log2_biased(numer1_tmp), log2_biased(numer1));
            num_log_ = _mm256_add_epi64(num_log_, _mm256_and_si256(num, _mm256_castpd_si256(num_mask)));
        }

        __m256d nsq_, eps_, gain_limit_;
        StatTables t_;
        vi num_log_ = _mm256_setzero_si256(), den_log_ = _mm256_setzero_si256();
        vi den_non_log_ = _mm256_setzero_si256();
        __m256d num_non_log_ = _mm256_setzero_pd();
    };
};

constexpr Kernels kAvx2{"avx2", make_scratch_simd<V256>, scratch_bytes_simd<V256>, scale_pass_simd<V256>};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::vif
