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
// That is the path of samples over 12 bits (kBlock / 2 columns at a time,
// int32 lanes, the blurred row in a buffer with its mirrored columns).
//
// Up to 12 bits the differences and their pair sums fit int16:
//  - each row's difference prev - cur is made once, as int16, into a ring of
//    kTaps rows, and the vertical pass reads the ring kBlock columns at a
//    time by vpmaddwd (the rounding term rides on the centre tap);
//  - a vertical value v (|v| < 2^16 up to 12 bits) is kept as its low 16
//    bits l (int16, wrapped) and h = (v - l) / 2^16 in {-1, 0, 1}; in
//    real video h is 0 nearly everywhere (|v| < 2^15), even in rows of
//    strong motion;
//  - the horizontal pass sums the taps on l by vpmaddwd: a load at position
//    p holds the neighbours (p + 2m, p + 2m + 1) side by side, so three
//    vpmaddwd take the 5 taps of kBlock / 2 outputs of one parity. With L
//    and H the tap sums of l and h, the value is
//    floor((2^16 H + L + 2^15) / 2^16) = H + ((L + 2^15) >> 16), and |L| <=
//    2^31 keeps L in an int32; H is summed only for the blocks whose taps
//    meet a nonzero h.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "core/x86/vec.hpp"
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

    // The vertical pass at the B columns from j of the difference rows d[k]
    // (int16: samples of at most 12 bits, whose differences and pair sums
    // fit), rounded: the columns the 16-bit unpacks interleave (lo, hi), as
    // int32. The rounding term rides on the centre tap: (d2, 1) . (c2, half).
    static void vertical_block(const int16_t* const* d, int j, __m128i shift, vi c01, vi c2h, vi one, vi& lo, vi& hi) {
        vi v[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) v[k] = V::ld(d[k] + j);
        const vi s04 = V::add16(v[0], v[4]), s13 = V::add16(v[1], v[3]);
        lo = V::sra32(V::madd_add(V::madd(V::unpacklo16(s04, s13), c01), V::unpacklo16(v[2], one), c2h), shift);
        hi = V::sra32(V::madd_add(V::madd(V::unpackhi16(s04, s13), c01), V::unpackhi16(v[2], one), c2h), shift);
    }

    // Row r's difference prev - cur as int16 at the columns the vector
    // vertical pass reads.
    template <bool Bytes>
    static void difference_row(const uint8_t* p, const uint8_t* c, int w, int16_t* out) {
        const auto load16 = [](const uint8_t* row, int col) {
            if constexpr (Bytes) return V::load_u8_16(row + col);
            return V::ld(row + 2 * col);
        };
        constexpr int kSampleBytes = Bytes ? 1 : 2;
        for (int j = 0; j + B <= w; j += B) {
            if ((j * kSampleBytes) % 64 == 0) {   // the first pass over these rows
                prefetch_page_ahead(p + j * kSampleBytes);
                prefetch_page_ahead(c + j * kSampleBytes);
            }
            V::st(out + j, V::sub16(load16(p, j), load16(c, j)));
        }
    }

    // The vertical pass of one row for samples of at most 12 bits, each
    // value v written as l16 (its low 16 bits, int16) and hb ((v + 2^15) >>
    // 16: (v - l16) / 2^16). Returns whether any value is nonzero.
    template <bool Bytes>
    static bool vertical(const int16_t* const* d, const uint8_t* const* p, const uint8_t* const* c, int w, int bd,
                         int16_t* l16, int16_t* hb) {
        const vi low16 = V::set1_32(0xffff), mid = V::set1_32(0x8000);
        const vi c01 = V::set1_32((em::tap(1) << 16) | em::tap(0));
        const vi c2h = V::set1_32(((1 << (bd - 1)) << 16) | em::tap(2));
        const vi one = V::set1_16(1);
        const __m128i shift = _mm_cvtsi32_si128(bd);
        vi bits = V::zero();
        int j = 0;
        for (; j + B <= w; j += B) {
            vi lo, hi;
            vertical_block(d, j, shift, c01, c2h, one, lo, hi);
            V::st(l16 + j, V::packus32(V::and_(lo, low16), V::and_(hi, low16)));
            V::st(hb + j, V::packs32(V::template srai32<16>(V::add32(lo, mid)), V::template srai32<16>(V::add32(hi, mid))));
            bits = V::or_(bits, V::or_(lo, hi));
        }
        bool nonzero = V::any(bits);
        for (; j < w; j++) {
            const int32_t v = em::vertical_at(p, c, Bytes, j, bd);
            l16[j] = static_cast<int16_t>(v);
            hb[j] = static_cast<int16_t>((v + 0x8000) >> 16);
            nonzero |= v != 0;
        }
        return nonzero;
    }

    // The 5 taps of the horizontal pass on int16 values from src: kBlock / 2
    // outputs of one parity (neighbours side by side in each 32-bit lane).
    static vi taps5(const int16_t* src) {
        const vi c01 = V::set1_32((em::tap(1) << 16) | em::tap(0));
        const vi c23 = V::set1_32((em::tap(3) << 16) | em::tap(2));
        const vi c4 = V::set1_32(em::tap(4));
        return V::madd_add(V::madd_add(V::madd(V::ld(src), c01), V::ld(src + 2), c23), V::ld(src + 4), c4);
    }

    // The horizontal pass of a row from l16 and hb: the sum of |value|,
    // H + ((L + 2^15) >> 16) with the tap sums L of l16 and H of hb (H only
    // where the block's taps meet a nonzero hb).
    static uint32_t horizontal(const int16_t* l16, const int16_t* hb, int w) {
        const vi half = V::set1_32(1 << 15);
        vi row = V::zero();
        // outputs j0 + e + 2m (parity e, m < W), taps from j0 + e - 2: the
        // block reads positions j0 - 2 .. j0 + B + 1 (and one more, at tap 0)
        const auto block = [&](int j0, int e, bool high) {
            const int o = j0 + e - em::kRadius;
            vi x = V::template srai32<16>(V::add32(taps5(l16 + o), half));
            if (high) x = V::add32(x, taps5(hb + o));
            return V::abs32(x);
        };
        int j0 = 0;
        for (; j0 + B <= w; j0 += B) {
            const bool high = V::any(V::or_(V::ld(hb + j0 - em::kRadius), V::ld(hb + j0 + em::kRadius)));
            row = V::add32(row, V::add32(block(j0, 0, high), block(j0, 1, high)));
        }
        if (j0 < w)
            for (int e = 0; e < 2; e++)  // outputs past the row do not count
                row = V::add32(row, V::lanes_below(block(j0, e, true), w - j0 - e));
        return V::sum32(row);
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
        // up to 12 bits, the int16 planes (l16, hb and the ring's kTaps
        // rows) share the int32 row's room, each at a cache line's start
        // (row_len: 7 planes of round_up(w + 64, 32) int16s, kPad int32s
        // before them and a line's slack)
        const int plane = (w + 64 + 31) / 32 * 32;
        int16_t* l16 = reinterpret_cast<int16_t*>((reinterpret_cast<uintptr_t>(a.row + kPad) + 63) / 64 * 64);
        int16_t* hb = l16 + plane;
        const bool narrow = bd <= 12;
        // up to 12 bits: the difference rows, int16, in a ring of kTaps
        // slots by row index (the rows an output reads are distinct mod kTaps)
        int16_t* ring = hb + plane;
        int next_diff = 0;  // the first row whose difference is not made
        uint64_t sad = 0;
        for (int i = 0; i < a.h; i++) {
            int r[em::kTaps];
            const uint8_t *p[em::kTaps], *c[em::kTaps];
            for (int k = 0; k < em::kTaps; k++) {
                r[k] = em::mirror(i - em::kRadius + k, a.h);
                p[k] = a.prev + a.prev_stride * r[k];
                c[k] = a.cur + a.cur_stride * r[k];
            }
            if (narrow) {
                for (; next_diff <= std::min(i + em::kRadius, a.h - 1); next_diff++)
                    difference_row<Bytes>(a.prev + a.prev_stride * next_diff, a.cur + a.cur_stride * next_diff, w,
                                          ring + static_cast<ptrdiff_t>(next_diff % em::kTaps) * plane);
                const int16_t* d[em::kTaps];
                for (int k = 0; k < em::kTaps; k++) d[k] = ring + static_cast<ptrdiff_t>(r[k] % em::kTaps) * plane;
                if (!vertical<Bytes>(d, p, c, w, bd, l16, hb)) continue;  // a row of zeros blurs to zeros
                mirror_columns(l16, w);
                mirror_columns(hb, w);
                sad += horizontal(l16, hb, w);
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
