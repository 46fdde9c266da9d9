// The timestamps `ffmpeg -i FILE` (fftools/ffmpeg.c of FFmpeg 5.1) gives the
// pictures of one input video stream. They decide which frames its
// constant-rate output repeats or drops (io/cfr_sync.hpp), and they are not
// simply the demuxer's: ffmpeg shifts the file to start at 0, corrects
// timestamp wraps and discontinuities, and hands the decoder a decode
// timestamp of its own making (which libavcodec's best-effort timestamp
// falls back on where packets carry no presentation time, as in raw .h264
// and .hevc streams). This replays that bookkeeping step for step; only the
// decoded reader (io/decoded_reader.cpp) uses it.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <cstdint>
#include <deque>

namespace speedqa::io {

class FfmpegClock {
public:
    // `stream` of `fmt`, decoded by `dec` (both live as long as this).
    FfmpegClock(const AVFormatContext& fmt, const AVStream& stream, const AVCodecContext& dec);

    // A packet of the stream as demuxed: ffmpeg's offset, wrap and
    // discontinuity corrections (process_input()).
    void demuxed(AVPacket& pkt);

    // The decode calls for one packet (`packet` null at the end of the
    // stream, when each call drains one picture), as process_input_packet()
    // makes them:
    //   start(packet) once, then per call: dts = call(); decode (a packet's
    //   first call sends it with that dts); picture_pts() for a picture;
    //   finish_call(). A packet's calls end at the first that yields no
    //   picture; at the end of the stream, each drain is a start(nullptr)
    //   with one call.
    void start(const AVPacket* packet);
    // The decode timestamp ffmpeg gives the packet of this call (stream time
    // base), remembered for pictures drained at the end.
    int64_t call(bool at_end);
    // The presentation timestamp of a decoded picture (stream time base;
    // AV_NOPTS_VALUE when it has none), as the filters and the output see it.
    int64_t picture_pts(const AVFrame& picture, bool at_end);
    // After a call that yielded a picture (`got`) or not.
    void finish_call(bool got, int64_t picture_duration);

private:
    const AVFormatContext& fmt_;
    const AVStream& st_;
    const AVCodecContext& dec_;
    bool disconts_;                  // the format allows timestamp discontinuities (AVFMT_TS_DISCONT)

    // the input file's (InputFile)
    int64_t ts_offset_ = 0;          // AV_TIME_BASE units
    int64_t last_ts_ = 0;
    // the stream's (InputStream), AV_TIME_BASE units
    bool wrap_done_ = false;
    bool saw_first_ = false;
    int64_t dts_ = 0, pts_ = 0;
    int64_t next_dts_ = AV_NOPTS_VALUE, next_pts_ = AV_NOPTS_VALUE;
    std::deque<int64_t> end_dts_;    // decode timestamps of the drain calls (stream time base)
    // the packet being decoded
    bool have_packet_ = false;
    int64_t packet_duration_ = 0;
    bool repeating_ = false;
};

}  // namespace speedqa::io
