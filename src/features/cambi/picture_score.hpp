// One picture's CAMBI score on the CPU: preprocessing to 10 bits, the
// spatial mask, then per scale the mode filter (which also leaves the next
// scale), the banding values and their topk pooling.
#pragma once

#include <vector>

#include "core/video.hpp"
#include "features/cambi/kernels.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa::cambi {

// Buffers for the largest picture of a plan, allocated once per worker.
struct Workspace {
    explicit Workspace(const Plan& plan);
    ptrdiff_t stride = 0;
    std::vector<uint16_t> image;
    std::vector<uint8_t> mask;
    std::vector<uint8_t> mask_rows;   // spatial mask: column sums and a ring of flags
    std::vector<uint16_t> mode_rows;  // mode filter: three filtered rows
    std::vector<uint16_t> levels;     // histogram levels of a scale
    std::vector<uint8_t> columns;     // the banding pass's counts
    std::vector<uint64_t> nonzero;    // the banding values: which are nonzero
    std::vector<float> values;        // and those
    std::vector<float> pooling;       // scratch of the pooling
};

// Throws Error when a 10- or 12-bit picture holds a sample above its range.
double picture_score(const Picture& picture, const ImagePlan& image, const Plan& plan, const Kernels& k,
                     Workspace& ws, long long frame);

}  // namespace speedqa::cambi
