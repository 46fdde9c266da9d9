// The C reference of the ADM row functions: each element exactly as the
// libvmaf kernel of the span's lane evaluates it (exact/arith.hpp).
#include <cstring>

#include "features/adm/kernels.hpp"

namespace speedqa::adm {
namespace {

using namespace exact;

template <class P>
void dwt0(const P* const r[4], int width, int bitdepth, int16_t* tmp, int32_t* a, int16_t* v, int16_t* h, int16_t* d,
          int d0, int d1) {
    const int32_t round = 1 << (bitdepth - 1);
    int16_t* lo = tmp;
    int16_t* hi = tmp + width;
    const HighSpan span = high_span(d0, d1, width);
    for (int x = 0; x < width; ++x) {
        const int32_t s0 = r[0][x], s1 = r[1][x], s2 = r[2][x], s3 = r[3][x];
        lo[x] = dwt0_vertical(kLo, s0, s1, s2, s3, kLoSum * round, round, bitdepth);
        if (x >= span.x0 && x < span.x1) hi[x] = dwt0_vertical(kHi, s0, s1, s2, s3, 0, round, bitdepth);
    }
    const int w = (width + 1) / 2;
    for (int j = 0; j < w; ++j) {
        const int c0 = tap_index(j, 0, width), c1 = tap_index(j, 1, width), c2 = tap_index(j, 2, width), c3 = tap_index(j, 3, width);
        a[j] = dwt0_horizontal(kLo, lo[c0], lo[c1], lo[c2], lo[c3]);
        if (j < d0 || j >= d1) continue;
        v[j] = dwt0_horizontal(kHi, lo[c0], lo[c1], lo[c2], lo[c3]);
        h[j] = dwt0_horizontal(kLo, hi[c0], hi[c1], hi[c2], hi[c3]);
        d[j] = dwt0_horizontal(kHi, hi[c0], hi[c1], hi[c2], hi[c3]);
    }
}

void dwt0_8(const uint8_t* const r[4], int width, int16_t* tmp, int32_t* a, int16_t* v, int16_t* h, int16_t* d, int d0,
            int d1) {
    dwt0(r, width, 8, tmp, a, v, h, d, d0, d1);
}

void dwt0_16(const uint16_t* const r[4], int width, int bitdepth, int16_t* tmp, int32_t* a, int16_t* v, int16_t* h,
             int16_t* d, int d0, int d1) {
    dwt0(r, width, bitdepth, tmp, a, v, h, d, d0, d1);
}

void decouple0(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a, int begin, int end,
               Lane lane, const Scale0Consts& k) {
    const bool simd = lane != Lane::scalar;
    for (int j = begin; j < end; ++j) {
        const int16_t oh = ref.p[0][j], ov = ref.p[1][j];
        const int16_t th = dis.p[0][j], tv = dis.p[1][j];
        int64_t ot = int64_t{oh} * th + int64_t{ov} * tv;
        int64_t om = int64_t{oh} * oh + int64_t{ov} * ov;
        int64_t tm = int64_t{th} * th + int64_t{tv} * tv;
        if (simd) {   // formed by _mm*_madd_epi16: 32 bits
            ot = low32(ot);
            om = low32(om);
            tm = low32(tm);
        }
        const bool angle = angle_within_1deg(ot, om, tm, k.cos_1deg_sq, lane == Lane::avx512);
        for (int t = 0; t < 3; ++t) {
            const int16_t o = ref.p[t][j], u = dis.p[t][j];
            const int32_t kk = k_scale0(o, u, k.div_lookup);
            int64_t rst = (kk * o + 16384) >> 15;
            const float rst_f = (static_cast<float>(kk) / 32768) * (static_cast<float>(o) / 64);
            if (angle && rst_f > 0.) rst = gain_bound(rst, u, k.gain_limit, true, simd);
            if (angle && rst_f < 0.) rst = gain_bound(rst, u, k.gain_limit, false, simd);
            const int16_t rr = low16(static_cast<int32_t>(rst));
            r.p[t][j] = rr;
            a.p[t][j] = low16(u - rr);
        }
    }
}

void den0(Row3<const int16_t> ref, int begin, int end, uint64_t sums[3]) {
    for (int t = 0; t < 3; ++t)
        for (int j = begin; j < end; ++j) {
            const uint64_t m = static_cast<uint16_t>(abs32(ref.p[t][j]));
            sums[t] += m * m * m;
        }
}

constexpr int32_t kCsfRound[3] = {16384, 16384, 65535};
constexpr int kCsfShift[3] = {15, 15, 17};

void csf0(const int16_t* src, int16_t* value, int16_t* filtered, int begin, int end, int32_t rf, int theta, Lane lane) {
    for (int j = begin; j < end; ++j) {
        const Csf16 c = csf_scale0(src[j], rf, kCsfRound[theta], kCsfShift[theta], lane);
        value[j] = c.value;
        filtered[j] = c.filtered;
    }
}

// The 3x3 sum of the three orientations' filtered CSF around column j, its
// centre replaced by the CSF's own term (interior columns: j-1, j+1 exist).
template <class T, class Centre>
int64_t threshold(Row3<const T> csf, const Row3<const T> flt[3], int j, Centre centre) {
    int64_t sum = 0;
    for (int t = 0; t < 3; ++t) {
        for (int a = 0; a < 3; ++a)
            for (int b = -1; b <= 1; ++b)
                if (a != 1 || b != 0) sum += flt[a].p[t][j + b];
        sum += centre(csf.p[t][j]);
    }
    return sum;
}

template <class T>
void orient_sums(Row3<const T> flt, int begin, int end, int32_t* out) {
    for (int j = begin; j < end; ++j)
        out[j] = static_cast<int32_t>(static_cast<uint32_t>(flt.p[0][j]) + static_cast<uint32_t>(flt.p[1][j]) +
                                      static_cast<uint32_t>(flt.p[2][j]));
}
void orient_sums0(Row3<const int16_t> flt, int begin, int end, int32_t* out) { orient_sums(flt, begin, end, out); }
void orient_sums123(Row3<const int32_t> flt, int begin, int end, int32_t* out) { orient_sums(flt, begin, end, out); }

// (flt_sums unread: the reference adds the threshold up from flt itself)
void cm0(Row3<const int16_t> csf, const Row3<const int16_t> flt[3], const int32_t* const* /*flt_sums*/,
         Row3<const int16_t> src, int begin, int end, Lane lane, const Scale0Consts& k, int64_t sums[3]) {
    const int sub[3] = {10, 10, 12};
    const int shift_sq[3] = {29, 29, 30};
    const int64_t add_sq[3] = {1 << 28, 1 << 28, 1 << 29};
    for (int j = begin; j < end; ++j) {
        const int32_t thr =
            low32(threshold(csf, flt, j, [lane](int16_t v) { return int64_t{cm_centre_scale0(v, lane)}; }));
        for (int t = 0; t < 3; ++t) {
            const int32_t x = src.p[t][j] * k.rf[t];
            const int32_t thr_s = static_cast<int32_t>(static_cast<uint32_t>(thr) << sub[t]);
            sums[t] = add64(sums[t], cm_term_scale0(x, thr_s, add_sq[t], shift_sq[t], k.add_cub[t], k.shift_cub[t], lane));
        }
    }
}

void dwt123(const int32_t* const ref[4], const int32_t* const dis[4], int width, int scale, int32_t* tmp,
            Row3<int32_t> ref_out, int32_t* ref_a, Row3<int32_t> dis_out, int32_t* dis_a, int d0, int d1) {
    const int64_t vr = kVRound[scale - 1], hr = kHRound[scale - 1];
    const int vs = kVShift[scale - 1], hs = kHShift[scale - 1];
    const int32_t* const* in[2] = {ref, dis};
    const HighSpan span = high_span(d0, d1, width);
    for (int img = 0; img < 2; ++img) {
        int32_t* lo = tmp + static_cast<size_t>(2 * img) * width;
        int32_t* hi = lo + width;
        const int32_t* const* r = in[img];
        for (int x = 0; x < width; ++x) {
            lo[x] = dwt_i4(kLo, r[0][x], r[1][x], r[2][x], r[3][x], vr, vs);
            if (x >= span.x0 && x < span.x1) hi[x] = dwt_i4(kHi, r[0][x], r[1][x], r[2][x], r[3][x], vr, vs);
        }
    }
    const int w = (width + 1) / 2;
    Row3<int32_t> outs[2] = {ref_out, dis_out};
    int32_t* as[2] = {ref_a, dis_a};
    for (int img = 0; img < 2; ++img) {
        const int32_t* lo = tmp + static_cast<size_t>(2 * img) * width;
        const int32_t* hi = lo + width;
        for (int j = 0; j < w; ++j) {
            const int c0 = tap_index(j, 0, width), c1 = tap_index(j, 1, width), c2 = tap_index(j, 2, width), c3 = tap_index(j, 3, width);
            as[img][j] = dwt_i4(kLo, lo[c0], lo[c1], lo[c2], lo[c3], hr, hs);
            if (j < d0 || j >= d1) continue;
            outs[img].p[1][j] = dwt_i4(kHi, lo[c0], lo[c1], lo[c2], lo[c3], hr, hs);
            outs[img].p[0][j] = dwt_i4(kLo, hi[c0], hi[c1], hi[c2], hi[c3], hr, hs);
            outs[img].p[2][j] = dwt_i4(kHi, hi[c0], hi[c1], hi[c2], hi[c3], hr, hs);
        }
    }
}

void decouple123(Row3<const int32_t> ref, Row3<const int32_t> dis, Row3<int32_t> r, Row3<int32_t> a, int begin,
                 int end, bool round_first, const Scale123Consts& k) {
    for (int j = begin; j < end; ++j) {
        const int32_t oh = ref.p[0][j], ov = ref.p[1][j];
        const int32_t th = dis.p[0][j], tv = dis.p[1][j];
        // Two products of 2^62 at most: the sums may wrap (INT32_MIN^2 twice).
        const int64_t ot = add64(int64_t{oh} * th, int64_t{ov} * tv);
        const int64_t om = add64(int64_t{oh} * oh, int64_t{ov} * ov);
        const int64_t tm = add64(int64_t{th} * th, int64_t{tv} * tv);
        const bool angle = angle_within_1deg(ot, om, tm, k.cos_1deg_sq, false);
        for (int t = 0; t < 3; ++t) {
            const int32_t o = ref.p[t][j], u = dis.p[t][j];
            const int64_t kk = k_scale123(o, u, k.div_lookup);
            int64_t rst = low32((kk * o + 16384) >> 15);
            const float rst_f = (static_cast<float>(kk) / 32768) * (static_cast<float>(o) / 64);
            if (angle && rst_f > 0.) rst = gain_bound(rst, u, k.gain_limit, true, round_first);
            if (angle && rst_f < 0.) rst = gain_bound(rst, u, k.gain_limit, false, round_first);
            const int32_t rr = low32(rst);
            r.p[t][j] = rr;
            a.p[t][j] = sub32(u, rr);
        }
    }
}

void den123(Row3<const int32_t> ref, int begin, int end, const Scale123Consts& k, uint64_t sums[3]) {
    const uint64_t add_sq = uint64_t{1} << k.den_shift_sq;
    for (int t = 0; t < 3; ++t)
        for (int j = begin; j < end; ++j) {
            const uint64_t m = static_cast<uint32_t>(abs32(ref.p[t][j]));
            sums[t] += ((((m * m) + add_sq) >> k.den_shift_sq) * m + k.den_add_cub) >> k.den_shift_cub;
        }
}

void csf123(const int32_t* src, int32_t* value, int32_t* filtered, int begin, int end, int64_t rf) {
    for (int j = begin; j < end; ++j) {
        const Csf32 c = csf_scale123(src[j], rf);
        value[j] = c.value;
        filtered[j] = c.filtered;
    }
}

void cm123(Row3<const int32_t> csf, const Row3<const int32_t> flt[3], const int32_t* const* /*flt_sums*/,
           Row3<const int32_t> src, Row3<const int32_t> /*xs*/, int begin, int end,
           Lane lane, const Scale123Consts& k, int64_t sums[3]) {
    for (int j = begin; j < end; ++j) {
        const int64_t thr = threshold(csf, flt, j, [](int32_t v) { return cm_centre_scale123(v); });
        for (int t = 0; t < 3; ++t) {
            const int64_t x = cm_x_scale123(src.p[t][j], k.rf[t]);
            const int64_t term = lane == Lane::scalar
                                     ? cm_term_scale123_scalar(low32(x), low32(thr), k.add_cub, k.shift_cub)
                                     : cm_term_scale123_simd(x, thr, k.add_cub, k.shift_cub, lane);
            sums[t] = add64(sums[t], term);
        }
    }
}

}  // namespace

const RowKernels& row_kernels_c() {
    static const RowKernels k{dwt0_8,      dwt0_16,     decouple0, den0,           csf0,  orient_sums0, cm0,
                              dwt123,      decouple123, den123,    csf123,         orient_sums123, cm123};
    return k;
}

#ifndef SPEEDQA_X86
const RowKernels* row_kernels_avx2() { return nullptr; }   // x86/kernels_avx2.cpp is built on x86 only
const RowKernels* row_kernels_avx512() { return nullptr; }
const RowKernels* row_kernels_avx512_div(bool) { return nullptr; }
Recip30Row recip30_avx512(int) { return nullptr; }
#endif

}  // namespace speedqa::adm
