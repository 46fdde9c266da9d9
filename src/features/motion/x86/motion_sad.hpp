// The SIMD motion kernel, written once for every vector width: the AVX2 and
// the AVX-512 files include it with their vector type V (the operations
// below, in registers of V::kBlock int16 lanes) and build it with their
// instruction set. Everything here has internal linkage (an unnamed
// namespace), so that no object built for a wider instruction set hands the
// linker code another file shares (tests/simd_objects_check.sh).
//
// Each 5-tap sum of the blur can exceed 32 bits (the reference sums in 64),
// but its three terms c0 (v0 + v4), c1 (v1 + v3) and c2 v2 each fit a signed
// int32. The rounded shift of their sum is taken exactly without 64 bits:
// floor((P1 + P2 + P3 + 2^(s-1)) / 2^s) is the sum of the terms' own floors
// (arithmetic shifts) plus the floor of their remainders' sum, rounded.
// The vertical pass works kBlock / 2 columns at a time on the difference of
// the two frames; its row goes to a buffer with the mirrored columns beside
// it, and the horizontal pass reads it back kBlock / 2 columns at a time.
//
// Up to 12 bits the differences and their pair sums fit int16, and the
// vertical pass runs kBlock columns at a time by vpmaddwd. When a blurred
// row also fits int16 (any row of real video), the horizontal pass runs on
// it by vpmaddwd too: a load at position p holds the neighbours (p + 2m,
// p + 2m + 1) side by side, so three vpmaddwd take the 5 taps of kBlock / 2
// outputs of one parity, and their sum (below 2^31 in magnitude) is rounded
// directly. Where a row does not fit int16 (strong motion), its values, all
// below 2^16 in magnitude up to 12 bits, are split as v = 2^8 hi + lo (hi
// = v >> 8 in [-256, 255], lo in [0, 255]); the horizontal sums of the two
// (A, B, each below 2^25) give the rounded value without leaving 32 bits:
// floor((2^8 A + B + 2^15) / 2^16) = (A + ((B + 2^15) >> 8)) >> 8.
#pragma once

#include <immintrin.h>

#include <algorithm>

#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

constexpr int kPad = 8;  // row-buffer positions before column 0

template <class V>
struct Sad {
    using vi = typename V::vi;
    static constexpr int B = V::kBlock;  // int16 lanes
    static constexpr int W = B / 2;      // int32 lanes

    // floor((c0 (v0 + v4) + c1 (v1 + v3) + c2 v2 + 2^(s-1)) / 2^s) for |v| < 2^17.
    static vi blur5(vi s04, vi s13, vi v2, __m128i shift, vi mask, vi half) {
        const vi p1 = V::mullo32(s13, V::set1_32(em::tap(1)));
        const vi p2 = V::mullo32(v2, V::set1_32(em::tap(2)));
        const vi p3 = V::mullo32(s04, V::set1_32(em::tap(0)));
        const vi whole = V::add32(V::add32(V::sra32(p1, shift), V::sra32(p2, shift)), V::sra32(p3, shift));
        const vi rest =
            V::add32(V::add32(V::and_(p1, mask), V::and_(p2, mask)), V::add32(V::and_(p3, mask), half));
        return V::add32(whole, V::sra32(rest, shift));
    }

    // The vertical pass at the B columns from j (samples of at most 12 bits,
    // whose differences and pair sums fit int16), rounded: the columns the
    // 16-bit unpacks interleave (lo, hi), as int32.
    template <bool Bytes>
    static void vertical_block(const uint8_t* const* p, const uint8_t* const* c, int j, int bd, vi& lo, vi& hi) {
        const vi c01 = V::set1_32((em::tap(1) << 16) | em::tap(0));
        const vi c2 = V::set1_32(em::tap(2));
        const vi half = V::set1_32(1 << (bd - 1));
        const __m128i shift = _mm_cvtsi32_si128(bd);
        const auto load16 = [](const uint8_t* row, int col) {
            if constexpr (Bytes) return V::load_u8_16(row + col);
            return V::ld(row + 2 * col);
        };
        vi d[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) d[k] = V::sub16(load16(p[k], j), load16(c[k], j));
        const vi s04 = V::add16(d[0], d[4]), s13 = V::add16(d[1], d[3]);
        const vi zero = V::zero();
        lo = V::sra32(V::add32(V::add32(V::madd(V::unpacklo16(s04, s13), c01), V::madd(V::unpacklo16(d[2], zero), c2)), half),
                      shift);
        hi = V::sra32(V::add32(V::add32(V::madd(V::unpackhi16(s04, s13), c01), V::madd(V::unpackhi16(d[2], zero), c2)), half),
                      shift);
    }

    // The vertical pass of one row for samples of at most 12 bits, written
    // twice: as int16 in `y16` (saturated), and split as the two int16
    // planes hi (v >> 8) and lo (v & 255). Returns the OR of the magnitudes:
    // a row with one of 2^15 or more is summed from the split planes.
    template <bool Bytes>
    static uint32_t vertical(const uint8_t* const* p, const uint8_t* const* c, int w, int bd, int16_t* y16,
                             int16_t* hi16, int16_t* lo16) {
        const vi low8 = V::set1_32(255);
        vi mag = V::zero();
        int j = 0;
        for (; j + B <= w; j += B) {
            vi lo, hi;
            vertical_block<Bytes>(p, c, j, bd, lo, hi);
            V::st(y16 + j, V::packs32(lo, hi));
            V::st(hi16 + j, V::packs32(V::template srai32<8>(lo), V::template srai32<8>(hi)));
            V::st(lo16 + j, V::packs32(V::and_(lo, low8), V::and_(hi, low8)));
            mag = V::or_(mag, V::or_(V::abs32(lo), V::abs32(hi)));
        }
        uint32_t m = V::reduce_or32(mag);
        for (; j < w; j++) {
            const int32_t v = em::vertical_at(p, c, Bytes, j, bd);
            y16[j] = static_cast<int16_t>(std::clamp(v, -32768, 32767));
            hi16[j] = static_cast<int16_t>(v >> 8);
            lo16[j] = static_cast<int16_t>(v & 255);
            m |= static_cast<uint32_t>(v < 0 ? -v : v);
        }
        return m;
    }

    // The 5 taps of the horizontal pass on int16 values from src: kBlock / 2
    // outputs of one parity (neighbours side by side in each 32-bit lane).
    static vi taps5(const int16_t* src) {
        const vi c01 = V::set1_32((em::tap(1) << 16) | em::tap(0));
        const vi c23 = V::set1_32((em::tap(3) << 16) | em::tap(2));
        const vi c4 = V::set1_32(em::tap(4));
        return V::add32(V::add32(V::madd(V::ld(src), c01), V::madd(V::ld(src + 2), c23)), V::madd(V::ld(src + 4), c4));
    }

    // The sum over a row of w outputs of block(j0, e): |value| of the
    // outputs j0 + e + 2m (m < W), whose taps start at position j0 + e - 2.
    template <class Block>
    static uint32_t row_sum(int w, const Block& block) {
        vi row = V::zero();
        int j0 = 0;
        for (; j0 + B <= w; j0 += B) row = V::add32(row, V::add32(block(j0, 0), block(j0, 1)));
        if (j0 < w)
            for (int e = 0; e < 2; e++)  // outputs past the row do not count
                row = V::add32(row, V::lanes_below(block(j0, e), w - j0 - e));
        return V::sum32(row);
    }

    // The horizontal pass of a row from its split planes: sum of |value|.
    static uint32_t horizontal_split(const int16_t* hi16, const int16_t* lo16, int w) {
        const vi half = V::set1_32(1 << 15);
        return row_sum(w, [&](int j0, int e) {
            const int o = j0 + e - em::kRadius;
            const vi a = taps5(hi16 + o), b = taps5(lo16 + o);
            return V::abs32(V::template srai32<8>(V::add32(a, V::template srai32<8>(V::add32(b, half)))));
        });
    }

    // The horizontal pass of a row that fits int16: sum of |value|.
    static uint32_t horizontal_short(const int16_t* y16, int w) {
        const vi half = V::set1_32(1 << 15);
        return row_sum(w, [&](int j0, int e) {
            return V::abs32(V::template srai32<16>(V::add32(taps5(y16 + j0 + e - em::kRadius), half)));
        });
    }

    // The positions beside the row from the columns the mirrored taps read.
    template <class T>
    static void mirror_columns(T* y, int w) {
        for (int q = 1; q <= em::kRadius; q++) {
            y[-q] = y[em::mirror(-q, w)];
            y[w - 1 + q] = y[em::mirror(w - 1 + q, w)];
        }
    }

    template <bool Bytes>
    static uint64_t rows(const SadArgs& a) {
        const int bd = a.bitdepth, w = a.w;
        const __m128i vshift = _mm_cvtsi32_si128(bd), hshift = _mm_cvtsi32_si128(16);
        const vi vmask = V::set1_32((1 << bd) - 1), vhalf = V::set1_32(1 << (bd - 1));
        const vi hmask = V::set1_32(0xffff), hhalf = V::set1_32(1 << 15);
        int32_t* y = a.row + kPad;
        // up to 12 bits, the int16 row and the split planes share the int32
        // row's room (3 (w + 64) + 2 kPad int16s of its 4 (w + 64))
        const int plane = w + 64;
        int16_t* y16 = reinterpret_cast<int16_t*>(a.row) + 2 * kPad;
        int16_t* hi16 = y16 + plane;
        int16_t* lo16 = hi16 + plane;
        const bool narrow = bd <= 12;
        uint64_t sad = 0;
        for (int i = 0; i < a.h; i++) {
            const uint8_t *p[em::kTaps], *c[em::kTaps];
            for (int k = 0; k < em::kTaps; k++) {
                const int r = em::mirror(i - em::kRadius + k, a.h);
                p[k] = a.prev + a.prev_stride * r;
                c[k] = a.cur + a.cur_stride * r;
            }
            if (narrow) {
                const uint32_t mag = vertical<Bytes>(p, c, w, bd, y16, hi16, lo16);
                if (mag == 0) continue;  // a row of zeros blurs to zeros (the reference skips it too)
                if (mag < 0x8000) {
                    mirror_columns(y16, w);
                    sad += horizontal_short(y16, w);
                } else {
                    mirror_columns(hi16, w);
                    mirror_columns(lo16, w);
                    sad += horizontal_split(hi16, lo16, w);
                }
                continue;
            }
            int j = 0;
            for (; j + W <= w; j += W) {
                vi d[em::kTaps];
                for (int k = 0; k < em::kTaps; k++)
                    d[k] = V::sub32(V::template load_32<Bytes>(p[k], j), V::template load_32<Bytes>(c[k], j));
                V::st(y + j, blur5(V::add32(d[0], d[4]), V::add32(d[1], d[3]), d[2], vshift, vmask, vhalf));
            }
            for (; j < w; j++) y[j] = em::vertical_at(p, c, Bytes, j, bd);
            mirror_columns(y, w);
            // the reference sums a row in 32 bits (it cannot wrap: |value| < 2^16)
            vi row = V::zero();
            j = 0;
            for (; j + W <= w; j += W) {
                const auto at = [&](int o) { return V::ld(y + j + o); };
                const vi v = blur5(V::add32(at(-2), at(2)), V::add32(at(-1), at(1)), at(0), hshift, hmask, hhalf);
                row = V::add32(row, V::abs32(v));
            }
            uint32_t row_sad = V::sum32(row);
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

    static uint64_t sad(const SadArgs& a) { return a.bitdepth == 8 ? rows<true>(a) : rows<false>(a); }
};

}  // namespace
}  // namespace speedqa::motion
