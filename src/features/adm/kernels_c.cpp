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
    for (int j = begin; j < end; ++j) {
        const int16_t o[3] = {ref.p[0][j], ref.p[1][j], ref.p[2][j]};
        const int16_t u[3] = {dis.p[0][j], dis.p[1][j], dis.p[2][j]};
        int16_t rr[3], aa[3];
        decouple_scale0(o, u, lane, k.gain_limit, k.cos_1deg_sq, k.div_lookup, rr, aa);
        for (int t = 0; t < 3; ++t) {
            r.p[t][j] = rr[t];
            a.p[t][j] = aa[t];
        }
    }
}

void den0(Row3<const int16_t> ref, int begin, int end, uint64_t sums[3]) {
    for (int t = 0; t < 3; ++t)
        for (int j = begin; j < end; ++j) sums[t] += den_term_scale0(ref.p[t][j]);
}

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
    for (int j = begin; j < end; ++j) {
        const int64_t thr = threshold(csf, flt, j, [lane](int16_t v) { return int64_t{cm_centre_scale0(v, lane)}; });
        const int16_t x[3] = {src.p[0][j], src.p[1][j], src.p[2][j]};
        cm_terms_scale0(thr, x, k.rf, lane, k.add_cub, k.shift_cub, sums);
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
        const int32_t o[3] = {ref.p[0][j], ref.p[1][j], ref.p[2][j]};
        const int32_t u[3] = {dis.p[0][j], dis.p[1][j], dis.p[2][j]};
        int32_t rr[3], aa[3];
        decouple_scale123(o, u, round_first, k.gain_limit, k.cos_1deg_sq, k.div_lookup, rr, aa);
        for (int t = 0; t < 3; ++t) {
            r.p[t][j] = rr[t];
            a.p[t][j] = aa[t];
        }
    }
}

void den123(Row3<const int32_t> ref, int begin, int end, const Scale123Consts& k, uint64_t sums[3]) {
    for (int t = 0; t < 3; ++t)
        for (int j = begin; j < end; ++j)
            sums[t] += den_term_scale123(ref.p[t][j], k.den_shift_sq, k.den_add_cub, k.den_shift_cub);
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
        const int32_t x[3] = {src.p[0][j], src.p[1][j], src.p[2][j]};
        cm_terms_scale123(thr, x, k.rf, lane, k.add_cub, k.shift_cub, sums);
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
