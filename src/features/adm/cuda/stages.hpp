// The device stages of integer ADM, one source for the CUDA part (part.cu,
// CudaGrid) and its host twin (tests/device_twin_test.cpp, HostGrid).
//
// The CPU driver (frame.cpp) streams each scale row by row; here each stage
// covers whole bands of a chunk of frames (the batch's frames go through
// the scratch a chunk at a time):
//   dwt     one point per band element and image: band_a everywhere (the
//           next scale's input) and h, v, d in the CSF region (the only
//           part the later stages read), libvmaf's SIMD overread at the
//           last column and, at scales 2-3, its stale taps included;
//   csf     one point per row segment: decoupling, the CSF of a (the DLM's
//           masker) and of r (the AIM's), kept as the sum of the three
//           orientations' 1/30 "filtered" values (all the masking threshold
//           reads of a neighbour), and the denominator's row sums;
//   cm      one point per row segment: the contrast masking of the DLM (r
//           masked by the CSF of a) and of the AIM (a by the CSF of r), the
//           element's own decoupling and CSF made again from the bands;
//   totals  each row's inner sums rounded and shifted (libvmaf's per-row
//           shifts) and added up per frame, scale, sum and orientation.
// Each element's arithmetic is exact/arith.hpp's (the CPU kernels'), its
// lane (who computed it in libvmaf) by the plan's column ranges. Sums are
// integer atomics (any order gives the same). The host tail (frame_raw)
// turns a frame's totals into its raw values with the CPU's tail.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/grid.hpp"
#include "core/input_layout.hpp"
#include "features/adm/exact/arith.hpp"
#include "features/adm/plan.hpp"
#include "features/adm/tail.hpp"

namespace speedqa::adm::device {

using exact::Lane;

// Points per row of the row-segment stages (csf, cm), each every
// kSegments-th column of its row (a warp reads consecutive columns); the
// points of kLineRows rows make one line of the grid (CudaGrid's blocks are
// 128 points wide). Each point adds its share of a row's sums with one
// atomic per sum.
inline constexpr int kSegments = 32;
inline constexpr int kLineRows = 4;
inline constexpr int kLinePoints = kSegments * kLineRows;
// Totals per frame: [scale][sum: den, dlm, aim][orientation h, v, d].
inline constexpr int kTotals = 36;
// The scratch (everything but the totals) a chunk of frames may take: the
// chunk is as many frames as fit, at least one.
inline constexpr size_t kChunkBudget = size_t{128} << 20;

// What the stages read of the plan: plain values (and the device's copy of
// the reciprocal table), captured by value into each stage.
struct DevicePlan {
    ScalePlan s[4];
    int bitdepth = 8;
    bool skip_aim = false, skip_scale0 = false;
    double gain_limit = 0;
    float cos_1deg_sq = 0;
    const int32_t* div_lookup = nullptr;   // Plan::div_lookup where the stages run
    // the filters, roundings and shifts of exact/arith.hpp (its constexpr
    // arrays cannot be read by device code): per scale (index scale; 0 unused)
    int32_t lo[4] = {}, hi[4] = {};
    int64_t vround[4] = {}, hround[4] = {};
    int vshift[4] = {}, hshift[4] = {};
    int32_t csf_round[3] = {};
    int csf_shift[3] = {};
    // sizes
    int chunk = 1;               // frames the scratch holds
    size_t band_a[3] = {};       // elements of one image's band_a of scales 0, 1, 2
    size_t region[4] = {};       // elements of one orientation's CSF region, per scale
    size_t rows_offset[4] = {};  // of each scale's row sums within a frame's
    size_t rows = 0;             // row sums per frame: 9 per row of each scale
};

// The device buffers (raw pointers; a chunk's scratch, the batch's totals).
struct Buffers {
    int16_t* band_a0 = nullptr;   // [chunk][image][h0][w0]: scale 0's band_a (int16 values)
    int32_t* band_a1 = nullptr;   // [chunk][image][h1][w1]
    int32_t* band_a2 = nullptr;   // [chunk][image][h2][w2]
    void* details = nullptr;      // [chunk][image][orientation][CSF region]: int16 (scale 0) or int32 (1-3)
    int32_t* osums = nullptr;     // [chunk][dlm, aim][CSF region]: the filtered values' orientation sums
    long long* rows = nullptr;    // [chunk][rows]: per scale [den, dlm, aim][orientation][row] inner sums
    long long* totals = nullptr;  // [frames][kTotals]
};

inline size_t region_elements(const ScalePlan& s) {
    return static_cast<size_t>(s.csf.right - s.csf.left) * static_cast<size_t>(s.csf.bottom - s.csf.top);
}

// The scratch bytes of one frame of a chunk.
inline size_t frame_scratch_bytes(const DevicePlan& d) {
    size_t details = d.region[0] * sizeof(int16_t);
    for (int s = 1; s < 4; ++s) details = std::max(details, d.region[s] * sizeof(int32_t));
    return 2 * d.band_a[0] * sizeof(int16_t) + 2 * (d.band_a[1] + d.band_a[2]) * sizeof(int32_t) + 6 * details +
           2 * d.region[0] * sizeof(int32_t) + d.rows * sizeof(long long);
}

// The stages' view of a plan; div_lookup: its table where the stages run.
inline DevicePlan make_device_plan(const Plan& p, const int32_t* div_lookup, size_t chunk_budget = kChunkBudget) {
    DevicePlan d;
    for (int s = 0; s < 4; ++s) d.s[s] = p.s[s];
    d.bitdepth = p.bitdepth;
    d.skip_aim = p.opt.skip_aim;
    d.skip_scale0 = p.opt.skip_scale0;
    d.gain_limit = p.opt.enhn_gain_limit;
    d.cos_1deg_sq = p.cos_1deg_sq;
    d.div_lookup = div_lookup;
    for (int q = 0; q < 4; ++q) {
        d.lo[q] = exact::kLo[q];
        d.hi[q] = exact::kHi[q];
    }
    for (int s = 1; s < 4; ++s) {
        d.vround[s] = exact::kVRound[s - 1];
        d.vshift[s] = exact::kVShift[s - 1];
        d.hround[s] = exact::kHRound[s - 1];
        d.hshift[s] = exact::kHShift[s - 1];
    }
    for (int k = 0; k < 3; ++k) {
        d.csf_round[k] = exact::kCsfRound[k];
        d.csf_shift[k] = exact::kCsfShift[k];
    }
    for (int s = 0; s < 3; ++s) d.band_a[s] = static_cast<size_t>(p.s[s].w) * static_cast<size_t>(p.s[s].h);
    size_t rows = 0;
    for (int s = 0; s < 4; ++s) {
        d.region[s] = region_elements(p.s[s]);
        d.rows_offset[s] = rows;
        rows += 9 * static_cast<size_t>(p.s[s].h);
    }
    d.rows = rows;
    // (at most 256: the DWT's grid has two points a frame in z)
    d.chunk = static_cast<int>(std::max<size_t>(1, std::min<size_t>(chunk_budget / frame_scratch_bytes(d), 256)));
    return d;
}

// The buffers of batches of up to `frames` frames: take(bytes) gives each
// its memory (make_queue_work) or counts it (device_bytes).
template <class Take>
Buffers make_buffers(const DevicePlan& d, int frames, Take take) {
    const size_t chunk = static_cast<size_t>(std::min(d.chunk, frames));
    size_t details = d.region[0] * sizeof(int16_t);
    for (int s = 1; s < 4; ++s) details = std::max(details, d.region[s] * sizeof(int32_t));
    Buffers b;
    b.band_a0 = static_cast<int16_t*>(take(chunk * 2 * d.band_a[0] * sizeof(int16_t)));
    b.band_a1 = static_cast<int32_t*>(take(chunk * 2 * d.band_a[1] * sizeof(int32_t)));
    b.band_a2 = static_cast<int32_t*>(take(chunk * 2 * d.band_a[2] * sizeof(int32_t)));
    b.details = take(chunk * 6 * details);
    b.osums = static_cast<int32_t*>(take(chunk * 2 * d.region[0] * sizeof(int32_t)));
    b.rows = static_cast<long long*>(take(chunk * d.rows * sizeof(long long)));
    b.totals = static_cast<long long*>(take(static_cast<size_t>(frames) * kTotals * sizeof(long long)));
    return b;
}

// ------------------------------------------------------------ helpers ----

// Index of (i, j) of plane `plane` of frame f of a scale's CSF-region buffers
// (`planes` planes a frame).
SPEEDQA_HD size_t region_index(const ScalePlan& s, size_t region, int planes, int f, int plane, int i, int j) {
    return (static_cast<size_t>(f) * planes + plane) * region +
           static_cast<size_t>(i - s.csf.top) * static_cast<size_t>(s.csf.right - s.csf.left) +
           static_cast<size_t>(j - s.csf.left);
}

// The decoupling of column j as libvmaf's kernel of that column computes it.
SPEEDQA_HD void decouple_at(const DevicePlan& d, const ScalePlan& s, int j, const int16_t o[3], const int16_t t[3],
                            int16_t r[3], int16_t a[3]) {
    const Lane lane = j < s.decouple_simd_end ? s.decouple_lane : Lane::scalar;
    exact::decouple_scale0(o, t, lane, d.gain_limit, d.cos_1deg_sq, d.div_lookup, r, a);
}
SPEEDQA_HD void decouple_at(const DevicePlan& d, const ScalePlan& s, int j, const int32_t o[3], const int32_t t[3],
                            int32_t r[3], int32_t a[3]) {
    const bool round_first = j < s.decouple_simd_end && s.decouple_lane == Lane::avx512;
    exact::decouple_scale123(o, t, round_first, d.gain_limit, d.cos_1deg_sq, d.div_lookup, r, a);
}

// The CSF of orientation k at column j: value and filtered value (int32).
struct CsfPair {
    int32_t value, filtered;
};
SPEEDQA_HD CsfPair csf_at(const DevicePlan& d, const ScalePlan& s, int j, int k, int16_t v) {
    const Lane lane = j < s.csf_simd_end ? s.csf_lane : Lane::scalar;
    const exact::Csf16 c = exact::csf_scale0(v, s.rf16[k], d.csf_round[k], d.csf_shift[k], lane);
    return {c.value, c.filtered};
}
SPEEDQA_HD CsfPair csf_at(const DevicePlan&, const ScalePlan& s, int j, int k, int32_t v) {
    const int64_t rf = j < s.csf_simd_end && s.csf_lane != Lane::scalar ? s.rf_simd[k] : s.rf_scalar[k];
    const exact::Csf32 c = exact::csf_scale123(v, rf);
    return {c.value, c.filtered};
}

SPEEDQA_HD uint64_t den_term_at(const ScalePlan&, int16_t o) { return exact::den_term_scale0(o); }
SPEEDQA_HD uint64_t den_term_at(const ScalePlan& s, int32_t o) {
    return exact::den_term_scale123(o, s.den_shift_sq, s.den_add_cub, s.den_shift_cub);
}

// The masking of one element of one sum: thr is the neighbours' orientation
// sums plus the centre terms of the masker's CSF values.
SPEEDQA_HD int64_t cm_centre(int32_t csf, Lane lane, int16_t /*scale 0*/) {
    return exact::cm_centre_scale0(static_cast<int16_t>(csf), lane);
}
SPEEDQA_HD int64_t cm_centre(int32_t csf, Lane, int32_t /*scales 1-3*/) { return exact::cm_centre_scale123(csf); }
SPEEDQA_HD void cm_terms_at(const ScalePlan& s, int64_t thr, const int16_t src[3], Lane lane, int64_t sums[3]) {
    exact::cm_terms_scale0(thr, src, s.rf16, lane, s.add_cub, s.shift_cub, sums);
}
SPEEDQA_HD void cm_terms_at(const ScalePlan& s, int64_t thr, const int32_t src[3], Lane lane, int64_t sums[3]) {
    exact::cm_terms_scale123(thr, src, lane == Lane::scalar ? s.rf_scalar : s.rf_simd, lane, s.add_cub[0],
                             s.shift_cub[0], sums);
}

// The coefficients at (i, j) of the reference (o) and the distorted (t)
// image, h, v, d.
template <class T>
SPEEDQA_HD void load_element(const T* bands, const ScalePlan& s, size_t region, int f, int i, int j, T o[3], T t[3]) {
    for (int k = 0; k < 3; ++k) {
        o[k] = bands[region_index(s, region, 6, f, k, i, j)];
        t[k] = bands[region_index(s, region, 6, f, 3 + k, i, j)];
    }
}

// Frame f's inner row sums of a scale: [den, dlm, aim][orientation][row].
template <class P>
SPEEDQA_HD P* scale_rows(const DevicePlan& d, P* rows, int f, int scale) {
    return rows + static_cast<size_t>(f) * d.rows + d.rows_offset[scale];
}

// Whether libvmaf's masking visits row i (frame.cpp's for_each_cm_row).
SPEEDQA_HD bool cm_visits(const ScalePlan& s, int i) {
    return (i == 0 && s.score.top <= 0) || (i >= s.start_row && i < s.end_row) ||
           (i == s.h - 1 && s.score.bottom > s.h - 1);
}

// ------------------------------------------------------------- stages ----

// Scale 0's DWT of the lumas of frames [first, first + n) of the batch.
template <class Exec>
void dwt_scale0(const Exec& ex, const DevicePlan& d, const Buffers& b, const InputLayout& layout, const uint8_t* input,
                int first, int n) {
    const ScalePlan s = d.s[0];
    const int bitdepth = d.bitdepth;
    const bool details = !d.skip_scale0;
    const size_t band = d.band_a[0], region = d.region[0];
    int16_t* const band_a = b.band_a0;
    int16_t* const out = static_cast<int16_t*>(b.details);
    const int32_t lo_f[4] = {d.lo[0], d.lo[1], d.lo[2], d.lo[3]};
    const int32_t hi_f[4] = {d.hi[0], d.hi[1], d.hi[2], d.hi[3]};
    ex.for_each(Extent{s.w, s.h, 2 * n}, [=] SPEEDQA_HD_LAMBDA(int j, int i, int z) {
        const int f = z >> 1, img = z & 1, W = s.in_w;
        const int position = layout.position(first + f);
        const uint8_t* rows[4];
        for (int q = 0; q < 4; ++q) rows[q] = input_row(layout, input, position, img, 0, exact::tap_index(i, q, s.in_h));
        const int32_t round = 1 << (bitdepth - 1);
        const auto sample = [&](int q, int x) -> int32_t {
            return bitdepth > 8 ? reinterpret_cast<const uint16_t*>(rows[q])[x] : rows[q][x];
        };
        const auto low = [&](int x) -> int32_t {
            return exact::dwt0_vertical(lo_f, sample(0, x), sample(1, x), sample(2, x), sample(3, x),
                                        exact::kLoSum * round, round, bitdepth);
        };
        const auto high = [&](int x) -> int32_t {
            return exact::dwt0_vertical(hi_f, sample(0, x), sample(1, x), sample(2, x), sample(3, x), 0, round, bitdepth);
        };
        // libvmaf's SIMD DWT's last block reads on past the low-pass row
        // into the high-pass one (frame.cpp's dwt_row_scale0)
        const bool overread = s.dwt_overread && details && j == s.w - 1;
        int cols[4];
        int32_t l[4];
        for (int q = 0; q < 4; ++q) {
            cols[q] = exact::tap_index(j, q, W);
            const int x = 2 * j - 1 + q;
            l[q] = overread ? (x < W ? low(x) : high(x - W)) : low(cols[q]);
        }
        const size_t at = (static_cast<size_t>(f) * 2 + img) * band + static_cast<size_t>(i) * s.w + j;
        band_a[at] = exact::dwt0_horizontal(lo_f, l[0], l[1], l[2], l[3]);
        if (!details || i < s.csf.top || i >= s.csf.bottom || j < s.csf.left || j >= s.csf.right) return;
        int32_t h[4];
        for (int q = 0; q < 4; ++q) h[q] = high(cols[q]);
        out[region_index(s, region, 6, f, img * 3 + 0, i, j)] = exact::dwt0_horizontal(lo_f, h[0], h[1], h[2], h[3]);
        out[region_index(s, region, 6, f, img * 3 + 1, i, j)] = exact::dwt0_horizontal(hi_f, l[0], l[1], l[2], l[3]);
        out[region_index(s, region, 6, f, img * 3 + 2, i, j)] = exact::dwt0_horizontal(hi_f, h[0], h[1], h[2], h[3]);
    });
}

// The DWT of scale 1, 2 or 3 from the previous scale's band_a.
template <class Exec>
void dwt_scale123(const Exec& ex, const DevicePlan& d, const Buffers& b, int scale, int n) {
    const ScalePlan s = d.s[scale];
    const ScalePlan above = d.s[scale - 1];
    // the input (band_a of scale - 1) and, for the stale taps, the input of scale - 1
    const int16_t* const in16 = scale == 1 ? b.band_a0 : nullptr;
    const int32_t* const in32 = scale == 2 ? b.band_a1 : (scale == 3 ? b.band_a2 : nullptr);
    const int16_t* const up16 = scale == 2 ? b.band_a0 : nullptr;
    const int32_t* const up32 = scale == 3 ? b.band_a1 : nullptr;
    const size_t in_band = d.band_a[scale - 1], up_band = scale >= 2 ? d.band_a[scale - 2] : 0;
    int32_t* const band_a = scale == 1 ? b.band_a1 : (scale == 2 ? b.band_a2 : nullptr);
    const size_t band = scale < 3 ? d.band_a[scale] : 0, region = d.region[scale];
    int32_t* const out = static_cast<int32_t*>(b.details);
    const int32_t lo_f[4] = {d.lo[0], d.lo[1], d.lo[2], d.lo[3]};
    const int32_t hi_f[4] = {d.hi[0], d.hi[1], d.hi[2], d.hi[3]};
    const int64_t vr = d.vround[scale], hr = d.hround[scale], up_vr = d.vround[scale - 1];
    const int vs = d.vshift[scale], hs = d.hshift[scale], up_vs = d.vshift[scale - 1];
    ex.for_each(Extent{s.w, s.h, 2 * n}, [=] SPEEDQA_HD_LAMBDA(int j, int i, int z) {
        const int f = z >> 1, img = z & 1, W = s.in_w;
        int rows[4];
        for (int q = 0; q < 4; ++q) rows[q] = exact::tap_index(i, q, s.in_h);
        const auto input = [&](int im, int row, int x) -> int32_t {
            const size_t k = (static_cast<size_t>(f) * 2 + im) * in_band + static_cast<size_t>(row) * W + x;
            return in16 ? int32_t{in16[k]} : in32[k];
        };
        const auto vertical = [&](int im, bool high, int x) -> int32_t {
            return exact::dwt_i4(high ? hi_f : lo_f, input(im, rows[0], x), input(im, rows[1], x),
                                 input(im, rows[2], x), input(im, rows[3], x), vr, vs);
        };
        // What libvmaf's buffer holds past its four rows: the scale above's
        // last row's low-pass values of the distorted image (frame.cpp's
        // score_frame), at columns 0, 1 (its input's width even) or 2, 3.
        const auto stale = [&](int q) -> int32_t {
            const int x = 4 * W - 2 * above.in_w + q;
            int32_t v[4];
            for (int r = 0; r < 4; ++r) {
                const size_t k = (static_cast<size_t>(f) * 2 + 1) * up_band +
                                 static_cast<size_t>(exact::tap_index(above.h - 1, r, above.in_h)) * above.in_w + x;
                v[r] = up16 ? int32_t{up16[k]} : up32[k];
            }
            return exact::dwt_i4(lo_f, v[0], v[1], v[2], v[3], up_vr, up_vs);
        };
        // libvmaf's temporary rows, one after the other (low ref, high ref,
        // low dis, high dis), as its SIMD DWT reads them past a row's end
        const auto tmp = [&](int t, int x) -> int32_t {
            if (x < W) return vertical(t >> 1, (t & 1) != 0, x);
            if (t < 3) return vertical((t + 1) >> 1, ((t + 1) & 1) != 0, x - W);
            return stale(x - W);
        };
        const bool overread = s.dwt_overread && j == s.w - 1;
        int cols[4];
        int32_t l[4];
        for (int q = 0; q < 4; ++q) {
            cols[q] = exact::tap_index(j, q, W);
            l[q] = overread ? tmp(2 * img, 2 * j - 1 + q) : vertical(img, false, cols[q]);
        }
        if (band_a)
            band_a[(static_cast<size_t>(f) * 2 + img) * band + static_cast<size_t>(i) * s.w + j] =
                exact::dwt_i4(lo_f, l[0], l[1], l[2], l[3], hr, hs);
        if (i < s.csf.top || i >= s.csf.bottom || j < s.csf.left || j >= s.csf.right) return;
        // the high-pass taps: past the row for the reference (into the
        // distorted's low row) and, with stale taps, for the distorted
        const bool high_over = overread && (img == 0 || s.stale_dis_taps);
        int32_t h[4];
        for (int q = 0; q < 4; ++q) h[q] = high_over ? tmp(2 * img + 1, 2 * j - 1 + q) : vertical(img, true, cols[q]);
        out[region_index(s, region, 6, f, img * 3 + 0, i, j)] = exact::dwt_i4(lo_f, h[0], h[1], h[2], h[3], hr, hs);
        out[region_index(s, region, 6, f, img * 3 + 1, i, j)] = exact::dwt_i4(hi_f, l[0], l[1], l[2], l[3], hr, hs);
        out[region_index(s, region, 6, f, img * 3 + 2, i, j)] = exact::dwt_i4(hi_f, h[0], h[1], h[2], h[3], hr, hs);
    });
}

// Decoupling and CSF of a scale's CSF region (T: int16_t at scale 0, int32_t
// after): the orientation sums of the filtered CSF of a (DLM) and r (AIM),
// and the denominator's inner row sums.
template <class T, class Exec>
void csf_stage(const Exec& ex, const DevicePlan& d, const Buffers& b, int scale, int n) {
    const DevicePlan dp = d;
    const ScalePlan s = d.s[scale];
    const size_t region = d.region[scale];
    const T* const bands = static_cast<const T*>(b.details);
    int32_t* const osums = b.osums;
    long long* const rows = b.rows;
    const int rows_in = s.csf.bottom - s.csf.top;
    ex.for_each(Extent{kLinePoints, (rows_in + kLineRows - 1) / kLineRows, n}, [=] SPEEDQA_HD_LAMBDA(int x, int line, int f) {
        const int seg = x % kSegments, y = line * kLineRows + x / kSegments;
        if (y >= rows_in) return;
        const int i = s.csf.top + y;
        const bool den_row = i >= s.score.top && i < s.score.bottom;
        uint64_t den[3] = {};
        for (int j = s.csf.left + seg; j < s.csf.right; j += kSegments) {
            T o[3], t[3], r[3], a[3];
            load_element(bands, s, region, f, i, j, o, t);
            decouple_at(dp, s, j, o, t, r, a);
            uint32_t dlm = 0, aim = 0;
            for (int k = 0; k < 3; ++k) dlm += static_cast<uint32_t>(csf_at(dp, s, j, k, a[k]).filtered);
            osums[region_index(s, region, 2, f, 0, i, j)] = static_cast<int32_t>(dlm);
            if (!dp.skip_aim) {
                for (int k = 0; k < 3; ++k) aim += static_cast<uint32_t>(csf_at(dp, s, j, k, r[k]).filtered);
                osums[region_index(s, region, 2, f, 1, i, j)] = static_cast<int32_t>(aim);
            }
            if (den_row && j >= s.score.left && j < s.score.right)
                for (int k = 0; k < 3; ++k) den[k] += den_term_at(s, o[k]);
        }
        if (!den_row) return;
        long long* const row = scale_rows(dp, rows, f, scale);
        for (int k = 0; k < 3; ++k)
            atomic_add(reinterpret_cast<unsigned long long*>(row + static_cast<size_t>(k) * s.h + i), den[k]);
    });
}

// Contrast masking of a scale's rows: the DLM's and the AIM's inner row sums.
template <class T, class Exec>
void cm_stage(const Exec& ex, const DevicePlan& d, const Buffers& b, int scale, int n) {
    const DevicePlan dp = d;
    const T* const bands = static_cast<const T*>(b.details);
    const int32_t* const osums = b.osums;
    long long* const rows = b.rows;
    const ScalePlan s = d.s[scale];
    const size_t region = d.region[scale];
    ex.for_each(Extent{kLinePoints, (s.h + kLineRows - 1) / kLineRows, n}, [=] SPEEDQA_HD_LAMBDA(int x, int line, int f) {
        const int seg = x % kSegments, i = line * kLineRows + x / kSegments;
        if (i >= s.h || !cm_visits(s, i)) return;
        const bool interior_row = i >= s.start_row && i < s.end_row;
        const int split = s.interior_only && interior_row ? s.cm_simd_end : s.start_col;
        const int up = i == 0 ? 1 : i - 1, down = i == s.h - 1 ? s.h - 1 : i + 1;
        const int nbr_rows[3] = {up, i, down};
        // the columns in libvmaf's order: the left edge, the interior, the right edge
        const int left_edge = s.score.left <= 0 ? 1 : 0, right_edge = s.score.right > s.w - 1 ? 1 : 0;
        const int count = left_edge + (s.end_col - s.start_col) + right_edge;
        int64_t dlm[3] = {}, aim[3] = {};
        for (int c = seg; c < count; c += kSegments) {
            int j = s.start_col + c - left_edge;
            bool edge = false;
            if (c < left_edge) {
                j = 0;
                edge = true;
            } else if (j >= s.end_col) {
                j = s.w - 1;
                edge = true;
            }
            const Lane lane = !edge && j < split ? s.cm_lane : Lane::scalar;
            const int nbr_cols[3] = {j == 0 ? 1 : j - 1, j, j == s.w - 1 ? s.w - 1 : j + 1};
            T o[3], t[3], r[3], a[3];
            load_element(bands, s, region, f, i, j, o, t);
            decouple_at(dp, s, j, o, t, r, a);
            // the threshold: the eight neighbours' filtered values of every
            // orientation (their sums) and the centre's own terms
            const auto threshold = [&](int map, const T* masker) -> int64_t {
                int64_t thr = 0;
                for (int p = 0; p < 3; ++p)
                    for (int q = 0; q < 3; ++q)
                        if (p != 1 || q != 1) thr += osums[region_index(s, region, 2, f, map, nbr_rows[p], nbr_cols[q])];
                for (int k = 0; k < 3; ++k) thr += cm_centre(csf_at(dp, s, j, k, masker[k]).value, lane, T{});
                return thr;
            };
            cm_terms_at(s, threshold(0, a), r, lane, dlm);   // DLM: r masked by the CSF of a
            if (!dp.skip_aim) cm_terms_at(s, threshold(1, r), a, lane, aim);   // AIM: a masked by the CSF of r
        }
        long long* const row = scale_rows(dp, rows, f, scale);
        for (int k = 0; k < 3; ++k) {
            atomic_add(row + static_cast<size_t>(3 + k) * s.h + i, dlm[k]);
            if (!dp.skip_aim) atomic_add(row + static_cast<size_t>(6 + k) * s.h + i, aim[k]);
        }
    });
}

// Each row's inner sums, rounded and shifted as libvmaf does per row, added
// to the frame's totals (frames [first, first + n) of the batch).
template <class Exec>
void totals_stage(const Exec& ex, const DevicePlan& d, const Buffers& b, int first, int n) {
    const DevicePlan dp = d;
    const long long* const rows = b.rows;
    long long* const totals = b.totals;
    ex.for_each(Extent{d.s[0].h, kTotals, n}, [=] SPEEDQA_HD_LAMBDA(int i, int y, int f) {
        const int scale = y / 9, sum = (y % 9) / 3, k = y % 3;
        const ScalePlan& s = dp.s[scale];
        if (i >= s.h || (scale == 0 && dp.skip_scale0) || (sum == 2 && dp.skip_aim)) return;
        const long long inner = scale_rows(dp, rows, f, scale)[static_cast<size_t>(sum * 3 + k) * s.h + i];
        long long add = 0;
        if (sum == 0) {
            if (i < s.score.top || i >= s.score.bottom) return;
            add = static_cast<long long>(
                exact::den_row_total(static_cast<uint64_t>(inner), s.den_add_accum, s.den_shift_accum));
        } else {
            if (!cm_visits(s, i)) return;
            add = exact::cm_row_total(inner, s.add_inner, s.shift_inner);
        }
        atomic_add(totals + static_cast<size_t>(first + f) * kTotals + y, add);
    });
}

// Zeros the totals of `frames` frames, and the row sums of a chunk of n.
template <class Exec>
void clear_totals(const Exec& ex, const Buffers& b, int frames) {
    long long* const totals = b.totals;
    ex.for_each(Extent{kTotals, frames, 1}, [=] SPEEDQA_HD_LAMBDA(int x, int f, int) {
        totals[static_cast<size_t>(f) * kTotals + x] = 0;
    });
}
template <class Exec>
void clear_rows(const Exec& ex, const DevicePlan& d, const Buffers& b, int n) {
    long long* const rows = b.rows;
    const size_t rows_per_frame = d.rows;
    ex.for_each(Extent{static_cast<int>(d.rows), n, 1}, [=] SPEEDQA_HD_LAMBDA(int x, int f, int) {
        rows[static_cast<size_t>(f) * rows_per_frame + x] = 0;
    });
}

// Every stage of a batch of `frames` frames of `input`, a chunk of frames
// at a time through the scratch; mark(name) after each stage (timing).
template <class Exec, class Mark>
void launch_stages(const Exec& ex, const DevicePlan& d, const Buffers& b, const InputLayout& layout,
                   const uint8_t* input, int frames, Mark mark) {
    clear_totals(ex, b, frames);
    for (int first = 0; first < frames; first += d.chunk) {
        const int n = std::min(d.chunk, frames - first);
        clear_rows(ex, d, b, n);
        dwt_scale0(ex, d, b, layout, input, first, n);
        mark("adm_dwt0");
        if (!d.skip_scale0) {
            csf_stage<int16_t>(ex, d, b, 0, n);
            mark("adm_csf0");
            cm_stage<int16_t>(ex, d, b, 0, n);
            mark("adm_cm0");
        }
        for (int scale = 1; scale < 4; ++scale) {
            dwt_scale123(ex, d, b, scale, n);
            csf_stage<int32_t>(ex, d, b, scale, n);
            cm_stage<int32_t>(ex, d, b, scale, n);
        }
        mark("adm_scales123");
        totals_stage(ex, d, b, first, n);
        mark("adm_totals");
    }
}

// A frame's raw values (Feature::raw_count() of them) from its kTotals
// totals, with the CPU's tail.
inline void frame_raw(const Plan& plan, const long long* totals, double* raw) {
    ScaleTotals t[4];
    for (int s = 0; s < 4; ++s)
        for (int k = 0; k < 3; ++k) {
            t[s].den[k] = static_cast<uint64_t>(totals[s * 9 + k]);
            t[s].dlm[k] = totals[s * 9 + 3 + k];
            t[s].aim[k] = totals[s * 9 + 6 + k];
        }
    ScaleSums sums;
    finish_frame(plan, t, sums);
    assemble(plan, sums, raw);
}

}  // namespace speedqa::adm::device
