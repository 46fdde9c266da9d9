// AVX2 variant of the VIF scale pass (built with -mavx2 -mfma -mbmi -mbmi2).
//
// It computes the C reference's integers by other means. Every filter sum is
// a sum of products of 16-bit values with 16-bit taps, done two products at a
// time by vpmaddwd:
//  - vertically, on rows interleaved in pairs (row 2m and 2m + 1 side by
//    side, 16 bits each): a pair of rows and a pair of taps per vpmaddwd. The
//    interleaved rows and their products (x^2, y^2, x y split into their
//    16-bit halves by vpmullw / vpmulhuw) are made once per row pair, kept in
//    a ring for the rows the filter spans, and read by every output row;
//  - horizontally, on a row of 16-bit values where two neighbouring columns
//    already sit side by side: one vpmaddwd takes two neighbouring taps for 8
//    outputs of one parity (the even and the odd outputs are summed apart;
//    the statistic does not depend on the order of the pixels);
//  - 32-bit values (the second moments after the vertical pass) go through
//    as two 16-bit halves whose sums are recombined exactly;
//  - all values are biased by -2^15 to fit vpmaddwd's signed inputs; the taps
//    of a filter sum to 2^16, so every sum lacks exactly 2^31, added back
//    modulo 2^32 (every sum is below 2^32);
//  - a tap of 2^15 or more (43728 at scale 3) is taken as two halves.
// The taps are compile-time constants (the filters are fixed), so every sum
// unrolls into vpmaddwd with constant operands.
// The per-pixel statistic runs on 4 pixels at once in doubles: the same IEEE
// operations as the C code (division, product, difference, truncations), its
// branches as masks; log2 reads the table at the top 16 bits of the value,
// found from the double's exponent and mantissa.
// The frame is processed in strips of columns so that the ring stays in L2.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/cpu_flags.hpp"
#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {
namespace {

using ev::kMaxRadius;

constexpr int kStrip = 256;                                       // output columns per strip (multiple of 16)
constexpr int kSpan = (kStrip + 2 * kMaxRadius + 15) / 16 * 16;  // columns of a strip's vertical pass (272)
constexpr int kRingSlots = kMaxRadius + 2;                        // row pairs alive at once
constexpr int kPad = 48;                                          // row-buffer slack either side (int16)
constexpr int kRowLen = kPad + kSpan + 16 + kPad;

// Ring planes and row-buffer planes: the samples (means after the vertical
// pass) and the products' (second moments') 16-bit halves, all biased.
enum Plane { kX, kY, kXXlo, kYYlo, kXYlo, kXXhi, kYYhi, kXYhi, kPlanes };

// ---- taps two by two ------------------------------------------------------------

struct Term {
    int pair = 0;       // which pair of positions, from the first
    int32_t coefs = 0;  // (tap on the first position, tap on the second), int16 each
};
struct Terms {
    int n = 0;
    Term t[ev::kMaxTaps + 4] = {};
};

constexpr int32_t pack16(uint32_t lo, uint32_t hi) { return static_cast<int32_t>((lo & 0xffff) | (hi << 16)); }

// The taps of `f` on consecutive positions, tap 0 at position `phase` (0 or
// 1) of pair 0, as vpmaddwd terms; a tap of 2^15 or more in two terms.
constexpr Terms pair_terms(const ev::Filter& f, int phase) {
    uint32_t c[2][ev::kMaxTaps + 2] = {};
    const int pairs = (phase + f.width + 1) / 2;
    for (int k = 0; k < f.width; k++) c[(phase + k) & 1][(phase + k) >> 1] = f.c[k];
    Terms out;
    for (int q = 0; q < pairs; q++) {
        const uint32_t a = c[0][q], b = c[1][q];
        const uint32_t a2 = a >= 32768 ? a / 2 : 0, b2 = b >= 32768 ? b / 2 : 0;
        out.t[out.n++] = {q, pack16(a - a2, b - b2)};
        if (a2 || b2) out.t[out.n++] = {q, pack16(a2, b2)};
    }
    return out;
}

// The terms of scale S's filter: vertical for the two phases of the first
// row, horizontal (pairs of neighbouring taps from tap 0).
template <int S>
struct Taps {
    static constexpr ev::Filter f = ev::filter(S);
    static constexpr int r = f.radius();
    // (two objects, not an array: clang 14 takes no array element as a
    // template argument; the vertical terms of phase P are (P ? v1 : v0))
    static constexpr Terms v0 = pair_terms(f, 0), v1 = pair_terms(f, 1);
    static constexpr Terms h = pair_terms(f, 0);
};

// ---- small helpers --------------------------------------------------------------------

inline __m256i ld(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline void st(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
inline __m256i splat(int32_t v) { return _mm256_set1_epi32(v); }
inline __m256i bias16() { return _mm256_set1_epi16(static_cast<short>(0x8000)); }
// 2^31 (what every biased sum lacks) plus a rounding constant, modulo 2^32
inline __m256i unbias_plus(uint32_t round) { return splat(static_cast<int32_t>(0x80000000u + round)); }

// Two vectors of 8 non-negative int32 below 2^16 (columns 0-3 8-11 / 4-7
// 12-15 of a block, as vpunpck*wd leaves them) as 16 biased int16 in column
// order.
inline __m256i pack_biased(__m256i z0, __m256i z1) { return _mm256_xor_si256(_mm256_packus_epi32(z0, z1), bias16()); }

// Doubles of the int32 lanes 0..3 and 4..7.
inline __m256d lo_pd(__m256i v) { return _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)); }
inline __m256d hi_pd(__m256i v) { return _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)); }
inline __m256d lo_mask(__m256i v) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v))); }
inline __m256d hi_mask(__m256i v) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1))); }

// Non-negative integer-valued doubles below 2^52 to int64.
inline __m256i pd_to_i64(__m256d v) {
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);  // 2^52
    return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic)), _mm256_castpd_si256(magic));
}

inline int64_t hsum_i64(__m256i v) {
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

// (a b + 2^31) >> 32 for unsigned 32-bit lanes.
inline __m256i mean_product(__m256i a, __m256i b) {
    const __m256i r = _mm256_set1_epi64x(0x80000000ll);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), r), 32);
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), r);
    return _mm256_blend_epi32(even, odd, 0xaa);
}

// ---- the per-pixel statistic ----------------------------------------------------

struct StatConsts {
    __m256d nsq, eps, gain_limit, zero;
    const int* table;          // the uint16 table, read 32 bits at a time
    const int* bytes;          // the same as offsets (Log2Bytes), or null where they do not fit a byte
};

// The log2 table's entries 32768 + m (m < 2^15, all that log2_biased reads)
// as bytes: table[32768 + m] - 30720 - (m >> 4), the distance from the
// chord of log2 between 2^15 and 2^16, is 0..177 for libvmaf's table. At 32
// KiB (the uint16 half is 64 KiB) the gathers into it mostly hit L1. Made
// from the table the pass is given; `fits` false where some entry does not
// fit a byte (then the uint16 table is read).
struct Log2Bytes {
    static constexpr int kEntries = 32768;
    // The chord at m: 2048 log2(2^15) + m / 16, rounded down.
    static constexpr int chord(int m) { return 30720 + (m >> 4); }
    std::unique_ptr<uint8_t[]> b{new uint8_t[kEntries + 3]()};  // (+3: 32-bit gathers at the last entries)
    const uint16_t* from = nullptr;
    bool fits = false;

    void make(const uint16_t* table) {
        if (table == from) return;
        from = table;
        fits = true;
        for (int m = 0; m < kEntries; m++) {
            const int d = static_cast<int>(table[kEntries + m]) - chord(m);
            if (d < 0 || d > 255) {
                fits = false;
                return;
            }
            b[m] = static_cast<uint8_t>(d);
        }
    }
};

struct StatAcc {
    __m256i num_log = _mm256_setzero_si256(), den_log = _mm256_setzero_si256();
    __m256i den_non_log = _mm256_setzero_si256();
    __m256d num_non_log = _mm256_setzero_pd();  // below 2^31 a pixel: exact over a row
};

// table[v >> k] + 2048 (k + 1038) for integer-valued doubles v >= 2^16, with
// k = exponent - 15 (v >> k is the top 16 bits, 2^15 + m).
inline __m256i log2_biased(const StatConsts& k, __m256d v) {
    const __m256i bits = _mm256_castpd_si256(v);
    const __m256i m = _mm256_and_si256(_mm256_srli_epi64(bits, 37), _mm256_set1_epi64x(0x7fff));
    const __m256i exponent_part = _mm256_slli_epi64(_mm256_srli_epi64(bits, 52), 11);
    if (k.bytes) {
        const __m128i t = _mm_and_si128(_mm256_i64gather_epi32(k.bytes, m, 1), _mm_set1_epi32(0xff));
        const __m256i chord = _mm256_add_epi64(_mm256_srli_epi64(m, 4), _mm256_set1_epi64x(Log2Bytes::chord(0)));
        return _mm256_add_epi64(_mm256_add_epi64(_mm256_cvtepu32_epi64(t), chord), exponent_part);
    }
    const __m256i idx = _mm256_or_si256(m, _mm256_set1_epi64x(0x8000));
    const __m128i t = _mm_and_si128(_mm256_i64gather_epi32(k.table, idx, 2), _mm_set1_epi32(0xffff));
    return _mm256_add_epi64(_mm256_cvtepu32_epi64(t), exponent_part);
}

// ev::accumulate for the 4 pixels of `valid` (all-ones lanes). Flat areas
// (no pixel above the noise floor) skip the logarithms; the masks keep the
// bits the same either way.
inline void stat4(const StatConsts& k, __m256d s1, __m256d s2, __m256d s12, __m256d valid, StatAcc& acc) {
    s2 = _mm256_max_pd(s2, k.zero);
    const __m256d ge = _mm256_cmp_pd(s1, k.nsq, _CMP_GE_OQ);
    const __m256d log_mask = _mm256_and_pd(ge, valid);
    const __m256d non_log = _mm256_andnot_pd(ge, valid);
    acc.den_non_log = _mm256_sub_epi64(acc.den_non_log, _mm256_castpd_si256(non_log));  // -(-1) per pixel
    acc.num_non_log = _mm256_add_pd(acc.num_non_log, _mm256_and_pd(non_log, s2));
    if (_mm256_testz_pd(log_mask, log_mask)) return;
    const __m256i den = _mm256_sub_epi64(log2_biased(k, _mm256_add_pd(s1, k.nsq)),
                                         _mm256_set1_epi64x(2048 * (1038 + 17)));
    acc.den_log = _mm256_add_epi64(acc.den_log, _mm256_and_si256(den, _mm256_castpd_si256(log_mask)));

    const __m256d num_mask = _mm256_and_pd(
        log_mask, _mm256_and_pd(_mm256_cmp_pd(s12, k.zero, _CMP_GT_OQ), _mm256_cmp_pd(s2, k.zero, _CMP_GT_OQ)));
    if (_mm256_testz_pd(num_mask, num_mask)) return;
    const __m256d g = _mm256_div_pd(s12, _mm256_add_pd(s1, k.eps));
    // (int32)(s2 - g s12) clamped at 0: truncation, then max with 0 (-0.0 too)
    const __m256d sv = _mm256_max_pd(_mm256_round_pd(_mm256_sub_pd(s2, _mm256_mul_pd(g, s12)),
                                                     _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                                     k.zero);
    const __m256d gl = _mm256_min_pd(g, k.gain_limit);  // g < limit ? g : limit, as the C code
    const __m256d numer1 = _mm256_add_pd(sv, k.nsq);
    const __m256d numer1_tmp = _mm256_add_pd(
        _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(gl, gl), s1), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), numer1);
    const __m256i num = _mm256_sub_epi64(log2_biased(k, numer1_tmp), log2_biased(k, numer1));
    acc.num_log = _mm256_add_epi64(acc.num_log, _mm256_and_si256(num, _mm256_castpd_si256(num_mask)));
}

// ---- the pass ----------------------------------------------------------------------

class ScratchAvx2 final : public ScaleScratch {
public:
    ScratchAvx2() : ring(new int32_t[kRingSlots * kPlanes * kSpan]()), rows(new int16_t[kPlanes * kRowLen]()) {}
    Log2Bytes log2;
    std::unique_ptr<int32_t[]> ring;  // [slot][plane][column of the strip's span] pairs of int16
    std::unique_ptr<int16_t[]> rows;  // [plane][position]: a row after the vertical pass, biased
};

inline int floor_half(int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

// One strip of one scale: the statistic with scale S's filter (stat planes
// NP: 5 for 8-bit samples, whose squares fit 16 bits, else 8), the halving
// with scale S + 1's.
template <int S, int NP>
class Strip {
    using T = Taps<S>;
    using H = Taps<(S < 3 ? S + 1 : 3)>;

public:
    Strip(const ScaleArgs& a, ScratchAvx2& s, int s0, int s1)
        : a_(a), im_(a.in), s_(s), s0_(s0), s1_(s1), bytes_(a.in.bits == 8) {
        ring_r_ = a.stat ? T::r : H::r;
        planes_ = a.stat ? NP : 2;
        col0_ = std::max(0, s0 - ring_r_);
        col1_ = std::min(im_.w, s1 + ring_r_);
        blocks_ = (col1_ - col0_ + 15) / 16;
        row0_ = s_.rows.get() + kPad - (s0_ - kMaxRadius);
        k_.nsq = _mm256_set1_pd(static_cast<double>(ev::kSigmaNsq));
        k_.eps = _mm256_set1_pd(ev::kEps);
        k_.gain_limit = _mm256_set1_pd(a.gain_limit);
        k_.zero = _mm256_setzero_pd();
        k_.table = reinterpret_cast<const int*>(a.log2_table);
        k_.bytes = s.log2.fits ? reinterpret_cast<const int*>(s.log2.b.get()) : nullptr;
    }

    void run(ev::Sums& sums) {
        const int out_rows = a_.halve ? im_.h / 2 : 0;
        const int rows = a_.stat ? im_.h : out_rows;
        int next_pair = floor_half(-ring_r_);
        for (int n = 0; n < rows; n++) {
            const int i = a_.stat ? n : 2 * n;  // the input row at the centre
            for (; next_pair <= floor_half(i + ring_r_); next_pair++) build_pair(next_pair);
            if (a_.stat) {
                if ((i - T::r) & 1) stat_row<1>(i, sums);
                else stat_row<0>(i, sums);
            }
            if constexpr (S < 3)
                if (a_.halve && (i & 1) == 0 && i / 2 < out_rows) {
                    if ((i - H::r) & 1) halve_row<1>(i / 2);
                    else halve_row<0>(i / 2);
                }
        }
    }

private:
    int32_t* slot(int pair) const {
        const int k = ((pair % kRingSlots) + kRingSlots) % kRingSlots;
        return s_.ring.get() + static_cast<ptrdiff_t>(k) * kPlanes * kSpan;
    }

    // 16 samples of a row from column c as uint16, zeros past col1_.
    __m256i load16(const void* row, int c) const {
        if (c + 16 <= col1_) {
            if (bytes_)
                return _mm256_cvtepu8_epi16(
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint8_t*>(row) + c)));
            return ld(static_cast<const uint16_t*>(row) + c);
        }
        alignas(32) uint16_t tmp[16] = {};
        for (int j = c; j < col1_; j++)
            tmp[j - c] = bytes_ ? static_cast<const uint8_t*>(row)[j] : static_cast<const uint16_t*>(row)[j];
        return ld(tmp);
    }

    // Interleaves rows 2m and 2m + 1 of the strip's columns and forms the
    // products' halves.
    void build_pair(int m) {
        // rows past the padding table carry tap 0 (the last pair of a filter
        // may reach one row beyond it): any row will do
        const auto row = [&](const void* const* t, int r) { return t[std::min(r, im_.h + kMaxRadius - 1)]; };
        const void* xr0 = row(im_.ref_rows, 2 * m);
        const void* xr1 = row(im_.ref_rows, 2 * m + 1);
        const void* yr0 = row(im_.dis_rows, 2 * m);
        const void* yr1 = row(im_.dis_rows, 2 * m + 1);
        int32_t* p = slot(m);
        const bool products = planes_ > 2;
        // the rows of the pair after next, for when it is built (the strip
        // reads a narrow band of each row: the prefetcher does not see it)
        const char* ahead[4] = {static_cast<const char*>(row(im_.ref_rows, 2 * m + 4)),
                                static_cast<const char*>(row(im_.ref_rows, 2 * m + 5)),
                                static_cast<const char*>(row(im_.dis_rows, 2 * m + 4)),
                                static_cast<const char*>(row(im_.dis_rows, 2 * m + 5))};
        const int sample_bytes = bytes_ ? 1 : 2;
        for (int b = 0; b < blocks_; b++) {
            const int c = col0_ + 16 * b;
            for (const char* r : ahead) _mm_prefetch(r + static_cast<ptrdiff_t>(c) * sample_bytes, _MM_HINT_T0);
            const __m256i xa = load16(xr0, c), xb = load16(xr1, c), ya = load16(yr0, c), yb = load16(yr1, c);
            const __m256i zx[2] = {_mm256_unpacklo_epi16(xa, xb), _mm256_unpackhi_epi16(xa, xb)};
            const __m256i zy[2] = {_mm256_unpacklo_epi16(ya, yb), _mm256_unpackhi_epi16(ya, yb)};
            for (int h = 0; h < 2; h++) {
                int32_t* o = p + 16 * b + 8 * h;
                st(o + kX * kSpan, _mm256_xor_si256(zx[h], bias16()));
                st(o + kY * kSpan, _mm256_xor_si256(zy[h], bias16()));
                if (!products) continue;
                st(o + kXXlo * kSpan, _mm256_xor_si256(_mm256_mullo_epi16(zx[h], zx[h]), bias16()));
                st(o + kYYlo * kSpan, _mm256_xor_si256(_mm256_mullo_epi16(zy[h], zy[h]), bias16()));
                st(o + kXYlo * kSpan, _mm256_xor_si256(_mm256_mullo_epi16(zx[h], zy[h]), bias16()));
                if constexpr (NP == kPlanes) {
                    st(o + kXXhi * kSpan, _mm256_xor_si256(_mm256_mulhi_epu16(zx[h], zx[h]), bias16()));
                    st(o + kYYhi * kSpan, _mm256_xor_si256(_mm256_mulhi_epu16(zy[h], zy[h]), bias16()));
                    st(o + kXYhi * kSpan, _mm256_xor_si256(_mm256_mulhi_epu16(zx[h], zy[h]), bias16()));
                }
            }
        }
    }

    // The vpmaddwd operand of term t of TT, in a register: loaded once and
    // used by every plane of a group (were it a memory operand, or spilled,
    // each vpmaddwd would take two loads, and the loads, not the
    // multiplications, would bound the sums).
    template <const Terms& TT>
    static __m256i coef(int t) {
        __m256i c = splat(TT.t[t].coefs);
        keep(c);
        return c;
    }
    // A value the compiler must hold in a register here: the sums stay one
    // running register each, term after term (reassociated into trees of
    // products, they outgrow the 16 registers and go through the stack).
    static void keep(__m256i& v) { asm("" : "+x"(v)); }

    // Vertical sums of the N planes from Q0 at a 16-column block (its two
    // halves, in the order the pairs were interleaved) for the terms of TT,
    // whose pair q lies at `pairs[q]`, into z[Q0..Q0 + N).
    template <const Terms& TT, int Q0, int N>
    static void vsums(const int32_t* const* pairs, ptrdiff_t o, __m256i (&z)[kPlanes][2]) {
        __m256i acc[N][2];
        for (int q = 0; q < N; q++) acc[q][0] = acc[q][1] = _mm256_setzero_si256();
#pragma GCC unroll 16
        for (int t = 0; t < TT.n; t++) {
            const __m256i c = coef<TT>(t);
            const int32_t* src = pairs[TT.t[t].pair] + o + Q0 * kSpan;
#pragma GCC unroll 8
            for (int q = 0; q < N; q++) {
                acc[q][0] = _mm256_add_epi32(acc[q][0], _mm256_madd_epi16(ld(src + q * kSpan), c));
                acc[q][1] = _mm256_add_epi32(acc[q][1], _mm256_madd_epi16(ld(src + q * kSpan + 8), c));
                keep(acc[q][0]);
                keep(acc[q][1]);
            }
        }
        for (int q = 0; q < N; q++) {
            z[Q0 + q][0] = acc[q][0];
            z[Q0 + q][1] = acc[q][1];
        }
    }

    // Horizontal sums of the N row planes from Q0 for the even and the odd
    // outputs of a block (v[q][0], v[q][1]): `src` is the position, in
    // plane Q0, of tap 0 of the first even output. With Odd false, the odd
    // outputs are not summed.
    template <const Terms& TT, int Q0, int N, bool Odd = true>
    static void hsums(const int16_t* src, __m256i (&v)[kPlanes][2]) {
        __m256i even[N], odd[N];
        for (int q = 0; q < N; q++) even[q] = odd[q] = _mm256_setzero_si256();
        src += Q0 * kRowLen;
#pragma GCC unroll 16
        for (int t = 0; t < TT.n; t++) {
            const __m256i c = coef<TT>(t);
            const int16_t* p = src + 2 * TT.t[t].pair;
#pragma GCC unroll 8
            for (int q = 0; q < N; q++) {
                even[q] = _mm256_add_epi32(even[q], _mm256_madd_epi16(ld(p + q * kRowLen), c));
                keep(even[q]);
                if constexpr (Odd) {
                    odd[q] = _mm256_add_epi32(odd[q], _mm256_madd_epi16(ld(p + q * kRowLen + 1), c));
                    keep(odd[q]);
                }
            }
        }
        for (int q = 0; q < N; q++) {
            v[Q0 + q][0] = even[q];
            v[Q0 + q][1] = odd[q];
        }
    }

    int16_t* row_plane(int q) const { return row0_ + q * kRowLen; }

    // Copies the positions beside the frame from the columns the padding takes.
    void mirror(int planes, int from, int to) const {
        for (int q = 0; q < planes; q++) {
            int16_t* v = row_plane(q);
            for (int p = from; p < std::min(to, 0); p++) v[p] = v[im_.col_src[p]];
            for (int p = std::max(from, im_.w); p < to; p++) v[p] = v[im_.col_src[p]];
        }
    }

    template <int Phase>
    void stat_row(int i, ev::Sums& sums) {
        const int32_t* pairs[T::r + 1];
        const int first = floor_half(i - T::r);
        for (int q = 0; q <= T::r; q++) pairs[q] = slot(first + q);
        const __m256i mean_add = unbias_plus(static_cast<uint32_t>(a_.rounding.mean.round));
        const __m128i mean_shift = _mm_cvtsi32_si128(a_.rounding.mean.shift);
        const int ms = a_.rounding.moment.shift;
        const __m256i mom_add = unbias_plus(static_cast<uint32_t>(a_.rounding.moment.round));
        const __m128i mom_shift = _mm_cvtsi32_si128(ms), hi_shift = _mm_cvtsi32_si128(16 - ms);
        const __m256i unbias = unbias_plus(0), low16 = splat(0xffff);
        constexpr const Terms& TV = Phase ? T::v1 : T::v0;
        for (int b = 0; b < blocks_; b++) {
            const ptrdiff_t o = 16 * b;
            const int c = col0_ + 16 * b;
            __m256i z[kPlanes][2];
            vsums<TV, kX, 5>(pairs, o, z);
            if constexpr (NP == kPlanes) vsums<TV, kXXhi, 3>(pairs, o, z);
            for (int q = kX; q <= kY; q++) {
                const __m256i z0 = _mm256_srl_epi32(_mm256_add_epi32(z[q][0], mean_add), mean_shift);
                const __m256i z1 = _mm256_srl_epi32(_mm256_add_epi32(z[q][1], mean_add), mean_shift);
                st(row_plane(q) + c, pack_biased(z0, z1));
            }
            for (int q = 0; q < 3; q++) {
                // t = (A << (16 - s)) + ((B + round) >> s) with A, B the
                // high and low halves' sums: 2^16 A + B rounded by s bits
                __m256i z0 = _mm256_srl_epi32(_mm256_add_epi32(z[kXXlo + q][0], mom_add), mom_shift);
                __m256i z1 = _mm256_srl_epi32(_mm256_add_epi32(z[kXXlo + q][1], mom_add), mom_shift);
                if constexpr (NP == kPlanes) {
                    z0 = _mm256_add_epi32(z0, _mm256_sll_epi32(_mm256_add_epi32(z[kXXhi + q][0], unbias), hi_shift));
                    z1 = _mm256_add_epi32(z1, _mm256_sll_epi32(_mm256_add_epi32(z[kXXhi + q][1], unbias), hi_shift));
                }
                st(row_plane(kXXlo + q) + c, pack_biased(_mm256_and_si256(z0, low16), _mm256_and_si256(z1, low16)));
                st(row_plane(kXXhi + q) + c, pack_biased(_mm256_srli_epi32(z0, 16), _mm256_srli_epi32(z1, 16)));
            }
        }
        mirror(kPlanes, s0_ - T::r, s1_ + T::r);

        StatAcc acc;
        const __m256i lane = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
        const __m256i carry_add = unbias_plus(ev::kHorizontalRound);
        for (int j0 = s0_; j0 < s1_; j0 += 16) {
            // outputs j0 + e + 2 m (parity e, m = 0..7); pair t of taps
            // starts at position j0 + e - r + 2 t
            __m256i v[kPlanes][2];
            hsums<T::h, 0, 4>(row_plane(0) + j0 - T::r, v);
            hsums<T::h, 4, 4>(row_plane(0) + j0 - T::r, v);
            for (int e = 0; e < 2; e++) {
                const __m256i mu1 = _mm256_add_epi32(v[kX][e], unbias), mu2 = _mm256_add_epi32(v[kY][e], unbias);
                __m256i mom[3];
                for (int q = 0; q < 3; q++)
                    mom[q] = _mm256_add_epi32(_mm256_add_epi32(v[kXXhi + q][e], unbias),
                                              _mm256_srli_epi32(_mm256_add_epi32(v[kXXlo + q][e], carry_add), 16));
                const __m256i s1 = _mm256_sub_epi32(mom[0], mean_product(mu1, mu1));
                const __m256i s2 = _mm256_sub_epi32(mom[1], mean_product(mu2, mu2));
                const __m256i s12 = _mm256_sub_epi32(mom[2], mean_product(mu1, mu2));
                // lanes of outputs past the strip do not count
                const __m256i valid = _mm256_cmpgt_epi32(splat(s1_ - j0 - e), lane);
                stat4(k_, lo_pd(s1), lo_pd(s2), lo_pd(s12), lo_mask(valid), acc);
                stat4(k_, hi_pd(s1), hi_pd(s2), hi_pd(s12), hi_mask(valid), acc);
            }
        }
        ev::Sums row;
        row.num_log = hsum_i64(acc.num_log);
        row.den_log = hsum_i64(acc.den_log);
        row.den_non_log = hsum_i64(acc.den_non_log);
        row.num_non_log = hsum_i64(pd_to_i64(acc.num_non_log));
        sums.add(row);
    }

    // Row o of the next scale: the vertical pass at input row 2o, then the
    // even columns of the horizontal pass.
    template <int Phase>
    void halve_row(int o) {
        const int i = 2 * o;
        const int32_t* pairs[H::r + 1];
        const int first = floor_half(i - H::r);
        for (int q = 0; q <= H::r; q++) pairs[q] = slot(first + q);
        const __m256i add = unbias_plus(static_cast<uint32_t>(a_.halve_rounding.round));
        const __m128i shift = _mm_cvtsi32_si128(a_.halve_rounding.shift);
        // the columns the even outputs of the strip read
        const int from = std::max(0, s0_ - H::r), to = std::min(im_.w, s1_ + H::r);
        for (int b = (from - col0_) / 16; 16 * b + col0_ < to; b++) {
            __m256i z[kPlanes][2];
            vsums<(Phase ? H::v1 : H::v0), kX, 2>(pairs, 16 * b, z);
            for (int q = kX; q <= kY; q++) {
                const __m256i z0 = _mm256_srl_epi32(_mm256_add_epi32(z[q][0], add), shift);
                const __m256i z1 = _mm256_srl_epi32(_mm256_add_epi32(z[q][1], add), shift);
                st(row_plane(q) + col0_ + 16 * b, pack_biased(z0, z1));
            }
        }
        mirror(2, s0_ - H::r, s1_ + H::r);

        const __m256i add_h = unbias_plus(ev::kHorizontalRound);
        const int o_end = std::min(s1_ / 2, im_.w / 2);
        uint16_t* dst[2] = {a_.ref_out + a_.out_stride * o, a_.dis_out + a_.out_stride * o};
        for (int o0 = s0_ / 2; o0 < o_end; o0 += 8) {
            __m256i h[kPlanes][2], v[2];
            hsums<H::h, kX, 2, false>(row_plane(0) + 2 * o0 - H::r, h);  // the even outputs only
            for (int q = 0; q < 2; q++) v[q] = _mm256_add_epi32(h[q][0], add_h);
            for (int q = 0; q < 2; q++) {
                const __m256i s = _mm256_srli_epi32(v[q], ev::kHorizontalShift);
                const __m128i r = _mm_packus_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
                if (o0 + 8 <= o_end) {
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst[q] + o0), r);
                } else {
                    alignas(16) uint16_t tmp[8];
                    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), r);
                    std::memcpy(dst[q] + o0, tmp, sizeof(uint16_t) * static_cast<size_t>(o_end - o0));
                }
            }
        }
    }

    const ScaleArgs& a_;
    const ScaleImage& im_;
    ScratchAvx2& s_;
    int s0_, s1_;
    bool bytes_;
    int ring_r_ = 0, planes_ = 0;
    int col0_ = 0, col1_ = 0, blocks_ = 0;
    int16_t* row0_;  // row-buffer plane 0, indexed by image column (plane q is q * kRowLen further)
    StatConsts k_;
};

template <int S, int NP>
void pass(const ScaleArgs& a, ScratchAvx2& s, ev::Sums& sums) {
    for (int s0 = 0; s0 < a.in.w; s0 += kStrip) Strip<S, NP>(a, s, s0, std::min(a.in.w, s0 + kStrip)).run(sums);
}

std::unique_ptr<ScaleScratch> make_scratch_avx2(int) { return std::make_unique<ScratchAvx2>(); }
size_t scratch_bytes_avx2(int) {
    return kRingSlots * kPlanes * kSpan * sizeof(int32_t) + kPlanes * kRowLen * sizeof(int16_t) + Log2Bytes::kEntries + 3;
}

void scale_pass_avx2(const ScaleArgs& a, ScaleScratch& scratch, ev::Sums& sums) {
    ScratchAvx2& s = static_cast<ScratchAvx2&>(scratch);
    if (a.stat) s.log2.make(a.log2_table);
    ev::Sums scale;
    switch (a.scale) {
    case 0:
        if (a.in.bits == 8) pass<0, 5>(a, s, scale);
        else pass<0, kPlanes>(a, s, scale);
        break;
    case 1: pass<1, kPlanes>(a, s, scale); break;
    case 2: pass<2, kPlanes>(a, s, scale); break;
    default: pass<3, kPlanes>(a, s, scale);
    }
    if (a.stat) sums.add(scale);
}

constexpr Kernels kAvx2{"avx2", make_scratch_avx2, scratch_bytes_avx2, scale_pass_avx2};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::vif
