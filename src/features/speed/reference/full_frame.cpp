#include "features/speed/reference/full_frame.hpp"

#include <cstring>

#include "features/speed/prescale_tables.hpp"
#include "features/speed/exact/convert.hpp"
#include "exact/filter.hpp"

namespace speedqa::reference {
namespace {

float sample_at(const PlaneRef& p, int bitdepth, int y, int x) {
    const uint8_t* row = p.data + static_cast<ptrdiff_t>(y) * p.stride;
    if (bitdepth == 8) return exact::convert_8bit(row[x]);
    uint16_t v;
    std::memcpy(&v, row + 2 * x, 2);
    return exact::convert_hbd(v, exact::sample_scaler(bitdepth));
}

// One separable pass over a whole w x h image, vertical then horizontal.
void filter_image(const exact::Taps& taps, const float* src, float* tmp, float* dst, int w, int h) {
    const int r = taps.radius();
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            tmp[i * w + j] =
                exact::tap_sum(taps.v, taps.count, [&](int k) { return src[exact::mirror_index(i - r + k, h) * w + j]; });
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            dst[i * w + j] =
                exact::tap_sum(taps.v, taps.count, [&](int k) { return tmp[i * w + exact::mirror_index(j - r + k, w)]; });
}

}  // namespace

FullFramePipeline::FullFramePipeline(const ImagePlan& plan, exact::CovOrder order)
    : plan_(plan), est_(plan.dim, order) {
    const exact::Dimensions& d = plan.dim;
    if (plan.resample) {
        all_col_taps_ = prescale_axis_taps(plan.method, d.original_w, d.scaled_w);
        all_row_taps_ = prescale_axis_taps(plan.method, d.original_h, d.scaled_h);
    }
    plane_.resize(static_cast<size_t>(d.original_w) * d.original_h);
    const size_t scaled = static_cast<size_t>(d.scaled_w) * d.scaled_h;
    scaled_.resize(scaled);
    vert_.resize(scaled);
    filtered_.resize(scaled);
    const size_t dec = static_cast<size_t>(d.operating_w) * d.operating_h;
    dec_.resize(dec);
    dec_vert_.resize(dec);
    dec_mean_.resize(dec);
}

size_t FullFramePipeline::bytes(const ImagePlan& plan, exact::CovOrder order) {
    const exact::Dimensions& d = plan.dim;
    const size_t taps = plan.resample ? static_cast<size_t>(d.scaled_w) + d.scaled_h : 0;
    const size_t floats = static_cast<size_t>(d.original_w) * d.original_h +
                          3 * static_cast<size_t>(d.scaled_w) * d.scaled_h +
                          3 * static_cast<size_t>(d.operating_w) * d.operating_h;
    return taps * sizeof(exact::AxisTaps) + floats * sizeof(float) + EstParams::bytes(d, order);
}

void FullFramePipeline::run(const ImageSource& src, ImageStats& out) {
    const exact::Dimensions& d = plan_.dim;
    const int w = d.original_w, h = d.original_h;
    // 1. the whole plane as floats (and the temporal difference)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = sample_at(src.a, src.bitdepth, y, x);
            if (src.difference) v -= sample_at(src.b, src.bitdepth, y, x);
            plane_[static_cast<size_t>(y) * w + x] = v;
        }
    // 2. prescale every pixel
    const float* img = plane_.data();
    if (plan_.resample) {
        for (int y = 0; y < d.scaled_h; y++)
            for (int x = 0; x < d.scaled_w; x++)
                scaled_[static_cast<size_t>(y) * d.scaled_w + x] =
                    exact::interpolate(plan_.method, all_col_taps_[static_cast<size_t>(x)],
                                       all_row_taps_[static_cast<size_t>(y)],
                                       [&](int yy, int xx) { return plane_[static_cast<size_t>(yy) * w + xx]; });
        img = scaled_.data();
    }
    // 3. anti-alias filter on every pixel, 4. keep every 16th row and column
    filter_image(plan_.antialias, img, vert_.data(), filtered_.data(), d.scaled_w, d.scaled_h);
    for (int i = 0; i < d.operating_h; i++)
        for (int j = 0; j < d.operating_w; j++)
            dec_[static_cast<size_t>(i) * d.operating_w + j] =
                filtered_[static_cast<size_t>(i * exact::kDecimation) * d.scaled_w + j * exact::kDecimation];
    // 5. local mean subtraction
    filter_image(plan_.local_mean, dec_.data(), dec_vert_.data(), dec_mean_.data(), d.operating_w, d.operating_h);
    for (size_t i = 0; i < dec_.size(); i++) dec_[i] -= dec_mean_[i];
    // 6. est_params as the reference writes it (reference/est_params.hpp)
    est_.run(dec_.data(), d.operating_w, out);
}

}  // namespace speedqa::reference
