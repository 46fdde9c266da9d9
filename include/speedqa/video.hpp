// Video geometry and a view of one picture in memory (public).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace speedqa {

enum class PixelFormat { yuv400, yuv420, yuv422, yuv444 };

const char* pixel_format_name(PixelFormat p);  // "400", "420", "422", "444"

struct VideoFormat {
    int width = 0, height = 0;
    PixelFormat pix = PixelFormat::yuv420;
    int bitdepth = 8;

    int bytes_per_sample() const { return bitdepth > 8 ? 2 : 1; }
    int plane_count() const { return pix == PixelFormat::yuv400 ? 1 : 3; }
    // Plane size as stored in a file: chroma rounds up (ffmpeg's layout).
    int stored_w(int plane) const;
    int stored_h(int plane) const;
    // Plane size the features see: chroma rounds down (libvmaf's VmafPicture).
    int feature_w(int plane) const;
    int feature_h(int plane) const;
    size_t plane_bytes(int plane) const {
        return static_cast<size_t>(stored_w(plane)) * stored_h(plane) * bytes_per_sample();
    }
    size_t frame_bytes() const;
    std::string describe() const;  // "576x324 420 8-bit"
    bool operator==(const VideoFormat& o) const {
        return width == o.width && height == o.height && pix == o.pix && bitdepth == o.bitdepth;
    }
};

// A picture in memory: planes of little-endian samples, strides in bytes.
struct Picture {
    const uint8_t* plane[3] = {nullptr, nullptr, nullptr};
    ptrdiff_t stride[3] = {0, 0, 0};
    // The planes lie in page-locked host memory (cudaMallocHost or
    // cudaHostRegister): the CUDA engine then copies the rows it needs
    // straight from them to the device instead of gathering them into its
    // own staging first. Ignored by the CPU engine.
    bool page_locked = false;
    // Where the planes also lie in an open file, when they do: plane i is
    // the bytes from offset file_offset[i] of descriptor `fd`, rows stride[i]
    // apart, as `plane` holds them. The CPU engine then reads the planes its
    // features take with pread into buffers of its own, reused frame after
    // frame, instead of reading `plane`: where a mapped file's pages cost
    // more on their first touch than a copy does (virtual machines), that is
    // faster, and the planes no feature takes are not read at all. The
    // descriptor must stay open while the picture is scored. -1: not in a
    // file (the engines read `plane`).
    int fd = -1;
    long long file_offset[3] = {-1, -1, -1};
};

// Pictures of the frames just before the ones pushed (index - 1, index - 2),
// where the caller still holds them: the Scorer then keeps no copy.
struct PreviousFrames {
    const Picture* ref[2] = {nullptr, nullptr};
    const Picture* dis[2] = {nullptr, nullptr};
};

// The picture at `data` laid out as one frame of a raw planar file.
Picture picture_in_frame(const VideoFormat& f, const uint8_t* data);

}  // namespace speedqa
