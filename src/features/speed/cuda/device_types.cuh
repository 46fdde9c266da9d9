// What the kernels of one feature need to know, in device memory or kernel
// parameters: the plan (taps, tables, sizes) and where each image's samples
// are in the batch's input buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/input_layout.hpp"
#include "features/speed/exact/covariance.hpp"
#include "features/speed/exact/dimensions.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/prescale.hpp"
#include "features/speed/exact/sequence.hpp"

namespace speedqa::cuda {

using exact::ImageKind;

struct DevicePlan {
    exact::Dimensions dim;
    const exact::Taps* antialias = nullptr;   // device
    const exact::Taps* local_mean = nullptr;  // device
    exact::PrescaleMethod method = exact::PrescaleMethod::nearest;
    bool resample = false;
    int n_rows = 0, n_cols = 0;               // scaled rows / columns the anti-alias filter reads
    const int* row_index = nullptr;            // device: scaled row -> index in the read rows (resample only)
    const int* col_index = nullptr;            // device: scaled col -> index in the read cols (resample only)
    const exact::AxisTaps* row_taps = nullptr;  // device, n_rows entries
    const exact::AxisTaps* col_taps = nullptr;  // device, n_cols entries
    exact::CovOrder order = exact::CovOrder::scalar;
    exact::CovLayout layout;
    ImageKind kind = ImageKind::chroma;
    bool use_ref_diff = false;
};

// Per-feature device scratch and outputs for `images` images.
struct DeviceWork {
    int images = 0;
    float* resampled = nullptr;  // images x n_rows x n_cols (resample only)
    float* decimated = nullptr;  // images x op_h x op_w, after the anti-alias filter
    float* centred = nullptr;    // images x op_h x op_w, minus the local mean
    float* means = nullptr;      // images x 25
    double* chains = nullptr;    // images x chains x 325
    float* cov = nullptr;        // images x 625
    // outputs, contiguous per image: 25 eigenvalues, num_blocks variances, then flags
    float* out = nullptr;
    size_t out_stride = 0;       // floats per image in `out`
};

// Output record of one image (in floats): [0, 25) eigenvalues, [25, 25 + nb)
// variances, then one float holding the singular flag and one the sweeps.
__host__ __device__ inline size_t out_floats(int num_blocks) { return 25 + static_cast<size_t>(num_blocks) + 2; }

// Which samples image `img` of a batch is made of: frame img / per_frame of
// the batch (at input position history + frame; the one before it at
// history + frame - 1), composed as exact::compose_image says.
struct ImageSourceRef {
    int plane;
    int position_a, side_a;
    int position_b, side_b;  // used when diff
    bool diff;
};

using exact::images_per_frame;

__host__ __device__ inline ImageSourceRef image_source(const DevicePlan& p, int history, int img) {
    const int per_frame = images_per_frame(p.kind);
    const int frame = img / per_frame;
    const exact::ImageComposition c = exact::compose_image(p.kind, p.use_ref_diff, img % per_frame);
    ImageSourceRef r{};
    r.plane = c.plane;
    r.position_a = history + frame + c.a.frame;
    r.side_a = c.a.side;
    r.position_b = history + frame + c.b.frame;
    r.side_b = c.b.side;
    r.diff = c.diff;
    return r;
}

}  // namespace speedqa::cuda
