// The YUV4MPEG2 container: the stream header, frame headers, and the limits
// this reader puts on both.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/video.hpp"

namespace speedqa::io {

inline constexpr std::string_view kY4mSignature = "YUV4MPEG2";
inline constexpr std::string_view kFrameTag = "FRAME";
// Longest stream header and longest frame header accepted, '\n' included.
inline constexpr size_t kMaxY4mHeader = 4096;
inline constexpr size_t kMaxFrameHeader = 4096;

// Whether a file starting with these bytes is y4m.
bool has_y4m_signature(std::string_view first_bytes);

// The format a stream header describes. `line` is the header without its
// '\n', signature included. Throws Error naming `name`.
VideoFormat parse_y4m_header(std::string_view line, const std::string& name);

// Checks one frame header line (without its '\n'): it must start with FRAME;
// whatever follows (frame parameters) is ignored, as libvmaf does.
void check_frame_header(std::string_view line, const std::string& name, long long frame);

// Throws Error unless the format is one the readers can hold: width and
// height in [1, kMaxSide], at most kMaxLumaSamples luma samples, bit depth 8,
// 10, 12 or 16.
inline constexpr int kMaxSide = 1 << 20;
inline constexpr long long kMaxLumaSamples = 0x7fffffffLL;
void check_format(const VideoFormat& f, const std::string& name);

// `text` fit for a one-line message: at most `max` characters, anything
// unprintable shown as '?', and "..." when cut.
std::string printable(std::string_view text, size_t max = 24);

}  // namespace speedqa::io
