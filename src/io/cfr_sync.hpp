// The frame-rate conversion that `ffmpeg -i FILE -f yuv4mpegpipe -` applies
// (ffmpeg 5.1's default for that muxer, "-fps_mode cfr"): decoded frames are
// placed on a constant-rate grid by their timestamps, a frame that falls
// more than 1.1 periods behind the grid is dropped, a gap of more than 1.1
// periods is filled by repeating frames. A clip whose timestamps sit on the
// grid comes out frame for frame; a variable-frame-rate one does not, and
// scoring it as the pipe does means repeating and dropping the same frames.
#pragma once

#include <array>
#include <cstdint>

namespace speedqa::io {

class CfrSync {
public:
    // `vscfr`: ffmpeg's variant for an input file holding a single stream
    // (no audio, no subtitles): a late first frame is not repeated back to
    // time 0, the grid starts at it instead.
    explicit CfrSync(bool vscfr) : vscfr_(vscfr) {}

    // What to output for the next decoded frame.
    struct Step {
        int64_t total = 1;     // output frames for this input frame (0: dropped)
        int64_t previous = 0;  // of which the first `previous` repeat the previous input frame
        // ffmpeg gives up on a gap of more than kMaxRepeats periods: nothing
        // is output and this frame is forgotten (the previous one stays the
        // one repeated).
        bool forgotten = false;
    };
    static constexpr int64_t kMaxRepeats = 3600 * 30 * 30;  // ffmpeg's dts_error_threshold * 30
    // `pts`: the frame's time in output periods as ffmpeg computes it (with
    // extra precision, nudged off exact midpoints); `duration`: its length
    // in periods.
    Step push(double pts, double duration);
    // How many times the last frame is repeated at the end of the stream.
    int64_t flush() const;

private:
    bool vscfr_;
    int64_t next_ = 0;      // grid slot of the next output frame (ffmpeg's ost->sync_opts)
    int64_t written_ = 0;   // output frames so far (ost->frame_number)
    std::array<int64_t, 3> last_previous_{0, 0, 0};  // `previous` of the last 3 frames (ost->last_nb0_frames)
};

}  // namespace speedqa::io
