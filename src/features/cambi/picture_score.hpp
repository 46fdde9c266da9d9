// One picture's CAMBI score on the CPU: preprocessing to 10 bits, the
// spatial mask (and the speedup's decimation) row by row behind it, then per scale the mode filter (which also leaves the next
// scale), the banding values and their topk pooling.
#pragma once

#include "core/video.hpp"
#include "core/zeroed_array.hpp"
#include "features/cambi/kernels.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa::cambi {

// Buffers for the largest picture of a plan, allocated once per worker
// (zeroed by the system as their pages are first touched).
struct Workspace {
    explicit Workspace(const Plan& plan);
    // The bytes the constructor allocates for the plan.
    static size_t bytes(const Plan& plan);
    ptrdiff_t stride = 0;
    ZeroedArray<uint16_t> image;
    ZeroedArray<uint8_t> mask;
    ZeroedArray<uint8_t> mask_rows;   // spatial mask: column sums and a ring of flags
    ZeroedArray<uint16_t> stream;     // with the speedup: the last rows at CAMBI's size, before the decimation
    ZeroedArray<uint8_t> stream_mask; // and the mask row being decimated
    ZeroedArray<uint16_t> mode_rows;  // mode filter: three filtered rows
    ZeroedArray<uint16_t> levels;     // histogram levels of a scale
    ZeroedArray<uint8_t> columns;     // the banding pass's counts
    ZeroedArray<uint64_t> nonzero;    // the banding values: which are nonzero
    ZeroedArray<float> values;        // and those
    ZeroedArray<float> pooling;       // scratch of the pooling
};

// libvmaf refuses 9- to 15-bit pictures with samples above their range:
// throws Error naming the frame where `largest` (the picture's largest
// sample) is.
void check_range(unsigned largest, int bitdepth, long long frame);

// A frame's raw values from its pictures' scores: cambi, and with full_ref
// cambi_source and cambi_full_reference (src: the reference's score), each
// clipped to cambi_max_val.
void write_raw(const Plan& plan, double dis, double src, double* raw);

// Throws Error when a 10- or 12-bit picture holds a sample above its range.
double picture_score(const Picture& picture, const ImagePlan& image, const Plan& plan, const Kernels& k,
                     Workspace& ws, long long frame);

}  // namespace speedqa::cambi
