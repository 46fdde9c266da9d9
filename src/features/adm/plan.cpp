#include "features/adm/plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace speedqa::adm {
namespace {

constexpr double kPi = 3.14159265358979323846264338327;
constexpr double kBorder = 0.1;   // the share of each side left out of the scores
constexpr double kCsfLuminance = 100.0;

// ------------------------------------------------------------- CSF -------
// Every expression below keeps libvmaf's mix of float and double: each
// `float` variable there is a rounding, and each double literal promotes.

// Watson et al. 1997: the DWT quantisation step of the luma channel.
struct WatsonParams {
    float a, k, f0, g[4];
};
constexpr WatsonParams kWatsonY{0.495f, 0.466f, 0.401f, {1.501f, 1.0f, 0.534f, 1.0f}};
constexpr float kBasisAmplitude[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},     {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},     {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f}, {0.023013f, 0.030018f, 0.039156f, 0.030018f}};

float display_resolution(double view_dist, int display_height) {
    return static_cast<float>(view_dist * display_height * kPi / 180.0);
}

float watson_quant_step(int lambda, int theta, double view_dist, int display_height) {
    const float r = display_resolution(view_dist, display_height);
    const float temp = static_cast<float>(
        std::log10(std::pow(2.0, lambda + 1) * kWatsonY.f0 * kWatsonY.g[theta] / static_cast<double>(r)));
    const float kt = kWatsonY.k * temp * temp;   // float products, as libvmaf's
    return static_cast<float>(2.0 * kWatsonY.a * std::pow(10.0, static_cast<double>(kt)) /
                              kBasisAmplitude[lambda][theta]);
}

// Barten's CSF as simplified in HDR-VDP 2.2.1, at 100 cd/m2.
constexpr float kBartenAnchors[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kBartenParams[6][5] = {{0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
                                       {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
                                       {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
                                       {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
                                       {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
                                       {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f}};
constexpr float kBartenSa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr float kBartenMtfA[4] = {0.424838596301290f, 0.572435103936480f, 0.000167576239164937f, 0.00255872352306433f};
constexpr float kBartenMtfB[4] = {0.028f, 0.37f, 37.0f, 360.0f};

float lerp_f(float lp, float lv, float rp, float rv, float sp) { return lv + ((rv - lv) / (rp - lp)) * (sp - lp); }

float barten_rod_cone(float luminance) {
    const double base = std::pow(static_cast<double>(kBartenSa[1] / luminance), static_cast<double>(kBartenSa[2]));
    return static_cast<float>(kBartenSa[0] * std::pow(base + 1, static_cast<double>(-kBartenSa[3])));
}

float barten_mtf(float sf) {
    float mtf = 0.0f;
    for (int i = 0; i < 4; ++i) {
        const float e = -kBartenMtfB[i] * sf;
        mtf = static_cast<float>(mtf + kBartenMtfA[i] * std::exp(static_cast<double>(e)));
    }
    return mtf;
}

float barten_csf(int lambda, double view_dist, int display_height, double scale) {
    const float r = display_resolution(view_dist, display_height);
    const float sf = static_cast<float>(r / std::pow(2, lambda + 1));
    const double lum = kCsfLuminance;   // within the anchors: no clamping
    int li = 0, ri = 0;
    for (int i = 0; i < 5; ++i)
        if (lum >= kBartenAnchors[i] && lum <= kBartenAnchors[i + 1]) {
            li = i;
            ri = i + 1;
            break;
        }
    const float lp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchors[li])));
    const float rp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchors[ri])));
    const float sp = static_cast<float>(std::log10(lum));
    float p[4];
    for (int k = 0; k < 4; ++k) p[k] = lerp_f(lp, kBartenParams[li][k + 1], rp, kBartenParams[ri][k + 1], sp);
    // C's pow is double: no float overloads here.
    const float a = static_cast<float>(1.0f + std::pow(static_cast<double>(p[0] * sf), static_cast<double>(p[1])));
    const float b = static_cast<float>(
        1.0f / std::pow(1 - std::exp(-std::pow(static_cast<double>(sf / 7), 2.0)), static_cast<double>(p[2])));
    const float csf = static_cast<float>(p[3] / std::pow(static_cast<double>(a * b), 0.5));
    const float lum_f = static_cast<float>(lum);
    return static_cast<float>(csf * barten_mtf(sf) * barten_rod_cone(lum_f) * scale);
}

// Barten/Watson blend: factors fitted per display; [mae][display][theta][scale].
struct BlendEntry {
    int height;
    double view_dist;
    float f[2][2][4];   // [legacy, mae][theta][scale]
};
constexpr BlendEntry kBlend[] = {
    {1080, 3.0, {{{0.01183f, 0.025026f, 0.04295f, 0.058621f}, {0.004302f, 0.011778f, 0.023918f, 0.035901f}},
                 {{0.011249f, 0.022606f, 0.035930f, 0.045673f}, {0.004097f, 0.010921f, 0.021430f, 0.031313f}}}},
    {1080, 5.0, {{{0.004212f, 0.014809f, 0.029642f, 0.047464f}, {0.000984f, 0.005852f, 0.0146f, 0.027574f}},
                 {{0.004052f, 0.013939f, 0.026298f, 0.038833f}, {0.000927f, 0.005544f, 0.013415f, 0.024515f}}}},
    // 2160 at 1.5H sees what 1080 at 3H sees.
    {2160, 1.5, {{{0.01183f, 0.025026f, 0.04295f, 0.058621f}, {0.004302f, 0.011778f, 0.023918f, 0.035901f}},
                 {{0.011249f, 0.022606f, 0.035930f, 0.045673f}, {0.004097f, 0.010921f, 0.021430f, 0.031313f}}}},
    {2160, 3.0, {{{0.00226f, 0.01183f, 0.025026f, 0.04295f}, {0.000479f, 0.004302f, 0.011778f, 0.023918f}},
                 {{0.002166f, 0.011249f, 0.022606f, 0.035930f}, {0.000447f, 0.004097f, 0.010921f, 0.021430f}}}},
    {2160, 5.0, {{{0.000092f, 0.004212f, 0.014809f, 0.029642f}, {0.000050f, 0.000984f, 0.005852f, 0.0146f}},
                 {{0.000077f, 0.004052f, 0.013939f, 0.026298f}, {0.000045f, 0.000927f, 0.005544f, 0.013415f}}}},
    {720, 3.0, {{{0.018715f, 0.035637f, 0.052798f, 0.061509f}, {0.007999f, 0.018396f, 0.031851f, 0.037718f}},
                {{0.017329f, 0.030870f, 0.042134f, 0.047410f}, {0.007509f, 0.016707f, 0.028072f, 0.032722f}}}},
    {720, 5.0, {{{0.010144f, 0.022561f, 0.040309f, 0.05672f}, {0.003463f, 0.010282f, 0.021839f, 0.034641f}},
                {{0.009689f, 0.020577f, 0.034162f, 0.044523f}, {0.003302f, 0.009579f, 0.019661f, 0.030318f}}}},
    {480, 3.0, {{{0.027961f, 0.045875f, 0.060275f, 0.056234f}, {0.013572f, 0.026277f, 0.036959f, 0.034511f}},
                {{0.024969f, 0.037825f, 0.046676f, 0.043974f}, {0.012511f, 0.023424f, 0.032139f, 0.030166f}}}},
    {480, 5.0, {{{0.016781f, 0.032822f, 0.05032f, 0.061594f}, {0.00691f, 0.016545f, 0.029917f, 0.037777f}},
                {{0.015665f, 0.028766f, 0.040612f, 0.047483f}, {0.006514f, 0.015107f, 0.026476f, 0.032776f}}}},
};

const BlendEntry* find_blend(const Options& o) {
    for (const BlendEntry& e : kBlend)
        if (e.height == o.ref_display_height && e.view_dist == o.norm_view_dist) return &e;
    return nullptr;
}

// factor1 (h, v) and factor2 (d) of one scale.
void csf_factors(const Options& o, int scale, float& f1, float& f2) {
    switch (o.csf_mode) {
    case 1:
        f1 = barten_csf(scale, o.norm_view_dist, o.ref_display_height, o.csf_scale);
        f2 = barten_csf(scale, o.norm_view_dist, o.ref_display_height, o.csf_diag_scale);
        return;
    case 2:
    case 3: {
        const BlendEntry* e = find_blend(o);
        const int mae = o.csf_mode == 3 ? 1 : 0;
        f1 = e->f[mae][0][scale];
        f2 = e->f[mae][1][scale];
        return;
    }
    default:
        f1 = 1.0f / watson_quant_step(scale, 1, o.norm_view_dist, o.ref_display_height);
        f2 = 1.0f / watson_quant_step(scale, 2, o.norm_view_dist, o.ref_display_height);
    }
}

// (uintN_t)double as GCC compiles it for x86-64: through a 64-bit signed
// conversion, so values past the type's range wrap. libvmaf's AVX-512 file
// converts with vcvttsd2usi instead, which gives all ones out of range.
uint32_t to_u32_wrapping(double v) {
    if (!(std::fabs(v) < 9223372036854775808.0)) return 0;   // cvttsd2si's 0x8000000000000000
    return static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v)));
}
uint32_t to_u32_saturating(double v) {
    if (!(v > -1.0) || v >= 4294967296.0) return 0xFFFFFFFFu;
    return static_cast<uint32_t>(v);
}

// ------------------------------------------------------------ regions ----

Region csf_region(int w, int h) {
    const int l = static_cast<int>(w * kBorder - 0.5 - 1);
    const int t = static_cast<int>(h * kBorder - 0.5 - 1);
    Region r{l, t, w - l + 2, h - t + 2};
    if (r.left < 0) r.left = 0;
    if (r.right > w) r.right = w;
    if (r.top < 0) r.top = 0;
    if (r.bottom > h) r.bottom = h;
    return r;
}

Region score_region(int w, int h) {
    const int l = static_cast<int>(w * kBorder - 0.5);
    const int t = static_cast<int>(h * kBorder - 0.5);
    return {l, t, w - l, h - t};
}

uint32_t ceil_log2(double v) { return static_cast<uint32_t>(std::ceil(std::log2(v))); }
// libvmaf's (uint32_t)pow(2, shift - 1) with an unsigned shift.
uint64_t half_of(uint32_t shift) { return to_u32_wrapping(std::pow(2, static_cast<uint32_t>(shift - 1u))); }

// The end of the columns [from, to) that vector loops of `width` lanes cover
// when they step from `from`: libvmaf's `to - (to - from) % width`.
int vector_end(int from, int to, int width) { return to > from ? to - (to - from) % width : from; }

void plan_lanes(ScalePlan& p, int scale, int bitdepth, Dispatch d) {
    const Region& c = p.csf;
    const int w_half = p.w;
    // Scalar code everywhere unless a vector loop covers a span.
    p.decouple_simd_end = p.csf_simd_end = c.left;
    p.cm_simd_end = p.start_col;
    if (d == Dispatch::avx2) {
        // Scale 0 decoupling: libvmaf's loop ends at right - right % 8.
        if (scale == 0) {
            p.decouple_lane = Lane::avx2;
            p.decouple_simd_end = std::max(c.left, c.right - c.right % 8);
        }
        p.csf_lane = Lane::avx2;
        p.csf_simd_end = vector_end(c.left, c.right, 8);
        p.cm_lane = Lane::avx2;
        p.cm_simd_end = vector_end(p.start_col, p.end_col, scale == 0 ? 6 : 2);
        if (scale == 0)
            p.dwt_overread = bitdepth > 8 && w_half >= 17 && (w_half - 1) % 16 == 0;
        else
            p.dwt_overread = w_half >= 5 && (w_half - 1) % 4 == 0;
    } else if (d == Dispatch::avx512) {
        p.decouple_lane = Lane::avx512;
        p.decouple_simd_end = vector_end(c.left, c.right, 16);
        p.csf_lane = Lane::avx512;
        p.csf_simd_end = vector_end(c.left, c.right, 16);
        p.cm_lane = Lane::avx512;
        p.cm_simd_end = vector_end(p.start_col, p.end_col, scale == 0 ? 14 : 6);
        if (scale == 0)
            p.dwt_overread = bitdepth > 8 ? (w_half >= 65 && (w_half - 1) % 64 == 0)
                                          : (w_half >= 33 && (w_half - 1) % 32 == 0);
        else
            p.dwt_overread = w_half >= 9 && (w_half - 1) % 8 == 0;
    }
    if (!p.interior_only) p.cm_simd_end = p.start_col;
    if (p.decouple_simd_end < c.left) p.decouple_simd_end = c.left;
}

}  // namespace

Options read_options(const OptionValues& v) {
    Options o;
    o.csf_scale = v.real("adm_csf_scale");
    o.csf_diag_scale = v.real("adm_csf_diag_scale");
    o.dlm_weight = v.real("adm_dlm_weight");
    o.enhn_gain_limit = v.real("adm_enhn_gain_limit");
    o.norm_view_dist = v.real("adm_norm_view_dist");
    o.ref_display_height = v.integer("adm_ref_display_height");
    o.csf_mode = v.integer("adm_csf_mode");
    o.noise_weight = v.real("adm_noise_weight");
    o.skip_aim = v.flag("adm_skip_aim");
    o.skip_scale0 = v.flag("adm_skip_scale0");
    o.min_val = v.real("adm_min_val");
    o.debug = v.flag("debug");
    return o;
}

void check_supported(const VideoFormat& format, const Options& opt) {
    // Below 33 pixels the coarsest scale has fewer than 5 rows or columns and
    // libvmaf's mirrored filter indices leave the picture (and its shifts
    // turn negative): it reads outside its buffers there.
    if (format.width < 33 || format.height < 33)
        throw Error("adm: the picture must be at least 33x33 pixels (it is " + std::to_string(format.width) + "x" +
                    std::to_string(format.height) + ")");
    // libvmaf's extract() refuses this (-EINVAL): its 16-bit pipeline
    // cannot hold the lower angular frequencies.
    if (opt.norm_view_dist * opt.ref_display_height < 3.0 * 1080)
        throw Error("adm: adm_norm_view_dist * adm_ref_display_height must be at least 3240 (3.0 * 1080)");
    // libvmaf returns -EINVAL as the CSF factor of other displays and scores on with it.
    if ((opt.csf_mode == 2 || opt.csf_mode == 3) && !find_blend(opt))
        throw Error("adm: adm_csf_mode=" + std::to_string(opt.csf_mode) +
                    " has factors only for adm_ref_display_height 480, 720, 1080 or 2160 with adm_norm_view_dist 3 or 5 "
                    "(or 2160 with 1.5)");
}

Plan make_plan(const VideoFormat& format, const Options& opt, Dispatch dispatch) {
    Plan p;
    p.width = format.width;
    p.height = format.height;
    p.bitdepth = format.bitdepth;
    p.opt = opt;
    p.dispatch = dispatch;
    p.cos_1deg_sq = static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));
    p.numden_limit = 1e-10 * (format.width * format.height) / (1920.0 * 1080.0);
    for (int i = 1; i <= 32768; ++i) {
        const int32_t recip = static_cast<int32_t>(1073741824 / i);
        p.div_lookup[32768 + i] = recip;
        p.div_lookup[32768 - i] = -recip;
    }

    int in_w = format.width, in_h = format.height;
    for (int scale = 0; scale < 4; ++scale) {
        ScalePlan& s = p.s[scale];
        s.in_w = in_w;
        s.in_h = in_h;
        s.w = (in_w + 1) / 2;
        s.h = (in_h + 1) / 2;
        s.csf = csf_region(s.w, s.h);
        s.score = score_region(s.w, s.h);
        const Region& r = s.score;
        s.start_col = r.left > 1 ? r.left : 1;
        s.end_col = r.right < s.w - 1 ? r.right : s.w - 1;
        s.start_row = r.top > 1 ? r.top : 1;
        s.end_row = r.bottom < s.h - 1 ? r.bottom : s.h - 1;
        s.interior_only = r.left > 0 && r.right <= s.w - 1;

        float f1 = 0, f2 = 0;
        csf_factors(opt, scale, f1, f2);
        s.factor[0] = s.factor[1] = f1;
        s.factor[2] = f2;
        const double area_nw = r.height() * r.width() * opt.noise_weight;
        p.den_noise[scale] = std::pow(static_cast<float>(area_nw), 1.0f / 3.0f);

        if (scale == 0) {
            if (std::fabs(opt.norm_view_dist * opt.ref_display_height - 3.0 * 1080) < 1.0e-8 && opt.csf_mode == 0) {
                s.rf16[0] = s.rf16[1] = 36453;
                s.rf16[2] = 49417;
            } else {
                s.rf16[0] = static_cast<uint16_t>(to_u32_wrapping(f1 * std::pow(2, 21)));
                s.rf16[1] = s.rf16[0];
                s.rf16[2] = static_cast<uint16_t>(to_u32_wrapping(f2 * std::pow(2, 23)));
            }
            const uint32_t xcub_hv = static_cast<uint32_t>(std::ceil(std::log2(s.w) - 4));
            const uint32_t xcub_d = static_cast<uint32_t>(std::ceil(std::log2(s.w) - 3));
            s.shift_cub[0] = s.shift_cub[1] = static_cast<int>(xcub_hv);
            s.shift_cub[2] = static_cast<int>(xcub_d);
            s.add_cub[0] = s.add_cub[1] = static_cast<int64_t>(half_of(xcub_hv));
            s.add_cub[2] = static_cast<int64_t>(half_of(xcub_d));
            const uint32_t inner = ceil_log2(s.h);
            s.shift_inner = static_cast<int>(inner);
            s.add_inner = static_cast<int64_t>(half_of(inner));
            s.num_divisor[0] = s.num_divisor[1] = std::pow(2, static_cast<uint32_t>(52u - xcub_hv - inner));
            s.num_divisor[2] = std::pow(2, static_cast<uint32_t>(57u - xcub_d - inner));

            int32_t shift_accum = static_cast<int32_t>(std::ceil(std::log2(r.height() * r.width()) - 20));
            if (shift_accum < 0) shift_accum = 0;
            s.den_shift_accum = shift_accum;
            s.den_add_accum = shift_accum > 0 ? (uint64_t{1} << (shift_accum - 1)) : 0;
            s.den_divisor = std::pow(2, 18 - shift_accum);
        } else {
            const double q32 = std::pow(2, 32);
            for (int k = 0; k < 3; ++k) {
                const double v = s.factor[k] * q32;
                const uint32_t u = dispatch == Dispatch::avx512 ? to_u32_saturating(v) : to_u32_wrapping(v);
                s.rf_scalar[k] = u;
                s.rf_simd[k] = static_cast<int32_t>(u);
            }
            const uint32_t cub = ceil_log2(s.w);
            const uint32_t inner = ceil_log2(s.h);
            s.shift_cub[0] = s.shift_cub[1] = s.shift_cub[2] = static_cast<int>(cub);
            s.add_cub[0] = s.add_cub[1] = s.add_cub[2] = static_cast<int64_t>(half_of(cub));
            s.shift_inner = static_cast<int>(inner);
            s.add_inner = static_cast<int64_t>(half_of(inner));
            const uint32_t base[3] = {45, 39, 36};
            s.num_divisor_f = static_cast<float>(std::pow(2, static_cast<uint32_t>(base[scale - 1] - cub - inner)));

            const int den_shift_sq[3] = {31, 30, 31};
            s.den_shift_sq = den_shift_sq[scale - 1];
            const uint32_t dcub = ceil_log2(r.width());
            const uint32_t daccum = ceil_log2(r.height());
            s.den_shift_cub = static_cast<int>(dcub);
            s.den_add_cub = half_of(dcub);
            s.den_shift_accum = static_cast<int>(daccum);
            s.den_add_accum = half_of(daccum);
            const uint32_t convert[3] = {32, 27, 23};
            s.den_divisor = std::pow(2, static_cast<uint32_t>(convert[scale - 1] - daccum - dcub));
        }
        plan_lanes(s, scale, format.bitdepth, dispatch);
        // (at scale 1 the same taps read memory libvmaf never wrote: the
        // mirrored values stand there, README)
        s.stale_dis_taps = scale >= 2 && s.dwt_overread && s.csf.right >= s.w;
        in_w = s.w;
        in_h = s.h;
    }
    return p;
}

}  // namespace speedqa::adm
