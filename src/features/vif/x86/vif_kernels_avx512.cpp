// AVX-512 variant of the VIF scale pass, with VNNI (built with the AVX-512
// flags and -mavx512vnni; picked only where the CPU has both): the strip
// pass of vif_strip.hpp on 512-bit vectors, each vpmaddwd and its add one
// vpdpwssd, the statistic on 8 doubles at a time with mask registers for
// its branches.
#include "features/vif/x86/vif_strip.hpp"

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"

namespace speedqa::vif {
namespace {

struct V512 : Vec512Vnni {
    static vi bias16() { return _mm512_set1_epi16(static_cast<short>(0x8000)); }
    static vi mullo16(vi a, vi b) { return _mm512_mullo_epi16(a, b); }
    static vi mulhi16(vi a, vi b) { return _mm512_mulhi_epu16(a, b); }
    // The first n (< kBlock) samples of a row as uint16, zeros after (not read).
    static vi load_first(const void* row, int n, bool bytes) {
        const __mmask32 m = static_cast<__mmask32>((1u << n) - 1);
        if (bytes) return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, row));
        return _mm512_maskz_loadu_epi16(m, row);
    }
    // a value the compiler must hold in a register here (any of the 32)
    static void keep(vi& v) { asm("" : "+v"(v)); }

    // ((a b + 2^31) >> 32) + 2^31 (mod 2^32) for unsigned 32-bit lanes: the mean
    // product, biased as the filter sums are (they lack 2^31).
    static vi biased_mean_product(vi a, vi b) {
        // (2^63: the 2^31 added to each 32-bit result, free in the rounding's add)
        const vi r = _mm512_set1_epi64(static_cast<long long>(0x8000000080000000ull));
        const vi even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), r), 32);
        const vi odd = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), r);
        return _mm512_mask_blend_epi32(0xaaaa, even, odd);
    }

    // The first n (<= 16) int32 lanes, each below 2^16, as uint16.
    static void store_u16(uint16_t* dst, vi v, int n) {
        _mm256_mask_storeu_epi16(dst, static_cast<__mmask16>((1u << n) - 1), _mm512_cvtepi32_epi16(v));
    }

    // ev::accumulate over the pixels of a row, 8 at a time.
    class StatAcc {
    public:
        StatAcc(double gain_limit, const StatTables& t)
            : nsq_(_mm512_set1_pd(static_cast<double>(ev::kSigmaNsq))), eps_(_mm512_set1_pd(ev::kEps)),
              gain_limit_(_mm512_set1_pd(gain_limit)), t_(t) {}

        // The pixels of lanes m with 2 m < limit: sigma1, sigma2 (not yet
        // clamped), sigma12 as int32 lanes.
        void add(vi s1, vi s2, vi s12, int limit) {
            const __mmask16 valid = _mm512_cmpgt_epi32_mask(
                _mm512_set1_epi32(limit),
                _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
            stat8(lo_pd(s1), lo_pd(s2), lo_pd(s12), static_cast<__mmask8>(valid));
            stat8(hi_pd(s1), hi_pd(s2), hi_pd(s12), static_cast<__mmask8>(valid >> 8));
        }

        ev::Sums sums() const {
            ev::Sums s;
            s.num_log = hsum64x8(num_log_);
            s.den_log = hsum64x8(den_log_);
            s.den_non_log = den_non_log_;
            // below 2^31 a pixel: exact over a row
            const __m512d magic = _mm512_set1_pd(4503599627370496.0);  // 2^52: integer-valued doubles to int64
            s.num_non_log = hsum64x8(
                _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(num_non_log_, magic)), _mm512_castpd_si512(magic)));
            return s;
        }

    private:
        static int64_t hsum64x8(vi v) { return static_cast<int64_t>(Vec512::sum64(v)); }
        static __m512d lo_pd(vi v) { return _mm512_cvtepi32_pd(_mm512_castsi512_si256(v)); }
        static __m512d hi_pd(vi v) { return _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1)); }

        // table[v >> k] + 2048 (k + 1038) + t_.log2_offset() for
        // integer-valued doubles v >= 2^16, with k = exponent - 15 (v >> k is
        // the top 16 bits, 2^15 + m).
        vi log2_biased(__m512d v) const {
            const vi bits = _mm512_castpd_si512(v);
            const vi m = _mm512_and_si512(_mm512_srli_epi64(bits, 37), _mm512_set1_epi64(0x7fff));
            if (t_.bytes) {
                // the byte at m (8 read, one kept: no widening afterwards), plus
                // 2048 (biased exponent) + (m >> 4), which are the double's bits
                // from its exponent down to the mantissa's top 11 (v > 0); the
                // chord's constant is log2_offset()
                const vi t = _mm512_and_si512(_mm512_i64gather_epi64(m, t_.bytes, 1), _mm512_set1_epi64(0xff));
                return _mm512_add_epi64(t, _mm512_srli_epi64(bits, 41));
            }
            const vi exponent_part = _mm512_slli_epi64(_mm512_srli_epi64(bits, 52), 11);
            const vi idx = _mm512_or_si512(m, _mm512_set1_epi64(0x8000));
            const __m256i t = _mm256_and_si256(_mm512_i64gather_epi32(idx, t_.table, 2), _mm256_set1_epi32(0xffff));
            return _mm512_add_epi64(_mm512_cvtepu32_epi64(t), exponent_part);
        }

        // ev::accumulate for the 8 pixels of `valid`. Flat areas (no pixel
        // above the noise floor) skip the logarithms; the masks keep the
        // bits the same either way.
        void stat8(__m512d s1, __m512d s2, __m512d s12, __mmask8 valid) {
            const __m512d zero = _mm512_setzero_pd();
            s2 = _mm512_max_pd(s2, zero);
            const __mmask8 ge = _mm512_cmp_pd_mask(s1, nsq_, _CMP_GE_OQ);
            const __mmask8 log_mask = ge & valid;
            const __mmask8 non_log = static_cast<__mmask8>(~ge & valid);
            den_non_log_ += __builtin_popcount(non_log);
            num_non_log_ = _mm512_mask_add_pd(num_non_log_, non_log, num_non_log_, s2);
            if (!log_mask) return;
            const vi den = _mm512_sub_epi64(log2_biased(_mm512_add_pd(s1, nsq_)), _mm512_set1_epi64(2048 * (1038 + 17) + t_.log2_offset()));
            den_log_ = _mm512_mask_add_epi64(den_log_, log_mask, den_log_, den);

            const __mmask8 num_mask =
                _mm512_mask_cmp_pd_mask(log_mask, s12, zero, _CMP_GT_OQ) & _mm512_cmp_pd_mask(s2, zero, _CMP_GT_OQ);
            if (!num_mask) return;
            const __m512d g = _mm512_div_pd(s12, _mm512_add_pd(s1, eps_));
            // (int32)(s2 - g s12) clamped at 0: truncation, then max with 0 (-0.0 too)
            const __m512d sv = _mm512_max_pd(
                _mm512_roundscale_pd(_mm512_sub_pd(s2, _mm512_mul_pd(g, s12)), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                zero);
            const __m512d gl = _mm512_min_pd(g, gain_limit_);  // g < limit ? g : limit, as the C code
            const __m512d numer1 = _mm512_add_pd(sv, nsq_);
            const __m512d numer1_tmp = _mm512_add_pd(
                _mm512_roundscale_pd(_mm512_mul_pd(_mm512_mul_pd(gl, gl), s1), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                numer1);
            const vi num = _mm512_sub_epi64(log2_biased(numer1_tmp), log2_biased(numer1));
            num_log_ = _mm512_mask_add_epi64(num_log_, num_mask, num_log_, num);
        }

        __m512d nsq_, eps_, gain_limit_;
        StatTables t_;
        vi num_log_ = _mm512_setzero_si512(), den_log_ = _mm512_setzero_si512();
        int64_t den_non_log_ = 0;
        __m512d num_non_log_ = _mm512_setzero_pd();
    };
};

constexpr Kernels kAvx512{"avx512", make_scratch_simd<V512>, scratch_bytes_simd<V512>, scale_pass_simd<V512>};

}  // namespace

const Kernels* kernels_avx512() { return detect_cpu_flags().avx512vnni ? &kAvx512 : nullptr; }

}  // namespace speedqa::vif
