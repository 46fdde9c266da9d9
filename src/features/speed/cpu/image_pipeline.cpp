#include "features/speed/cpu/image_pipeline.hpp"

#include <algorithm>

#include "features/speed/cpu/kernels.hpp"
#include "features/speed/exact/convert.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/prescale.hpp"

namespace speedqa::cpu {
namespace {

using exact::kDecimation;
using exact::mirror_index;

template <class T>
inline float convert(T s, float scaler) {
    if constexpr (sizeof(T) == 1) return exact::convert_8bit(s);
    else return exact::convert_hbd(s, scaler);
}

// One source row as the resampling reads it: converted samples, or the
// difference of two rows' converted samples (the same float operations the
// reference does per read, done once per sample).
template <class T, bool Diff>
void convert_row(const ImageSource& src, int y, int w, float scaler, float* out) {
    const T* pa = reinterpret_cast<const T*>(src.a.data + static_cast<ptrdiff_t>(y) * src.a.stride);
    if constexpr (Diff) {
        const T* pb = reinterpret_cast<const T*>(src.b.data + static_cast<ptrdiff_t>(y) * src.b.stride);
        for (int x = 0; x < w; x++) out[x] = convert(pa[x], scaler) - convert(pb[x], scaler);
    } else {
        for (int x = 0; x < w; x++) out[x] = convert(pa[x], scaler);
    }
}

// The converted source rows, in slots y % slots (the rows one output row
// reads span fewer than `slots`, so they never share a slot).
struct RowReader {
    const float* const* row;  // by source row, valid for the rows of the current output row
    float operator()(int y, int x) const { return row[y][x]; }
};

template <class T, bool Diff>
void resample_into(const ImagePlan& plan, const ImageSource& src, SourceRows& rows, float* out) {
    const float scaler = exact::sample_scaler(src.bitdepth);
    const int w = plan.dim.original_w;
    const int taps = exact::interp_taps(plan.method);
    const size_t ncols = plan.cols.size();
    std::fill(rows.held.begin(), rows.held.end(), -1);
    const RowReader read{rows.by_row.data()};
    for (size_t r = 0; r < plan.rows.size(); r++) {
        const exact::AxisTaps& ay = plan.row_taps[r];
        for (int j = 0; j < taps; j++) {
            const int y = ay.idx[j];
            const size_t slot = static_cast<size_t>(y) % rows.held.size();
            float* dst = rows.buf.data() + slot * static_cast<size_t>(w);
            if (rows.held[slot] != y) {
                convert_row<T, Diff>(src, y, w, scaler, dst);
                rows.held[slot] = y;
            }
            rows.by_row[static_cast<size_t>(y)] = dst;
        }
        for (size_t c = 0; c < ncols; c++)
            out[r * ncols + c] = exact::interpolate(plan.method, plan.col_taps[c], ay, read);
    }
}

}  // namespace

size_t SourceRows::slots(const ImagePlan& plan) {
    const int taps = exact::interp_taps(plan.method);
    int span = 1;
    for (const exact::AxisTaps& ay : plan.row_taps) {
        const int* i = ay.idx;
        span = std::max(span, *std::max_element(i, i + taps) - *std::min_element(i, i + taps) + 1);
    }
    return static_cast<size_t>(span);
}

ImagePipeline::ImagePipeline(const ImagePlan& plan, exact::CovOrder order, const Kernels* kernels)
    : plan_(plan), est_(plan.dim, order, kernels), kernels_(kernels ? *kernels : best_kernels()) {
    if (plan.resample) {
        compact_.resize(plan.rows.size() * plan.cols.size());
        const size_t slots = SourceRows::slots(plan);
        rows_.buf.resize(slots * static_cast<size_t>(plan.dim.original_w));
        rows_.held.resize(slots);
        rows_.by_row.resize(static_cast<size_t>(plan.dim.original_h));
    }
    vrow_.resize(plan.cols.size());
    const size_t dec = static_cast<size_t>(plan.dim.operating_w) * plan.dim.operating_h;
    dec_.resize(dec);
    tmp_.resize(dec);
    vert_.resize(dec);
}

size_t ImagePipeline::bytes(const ImagePlan& plan, exact::CovOrder order) {
    const size_t compact = plan.resample ? plan.rows.size() * plan.cols.size() : 0;
    const size_t dec = static_cast<size_t>(plan.dim.operating_w) * plan.dim.operating_h;
    return (compact + plan.cols.size() + 3 * dec) * sizeof(float) + EstParams::bytes(plan.dim, order);
}

void ImagePipeline::resample(const ImageSource& src) {
    const bool hbd = src.bitdepth > 8;
    if (src.difference) {
        if (hbd) resample_into<uint16_t, true>(plan_, src, rows_, compact_.data());
        else resample_into<uint8_t, true>(plan_, src, rows_, compact_.data());
    } else {
        if (hbd) resample_into<uint16_t, false>(plan_, src, rows_, compact_.data());
        else resample_into<uint8_t, false>(plan_, src, rows_, compact_.data());
    }
}

void ImagePipeline::antialias_kept_points(const ImageSource& src) {
    const exact::Dimensions& d = plan_.dim;
    const exact::Taps& taps = plan_.antialias;
    const int radius = taps.radius();
    const int ncols = static_cast<int>(plan_.cols.size());
    const uint8_t* a_rows[exact::kMaxTaps];
    const uint8_t* b_rows[exact::kMaxTaps];
    const float* f_rows[exact::kMaxTaps];
    const uint8_t* ahead[2 * kDecimation];
    // the scaled row under tap k of output row i
    const auto tap_row = [&](int i, int k) { return mirror_index(i * kDecimation - radius + k, d.scaled_h); };

    for (int i = 0; i < d.operating_h; i++) {
        for (int k = 0; k < taps.count; k++) {
            const int row = tap_row(i, k);
            if (plan_.resample) {
                f_rows[k] = compact_.data() + static_cast<size_t>(plan_.row_index[static_cast<size_t>(row)]) * ncols;
            } else {
                a_rows[k] = src.a.data + static_cast<ptrdiff_t>(row) * src.a.stride;
                b_rows[k] = src.difference ? src.b.data + static_cast<ptrdiff_t>(row) * src.b.stride : nullptr;
            }
        }
        float* v = vrow_.data();
        VerticalArgs args;
        args.v = v;
        args.n = ncols;
        args.taps = taps.v;
        args.count = taps.count;
        args.bitdepth = src.bitdepth;
        if (plan_.resample) {
            args.a = reinterpret_cast<const uint8_t* const*>(f_rows);
            args.rows_are_float = true;
        } else {
            args.a = a_rows;
            args.b = b_rows;
            args.diff = src.difference;
            // the rows output row i + 1 reads first (its taps past this row's)
            int n = 0;
            for (int k = std::max(0, taps.count - kDecimation); i + 1 < d.operating_h && k < taps.count; k++) {
                const ptrdiff_t row = tap_row(i + 1, k);
                ahead[n++] = src.a.data + row * src.a.stride;
                if (src.difference) ahead[n++] = src.b.data + row * src.b.stride;
            }
            args.ahead = ahead;
            args.ahead_count = n;
        }
        kernels_.vertical(args);

        float* out = tmp_.data() + static_cast<size_t>(i) * d.operating_w;
        const int* at = plan_.kept_col_taps.data();
        for (int j = 0; j < d.operating_w; j++, at += taps.count)
            out[j] = exact::tap_sum(taps.v, taps.count, [&](int k) { return v[at[k]]; });
    }
}

void ImagePipeline::subtract_local_mean() {
    const int w = plan_.dim.operating_w, h = plan_.dim.operating_h;
    const exact::Taps& taps = plan_.local_mean;
    const int radius = taps.radius();
    const float* img = tmp_.data();  // decimated, before subtraction
    float* vert = vert_.data();
    // vertical pass: the rows under the taps are found once per output row,
    // then every column accumulates its taps in order (vectorises over j)
    const float* rows[exact::kMaxTaps];
    for (int i = 0; i < h; i++) {
        for (int k = 0; k < taps.count; k++) rows[k] = img + static_cast<size_t>(mirror_index(i - radius + k, h)) * w;
        float* out = vert + static_cast<size_t>(i) * w;
        for (int j = 0; j < w; j++) out[j] = 0.0f;
        for (int k = 0; k < taps.count; k++) {
            const float t = taps.v[k];
            const float* r = rows[k];
            for (int j = 0; j < w; j++) out[j] = exact::tap_step(out[j], t, r[j]);
        }
    }
    // horizontal pass and subtraction; mirrored reads only near the borders
    for (int i = 0; i < h; i++) {
        const float* vr = vert + static_cast<size_t>(i) * w;
        const float* in = img + static_cast<size_t>(i) * w;
        float* out = dec_.data() + static_cast<size_t>(i) * w;
        auto mean_at = [&](int j) {
            return exact::tap_sum(taps.v, taps.count, [&](int k) { return vr[mirror_index(j - radius + k, w)]; });
        };
        const int lo = std::min(radius, w), hi = std::max(lo, w - radius);
        for (int j = 0; j < lo; j++) out[j] = in[j] - mean_at(j);
        for (int j = lo; j < hi; j++) {
            const float* at = vr + j - radius;
            out[j] = in[j] - exact::tap_sum(taps.v, taps.count, [&](int k) { return at[k]; });
        }
        for (int j = hi; j < w; j++) out[j] = in[j] - mean_at(j);
    }
}

void ImagePipeline::run(const ImageSource& src, ImageStats& out) {
    if (plan_.resample) resample(src);
    antialias_kept_points(src);
    subtract_local_mean();
    est_.run(dec_.data(), plan_.dim.operating_w, out);
}

}  // namespace speedqa::cpu
