// The C reference of integer ADM: libvmaf's stages one after the other on
// whole bands, each element as the libvmaf kernel of the reproduced dispatch
// evaluates it (exact/arith.hpp; the plan says which columns are SIMD lanes).
// Written for clarity; the AVX2 kernel is the fast one.
#include <cmath>
#include <cstring>
#include <vector>

#include "features/adm/kernels.hpp"

namespace speedqa::adm {
namespace {

using namespace exact;

// libvmaf's mirrored filter taps: row/column 2i-1+k of n for output i, with
// {1, 0, 1, 2} for i = 0 and reflection past the end.
int tap_index(int i, int k, int n) {
    if (i == 0) return k == 1 ? 0 : (k == 3 ? 2 : 1);
    const int v = 2 * i - 1 + k;
    return v >= n ? 2 * n - v - 1 : v;
}

template <class T>
struct Bands {
    int w = 0, h = 0;
    std::vector<T> a, h_, v, d;   // low-low, high-low (horizontal edges), low-high, high-high
    void resize(int bw, int bh) {
        w = bw;
        h = bh;
        const size_t n = static_cast<size_t>(bw) * bh;
        a.assign(n, 0);
        h_.assign(n, 0);
        v.assign(n, 0);
        d.assign(n, 0);
    }
    T* orient(int theta) { return theta == 0 ? h_.data() : (theta == 1 ? v.data() : d.data()); }
    const T* orient(int theta) const { return theta == 0 ? h_.data() : (theta == 1 ? v.data() : d.data()); }
};

template <class T>
struct Planes3 {
    std::vector<T> p[3];
    void resize(size_t n) {
        for (auto& x : p) x.assign(n, 0);
    }
};

struct Scratch final : KernelScratch {
    explicit Scratch(const Plan& plan) {
        const ScalePlan& s0 = plan.s[0];
        const ScalePlan& s1 = plan.s[1];
        const size_t n0 = static_cast<size_t>(s0.w) * s0.h, n1 = static_cast<size_t>(s1.w) * s1.h;
        tmp16[0].resize(plan.width);
        tmp16[1].resize(plan.width);
        for (auto& t : tmp32) t.resize(s1.in_w);
        ref0.resize(s0.w, s0.h);
        dis0.resize(s0.w, s0.h);
        for (auto* p : {&r0, &a0, &csf0, &flt0}) p->resize(n0);
        ref1.resize(s1.w, s1.h);
        dis1.resize(s1.w, s1.h);
        in_ref.resize(n0);
        in_dis.resize(n0);
        for (auto* p : {&r1, &a1, &csf1, &flt1}) p->resize(n1);
    }
    std::vector<int16_t> tmp16[2];
    std::vector<int32_t> tmp32[4];   // lo ref, hi ref, lo dis, hi dis: libvmaf's order in memory
    Bands<int16_t> ref0, dis0;
    Planes3<int16_t> r0, a0, csf0, flt0;
    Bands<int32_t> ref1, dis1;
    std::vector<int32_t> in_ref, in_dis;   // band_a of the scale before
    Planes3<int32_t> r1, a1, csf1, flt1;
};

int32_t sample(const Picture& pic, int bitdepth, int x, int y) {
    const uint8_t* row = pic.plane[0] + static_cast<ptrdiff_t>(y) * pic.stride[0];
    if (bitdepth == 8) return row[x];
    uint16_t v;
    std::memcpy(&v, row + 2 * x, 2);
    return v;
}

// ------------------------------------------------------------- scale 0 ---

void dwt_scale0(const Plan& plan, const Picture& pic, Bands<int16_t>& out, Scratch& ws, bool low_only) {
    const ScalePlan& s = plan.s[0];
    const int W = s.in_w, H = s.in_h;
    const int shift = plan.bitdepth;
    const int32_t round = 1 << (plan.bitdepth - 1);
    int16_t* lo = ws.tmp16[0].data();
    int16_t* hi = ws.tmp16[1].data();
    for (int i = 0; i < s.h; ++i) {
        const int r0 = tap_index(i, 0, H), r1 = tap_index(i, 1, H), r2 = tap_index(i, 2, H), r3 = tap_index(i, 3, H);
        for (int x = 0; x < W; ++x) {
            const int32_t p0 = sample(pic, plan.bitdepth, x, r0), p1 = sample(pic, plan.bitdepth, x, r1);
            const int32_t p2 = sample(pic, plan.bitdepth, x, r2), p3 = sample(pic, plan.bitdepth, x, r3);
            lo[x] = dwt0_vertical(kLo, p0, p1, p2, p3, kLoSum * round, round, shift);
            hi[x] = dwt0_vertical(kHi, p0, p1, p2, p3, 0, round, shift);
        }
        for (int j = 0; j < s.w; ++j) {
            int c[4];
            for (int k = 0; k < 4; ++k) c[k] = tap_index(j, k, W);
            // The SIMD DWT's last block reads past the low-pass row into the
            // high-pass one (libvmaf keeps them adjacent) instead of mirroring.
            int32_t l[4];
            const bool overread = s.dwt_overread && !low_only && j == s.w - 1;
            for (int k = 0; k < 4; ++k) {
                const int u = 2 * j - 1 + k;
                l[k] = overread && u >= W ? hi[u - W] : lo[c[k]];
            }
            const size_t o = static_cast<size_t>(i) * s.w + j;
            out.a[o] = dwt0_horizontal(kLo, l[0], l[1], l[2], l[3]);
            if (low_only) continue;
            out.v[o] = dwt0_horizontal(kHi, l[0], l[1], l[2], l[3]);
            // Past the high-pass row lies memory of other frames: mirrored taps.
            out.h_[o] = dwt0_horizontal(kLo, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);
            out.d[o] = dwt0_horizontal(kHi, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);
        }
    }
}

void decouple_scale0(const Plan& plan, Scratch& ws) {
    const ScalePlan& s = plan.s[0];
    const Region& c = s.csf;
    const double limit = plan.opt.enhn_gain_limit;
    for (int i = c.top; i < c.bottom; ++i)
        for (int j = c.left; j < c.right; ++j) {
            const size_t o = static_cast<size_t>(i) * s.w + j;
            const Lane lane = j < s.decouple_simd_end ? s.decouple_lane : Lane::scalar;
            const int16_t oh = ws.ref0.h_[o], ov = ws.ref0.v[o], od = ws.ref0.d[o];
            const int16_t th = ws.dis0.h_[o], tv = ws.dis0.v[o], td = ws.dis0.d[o];
            int64_t ot = int64_t{oh} * th + int64_t{ov} * tv;
            int64_t om = int64_t{oh} * oh + int64_t{ov} * ov;
            int64_t tm = int64_t{th} * th + int64_t{tv} * tv;
            if (lane != Lane::scalar) {   // formed with _mm*_madd_epi16: 32 bits
                ot = low32(ot);
                om = low32(om);
                tm = low32(tm);
            }
            const bool angle = angle_within_1deg(ot, om, tm, plan.cos_1deg_sq, lane == Lane::avx512);
            const int16_t o3[3] = {oh, ov, od}, t3[3] = {th, tv, td};
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t k = k_scale0(o3[theta], t3[theta], plan.div_lookup.data());
                int64_t rst = (k * o3[theta] + 16384) >> 15;
                const float rst_f = (static_cast<float>(k) / 32768) * (static_cast<float>(o3[theta]) / 64);
                if (angle && rst_f > 0.) rst = gain_bound(rst, t3[theta], limit, true, lane != Lane::scalar);
                if (angle && rst_f < 0.) rst = gain_bound(rst, t3[theta], limit, false, lane != Lane::scalar);
                const int16_t r = low16(static_cast<int32_t>(rst));
                ws.r0.p[theta][o] = r;
                ws.a0.p[theta][o] = low16(t3[theta] - r);
            }
        }
}

float den_scale0(const Plan& plan, const Scratch& ws) {
    const ScalePlan& s = plan.s[0];
    const Region& r = s.score;
    uint64_t accum[3] = {};
    for (int i = r.top; i < r.bottom; ++i) {
        uint64_t inner[3] = {};
        for (int j = r.left; j < r.right; ++j)
            for (int theta = 0; theta < 3; ++theta) {
                const uint64_t m = static_cast<uint16_t>(abs32(ws.ref0.orient(theta)[static_cast<size_t>(i) * s.w + j]));
                inner[theta] += m * m * m;
            }
        for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + s.den_add_accum) >> s.den_shift_accum;
    }
    float den = 0;
    for (int theta = 0; theta < 3; ++theta) {
        const double csf = static_cast<double>(accum[theta] / s.den_divisor) * std::pow(s.factor[theta], 3);
        den += std::pow(static_cast<float>(csf), 1.0f / 3.0f) + plan.den_noise[0];
    }
    return den;
}

// CSF of one set of bands: `src` weighted; its 1/30 copy feeds the masking.
void csf_scale0(const Plan& plan, const Planes3<int16_t>& src, Scratch& ws) {
    const ScalePlan& s = plan.s[0];
    const Region& c = s.csf;
    const int32_t round[3] = {16384, 16384, 65535};
    const int shift[3] = {15, 15, 17};
    for (int theta = 0; theta < 3; ++theta)
        for (int i = c.top; i < c.bottom; ++i)
            for (int j = c.left; j < c.right; ++j) {
                const size_t o = static_cast<size_t>(i) * s.w + j;
                const Lane lane = j < s.csf_simd_end ? s.csf_lane : Lane::scalar;
                const Csf16 v = exact::csf_scale0(src.p[theta][o], s.rf16[theta], round[theta], shift[theta], lane);
                ws.csf0.p[theta][o] = v.value;
                ws.flt0.p[theta][o] = v.filtered;
            }
}

// The masking threshold at (i, j): the 3x3 sums of the filtered CSF of the
// three orientations, the centre from the CSF itself. Rows and columns
// outside mirror at the top/left and repeat at the bottom/right edge.
template <class T, class Centre>
int64_t threshold(const T* const csf[3], const T* const flt[3], int w, int h, int i, int j, Centre centre, bool wrap32) {
    const int up = i == 0 ? 1 : i - 1, down = i == h - 1 ? h - 1 : i + 1;
    const int left = j == 0 ? 1 : j - 1, right = j == w - 1 ? w - 1 : j + 1;
    const int rows[3] = {up, i, down}, cols[3] = {left, j, right};
    int64_t sum = 0;
    for (int theta = 0; theta < 3; ++theta)
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                const size_t o = static_cast<size_t>(rows[a]) * w + cols[b];
                sum += (a == 1 && b == 1) ? centre(csf[theta][o]) : static_cast<int64_t>(flt[theta][o]);
            }
    return wrap32 ? low32(sum) : sum;
}

float cm_scale0(const Plan& plan, const Planes3<int16_t>& src, const Scratch& ws, double noise) {
    const ScalePlan& s = plan.s[0];
    const Region& r = s.score;
    const int sub[3] = {10, 10, 12};
    const int shift_sq[3] = {29, 29, 30};
    const int64_t add_sq[3] = {1 << 28, 1 << 28, 1 << 29};
    const int16_t* csf[3] = {ws.csf0.p[0].data(), ws.csf0.p[1].data(), ws.csf0.p[2].data()};
    const int16_t* flt[3] = {ws.flt0.p[0].data(), ws.flt0.p[1].data(), ws.flt0.p[2].data()};
    int64_t accum[3] = {};
    auto visit_row = [&](int i) {
        int64_t inner[3] = {};
        auto element = [&](int j) {
            const bool simd_lane = s.interior_only && i >= s.start_row && i < s.end_row && j >= s.start_col &&
                                   j < s.cm_simd_end;
            const Lane lane = simd_lane ? s.cm_lane : Lane::scalar;
            const int32_t thr = low32(threshold(csf, flt, s.w, s.h, i, j,
                                                [lane](int16_t v) { return int64_t{cm_centre_scale0(v, lane)}; }, true));
            const size_t o = static_cast<size_t>(i) * s.w + j;
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t x = src.p[theta][o] * s.rf16[theta];
                const int32_t thr_s = static_cast<int32_t>(static_cast<uint32_t>(thr) << sub[theta]);
                inner[theta] = add64(inner[theta], cm_term_scale0(x, thr_s, add_sq[theta], shift_sq[theta],
                                                                  s.add_cub[theta], s.shift_cub[theta], lane));
            }
        };
        if (r.left <= 0) element(0);
        for (int j = s.start_col; j < s.end_col; ++j) element(j);
        if (r.right > s.w - 1) element(s.w - 1);
        for (int theta = 0; theta < 3; ++theta) accum[theta] = add64(accum[theta], add64(inner[theta], s.add_inner) >> s.shift_inner);
    };
    if (r.top <= 0) visit_row(0);
    for (int i = s.start_row; i < s.end_row; ++i) visit_row(i);
    if (r.bottom > s.h - 1) visit_row(s.h - 1);
    const float noise_term = std::pow(static_cast<float>(r.height() * r.width() * noise), 1.0f / 3.0f);
    float num = 0;
    for (int theta = 0; theta < 3; ++theta) {
        const float f = static_cast<float>(static_cast<double>(accum[theta]) / s.num_divisor[theta]);
        num += std::pow(f, 1.0f / 3.0f) + noise_term;
    }
    return num;
}

// ----------------------------------------------------------- scales 1-3 --

void dwt_scale123(const Plan& plan, int scale, Scratch& ws) {
    const ScalePlan& s = plan.s[scale];
    const int W = s.in_w, H = s.in_h;
    const int64_t vround = kVRound[scale - 1], hround = kHRound[scale - 1];
    const int vshift = kVShift[scale - 1], hshift = kHShift[scale - 1];
    const int32_t* in[2] = {ws.in_ref.data(), ws.in_dis.data()};
    Bands<int32_t>* out[2] = {&ws.ref1, &ws.dis1};
    out[0]->w = out[1]->w = s.w;
    out[0]->h = out[1]->h = s.h;
    int32_t* tmp[4] = {ws.tmp32[0].data(), ws.tmp32[1].data(), ws.tmp32[2].data(), ws.tmp32[3].data()};
    for (int i = 0; i < s.h; ++i) {
        int rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = tap_index(i, k, H);
        for (int img = 0; img < 2; ++img)
            for (int x = 0; x < W; ++x) {
                const int32_t* p = in[img];
                const int32_t q0 = p[static_cast<size_t>(rows[0]) * W + x], q1 = p[static_cast<size_t>(rows[1]) * W + x];
                const int32_t q2 = p[static_cast<size_t>(rows[2]) * W + x], q3 = p[static_cast<size_t>(rows[3]) * W + x];
                tmp[2 * img][x] = dwt_i4(kLo, q0, q1, q2, q3, vround, vshift);
                tmp[2 * img + 1][x] = dwt_i4(kHi, q0, q1, q2, q3, vround, vshift);
            }
        for (int j = 0; j < s.w; ++j) {
            int c[4];
            for (int k = 0; k < 4; ++k) c[k] = tap_index(j, k, W);
            const bool overread = s.dwt_overread && j == s.w - 1;
            const size_t o = static_cast<size_t>(i) * s.w + j;
            for (int img = 0; img < 2; ++img)
                for (int hp = 0; hp < 2; ++hp) {
                    // tmp[t] is followed in libvmaf's memory by tmp[t + 1];
                    // past the last one (distorted high pass) mirrored taps.
                    const int t = 2 * img + hp;
                    int32_t v[4];
                    for (int k = 0; k < 4; ++k) {
                        const int u = 2 * j - 1 + k;
                        v[k] = overread && u >= W && t < 3 ? tmp[t + 1][u - W] : tmp[t][c[k]];
                    }
                    Bands<int32_t>& b = *out[img];
                    int32_t* low = hp ? b.h_.data() : b.a.data();
                    int32_t* high = hp ? b.d.data() : b.v.data();
                    low[o] = dwt_i4(kLo, v[0], v[1], v[2], v[3], hround, hshift);
                    high[o] = dwt_i4(kHi, v[0], v[1], v[2], v[3], hround, hshift);
                }
        }
    }
}

void decouple_scale123(const Plan& plan, int scale, Scratch& ws) {
    const ScalePlan& s = plan.s[scale];
    const Region& c = s.csf;
    const double limit = plan.opt.enhn_gain_limit;
    for (int i = c.top; i < c.bottom; ++i)
        for (int j = c.left; j < c.right; ++j) {
            const size_t o = static_cast<size_t>(i) * s.w + j;
            // Only AVX-512 lanes differ here: they round rst * limit first.
            const bool round_first = j < s.decouple_simd_end && s.decouple_lane == Lane::avx512;
            const int32_t oh = ws.ref1.h_[o], ov = ws.ref1.v[o], od = ws.ref1.d[o];
            const int32_t th = ws.dis1.h_[o], tv = ws.dis1.v[o], td = ws.dis1.d[o];
            const int64_t ot = int64_t{oh} * th + int64_t{ov} * tv;
            const int64_t om = int64_t{oh} * oh + int64_t{ov} * ov;
            const int64_t tm = int64_t{th} * th + int64_t{tv} * tv;
            const bool angle = angle_within_1deg(ot, om, tm, plan.cos_1deg_sq, false);
            const int32_t o3[3] = {oh, ov, od}, t3[3] = {th, tv, td};
            for (int theta = 0; theta < 3; ++theta) {
                const int64_t k = k_scale123(o3[theta], t3[theta], plan.div_lookup.data());
                int64_t rst = low32((k * o3[theta] + 16384) >> 15);
                const float rst_f = (static_cast<float>(k) / 32768) * (static_cast<float>(o3[theta]) / 64);
                if (angle && rst_f > 0.) rst = gain_bound(rst, t3[theta], limit, true, round_first);
                if (angle && rst_f < 0.) rst = gain_bound(rst, t3[theta], limit, false, round_first);
                const int32_t r = low32(rst);
                ws.r1.p[theta][o] = r;
                ws.a1.p[theta][o] = sub32(t3[theta], r);
            }
        }
}

float den_scale123(const Plan& plan, int scale, const Scratch& ws) {
    const ScalePlan& s = plan.s[scale];
    const Region& r = s.score;
    const int shift_sq[3] = {31, 30, 31};
    const int sq = shift_sq[scale - 1];
    const uint64_t add_sq = uint64_t{1} << sq;
    uint64_t accum[3] = {};
    for (int i = r.top; i < r.bottom; ++i) {
        uint64_t inner[3] = {};
        for (int j = r.left; j < r.right; ++j)
            for (int theta = 0; theta < 3; ++theta) {
                const uint64_t m = static_cast<uint32_t>(abs32(ws.ref1.orient(theta)[static_cast<size_t>(i) * s.w + j]));
                inner[theta] += ((((m * m) + add_sq) >> sq) * m + s.den_add_cub) >> s.den_shift_cub;
            }
        for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + s.den_add_accum) >> s.den_shift_accum;
    }
    float den = 0;
    for (int theta = 0; theta < 3; ++theta) {
        const double csf = static_cast<double>(accum[theta] / s.den_divisor) * std::pow(s.factor[theta], 3);
        den += std::pow(static_cast<float>(csf), 1.0f / 3.0f) + plan.den_noise[scale];
    }
    return den;
}

void csf_scale123(const Plan& plan, int scale, const Planes3<int32_t>& src, Scratch& ws) {
    const ScalePlan& s = plan.s[scale];
    const Region& c = s.csf;
    for (int theta = 0; theta < 3; ++theta)
        for (int i = c.top; i < c.bottom; ++i)
            for (int j = c.left; j < c.right; ++j) {
                const size_t o = static_cast<size_t>(i) * s.w + j;
                const bool simd_lane = j < s.csf_simd_end && s.csf_lane != Lane::scalar;
                const Csf32 v = exact::csf_scale123(src.p[theta][o], simd_lane ? s.rf_simd[theta] : s.rf_scalar[theta]);
                ws.csf1.p[theta][o] = v.value;
                ws.flt1.p[theta][o] = v.filtered;
            }
}

float cm_scale123(const Plan& plan, int scale, const Planes3<int32_t>& src, const Scratch& ws, double noise) {
    const ScalePlan& s = plan.s[scale];
    const Region& r = s.score;
    const int32_t* csf[3] = {ws.csf1.p[0].data(), ws.csf1.p[1].data(), ws.csf1.p[2].data()};
    const int32_t* flt[3] = {ws.flt1.p[0].data(), ws.flt1.p[1].data(), ws.flt1.p[2].data()};
    int64_t accum[3] = {};
    auto visit_row = [&](int i) {
        int64_t inner[3] = {};
        auto element = [&](int j) {
            const bool simd_lane = s.interior_only && s.cm_lane != Lane::scalar && i >= s.start_row &&
                                   i < s.end_row && j >= s.start_col && j < s.cm_simd_end;
            const int64_t thr = threshold(csf, flt, s.w, s.h, i, j,
                                          [](int32_t v) { return cm_centre_scale123(v); }, !simd_lane);
            const size_t o = static_cast<size_t>(i) * s.w + j;
            for (int theta = 0; theta < 3; ++theta) {
                int64_t term;
                if (simd_lane) {
                    const int64_t x = cm_x_scale123(src.p[theta][o], s.rf_simd[theta]);
                    term = cm_term_scale123_simd(x, thr, s.add_cub[theta], s.shift_cub[theta], s.cm_lane);
                } else {
                    const int32_t x = low32(cm_x_scale123(src.p[theta][o], s.rf_scalar[theta]));
                    term = cm_term_scale123_scalar(x, static_cast<int32_t>(thr), s.add_cub[theta], s.shift_cub[theta]);
                }
                inner[theta] = add64(inner[theta], term);
            }
        };
        if (r.left <= 0) element(0);
        for (int j = s.start_col; j < s.end_col; ++j) element(j);
        if (r.right > s.w - 1) element(s.w - 1);
        for (int theta = 0; theta < 3; ++theta) accum[theta] = add64(accum[theta], add64(inner[theta], s.add_inner) >> s.shift_inner);
    };
    if (r.top <= 0) visit_row(0);
    for (int i = s.start_row; i < s.end_row; ++i) visit_row(i);
    if (r.bottom > s.h - 1) visit_row(s.h - 1);
    const float noise_term = std::pow(static_cast<float>(r.height() * r.width() * noise), 1.0f / 3.0f);
    float num = 0;
    for (int theta = 0; theta < 3; ++theta) {
        const float f = static_cast<float>(accum[theta]) / s.num_divisor_f;
        num += std::pow(f, 1.0f / 3.0f) + noise_term;
    }
    return num;
}

// ---------------------------------------------------------------- frame --

void score(const Plan& plan, KernelScratch& scratch, const Picture& ref, const Picture& dis, ScaleSums& out) {
    Scratch& ws = static_cast<Scratch&>(scratch);
    const Options& o = plan.opt;
    out = ScaleSums{};
    // Scale 0.
    dwt_scale0(plan, ref, ws.ref0, ws, o.skip_scale0);
    dwt_scale0(plan, dis, ws.dis0, ws, o.skip_scale0);
    if (o.skip_scale0) {
        out.den[0] = 1e-10f;
    } else {
        decouple_scale0(plan, ws);
        out.den[0] = den_scale0(plan, ws);
        csf_scale0(plan, ws.a0, ws);
        out.num[0] = cm_scale0(plan, ws.r0, ws, o.noise_weight);
        if (!o.skip_aim) {
            csf_scale0(plan, ws.r0, ws);
            out.aim[0] = cm_scale0(plan, ws.a0, ws, 0.0);
        }
    }
    const size_t n0 = static_cast<size_t>(plan.s[0].w) * plan.s[0].h;
    for (size_t k = 0; k < n0; ++k) {
        ws.in_ref[k] = ws.ref0.a[k];
        ws.in_dis[k] = ws.dis0.a[k];
    }
    // Scales 1-3, each on the band_a of the one before.
    for (int scale = 1; scale < 4; ++scale) {
        dwt_scale123(plan, scale, ws);
        decouple_scale123(plan, scale, ws);
        out.den[scale] = den_scale123(plan, scale, ws);
        csf_scale123(plan, scale, ws.a1, ws);
        out.num[scale] = cm_scale123(plan, scale, ws.r1, ws, o.noise_weight);
        if (!o.skip_aim) {
            csf_scale123(plan, scale, ws.r1, ws);
            out.aim[scale] = cm_scale123(plan, scale, ws.a1, ws, 0.0);
        }
        const size_t n = static_cast<size_t>(plan.s[scale].w) * plan.s[scale].h;
        std::memcpy(ws.in_ref.data(), ws.ref1.a.data(), n * sizeof(int32_t));
        std::memcpy(ws.in_dis.data(), ws.dis1.a.data(), n * sizeof(int32_t));
    }
}

std::unique_ptr<KernelScratch> make_scratch(const Plan& plan) { return std::make_unique<Scratch>(plan); }

}  // namespace

const Kernels& kernels_c() {
    static const Kernels k{make_scratch, score};
    return k;
}

}  // namespace speedqa::adm
