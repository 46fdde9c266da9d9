// Reading videos: y4m or raw planar .yuv, from a regular file (memory-mapped:
// a frame's picture points into the mapping and names the file and its
// offsets, so that the CPU engine can pread the planes it needs instead) or
// from a pipe, a FIFO or standard input (read frame by frame into recycled
// buffers); encoded video files through libavformat and libavcodec where the
// build has them (decoded into recycled buffers).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

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
    // What `pic` points into when that is shared (a file mapping, whose
    // pages of this frame leave resident memory when the frame goes). Frames
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

    // path "-" means standard input (y4m, or raw video when `raw` is
    // given). An input that starts with the "YUV4MPEG2" signature is y4m,
    // and `raw`, when given, must agree with its header; any other input is
    // raw planar .yuv of the format `raw` gives. Without `raw`, a regular
    // file named .y4m or .yuv is read as y4m (and errs when it is not), and
    // any other is decoded: the frames are those `ffmpeg -i FILE -strict -1
    // -f yuv4mpegpipe -` writes. Throws speedqa::Error, NoDecoderError for
    // encoded video in a build without libavformat/libavcodec.
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

// The two frame pairs a caller scored last, held so that its next batch gets
// them as its history (the Scorer's PreviousFrames) without a copy.
class RecentFrames {
public:
    // Pairs (ref[k], dis[k]) were scored, in order (the longer list's
    // extra frames were not).
    void advance(const std::vector<FramePtr>& ref, const std::vector<FramePtr>& dis);
    // The two pairs as the next batch's history: [0] the frame just before
    // it, [1] the one before that; nullptr where none was scored.
    PreviousFrames previous() const {
        PreviousFrames h;
        for (int back = 0; back < 2; back++) {
            h.ref[back] = ref_[back] ? &ref_[back]->pic : nullptr;
            h.dis[back] = dis_[back] ? &dis_[back]->pic : nullptr;
        }
        return h;
    }

private:
    FramePtr ref_[2], dis_[2];  // newest first
};

}  // namespace speedqa::io
