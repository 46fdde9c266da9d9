#include "features/adm/tail.hpp"

#include <cmath>

namespace speedqa::adm {
namespace {

float num_scale0(const ScalePlan& s, const int64_t accum[3], float noise_term) {
    float num = 0;
    for (int t = 0; t < 3; ++t) {
        const float f = static_cast<float>(static_cast<double>(accum[t]) / s.num_divisor[t]);
        num += std::pow(f, 1.0f / 3.0f) + noise_term;
    }
    return num;
}

float num_scale123(const ScalePlan& s, const int64_t accum[3], float noise_term) {
    float num = 0;
    for (int t = 0; t < 3; ++t) {
        const float f = static_cast<float>(accum[t]) / s.num_divisor_f;
        num += std::pow(f, 1.0f / 3.0f) + noise_term;
    }
    return num;
}

float den_value(const ScalePlan& s, const uint64_t accum[3], float noise_term) {
    float den = 0;
    for (int t = 0; t < 3; ++t) {
        const double csf = static_cast<double>(accum[t] / s.den_divisor) * std::pow(s.factor[t], 3);
        den += std::pow(static_cast<float>(csf), 1.0f / 3.0f) + noise_term;
    }
    return den;
}

}  // namespace

void finish_scale(const Plan& plan, int scale, const ScaleTotals& totals, ScaleSums& out) {
    const ScalePlan& s = plan.s[scale];
    const float noise = plan.den_noise[scale];
    out.den[scale] = den_value(s, totals.den, noise);
    const float zero = std::pow(0.0f, 1.0f / 3.0f);
    if (scale == 0) {
        out.num[0] = num_scale0(s, totals.dlm, noise);
        if (!plan.opt.skip_aim) out.aim[0] = num_scale0(s, totals.aim, zero);
    } else {
        out.num[scale] = num_scale123(s, totals.dlm, noise);
        if (!plan.opt.skip_aim) out.aim[scale] = num_scale123(s, totals.aim, zero);
    }
}

void finish_frame(const Plan& plan, const ScaleTotals totals[4], ScaleSums& out) {
    out = ScaleSums{};
    if (plan.opt.skip_scale0)
        out.den[0] = 1e-10f;
    else
        finish_scale(plan, 0, totals[0], out);
    for (int scale = 1; scale < 4; ++scale) finish_scale(plan, scale, totals[scale], out);
}

void assemble(const Plan& plan, const ScaleSums& sums, double* raw) {
    const Options& o = plan.opt;
    double num = 0, den = 0, aim_num = 0;
    for (int s = 0; s < 4; ++s) {
        num += sums.num[s];
        den += sums.den[s];
        aim_num += sums.aim[s];
    }
    num = num < plan.numden_limit ? 0 : num;
    den = den < plan.numden_limit ? 0 : den;
    double score = 1.0f, aim = 0.0;   // libvmaf leaves aim uninitialised when den == 0
    if (den != 0.0) {
        aim = aim_num / den;
        score = num / den;
    }
    const double adm3 = score * o.dlm_weight + (1 - aim) * (1 - o.dlm_weight);
    raw[0] = score;
    raw[1] = aim;
    raw[2] = adm3 > o.min_val ? adm3 : o.min_val;
    for (int s = 0; s < 4; ++s) raw[3 + s] = static_cast<double>(sums.num[s]) / static_cast<double>(sums.den[s]);
    if (!o.debug) return;
    raw[7] = score;
    raw[8] = num;
    raw[9] = den;
    for (int s = 0; s < 4; ++s) {
        raw[10 + 2 * s] = sums.num[s];
        raw[11 + 2 * s] = sums.den[s];
    }
}

}  // namespace speedqa::adm
