// Internal to the readers: the implementations and the errors they share.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "io/mapped_file.hpp"
#include "io/video_reader.hpp"

namespace speedqa::io {

// `path` is what open() was given, `name` what errors start with ("stdin"
// for "-"). `raw` is the format of a raw input, absent for y4m.
std::unique_ptr<VideoReader> make_mapped_reader(const std::string& path, const std::string& name,
                                                std::shared_ptr<const Mapping> file,
                                                const std::optional<VideoFormat>& raw);
// Takes ownership of `fd` when `owned` (closed even if this throws).
std::unique_ptr<VideoReader> make_stream_reader(const std::string& path, const std::string& name, int fd,
                                                bool owned, const std::optional<VideoFormat>& raw);

// Encoded video (io/decoded_reader.cpp; io/no_decoder.cpp in a build
// without libavformat/libavcodec).
std::unique_ptr<VideoReader> make_decoded_reader(const std::string& path);

Error not_y4m_error(const std::string& name);
Error truncated_frame_error(const std::string& name, long long frame, size_t got, size_t want);
Error truncated_frame_header_error(const std::string& name, long long frame);
Error long_frame_header_error(const std::string& name, long long frame);
Error too_many_frames_error(const std::string& name);

}  // namespace speedqa::io
