// Everything ADM needs that depends only on the geometry, the options and the
// libvmaf dispatch reproduced: per scale the band sizes, the regions each
// stage covers, the CSF factors in libvmaf's fixed point, the shifts of the
// sums, and which columns libvmaf's SIMD kernels compute as vector lanes.
#pragma once

#include <array>
#include <cstdint>

#include "core/feature.hpp"
#include "features/adm/exact/arith.hpp"

namespace speedqa::adm {

using exact::Lane;

// [left, right) x [top, bottom) of a band.
struct Region {
    int left = 0, top = 0, right = 0, bottom = 0;
    int width() const { return right - left; }
    int height() const { return bottom - top; }
};

struct Options {
    double csf_scale = 1.0, csf_diag_scale = 1.0, dlm_weight = 0.5, enhn_gain_limit = 100.0;
    double norm_view_dist = 3.0, noise_weight = 0.03125, min_val = 0.0;
    int ref_display_height = 1080, csf_mode = 0;
    bool skip_aim = false, skip_scale0 = false, debug = false;
};

struct ScalePlan {
    int in_w = 0, in_h = 0;   // the picture (scale 0) or the previous band_a
    int w = 0, h = 0;         // the bands
    Region csf;               // decouple and CSF: the score region plus the filter taps
    Region score;             // denominator and contrast masking
    int start_col = 0, end_col = 0, start_row = 0, end_row = 0;  // contrast masking interior
    bool interior_only = false;  // libvmaf's "completely within frame" masking loop

    float factor[3] = {};     // CSF factor of h, v, d
    int32_t rf16[3] = {};     // scale 0: Q21, Q21, Q23 (uint16 in libvmaf)
    int64_t rf_scalar[3] = {};  // scales 1-3: Q32 as scalar code reads it (unsigned)
    int64_t rf_simd[3] = {};    // the same as a SIMD lane reads it (signed low 32 bits)

    // Shifts of the masking sums (scale 0: h, v, d; scales 1-3 share one).
    int shift_cub[3] = {};
    int64_t add_cub[3] = {};
    int shift_inner = 0;
    int64_t add_inner = 0;
    double num_divisor[3] = {};   // scale 0: 2^(52|52|57 - shifts) in double
    float num_divisor_f = 0;      // scales 1-3: the float final shift
    // Denominator sums.
    int den_shift_sq = 0;     // scales 1-3: the shift of each term's square
    int den_shift_cub = 0, den_shift_accum = 0;
    uint64_t den_add_cub = 0, den_add_accum = 0;
    double den_divisor = 0;

    // Columns libvmaf computes as SIMD lanes (the rest by its scalar tails).
    int decouple_simd_end = 0;  // [csf.left, end)
    Lane decouple_lane = Lane::scalar;
    int csf_simd_end = 0;       // [csf.left, end)
    Lane csf_lane = Lane::scalar;
    int cm_simd_end = 0;        // [start_col, end), rows [start_row, end_row), when interior_only
    Lane cm_lane = Lane::scalar;
    // libvmaf's SIMD DWT reads past the temporary row for the last column
    // when its blocks end exactly there.
    bool dwt_overread = false;
    // ... and of the distorted image's high-pass row, the last one, past the
    // buffer: at scales 2 and 3 into what the scale above left there (its
    // last row's low-pass values of the distorted image), which reaches the
    // decoupling where the last column is in its region.
    bool stale_dis_taps = false;
};

struct Plan {
    int width = 0, height = 0, bitdepth = 8;
    Options opt;
    Dispatch dispatch = Dispatch::scalar;
    std::array<ScalePlan, 4> s;
    float cos_1deg_sq = 0;
    double numden_limit = 0;
    float den_noise[4] = {};    // powf(area * noise_weight, 1/3) per scale (denominator, DLM numerator)
    std::array<int32_t, 65537> div_lookup{};
};

Options read_options(const OptionValues& v);
// Throws Error where libvmaf cannot score the format or the options.
void check_supported(const VideoFormat& format, const Options& opt);
Plan make_plan(const VideoFormat& format, const Options& opt, Dispatch dispatch);

}  // namespace speedqa::adm
