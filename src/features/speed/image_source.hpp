// What one image of SpEED is made of: a plane of raw samples, or (for
// speed_temporal) the float difference of two planes. Every path that runs
// the images (cpu/, reference/) takes them in this form.
#pragma once

#include <cstddef>
#include <cstdint>

namespace speedqa {

struct PlaneRef {
    const uint8_t* data = nullptr;  // first sample of the plane
    ptrdiff_t stride = 0;           // bytes from one row to the next
};

struct ImageSource {
    PlaneRef a;            // the image is conv(a) ...
    PlaneRef b;            // ... minus conv(b) when `difference`
    bool difference = false;
    int bitdepth = 8;      // 8: one byte per sample; 10, 12, 16: two bytes, little-endian
};

}  // namespace speedqa
