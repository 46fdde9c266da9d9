#include "core/video.hpp"

namespace speedqa {

const char* pixel_format_name(PixelFormat p) {
    switch (p) {
    case PixelFormat::yuv400: return "400";
    case PixelFormat::yuv420: return "420";
    case PixelFormat::yuv422: return "422";
    default: return "444";
    }
}

int VideoFormat::stored_w(int plane) const {
    if (plane == 0) return width;
    if (pix == PixelFormat::yuv400) return 0;
    return pix == PixelFormat::yuv444 ? width : (width + 1) / 2;
}

int VideoFormat::stored_h(int plane) const {
    if (plane == 0) return height;
    if (pix == PixelFormat::yuv400) return 0;
    return pix == PixelFormat::yuv420 ? (height + 1) / 2 : height;
}

int VideoFormat::feature_w(int plane) const {
    if (plane == 0) return width;
    if (pix == PixelFormat::yuv400) return 0;
    return pix == PixelFormat::yuv444 ? width : width / 2;
}

int VideoFormat::feature_h(int plane) const {
    if (plane == 0) return height;
    if (pix == PixelFormat::yuv400) return 0;
    return pix == PixelFormat::yuv420 ? height / 2 : height;
}

size_t VideoFormat::frame_bytes() const {
    size_t n = 0;
    for (int p = 0; p < plane_count(); p++) n += plane_bytes(p);
    return n;
}

std::string VideoFormat::describe() const {
    return std::to_string(width) + "x" + std::to_string(height) + " " + pixel_format_name(pix) + " " +
           std::to_string(bitdepth) + "-bit";
}

Picture picture_in_frame(const VideoFormat& f, const uint8_t* data) {
    Picture p;
    for (int i = 0; i < f.plane_count(); i++) {
        p.plane[i] = data;
        p.stride[i] = static_cast<ptrdiff_t>(f.stored_w(i)) * f.bytes_per_sample();
        data += f.plane_bytes(i);
    }
    return p;
}

}  // namespace speedqa
