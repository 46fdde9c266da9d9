// The SIMD scale pass of VIF, written once for every vector width: the
// AVX2 and the AVX-512 files include it with their vector type V (the
// operations below, in registers of 16 or 32 int16 lanes) and build it with
// their instruction set. Everything here has internal linkage (an unnamed
// namespace), so that no object built for a wider instruction set hands
// the linker code another file shares (tests/simd_objects_check.sh).
//
// It computes the C reference's integers by other means. Every filter sum is
// a sum of products of 16-bit values with 16-bit taps, done two products at a
// time by vpmaddwd (with VNNI, vpdpwssd, which also adds):
//  - vertically, on rows interleaved in pairs (row 2m and 2m + 1 side by
//    side, 16 bits each): a pair of rows and a pair of taps per vpmaddwd. The
//    interleaved rows and their products (x^2, y^2, x y split into their
//    16-bit halves by vpmullw / vpmulhuw) are made once per row pair, kept in
//    a ring for the rows the filter spans, and read by every output row;
//  - horizontally, on a row of 16-bit values where two neighbouring columns
//    already sit side by side: one vpmaddwd takes two neighbouring taps for
//    V::kBlock / 2 outputs of one parity (the even and the odd outputs are
//    summed apart; the statistic does not depend on the order of the pixels);
//  - 32-bit values (the second moments after the vertical pass) go through
//    as two 16-bit halves whose sums are recombined exactly;
//  - all values are biased by -2^15 to fit vpmaddwd's signed inputs; the taps
//    of a filter sum to 2^16, so every sum lacks exactly 2^31, added back
//    modulo 2^32 (every sum is below 2^32, and every step is exact modulo
//    2^32);
//  - a tap of 2^15 or more (43728 at scale 3) is taken as two halves.
// The taps are compile-time constants (the filters are fixed), so every sum
// unrolls into vpmaddwd with constant operands.
// The per-pixel statistic (V::stat) runs on 4 or 8 pixels at once in
// doubles: the same IEEE operations as the C code (division, product,
// difference, truncations), its branches as masks; log2 reads the table at
// the top 16 bits of the value, found from the double's exponent and
// mantissa.
// The frame is processed in strips of columns so that the ring stays in L2.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {
namespace {

using ev::kMaxRadius;

constexpr int kStrip = 512;  // output columns per strip (a multiple of every V::kBlock)
constexpr int kLead = 64;    // row-buffer positions before a strip's first column (int16; a cache line or two)
constexpr int kPad = 48;     // row-buffer slack after the strip (int16)

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

// The log2 table's entries 32768 + m (m < 2^15, all that the statistic
// reads) as bytes: table[32768 + m] - 30720 - (m >> 4), the distance from
// the chord of log2 between 2^15 and 2^16, is 0..177 for libvmaf's table.
// At 32 KiB (the uint16 half is 64 KiB) the gathers into it mostly hit L1.
// Made from the table the pass is given; `fits` false where some entry does
// not fit a byte (then the uint16 table is read).
struct Log2Bytes {
    static constexpr int kEntries = 32768;
    // The chord at m: 2048 log2(2^15) + m / 16, rounded down.
    static constexpr int chord(int m) { return 30720 + (m >> 4); }
    std::unique_ptr<uint8_t[]> b{new uint8_t[kEntries + 7]()};  // (+7: 64-bit gathers at the last entries)
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

// What the statistic reads beside the pixels.
struct StatTables {
    const int* table = nullptr;  // the uint16 table, read 32 bits at a time
    const int* bytes = nullptr;  // the same as offsets (Log2Bytes), or null where they do not fit a byte
    // What a log2 read from these tables lacks of table[v >> k] + 2048 (k +
    // 1038): the byte offsets' chord constant, which a difference of two
    // log2s does not need.
    int64_t log2_offset() const { return bytes ? -Log2Bytes::chord(0) : 0; }
};

inline int floor_half(int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

// ---- the pass, for vectors V ------------------------------------------------------

template <class V>
struct Layout {
    static constexpr int kBlock = V::kBlock;                                    // columns per block
    static constexpr int kSpan = (kStrip + 2 * kMaxRadius + kBlock - 1) / kBlock * kBlock;  // a strip's vertical pass
    static constexpr int kRingSlots = kMaxRadius + 2;                           // row pairs alive at once
    // (whole cache lines, so that every plane starts at one)
    static constexpr int kRowLen = (kLead + kSpan + kBlock + kPad + 31) / 32 * 32;
    static constexpr size_t kScratchBytes = kRingSlots * kPlanes * kSpan * sizeof(int32_t) +
                                            kPlanes * kRowLen * sizeof(int16_t) + Log2Bytes::kEntries + 7;
};

// Zeroed memory for n values of T at a cache line's start, so that the
// vectors of the ring and the row buffer (at multiples of their width from
// it) never straddle two lines.
struct FreeAligned {
    void operator()(void* p) const { std::free(p); }
};
template <class T>
std::unique_ptr<T[], FreeAligned> cache_aligned(size_t n) {
    const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    return std::unique_ptr<T[], FreeAligned>(static_cast<T*>(p));
}

template <class V>
class ScratchSimd final : public ScaleScratch {
    using L = Layout<V>;

public:
    ScratchSimd()
        : ring(cache_aligned<int32_t>(L::kRingSlots * kPlanes * L::kSpan)),
          rows(cache_aligned<int16_t>(kPlanes * L::kRowLen)) {}
    Log2Bytes log2;
    std::unique_ptr<int32_t[], FreeAligned> ring;  // [slot][plane][column of the strip's span] pairs of int16
    std::unique_ptr<int16_t[], FreeAligned> rows;  // [plane][position]: a row after the vertical pass, biased
};

// One strip of one scale: the statistic with scale S's filter (stat planes
// NP: 5 for 8-bit samples, whose squares fit 16 bits, else 8), the halving
// with scale S + 1's.
template <class V, int S, int NP>
class Strip {
    using T = Taps<S>;
    using H = Taps<(S < 3 ? S + 1 : 3)>;
    using L = Layout<V>;
    using vi = typename V::vi;
    static constexpr int B = V::kBlock;
    static constexpr int kSpan = L::kSpan;
    static constexpr int kRowLen = L::kRowLen;

public:
    Strip(const ScaleArgs& a, ScratchSimd<V>& s, int s0, int s1)
        : a_(a), im_(a.in), s_(s), s0_(s0), s1_(s1), bytes_(a.in.bits == 8) {
        ring_r_ = a.stat ? T::r : H::r;
        planes_ = a.stat ? NP : 2;
        col0_ = std::max(0, s0 - ring_r_);
        col1_ = std::min(im_.w, s1 + ring_r_);
        blocks_ = (col1_ - col0_ + B - 1) / B;
        // column col0_ at kLead: the vertical pass stores whole vectors
        // from there at a cache line's start
        row0_ = s_.rows.get() + kLead - col0_;
        tables_.table = reinterpret_cast<const int*>(a.log2_table);
        tables_.bytes = s.log2.fits ? reinterpret_cast<const int*>(s.log2.b.get()) : nullptr;
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
        const int k = ((pair % L::kRingSlots) + L::kRingSlots) % L::kRingSlots;
        return s_.ring.get() + static_cast<ptrdiff_t>(k) * kPlanes * kSpan;
    }

    // B samples of a row from column c as uint16, zeros past col1_.
    vi load_block(const void* row, int c) const {
        if (c + B <= col1_) {
            if (bytes_) return V::load_u8_16(static_cast<const uint8_t*>(row) + c);
            return V::ld(static_cast<const uint16_t*>(row) + c);
        }
        const int sample_bytes = bytes_ ? 1 : 2;
        return V::load_first(static_cast<const char*>(row) + static_cast<ptrdiff_t>(c) * sample_bytes, col1_ - c, bytes_);
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
        const vi bias = V::bias16();
        for (int b = 0; b < blocks_; b++) {
            const int c = col0_ + B * b;
            for (const char* r : ahead)
                for (int k = 0; k < B * sample_bytes; k += 64)
                    _mm_prefetch(r + static_cast<ptrdiff_t>(c) * sample_bytes + k, _MM_HINT_T0);
            const vi xa = load_block(xr0, c), xb = load_block(xr1, c), ya = load_block(yr0, c),
                     yb = load_block(yr1, c);
            const vi zx[2] = {V::unpacklo16(xa, xb), V::unpackhi16(xa, xb)};
            const vi zy[2] = {V::unpacklo16(ya, yb), V::unpackhi16(ya, yb)};
            for (int h = 0; h < 2; h++) {
                int32_t* o = p + B * b + (B / 2) * h;
                V::st(o + kX * kSpan, V::xor_(zx[h], bias));
                V::st(o + kY * kSpan, V::xor_(zy[h], bias));
                if (!products) continue;
                V::st(o + kXXlo * kSpan, V::xor_(V::mullo16(zx[h], zx[h]), bias));
                V::st(o + kYYlo * kSpan, V::xor_(V::mullo16(zy[h], zy[h]), bias));
                V::st(o + kXYlo * kSpan, V::xor_(V::mullo16(zx[h], zy[h]), bias));
                if constexpr (NP == kPlanes) {
                    V::st(o + kXXhi * kSpan, V::xor_(V::mulhi16(zx[h], zx[h]), bias));
                    V::st(o + kYYhi * kSpan, V::xor_(V::mulhi16(zy[h], zy[h]), bias));
                    V::st(o + kXYhi * kSpan, V::xor_(V::mulhi16(zx[h], zy[h]), bias));
                }
            }
        }
    }

    // The vpmaddwd operand of term t of TT, in a register: loaded once and
    // used by every plane of a group (were it a memory operand, or spilled,
    // each vpmaddwd would take two loads, and the loads, not the
    // multiplications, would bound the sums).
    template <const Terms& TT>
    static vi coef(int t) {
        vi c = V::set1_32(TT.t[t].coefs);
        V::keep(c);
        return c;
    }

    // Term t of a filter sum: the first one starts it (a vpmaddwd: no zeroed
    // register to add to), the others add to it.
    static vi term(int t, vi acc, vi x, vi c) { return t == 0 ? V::madd(x, c) : V::madd_add(acc, x, c); }

    // Vertical sums of the N planes from Q0 at a block (its two halves, in
    // the order the pairs were interleaved) for the terms of TT, whose pair
    // q lies at `pairs[q]`, into z[Q0..Q0 + N). Each sum stays one running
    // register, term after term (V::keep: reassociated into trees of
    // products, they would outgrow the registers and go through the stack).
    template <const Terms& TT, int Q0, int N>
    static void vsums(const int32_t* const* pairs, ptrdiff_t o, vi (&z)[kPlanes][2]) {
        vi acc[N][2];
        for (int q = 0; q < N; q++) acc[q][0] = acc[q][1] = V::zero();  // (never added to: term 0 starts the sums)
#pragma GCC unroll 16
        for (int t = 0; t < TT.n; t++) {
            const vi c = coef<TT>(t);
            const int32_t* src = pairs[TT.t[t].pair] + o + Q0 * kSpan;
#pragma GCC unroll 8
            for (int q = 0; q < N; q++) {
                acc[q][0] = term(t, acc[q][0], V::ld(src + q * kSpan), c);
                acc[q][1] = term(t, acc[q][1], V::ld(src + q * kSpan + B / 2), c);
                V::keep(acc[q][0]);
                V::keep(acc[q][1]);
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
    static void hsums(const int16_t* src, vi (&v)[kPlanes][2]) {
        vi even[N], odd[N];
        for (int q = 0; q < N; q++) even[q] = odd[q] = V::zero();  // (term 0 starts the sums; odd stays 0 without Odd)
        src += Q0 * kRowLen;
#pragma GCC unroll 16
        for (int t = 0; t < TT.n; t++) {
            const vi c = coef<TT>(t);
            const int16_t* p = src + 2 * TT.t[t].pair;
#pragma GCC unroll 8
            for (int q = 0; q < N; q++) {
                even[q] = term(t, even[q], V::ld(p + q * kRowLen), c);
                V::keep(even[q]);
                if constexpr (Odd) {
                    odd[q] = term(t, odd[q], V::ld(p + q * kRowLen + 1), c);
                    V::keep(odd[q]);
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

    // 2^31 (what every biased sum lacks) plus a rounding constant, modulo 2^32
    static vi unbias_plus(uint64_t round) { return V::set1_32(static_cast<int32_t>(0x80000000u + round)); }

    // Two vectors of non-negative int32 below 2^16 (the halves of a block,
    // as the 16-bit unpacks leave them) as B biased int16 in column order.
    static vi pack_biased(vi z0, vi z1) { return V::xor_(V::packus32(z0, z1), V::bias16()); }

    template <int Phase>
    void stat_row(int i, ev::Sums& sums) {
        const int32_t* pairs[T::r + 1];
        const int first = floor_half(i - T::r);
        for (int q = 0; q <= T::r; q++) pairs[q] = slot(first + q);
        const vi mean_add = unbias_plus(a_.rounding.mean.round);
        const __m128i mean_shift = _mm_cvtsi32_si128(a_.rounding.mean.shift);
        const int ms = a_.rounding.moment.shift;
        const vi mom_add = unbias_plus(a_.rounding.moment.round);
        const __m128i mom_shift = _mm_cvtsi32_si128(ms), hi_shift = _mm_cvtsi32_si128(16 - ms);
        const vi unbias = unbias_plus(0), low16 = V::set1_32(0xffff);
        constexpr const Terms& TV = Phase ? T::v1 : T::v0;
        for (int b = 0; b < blocks_; b++) {
            const ptrdiff_t o = B * b;
            const int c = col0_ + B * b;
            vi z[kPlanes][2];
            vsums<TV, kX, 5>(pairs, o, z);
            if constexpr (NP == kPlanes) vsums<TV, kXXhi, 3>(pairs, o, z);
            for (int q = kX; q <= kY; q++) {
                const vi z0 = V::srl32(V::add32(z[q][0], mean_add), mean_shift);
                const vi z1 = V::srl32(V::add32(z[q][1], mean_add), mean_shift);
                V::st(row_plane(q) + c, pack_biased(z0, z1));
            }
            if (NP != kPlanes && ms == 0) {
                // 8-bit samples: the moments are not rounded, each is its
                // sum plus the 2^31 the sum lacks. That leaves the low half
                // as it is and flips the top bit of the high half, the bit
                // the bias flips back: the biased high half is the sum's.
                for (int q = 0; q < 3; q++) {
                    const vi z0 = z[kXXlo + q][0], z1 = z[kXXlo + q][1];
                    V::st(row_plane(kXXlo + q) + c, pack_biased(V::and_(z0, low16), V::and_(z1, low16)));
                    V::st(row_plane(kXXhi + q) + c, V::packus32(V::template srli32<16>(z0), V::template srli32<16>(z1)));
                }
                continue;
            }
            for (int q = 0; q < 3; q++) {
                // t = (A << (16 - s)) + ((B + round) >> s) with A, B the
                // high and low halves' sums: 2^16 A + B rounded by s bits
                vi z0 = V::srl32(V::add32(z[kXXlo + q][0], mom_add), mom_shift);
                vi z1 = V::srl32(V::add32(z[kXXlo + q][1], mom_add), mom_shift);
                if constexpr (NP == kPlanes) {
                    z0 = V::add32(z0, V::sll32(V::add32(z[kXXhi + q][0], unbias), hi_shift));
                    z1 = V::add32(z1, V::sll32(V::add32(z[kXXhi + q][1], unbias), hi_shift));
                }
                V::st(row_plane(kXXlo + q) + c, pack_biased(V::and_(z0, low16), V::and_(z1, low16)));
                V::st(row_plane(kXXhi + q) + c, pack_biased(V::template srli32<16>(z0), V::template srli32<16>(z1)));
            }
        }
        mirror(kPlanes, s0_ - T::r, s1_ + T::r);

        typename V::StatAcc acc(a_.gain_limit, tables_);
        const vi carry_add = unbias_plus(ev::kHorizontalRound);
        // The sigmas of the strip's row first, then their statistic: two
        // loops whose iterations the core overlaps. (The statistic's chains
        // of division, products and table reads are long; behind a block's
        // 144 vpdpwssd they did not fit the core's window. The sums do not
        // depend on the order of the pixels.)
        constexpr int kVecs = 2 * kStrip / B;  // vector v: block v / 2, parity v % 2
        alignas(64) int32_t sig[3][kVecs][B / 2];
        int nv = 0;
        for (int j0 = s0_; j0 < s1_; j0 += B) {
            // outputs j0 + e + 2 m (parity e, m = 0..B/2 - 1); pair t of
            // taps starts at position j0 + e - r + 2 t
            vi v[kPlanes][2];
            hsums<T::h, 0, 4>(row_plane(0) + j0 - T::r, v);
            hsums<T::h, 4, 4>(row_plane(0) + j0 - T::r, v);
            for (int e = 0; e < 2; e++) {
                const vi mu1 = V::add32(v[kX][e], unbias), mu2 = V::add32(v[kY][e], unbias);
                // the moments lacking 2^31 (the high halves' bias), and the
                // mean products with it: their differences are the sigmas
                vi mom[3];
                for (int q = 0; q < 3; q++)
                    mom[q] = V::add32(v[kXXhi + q][e], V::template srli32<16>(V::add32(v[kXXlo + q][e], carry_add)));
                V::st(sig[0][nv], V::sub32(mom[0], V::biased_mean_product(mu1, mu1)));
                V::st(sig[1][nv], V::sub32(mom[1], V::biased_mean_product(mu2, mu2)));
                V::st(sig[2][nv], V::sub32(mom[2], V::biased_mean_product(mu1, mu2)));
                nv++;
            }
        }
        // outputs at or past the strip's end (lane m with 2 m >= the limit,
        // s1_ less the vector's first output) do not count
        for (int v = 0; v < nv; v++)
            acc.add(V::ld(sig[0][v]), V::ld(sig[1][v]), V::ld(sig[2][v]), s1_ - (s0_ + B * (v / 2) + v % 2));
        sums.add(acc.sums());
    }

    // Row o of the next scale: the vertical pass at input row 2o, then the
    // even columns of the horizontal pass.
    template <int Phase>
    void halve_row(int o) {
        const int i = 2 * o;
        const int32_t* pairs[H::r + 1];
        const int first = floor_half(i - H::r);
        for (int q = 0; q <= H::r; q++) pairs[q] = slot(first + q);
        const vi add = unbias_plus(a_.halve_rounding.round);
        const __m128i shift = _mm_cvtsi32_si128(a_.halve_rounding.shift);
        // the columns the even outputs of the strip read
        const int from = std::max(0, s0_ - H::r), to = std::min(im_.w, s1_ + H::r);
        for (int b = (from - col0_) / B; B * b + col0_ < to; b++) {
            vi z[kPlanes][2];
            vsums<(Phase ? H::v1 : H::v0), kX, 2>(pairs, B * b, z);
            for (int q = kX; q <= kY; q++) {
                const vi z0 = V::srl32(V::add32(z[q][0], add), shift);
                const vi z1 = V::srl32(V::add32(z[q][1], add), shift);
                V::st(row_plane(q) + col0_ + B * b, pack_biased(z0, z1));
            }
        }
        mirror(2, s0_ - H::r, s1_ + H::r);

        const vi add_h = unbias_plus(ev::kHorizontalRound);
        const int o_end = std::min(s1_ / 2, im_.w / 2);
        uint16_t* dst[2] = {a_.ref_out + a_.out_stride * o, a_.dis_out + a_.out_stride * o};
        for (int o0 = s0_ / 2; o0 < o_end; o0 += B / 2) {
            vi h[kPlanes][2];
            hsums<H::h, kX, 2, false>(row_plane(0) + 2 * o0 - H::r, h);  // the even outputs only
            for (int q = 0; q < 2; q++)
                V::store_u16(dst[q] + o0, V::template srli32<ev::kHorizontalShift>(V::add32(h[q][0], add_h)),
                             std::min(B / 2, o_end - o0));
        }
    }

    const ScaleArgs& a_;
    const ScaleImage& im_;
    ScratchSimd<V>& s_;
    int s0_, s1_;
    bool bytes_;
    int ring_r_ = 0, planes_ = 0;
    int col0_ = 0, col1_ = 0, blocks_ = 0;
    int16_t* row0_;  // row-buffer plane 0, indexed by image column (plane q is q * kRowLen further)
    StatTables tables_;
};

template <class V, int S, int NP>
void pass(const ScaleArgs& a, ScratchSimd<V>& s, ev::Sums& sums) {
    for (int s0 = 0; s0 < a.in.w; s0 += kStrip)
        Strip<V, S, NP>(a, s, s0, std::min(a.in.w, s0 + kStrip)).run(sums);
}

template <class V>
std::unique_ptr<ScaleScratch> make_scratch_simd(int) {
    return std::make_unique<ScratchSimd<V>>();
}

template <class V>
size_t scratch_bytes_simd(int) {
    return Layout<V>::kScratchBytes;
}

template <class V>
void scale_pass_simd(const ScaleArgs& a, ScaleScratch& scratch, ev::Sums& sums) {
    ScratchSimd<V>& s = static_cast<ScratchSimd<V>&>(scratch);
    if (a.stat) s.log2.make(a.log2_table);
    ev::Sums scale;
    switch (a.scale) {
    case 0:
        if (a.in.bits == 8) pass<V, 0, 5>(a, s, scale);
        else pass<V, 0, kPlanes>(a, s, scale);
        break;
    case 1: pass<V, 1, kPlanes>(a, s, scale); break;
    case 2: pass<V, 2, kPlanes>(a, s, scale); break;
    default: pass<V, 3, kPlanes>(a, s, scale);
    }
    if (a.stat) sums.add(scale);
}

}  // namespace
}  // namespace speedqa::vif
