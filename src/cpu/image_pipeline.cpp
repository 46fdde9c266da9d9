#include "cpu/image_pipeline.hpp"

#include <algorithm>

#include "cpu/simd_clones.hpp"
#include "exact/convert.hpp"
#include "exact/filter.hpp"
#include "exact/prescale.hpp"

namespace speedqa::cpu {
namespace {

using exact::kDecimation;
using exact::mirror_index;

template <class T>
[[gnu::always_inline]] inline float convert(T s, float scaler) {
    if constexpr (sizeof(T) == 1) return exact::convert_8bit(s);
    else return exact::convert_hbd(s, scaler);
}

// v[c] = sum over taps k of taps[k] * sample(k, c), for c in [0, n): every
// column accumulates its taps in order, and the loop over columns vectorises.
template <class T, bool Diff>
[[gnu::always_inline]] inline void vertical_taps(float* __restrict v, int n, const exact::Taps& taps,
                                                 const uint8_t* const* a_rows, const uint8_t* const* b_rows,
                                                 float scaler) {
    for (int c = 0; c < n; c++) v[c] = 0.0f;
    for (int k = 0; k < taps.count; k++) {
        const float t = taps.v[k];
        const T* __restrict pa = reinterpret_cast<const T*>(a_rows[k]);
        if constexpr (Diff) {
            const T* __restrict pb = reinterpret_cast<const T*>(b_rows[k]);
            for (int c = 0; c < n; c++) v[c] = v[c] + t * (convert(pa[c], scaler) - convert(pb[c], scaler));
        } else {
            for (int c = 0; c < n; c++) v[c] = v[c] + t * convert(pa[c], scaler);
        }
    }
}

SPEEDQA_CLONES void vertical_u8(float* v, int n, const exact::Taps& taps, const uint8_t* const* a, const uint8_t* const* b,
                                float s) {
    vertical_taps<uint8_t, false>(v, n, taps, a, b, s);
}
SPEEDQA_CLONES void vertical_u16(float* v, int n, const exact::Taps& taps, const uint8_t* const* a,
                                 const uint8_t* const* b, float s) {
    vertical_taps<uint16_t, false>(v, n, taps, a, b, s);
}
SPEEDQA_CLONES void vertical_u8_diff(float* v, int n, const exact::Taps& taps, const uint8_t* const* a,
                                     const uint8_t* const* b, float s) {
    vertical_taps<uint8_t, true>(v, n, taps, a, b, s);
}
SPEEDQA_CLONES void vertical_u16_diff(float* v, int n, const exact::Taps& taps, const uint8_t* const* a,
                                      const uint8_t* const* b, float s) {
    vertical_taps<uint16_t, true>(v, n, taps, a, b, s);
}

SPEEDQA_CLONES void vertical_float(float* __restrict v, int n, const exact::Taps& taps, const float* const* rows) {
    for (int c = 0; c < n; c++) v[c] = 0.0f;
    for (int k = 0; k < taps.count; k++) {
        const float t = taps.v[k];
        const float* __restrict p = rows[k];
        for (int c = 0; c < n; c++) v[c] = v[c] + t * p[c];
    }
}

// The value of the image at (y, x) of the original plane.
template <class T, bool Diff>
struct SourceReader {
    const ImageSource& src;
    float scaler;
    float operator()(int y, int x) const {
        const T* pa = reinterpret_cast<const T*>(src.a.data + static_cast<ptrdiff_t>(y) * src.a.stride);
        if constexpr (Diff) {
            const T* pb = reinterpret_cast<const T*>(src.b.data + static_cast<ptrdiff_t>(y) * src.b.stride);
            return convert(pa[x], scaler) - convert(pb[x], scaler);
        } else {
            return convert(pa[x], scaler);
        }
    }
};

template <class T, bool Diff>
void resample_into(const ImagePlan& plan, const ImageSource& src, float* out) {
    const SourceReader<T, Diff> read{src, exact::sample_scaler(src.bitdepth)};
    const size_t ncols = plan.cols.size();
    for (size_t r = 0; r < plan.rows.size(); r++)
        for (size_t c = 0; c < ncols; c++)
            out[r * ncols + c] = exact::interpolate(plan.method, plan.col_taps[c], plan.row_taps[r], read);
}

}  // namespace

ImagePipeline::ImagePipeline(const ImagePlan& plan, exact::CovOrder order, CovImpl impl)
    : plan_(plan), est_(plan.dim, order, impl) {
    if (plan.resample) compact_.resize(plan.rows.size() * plan.cols.size());
    vrow_.resize(plan.cols.size());
    const size_t dec = static_cast<size_t>(plan.dim.operating_w) * plan.dim.operating_h;
    dec_.resize(dec);
    tmp_.resize(dec);
    vert_.resize(dec);
}

void ImagePipeline::resample(const ImageSource& src) {
    const bool hbd = src.bitdepth > 8;
    if (src.difference) {
        if (hbd) resample_into<uint16_t, true>(plan_, src, compact_.data());
        else resample_into<uint8_t, true>(plan_, src, compact_.data());
    } else {
        if (hbd) resample_into<uint16_t, false>(plan_, src, compact_.data());
        else resample_into<uint8_t, false>(plan_, src, compact_.data());
    }
}

void ImagePipeline::antialias_kept_points(const ImageSource& src) {
    const exact::Dimensions& d = plan_.dim;
    const exact::Taps& taps = plan_.antialias;
    const int radius = taps.radius();
    const int ncols = static_cast<int>(plan_.cols.size());
    const float scaler = exact::sample_scaler(src.bitdepth);
    const uint8_t* a_rows[exact::kMaxTaps];
    const uint8_t* b_rows[exact::kMaxTaps];
    const float* f_rows[exact::kMaxTaps];

    for (int i = 0; i < d.operating_h; i++) {
        for (int k = 0; k < taps.count; k++) {
            const int row = mirror_index(i * kDecimation - radius + k, d.scaled_h);
            if (plan_.resample) {
                f_rows[k] = compact_.data() + static_cast<size_t>(plan_.row_slot[static_cast<size_t>(row)]) * ncols;
            } else {
                a_rows[k] = src.a.data + static_cast<ptrdiff_t>(row) * src.a.stride;
                b_rows[k] = src.difference ? src.b.data + static_cast<ptrdiff_t>(row) * src.b.stride : nullptr;
            }
        }
        float* v = vrow_.data();
        if (plan_.resample) vertical_float(v, ncols, taps, f_rows);
        else if (src.bitdepth > 8) (src.difference ? vertical_u16_diff : vertical_u16)(v, ncols, taps, a_rows, b_rows, scaler);
        else (src.difference ? vertical_u8_diff : vertical_u8)(v, ncols, taps, a_rows, b_rows, scaler);

        float* out = tmp_.data() + static_cast<size_t>(i) * d.operating_w;
        for (int j = 0; j < d.operating_w; j++) {
            out[j] = exact::tap_sum(taps.v, taps.count, [&](int k) {
                const int col = mirror_index(j * kDecimation - radius + k, d.scaled_w);
                return v[plan_.col_slot[static_cast<size_t>(col)]];
            });
        }
    }
}

void ImagePipeline::subtract_local_mean() {
    const int w = plan_.dim.operating_w, h = plan_.dim.operating_h;
    const exact::Taps& taps = plan_.local_mean;
    const int radius = taps.radius();
    const float* img = tmp_.data();  // decimated, before subtraction
    float* vert = vert_.data();
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            vert[static_cast<size_t>(i) * w + j] = exact::tap_sum(
                taps.v, taps.count, [&](int k) { return img[static_cast<size_t>(mirror_index(i - radius + k, h)) * w + j]; });
    for (int i = 0; i < h; i++) {
        const float* vr = vert + static_cast<size_t>(i) * w;
        const float* in = img + static_cast<size_t>(i) * w;
        float* out = dec_.data() + static_cast<size_t>(i) * w;
        for (int j = 0; j < w; j++)
            out[j] = in[j] - exact::tap_sum(taps.v, taps.count, [&](int k) { return vr[mirror_index(j - radius + k, w)]; });
    }
}

void ImagePipeline::run(const ImageSource& src, ImageStats& out) {
    if (plan_.resample) resample(src);
    antialias_kept_points(src);
    subtract_local_mean();
    est_.run(dec_.data(), plan_.dim.operating_w, out);
}

}  // namespace speedqa::cpu
