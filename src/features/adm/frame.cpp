// The frame driver: each scale streamed row by row through libvmaf's stages
// (DWT, decoupling, denominator, CSF, contrast masking), so that the bands
// of a scale never exist whole. The four scales stream together: a row of
// scale s is made as soon as the rows of band_a (the previous scale's
// low-pass band) it reads are, so band_a lives in a ring of a few rows per
// scale, in cache. Each scale's rows still go in order, and its sums are
// its own.
// The arithmetic is in the row functions (kernels.hpp); here: which rows and
// columns each stage covers, libvmaf's edge rules and its sums' shifts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "features/adm/kernels.hpp"

namespace speedqa::adm {
namespace {

using namespace exact;

constexpr int kPad = 64;   // elements past each row that vector loads may touch

// Rows of one stage kept for the masking's 3x3 neighbourhood.
template <class T>
struct Ring {
    int w = 0;
    std::vector<T> data;   // 3 rows x 3 orientations
    static size_t elements(int width) { return static_cast<size_t>(9) * (width + kPad); }
    void resize(int width) {
        w = width + kPad;
        data.assign(elements(width), 0);
    }
    Row3<T> row(int i) {
        T* base = data.data() + static_cast<size_t>(i % 3) * 3 * w;
        return {{base, base + w, base + 2 * w}};
    }
    Row3<const T> crow(int i) {
        const Row3<T> r = row(i);
        return {{r.p[0], r.p[1], r.p[2]}};
    }
};

// The orientation sums (orient_sums) of the last three filtered rows.
struct SumRing {
    int w = 0;
    std::vector<int32_t> data;   // 3 rows
    static size_t elements(int width) { return static_cast<size_t>(3) * (width + kPad); }
    void resize(int width) {
        w = width + kPad;
        data.assign(elements(width), 0);
    }
    int32_t* row(int i) { return data.data() + static_cast<size_t>(i % 3) * w; }
};

template <class T>
struct ScaleBuffers {
    std::vector<T> ref_band, dis_band;   // h, v, d of the current row (3 x w each)
    Ring<T> r, a;                        // decoupled: restored, additive
    Ring<T> dlm_csf, dlm_flt;            // CSF of a: the DLM's masker
    Ring<T> aim_csf, aim_flt;            // CSF of r: the AIM's masker
    SumRing dlm_sum, aim_sum;            // orient_sums of dlm_flt, aim_flt
    int w = 0;
    static size_t band_elements(int width) { return static_cast<size_t>(3) * (width + kPad); }
    static size_t bytes(int width) {
        return (2 * band_elements(width) + 6 * Ring<T>::elements(width)) * sizeof(T) +
               2 * SumRing::elements(width) * sizeof(int32_t);
    }
    void resize(int width) {
        w = width + kPad;
        ref_band.assign(band_elements(width), 0);
        dis_band.assign(band_elements(width), 0);
        for (Ring<T>* g : {&r, &a, &dlm_csf, &dlm_flt, &aim_csf, &aim_flt}) g->resize(width);
        dlm_sum.resize(width);
        aim_sum.resize(width);
    }
    Row3<T> ref_row() { return {{ref_band.data(), ref_band.data() + w, ref_band.data() + 2 * w}}; }
    Row3<T> dis_row() { return {{dis_band.data(), dis_band.data() + w, dis_band.data() + 2 * w}}; }
};

struct Scratch final : KernelScratch {
    explicit Scratch(const Plan& plan) {
        tmp16.assign(tmp16_elements(plan), 0);
        tmp32.assign(tmp32_elements(plan), 0);
        s0.resize(plan.s[0].w);
        for (int scale = 1; scale < 4; ++scale) s123[scale - 1].resize(plan.s[scale].w);
        size_t at = 0;
        for (int scale = 0; scale < 4; ++scale) {
            offset[scale] = at;
            stride[scale] = ring_stride(plan, scale);
            at += kRingRows * stride[scale];
        }
        for (auto& r : rings) r.assign(at + kPad, 0);
    }
    // Rows of band_a kept per scale. Row i of scale s reads rows 2i - 1 ..
    // 2i + 2 of scale s - 1 (mirrored into the last row at the bottom) and
    // is made as soon as they are: when it is, scale s - 1 has made at most
    // k + 3 rows from 2i - 1 on, k the rows it made since scale s last
    // looked (1, or 2 at the bottom of an odd height, where two rows'
    // mirrored taps wait for the same last row). So 5 rows would do;
    // band_a_row checks it.
    static constexpr int kRingRows = 8;
    static size_t ring_stride(const Plan& plan, int scale) {
        return (static_cast<size_t>(plan.s[scale].w) + kPad + 15) / 16 * 16;  // whole cache lines
    }
    static size_t tmp16_elements(const Plan& plan) { return static_cast<size_t>(2) * plan.width + 2 * kPad; }
    static size_t tmp32_elements(const Plan& plan) { return static_cast<size_t>(4) * plan.s[1].in_w + 2 * kPad; }
    static size_t bytes(const Plan& plan) {
        size_t planes = kPad, s123 = 0;
        for (int scale = 0; scale < 4; ++scale) planes += kRingRows * ring_stride(plan, scale);
        for (int scale = 1; scale < 4; ++scale) s123 += ScaleBuffers<int32_t>::bytes(plan.s[scale].w);
        return tmp16_elements(plan) * sizeof(int16_t) + (tmp32_elements(plan) + 2 * planes) * sizeof(int32_t) +
               ScaleBuffers<int16_t>::bytes(plan.s[0].w) + s123;
    }
    // Row `row` of band_a of scale s (the input of scale s + 1) of ref (img
    // 0) or dis (1), `made` rows of it made: one of the last kRingRows of
    // them, or row `made` itself, to be made next (over the oldest).
    int32_t* band_a_row(int img, int scale, int row, int made) {
        if (row < 0 || row > made || made - row > kRingRows)
            throw std::logic_error("adm: band_a row " + std::to_string(row) + " of scale " + std::to_string(scale) +
                                   " is no longer in its ring (" + std::to_string(made) + " made)");
        return rings[img].data() + offset[scale] + static_cast<size_t>(row % kRingRows) * stride[scale];
    }
    std::vector<int16_t> tmp16;
    std::vector<int32_t> tmp32;
    // per scale with stale_dis_taps: what libvmaf's buffer holds past its
    // four rows when it makes that scale (from the scale above's last row)
    int32_t stale[4][2] = {};
    ScaleBuffers<int16_t> s0;
    ScaleBuffers<int32_t> s123[3];  // scales 1, 2, 3: all streamed at once
    // the rings of band_a rows of every scale, one after the other: [0] ref, [1] dis
    std::vector<int32_t> rings[2];
    size_t offset[4] = {}, stride[4] = {};
};

// ----------------------------------------------------- masking edges -----

// The masking threshold of an element in an edge column (0 or w-1): libvmaf
// mirrors the column before the first and repeats the last. Scalar code.
template <class T>
int64_t edge_threshold(Row3<const T> csf, const Row3<const T> flt[3], int w, int j, bool i4) {
    const int left = j == 0 ? 1 : j - 1, right = j == w - 1 ? w - 1 : j + 1;
    const int cols[3] = {left, j, right};
    int64_t sum = 0;
    for (int theta = 0; theta < 3; ++theta)
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                if (a == 1 && b == 1)
                    sum += i4 ? cm_centre_scale123(static_cast<int32_t>(csf.p[theta][j]))
                              : int64_t{cm_centre_scale0(static_cast<int16_t>(csf.p[theta][j]), Lane::scalar)};
                else
                    sum += flt[a].p[theta][cols[b]];
            }
    return sum;
}

void cm_edge_scale0(const ScalePlan& s, Row3<const int16_t> csf, const Row3<const int16_t> flt[3],
                    Row3<const int16_t> src, int j, int64_t inner[3]) {
    const int16_t x[3] = {src.p[0][j], src.p[1][j], src.p[2][j]};
    cm_terms_scale0(edge_threshold(csf, flt, s.w, j, false), x, s.rf16, Lane::scalar, s.add_cub, s.shift_cub, inner);
}

void cm_edge_scale123(const ScalePlan& s, Row3<const int32_t> csf, const Row3<const int32_t> flt[3],
                      Row3<const int32_t> src, int j, int64_t inner[3]) {
    const int32_t x[3] = {src.p[0][j], src.p[1][j], src.p[2][j]};
    cm_terms_scale123(edge_threshold(csf, flt, s.w, j, true), x, s.rf_scalar, Lane::scalar, s.add_cub[0],
                      s.shift_cub[0], inner);
}

// ---------------------------------------------------------- the scales ---

// Adds one row's inner sums to the scale's, as libvmaf: rounded and shifted.
void add_row(int64_t accum[3], const int64_t inner[3], const ScalePlan& s) {
    for (int t = 0; t < 3; ++t) accum[t] = add64(accum[t], cm_row_total(inner[t], s.add_inner, s.shift_inner));
}

// The rows libvmaf's masking visits, in order.
template <class F>
void for_each_cm_row(const ScalePlan& s, F f) {
    if (s.score.top <= 0) f(0);
    for (int i = s.start_row; i < s.end_row; ++i) f(i);
    if (s.score.bottom > s.h - 1) f(s.h - 1);
}

// One scale after its DWT rows: decoupling, CSF and masking of row i, as
// soon as the rows they need are there. T: int16_t (scale 0) or int32_t.
template <class T>
class ScaleStream {
public:
    ScaleStream(const Plan& plan, int scale, const RowKernels& k, ScaleBuffers<T>& b)
        : p_(plan), s_(plan.s[scale]), scale_(scale), k_(k), b_(b) {}

    // After the DWT of row i (in b.ref_row() / b.dis_row()).
    void row(int i) {
        const Region& c = s_.csf;
        if (i >= c.top && i < c.bottom) {
            decouple(i);
            csf(i, b_.a, b_.dlm_csf, b_.dlm_flt, b_.dlm_sum);
            if (!p_.opt.skip_aim) csf(i, b_.r, b_.aim_csf, b_.aim_flt, b_.aim_sum);
        }
        if (i >= s_.score.top && i < s_.score.bottom) den();
        if (i >= 1 && visits(i - 1)) mask(i - 1);
        if (i == s_.h - 1 && visits(i)) mask(i);
    }

    const ScaleTotals& totals() const { return totals_; }

private:
    bool visits(int i) const {
        return (i == 0 && s_.score.top <= 0) || (i >= s_.start_row && i < s_.end_row) ||
               (i == s_.h - 1 && s_.score.bottom > s_.h - 1);
    }

    void decouple(int i) {
        const Region& c = s_.csf;
        const Row3<T> rr = b_.r.row(i), ar = b_.a.row(i);
        const Row3<const T> ref = cref(b_.ref_row()), dis = cref(b_.dis_row());
        if constexpr (sizeof(T) == 2) {
            const Scale0Consts k = consts0();
            k_.decouple0(ref, dis, rr, ar, c.left, s_.decouple_simd_end, s_.decouple_lane, k);
            k_.decouple0(ref, dis, rr, ar, s_.decouple_simd_end, c.right, Lane::scalar, k);
        } else {
            const Scale123Consts k = consts123(s_.rf_scalar);
            const bool round_first = s_.decouple_lane == Lane::avx512;
            k_.decouple123(ref, dis, rr, ar, c.left, s_.decouple_simd_end, round_first, k);
            k_.decouple123(ref, dis, rr, ar, s_.decouple_simd_end, c.right, false, k);
        }
    }

    void csf(int i, Ring<T>& src, Ring<T>& val, Ring<T>& flt, SumRing& sum) {
        const Region& c = s_.csf;
        const Row3<T> sr = src.row(i), vr = val.row(i), fr = flt.row(i);
        for (int t = 0; t < 3; ++t) {
            if constexpr (sizeof(T) == 2) {
                k_.csf0(sr.p[t], vr.p[t], fr.p[t], c.left, s_.csf_simd_end, s_.rf16[t], t, s_.csf_lane);
                k_.csf0(sr.p[t], vr.p[t], fr.p[t], s_.csf_simd_end, c.right, s_.rf16[t], t, Lane::scalar);
            } else {
                const int64_t simd_rf = s_.csf_lane == Lane::scalar ? s_.rf_scalar[t] : s_.rf_simd[t];
                k_.csf123(sr.p[t], vr.p[t], fr.p[t], c.left, s_.csf_simd_end, simd_rf);
                k_.csf123(sr.p[t], vr.p[t], fr.p[t], s_.csf_simd_end, c.right, s_.rf_scalar[t]);
            }
        }
        if constexpr (sizeof(T) == 2)
            k_.orient_sums0(flt.crow(i), c.left, c.right, sum.row(i));
        else
            k_.orient_sums123(flt.crow(i), c.left, c.right, sum.row(i));
    }

    void den() {
        uint64_t inner[3] = {};
        const Row3<const T> ref = cref(b_.ref_row());
        if constexpr (sizeof(T) == 2) {
            k_.den0(ref, s_.score.left, s_.score.right, inner);
        } else {
            k_.den123(ref, s_.score.left, s_.score.right, consts123(s_.rf_scalar), inner);
        }
        for (int t = 0; t < 3; ++t) totals_.den[t] += den_row_total(inner[t], s_.den_add_accum, s_.den_shift_accum);
    }

    // Masking of row i: the DLM (r masked by the CSF of a) and the AIM (a
    // masked by the CSF of r).
    void mask(int i) {
        const int up = i == 0 ? 1 : i - 1, down = i == s_.h - 1 ? s_.h - 1 : i + 1;
        // Scales 1-3: each masking's products (its coefficients times the CSF
        // factors) are the other's CSF values, where every lane reads the
        // factors alike.
        const bool share = !p_.opt.skip_aim && sizeof(T) == 4 && factors_alike();
        mask_one(i, up, down, b_.r, b_.dlm_csf, b_.dlm_flt, b_.dlm_sum, totals_.dlm, share ? &b_.aim_csf : nullptr);
        if (!p_.opt.skip_aim)
            mask_one(i, up, down, b_.a, b_.aim_csf, b_.aim_flt, b_.aim_sum, totals_.aim, share ? &b_.dlm_csf : nullptr);
    }

    bool factors_alike() const {
        for (int t = 0; t < 3; ++t)
            if (s_.rf_simd[t] != s_.rf_scalar[t]) return false;
        return true;
    }

    void mask_one(int i, int up, int down, Ring<T>& src, Ring<T>& csf, Ring<T>& flt, SumRing& sum, int64_t accum[3],
                  Ring<T>* products) {
        const Row3<const T> f[3] = {flt.crow(up), flt.crow(i), flt.crow(down)};
        const int32_t* const fs[3] = {sum.row(up), sum.row(i), sum.row(down)};
        const Row3<const T> c = csf.crow(i), x = src.crow(i);
        const bool lanes = s_.interior_only && i >= s_.start_row && i < s_.end_row;
        const int split = lanes ? s_.cm_simd_end : s_.start_col;
        int64_t inner[3] = {};
        if constexpr (sizeof(T) == 2) {
            const Scale0Consts k = consts0();
            if (s_.score.left <= 0) cm_edge_scale0(s_, c, f, x, 0, inner);
            k_.cm0(c, f, fs, x, s_.start_col, split, s_.cm_lane, k, inner);
            k_.cm0(c, f, fs, x, split, s_.end_col, Lane::scalar, k, inner);
            if (s_.score.right > s_.w - 1) cm_edge_scale0(s_, c, f, x, s_.w - 1, inner);
        } else {
            if (s_.score.left <= 0) cm_edge_scale123(s_, c, f, x, 0, inner);
            const Row3<const T> xs = products ? products->crow(i) : Row3<const T>{{nullptr, nullptr, nullptr}};
            if (split > s_.start_col)
                k_.cm123(c, f, fs, x, xs, s_.start_col, split, s_.cm_lane, consts123(s_.rf_simd), inner);
            k_.cm123(c, f, fs, x, xs, split, s_.end_col, Lane::scalar, consts123(s_.rf_scalar), inner);
            if (s_.score.right > s_.w - 1) cm_edge_scale123(s_, c, f, x, s_.w - 1, inner);
        }
        add_row(accum, inner, s_);
    }

    Scale0Consts consts0() const {
        Scale0Consts k{};
        k.gain_limit = p_.opt.enhn_gain_limit;
        k.gain_int = k.gain_limit == std::floor(k.gain_limit) ? static_cast<int32_t>(k.gain_limit) : 0;
        k.cos_1deg_sq = p_.cos_1deg_sq;
        k.div_lookup = p_.div_lookup.data();
        for (int t = 0; t < 3; ++t) {
            k.rf[t] = s_.rf16[t];
            k.shift_cub[t] = s_.shift_cub[t];
            k.add_cub[t] = s_.add_cub[t];
        }
        return k;
    }

    Scale123Consts consts123(const int64_t* rf) const {
        Scale123Consts k{};
        k.gain_limit = p_.opt.enhn_gain_limit;
        k.gain_int = k.gain_limit == std::floor(k.gain_limit) ? static_cast<int32_t>(k.gain_limit) : 0;
        k.cos_1deg_sq = p_.cos_1deg_sq;
        k.div_lookup = p_.div_lookup.data();
        for (int t = 0; t < 3; ++t) k.rf[t] = rf[t];
        k.shift_cub = s_.shift_cub[0];
        k.add_cub = s_.add_cub[0];
        k.den_shift_sq = s_.den_shift_sq;
        k.den_shift_cub = s_.den_shift_cub;
        k.den_add_cub = s_.den_add_cub;
        return k;
    }

    static Row3<const T> cref(Row3<T> r) { return {{r.p[0], r.p[1], r.p[2]}}; }

    const Plan& p_;
    const ScalePlan& s_;
    int scale_;
    const RowKernels& k_;
    ScaleBuffers<T>& b_;
    ScaleTotals totals_;
};

const uint8_t* pixel_row(const Picture& pic, int y) { return pic.plane[0] + static_cast<ptrdiff_t>(y) * pic.stride[0]; }

// The band columns [d0, d1) of row i whose v, h, d the later stages read
// (decoupling and CSF: the region csf, which holds the denominator's and the
// masking's): none outside its rows.
struct DetailSpan {
    int d0 = 0, d1 = 0;
};
DetailSpan detail_span(const ScalePlan& s, int i, bool skipped) {
    if (skipped || i < s.csf.top || i >= s.csf.bottom) return {};
    return {s.csf.left, s.csf.right};
}

// The picture's DWT of one output row into band rows (and band_a into `a`).
void dwt_row_scale0(const Plan& plan, const RowKernels& k, const Picture& pic, int i, Scratch& ws, Row3<int16_t> out,
                    int32_t* a) {
    const ScalePlan& s = plan.s[0];
    const DetailSpan span = detail_span(s, i, plan.opt.skip_scale0);
    int16_t* tmp = ws.tmp16.data();
    int rows[4];
    for (int r = 0; r < 4; ++r) rows[r] = tap_index(i, r, s.in_h);
    const auto sample = [&](int q, int x) -> int32_t {
        const uint8_t* row = pixel_row(pic, rows[q]);
        return plan.bitdepth == 8 ? row[x] : reinterpret_cast<const uint16_t*>(row)[x];
    };
    if (plan.bitdepth == 8) {
        const uint8_t* r[4] = {pixel_row(pic, rows[0]), pixel_row(pic, rows[1]), pixel_row(pic, rows[2]),
                               pixel_row(pic, rows[3])};
        k.dwt0_8(r, s.in_w, tmp, a, out.p[1], out.p[0], out.p[2], span.d0, span.d1);
    } else {
        const uint16_t* r[4];
        for (int q = 0; q < 4; ++q) r[q] = reinterpret_cast<const uint16_t*>(pixel_row(pic, rows[q]));
        k.dwt0_16(r, s.in_w, plan.bitdepth, tmp, a, out.p[1], out.p[0], out.p[2], span.d0, span.d1);
    }
    // libvmaf's SIMD DWT's last block reads on past the low-pass row into
    // the high-pass one (they lie one after the other) instead of mirroring:
    // into its first two columns, which the kernel made only where the
    // bands' columns read them.
    if (s.dwt_overread && !plan.opt.skip_scale0) {
        const int W = s.in_w;
        const int32_t round = 1 << (plan.bitdepth - 1);
        for (int x = 0; x < 2 && x < W; ++x)
            tmp[W + x] = dwt0_vertical(kHi, sample(0, x), sample(1, x), sample(2, x), sample(3, x), 0, round, plan.bitdepth);
        const int j = s.w - 1;
        const int16_t* lo = tmp;
        const int32_t l0 = lo[2 * j - 1], l1 = lo[2 * j], l2 = lo[2 * j + 1], l3 = lo[2 * j + 2];
        a[j] = dwt0_horizontal(kLo, l0, l1, l2, l3);
        out.p[1][j] = dwt0_horizontal(kHi, l0, l1, l2, l3);
    }
}

// made_in: the rows of the scale above made so far.
void dwt_row_scale123(const Plan& plan, const RowKernels& k, int scale, int i, Scratch& ws, int made_in,
                      Row3<int32_t> ref_out, int32_t* ref_a, Row3<int32_t> dis_out, int32_t* dis_a) {
    const ScalePlan& s = plan.s[scale];
    const DetailSpan span = detail_span(s, i, false);
    const int W = s.in_w;
    const int32_t* rr[4];
    const int32_t* dr[4];
    for (int q = 0; q < 4; ++q) {
        const int row = tap_index(i, q, s.in_h);
        rr[q] = ws.band_a_row(0, scale - 1, row, made_in);
        dr[q] = ws.band_a_row(1, scale - 1, row, made_in);
    }
    int32_t* tmp = ws.tmp32.data();
    k.dwt123(rr, dr, W, scale, tmp, ref_out, ref_a, dis_out, dis_a, span.d0, span.d1);
    if (s.dwt_overread) {
        // tmp: low ref, high ref, low dis, high dis, each W wide. Each row's
        // taps past its end read the next one's first two columns (the high
        // ones made here where the kernel did not need them); past the last
        // one lies memory libvmaf never wrote: mirrored taps kept there.
        const int64_t vr = kVRound[scale - 1];
        const int vs = kVShift[scale - 1];
        for (int img = 0; img < 2; ++img) {
            const int32_t* const* in = img == 0 ? rr : dr;
            for (int x = 0; x < 2 && x < W; ++x)
                tmp[static_cast<size_t>(2 * img + 1) * W + x] = dwt_i4(kHi, in[0][x], in[1][x], in[2][x], in[3][x], vr, vs);
        }
        const int j = s.w - 1;
        const int64_t hr = kHRound[scale - 1];
        const int hs = kHShift[scale - 1];
        auto at = [&](int t, int q) { return tmp[static_cast<size_t>(t) * W + 2 * j - 1 + q]; };
        ref_a[j] = dwt_i4(kLo, at(0, 0), at(0, 1), at(0, 2), at(0, 3), hr, hs);
        ref_out.p[1][j] = dwt_i4(kHi, at(0, 0), at(0, 1), at(0, 2), at(0, 3), hr, hs);
        if (j >= span.d0 && j < span.d1) {   // (the high row's own columns there: made for these)
            ref_out.p[0][j] = dwt_i4(kLo, at(1, 0), at(1, 1), at(1, 2), at(1, 3), hr, hs);
            ref_out.p[2][j] = dwt_i4(kHi, at(1, 0), at(1, 1), at(1, 2), at(1, 3), hr, hs);
        }
        dis_a[j] = dwt_i4(kLo, at(2, 0), at(2, 1), at(2, 2), at(2, 3), hr, hs);
        dis_out.p[1][j] = dwt_i4(kHi, at(2, 0), at(2, 1), at(2, 2), at(2, 3), hr, hs);
        if (s.stale_dis_taps && j >= span.d0 && j < span.d1) {
            // the distorted high-pass row's taps past the buffer's end
            const auto tap = [&](int q) {
                const int x = 2 * j - 1 + q;
                return x < W ? at(3, q) : ws.stale[scale][x - W];
            };
            dis_out.p[0][j] = dwt_i4(kLo, tap(0), tap(1), tap(2), tap(3), hr, hs);
            dis_out.p[2][j] = dwt_i4(kHi, tap(0), tap(1), tap(2), tap(3), hr, hs);
        }
    }
}

// The DWT rows of every scale up to `last`, streamed: each scale's row as
// soon as the rows of band_a it reads are made, while they are still in
// their rings; after each row, made_row(scale, i).
template <class MadeRow>
void stream_dwt(const Plan& plan, const RowKernels& k, Scratch& ws, const Picture& ref, const Picture& dis, int last,
                MadeRow made_row) {
    int made[4] = {};
    const auto row123 = [&](int scale) {
        const int i = made[scale];
        ScaleBuffers<int32_t>& b = ws.s123[scale - 1];
        dwt_row_scale123(plan, k, scale, i, ws, made[scale - 1], b.ref_row(), ws.band_a_row(0, scale, i, i), b.dis_row(),
                         ws.band_a_row(1, scale, i, i));
        made_row(scale, i);
        made[scale]++;
    };
    const auto ready = [&](int scale) {
        const ScalePlan& s = plan.s[scale];
        if (made[scale] >= s.h) return false;
        int top = 0;
        for (int q = 0; q < 4; ++q) top = std::max(top, tap_index(made[scale], q, s.in_h));
        return top < made[scale - 1];
    };
    const ScalePlan& s0 = plan.s[0];
    for (int i = 0; i < s0.h; ++i) {
        dwt_row_scale0(plan, k, ref, i, ws, ws.s0.ref_row(), ws.band_a_row(0, 0, i, i));
        dwt_row_scale0(plan, k, dis, i, ws, ws.s0.dis_row(), ws.band_a_row(1, 0, i, i));
        made_row(0, i);
        made[0]++;
        // after scale 0's last row, every row left of 1, then 2, then 3
        for (int scale = 1; scale <= last; ++scale)
            while (ready(scale)) row123(scale);
    }
}

}  // namespace

std::unique_ptr<KernelScratch> make_frame_scratch(const Plan& plan) { return std::make_unique<Scratch>(plan); }

size_t frame_scratch_bytes(const Plan& plan) { return Scratch::bytes(plan); }

void score_frame(const Plan& plan, const RowKernels& k, KernelScratch& scratch, const Picture& ref,
                 const Picture& dis, ScaleSums& out, ScaleTotals* totals_out) {
    Scratch& ws = static_cast<Scratch&>(scratch);
    // Where libvmaf's DWT of a scale reads what the scale above left in its
    // buffer, that scale's last row comes first: the DWT alone, down to it.
    int stale_from = 0;
    for (int scale = 2; scale < 4; ++scale)
        if (plan.s[scale].stale_dis_taps) stale_from = scale - 1;
    if (stale_from > 0)
        stream_dwt(plan, k, ws, ref, dis, stale_from, [&](int scale, int i) {
            if (scale == 0 || scale == 3 || !plan.s[scale + 1].stale_dis_taps || i != plan.s[scale].h - 1) return;
            // its four rows are W wide, the next scale's (W + 1) / 2: past
            // theirs lie this row's low-pass values of the distorted image
            // (its third row) at columns 0, 1 (W even) or 2, 3
            const size_t past = static_cast<size_t>(4) * plan.s[scale + 1].in_w;
            for (int q = 0; q < 2; ++q) ws.stale[scale + 1][q] = ws.tmp32[past + q];
        });
    ScaleStream<int16_t> stream0(plan, 0, k, ws.s0);
    ScaleStream<int32_t> streams[3] = {{plan, 1, k, ws.s123[0]}, {plan, 2, k, ws.s123[1]}, {plan, 3, k, ws.s123[2]}};
    stream_dwt(plan, k, ws, ref, dis, 3, [&](int scale, int i) {
        if (scale > 0)
            streams[scale - 1].row(i);
        else if (!plan.opt.skip_scale0)
            stream0.row(i);
    });
    const ScaleTotals totals[4] = {stream0.totals(), streams[0].totals(), streams[1].totals(), streams[2].totals()};
    finish_frame(plan, totals, out);
    if (totals_out) std::copy(totals, totals + 4, totals_out);
}

}  // namespace speedqa::adm
