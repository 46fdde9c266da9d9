// Where a device engine's batch input keeps each plane of each frame: one
// buffer of frame positions, `history` positions for the frames before the
// batch's first (position p < history holds frame first - history + p),
// then one per frame of the batch. In a position, each side (0 reference,
// 1 distorted) has each plane some feature reads as "compact rows": only
// the rows some feature reads, each row whole, in ascending order. The
// struct is plain data, passed to kernels by value (any device engine).
#pragma once

#include <cstddef>
#include <cstdint>

#include "exact/hd.hpp"

namespace speedqa {

struct InputLayout {
    size_t frame_bytes = 0;          // bytes of one frame position
    int history = 0;                 // positions before the batch's first frame
    // [side][plane]: bytes from the position's start; -1 where no feature
    // reads that plane of that side
    long long plane_offset[2][3] = {{-1, -1, -1}, {-1, -1, -1}};
    int row_bytes[3] = {};           // bytes of one stored row of the plane
    // device tables: source row -> compact row (-1: not uploaded); nullptr
    // where every row of the plane is uploaded, in order
    const int* row_index[3] = {};
    int width[3] = {}, height[3] = {};  // of each plane as the features see it (feature_w / feature_h)
    int bitdepth = 8;

    // The position of frame k of the batch (0-based), or of the frame
    // `distance` frames before it.
    SPEEDQA_HD int position(int k, int distance = 0) const { return history + k - distance; }
};

// Row y of a plane of one side at a frame position.
SPEEDQA_HD const uint8_t* input_row(const InputLayout& L, const uint8_t* input, int position, int side, int plane, int y) {
    const int r = L.row_index[plane] ? L.row_index[plane][y] : y;
    return input + static_cast<size_t>(position) * L.frame_bytes + static_cast<size_t>(L.plane_offset[side][plane]) +
           static_cast<size_t>(r) * static_cast<size_t>(L.row_bytes[plane]);
}

// The sample at (y, x) of a plane: 8-bit, or little-endian 16-bit above 8 bits.
SPEEDQA_HD unsigned input_sample(const InputLayout& L, const uint8_t* input, int position, int side, int plane, int y,
                                 int x) {
    const uint8_t* row = input_row(L, input, position, side, plane, y);
    return L.bitdepth > 8 ? reinterpret_cast<const uint16_t*>(row)[x] : row[x];
}

}  // namespace speedqa
