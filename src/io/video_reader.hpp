// Reading videos: y4m or raw planar .yuv, from a regular file (memory-mapped,
// zero copy) or from a pipe, a FIFO or standard input (read frame by frame
// into recycled buffers); encoded video files through libavformat and
// libavcodec where the build has them (decoded into recycled buffers).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/video.hpp"

namespace speedqa::io {

// What -w -h -p -b say about a raw .yuv input.
struct RawParams {
    int width = 0, height = 0;
    PixelFormat pix = PixelFormat::yuv420;
    int bitdepth = 8;
};

// One decoded frame. `pic` stays valid as long as the Frame lives, even after
// its reader is gone; frames may be released on any thread.
struct Frame {
    Picture pic;
    int index = 0;  // 0-based position in the video
    // What `pic` points into when that is shared (a file mapping). Frames
    // read from a stream own a pooled buffer instead, which the FramePtr's
    // deleter hands back to the reader's free list.
    std::shared_ptr<const void> storage;
};
using FramePtr = std::shared_ptr<const Frame>;

// A file that would need decoding, in a build that decodes no video.
class NoDecoderError : public Error {
public:
    using Error::Error;
};

// Whether this build decodes encoded video (libavformat and libavcodec).
bool decodes_encoded_video();

class VideoReader {
public:
    virtual ~VideoReader() = default;

    // path "-" means standard input (y4m only). If raw is given the input is
    // raw planar .yuv with those parameters. Otherwise a file is y4m when it
    // starts with the "YUV4MPEG2" signature or is named .y4m (and .yuv is
    // raw), and any other regular file is decoded: the frames are those
    // `ffmpeg -i FILE -strict -1 -f yuv4mpegpipe -` writes. Throws
    // speedqa::Error, NoDecoderError for encoded video in a build without
    // libavformat/libavcodec.
    static std::unique_ptr<VideoReader> open(const std::string& path, const std::optional<RawParams>& raw);

    virtual const VideoFormat& format() const = 0;
    // The next frame; nullptr at the clean end of the stream (and after it).
    // Throws Error on a truncated or malformed frame.
    virtual FramePtr next() = 0;
    // Total frames when known up front (y4m and raw files), else -1.
    virtual long long frame_count() const = 0;
    // The path given to open().
    virtual const std::string& path() const = 0;
};

}  // namespace speedqa::io
