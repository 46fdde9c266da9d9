// The input of one batch on the device: frame positions, position 0 the frame
// before the batch (for features that compare a frame with the one before),
// positions 1..count the batch's frames. In a position, each side (0 =
// reference, 1 = distorted) has each plane some feature reads as "compact
// rows": only the rows some feature reads, each row whole.
#pragma once

#include <cstddef>

namespace speedqa::cuda {

struct InputLayout {
    size_t frame_bytes = 0;          // bytes of one frame position
    size_t plane_offset[2][3] = {};  // [side][plane], bytes from the position's start
    int row_bytes[3] = {};           // bytes of one stored row of the plane
    const int* row_index[3] = {};    // device: source row -> compact row (-1: not uploaded)
    int bitdepth = 8;
};

}  // namespace speedqa::cuda
