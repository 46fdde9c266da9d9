#include "features/speed/plan.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "features/speed/prescale_tables.hpp"
#include "features/speed/taps.hpp"

namespace speedqa {
namespace {

// Coordinates (in a scaled axis of `size`) read by the anti-alias taps
// centred on every 16th coordinate below `kept * 16`.
std::vector<int> read_coordinates(int kept, int size, const exact::Taps& taps) {
    std::vector<char> used(static_cast<size_t>(size), 0);
    const int r = taps.radius();
    for (int i = 0; i < kept; i++)
        for (int k = 0; k < taps.count; k++)
            used[static_cast<size_t>(exact::mirror_index(i * exact::kDecimation - r + k, size))] = 1;
    std::vector<int> out;
    for (int c = 0; c < size; c++)
        if (used[static_cast<size_t>(c)]) out.push_back(c);
    return out;
}

std::vector<int> index_of(const std::vector<int>& coords, int size) {
    std::vector<int> index(static_cast<size_t>(size), -1);
    for (size_t i = 0; i < coords.size(); i++) index[static_cast<size_t>(coords[i])] = static_cast<int>(i);
    return index;
}

}  // namespace

ImagePlan make_plan(int w, int h, const SpeedOptions& options, const std::string& what) {
    ImagePlan p;
    p.dim = exact::compute_dimensions(w, h, options.prescale);
    const exact::Dimensions& d = p.dim;
    const float ks = static_cast<float>(options.kernelscale);
    if (!kernelscale_is_valid(ks)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", options.kernelscale);
        throw Error(what + ": speed_kernelscale=" + buf +
                    " is not one of libvmaf's kernelscales (1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, "
                    "4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)");
    }
    if (d.truncated_w == 0 || d.truncated_h == 0) {
        throw Error(what + ": plane of " + std::to_string(w) + "x" + std::to_string(h) + " is " +
                    std::to_string(d.scaled_w) + "x" + std::to_string(d.scaled_h) +
                    " after prescale; SpEED needs at least 80x80 (libvmaf crashes on smaller planes)");
    }
    if (!d.prescaled && (d.scaled_w != w || d.scaled_h != h)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", options.prescale);
        throw Error(what + ": speed_prescale=" + buf +
                    " is within 1e-3 of 1, where libvmaf skips prescaling, yet it changes the plane size from " +
                    std::to_string(w) + "x" + std::to_string(h) + " to " + std::to_string(d.scaled_w) + "x" +
                    std::to_string(d.scaled_h) + " (libvmaf then reads memory it never wrote); use 1 or a value "
                    "further from 1");
    }
    p.antialias = antialias_taps(ks);
    p.local_mean = local_mean_taps(ks);
    p.method = options.method();
    p.sigma_nn = static_cast<float>(options.sigma_nn);
    p.nn_floor = static_cast<float>(options.nn_floor);
    p.weight_var_mode = options.weight_var_mode;

    p.resample = d.prescaled && !(d.scaled_w == w && d.scaled_h == h);
    p.rows = read_coordinates(d.operating_h, d.scaled_h, p.antialias);
    if (p.resample) {
        p.cols = read_coordinates(d.operating_w, d.scaled_w, p.antialias);
    } else {
        p.cols.resize(static_cast<size_t>(d.scaled_w));
        for (int c = 0; c < d.scaled_w; c++) p.cols[static_cast<size_t>(c)] = c;
    }
    p.row_index = index_of(p.rows, d.scaled_h);
    p.col_index = index_of(p.cols, d.scaled_w);
    const int radius = p.antialias.radius();
    for (int j = 0; j < d.operating_w; j++)
        for (int k = 0; k < p.antialias.count; k++)
            p.kept_col_taps.push_back(
                p.col_index[static_cast<size_t>(exact::mirror_index(j * exact::kDecimation - radius + k, d.scaled_w))]);
    if (p.resample) {
        const auto all_cols = prescale_axis_taps(p.method, w, d.scaled_w);
        const auto all_rows = prescale_axis_taps(p.method, h, d.scaled_h);
        for (int c : p.cols) p.col_taps.push_back(all_cols[static_cast<size_t>(c)]);
        for (int r : p.rows) p.row_taps.push_back(all_rows[static_cast<size_t>(r)]);
    }
    return p;
}

ImagePlan make_feature_plan(const VideoFormat& f, const SpeedSpec& spec) {
    if (spec.kind == SpeedKind::chroma) {
        if (f.pix == PixelFormat::yuv400)
            throw Error("speed_chroma needs chroma planes, but the input is 4:0:0 (luma only)");
        return make_plan(f.feature_w(1), f.feature_h(1), spec.options, "speed_chroma");
    }
    return make_plan(f.feature_w(0), f.feature_h(0), spec.options, "speed_temporal");
}

}  // namespace speedqa
