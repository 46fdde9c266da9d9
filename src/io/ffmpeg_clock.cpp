#include "io/ffmpeg_clock.hpp"

#include "io/libav.hpp"

#include <algorithm>
#include <limits>

namespace speedqa::io {

namespace {

constexpr AVRational kMicroseconds = {1, AV_TIME_BASE};
// ffmpeg's -dts_delta_threshold and -dts_error_threshold defaults, in
// seconds; they are floats there, and so are the comparisons with them.
constexpr float kDeltaThreshold = 10;
constexpr float kErrorThreshold = 3600 * 30;

// ffmpeg does its timestamp arithmetic in C's int64_t, which damaged input
// overflows; its builds wrap around (two's complement), and so does this,
// without undefined behaviour.
int64_t wadd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wsub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wneg(int64_t a) { return wsub(0, a); }
int64_t wmul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
// (a division by zero, where ffmpeg would stop, gives 0: no duration)
int64_t wdiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return wneg(a);
    return a / b;
}
// A double to int64_t as x86's cvttsd2si converts it: NaN and out-of-range
// values give INT64_MIN.
int64_t to_int64(double d) {
    return d >= -0x1p63 && d < 0x1p63 ? static_cast<int64_t>(d) : std::numeric_limits<int64_t>::min();
}

bool beyond(int64_t delta, float seconds) {
    return delta < -1LL * seconds * AV_TIME_BASE || delta > 1LL * seconds * AV_TIME_BASE;
}

int64_t to_us(int64_t t, AVRational tb) { return libav().av_rescale_q(t, tb, kMicroseconds); }
int64_t to_us_minmax(int64_t t, AVRational tb) {
    return libav().av_rescale_q_rnd(t, tb, kMicroseconds, static_cast<AVRounding>(AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX));
}
int64_t from_us(int64_t t, AVRational tb) { return libav().av_rescale_q(t, kMicroseconds, tb); }

// Shifts a packet's timestamps back by `us` microseconds.
void shift(AVPacket& p, int64_t us, AVRational tb) {
    p.dts = wsub(p.dts, from_us(us, tb));
    if (p.pts != AV_NOPTS_VALUE) p.pts = wsub(p.pts, from_us(us, tb));
}

}  // namespace

FfmpegClock::FfmpegClock(const AVFormatContext& fmt, const AVStream& stream, const AVCodecContext& dec)
    : fmt_(fmt), st_(stream), dec_(dec), disconts_(fmt.iformat->flags & AVFMT_TS_DISCONT) {
    if (fmt.start_time != AV_NOPTS_VALUE) ts_offset_ = wneg(fmt.start_time);  // the file starts at 0
}

void FfmpegClock::demuxed(AVPacket& p) {
    const AVRational tb = st_.time_base;
    const int bits = st_.pts_wrap_bits;
    if (!wrap_done_ && fmt_.start_time != AV_NOPTS_VALUE && bits > 0 && bits < 64) {
        // The start time again, over the streams read (the others are discarded).
        if (next_dts_ == AV_NOPTS_VALUE && ts_offset_ == wneg(fmt_.start_time) && disconts_) {
            int64_t start = std::numeric_limits<int64_t>::max();
            for (unsigned i = 0; i < fmt_.nb_streams; i++) {
                const AVStream& s = *fmt_.streams[i];
                if (s.discard == AVDISCARD_ALL || s.start_time == AV_NOPTS_VALUE) continue;
                start = std::min(start, to_us(s.start_time, s.time_base));
            }
            if (start > fmt_.start_time) ts_offset_ = wneg(start);
        }
        // Timestamps that wrapped before the start time.
        const int64_t stime = from_us(fmt_.start_time, tb);
        const int64_t period = static_cast<int64_t>(1ULL << bits);
        const int64_t stime2 = wadd(stime, period);
        const int64_t half = wadd(stime, int64_t{1} << (bits - 1));
        wrap_done_ = true;
        if (stime2 > stime && p.dts != AV_NOPTS_VALUE && p.dts > half) {
            p.dts = wsub(p.dts, period);
            wrap_done_ = false;
        }
        if (stime2 > stime && p.pts != AV_NOPTS_VALUE && p.pts > half) {
            p.pts = wsub(p.pts, period);
            wrap_done_ = false;
        }
    }
    if (p.dts != AV_NOPTS_VALUE) p.dts = wadd(p.dts, from_us(ts_offset_, tb));
    if (p.pts != AV_NOPTS_VALUE) p.pts = wadd(p.pts, from_us(ts_offset_, tb));

    // A jump from the file's last timestamp where the stream (re)starts.
    int64_t dts_us = to_us_minmax(p.dts, tb);
    if (dts_us != AV_NOPTS_VALUE && next_dts_ == AV_NOPTS_VALUE && disconts_ && last_ts_ != AV_NOPTS_VALUE) {
        const int64_t delta = wsub(dts_us, last_ts_);
        if (beyond(delta, kDeltaThreshold)) {
            ts_offset_ = wsub(ts_offset_, delta);
            shift(p, delta, tb);
        }
    }
    // A jump from where the stream was expected to go on.
    dts_us = to_us_minmax(p.dts, tb);
    if (dts_us != AV_NOPTS_VALUE && next_dts_ != AV_NOPTS_VALUE) {
        int64_t delta = wsub(dts_us, next_dts_);
        if (disconts_) {
            if (beyond(delta, kDeltaThreshold) || wadd(dts_us, AV_TIME_BASE / 10) < std::max(pts_, dts_)) {
                ts_offset_ = wsub(ts_offset_, delta);
                shift(p, delta, tb);
            }
        } else {
            if (beyond(delta, kErrorThreshold)) p.dts = AV_NOPTS_VALUE;
            if (p.pts != AV_NOPTS_VALUE) {
                delta = wsub(to_us(p.pts, tb), next_dts_);
                if (beyond(delta, kErrorThreshold)) p.pts = AV_NOPTS_VALUE;
            }
        }
    }
    if (p.dts != AV_NOPTS_VALUE) last_ts_ = to_us(p.dts, tb);
}

void FfmpegClock::start(const AVPacket* packet) {
    if (!saw_first_) {
        // before the first packet: the decoder's delay ahead of 0
        const AVRational avg = st_.avg_frame_rate;
        dts_ = avg.num ? to_int64(-dec_.has_b_frames * AV_TIME_BASE / av_q2d(avg)) : 0;
        pts_ = 0;
        saw_first_ = true;
    }
    if (next_dts_ == AV_NOPTS_VALUE) next_dts_ = dts_;
    if (next_pts_ == AV_NOPTS_VALUE) next_pts_ = pts_;
    if (packet && packet->dts != AV_NOPTS_VALUE) next_dts_ = dts_ = to_us(packet->dts, st_.time_base);
    have_packet_ = packet != nullptr;
    packet_duration_ = packet ? packet->duration : 0;
    repeating_ = false;
}

int64_t FfmpegClock::call(bool at_end) {
    pts_ = next_pts_;
    dts_ = next_dts_;
    const int64_t dts = dts_ != AV_NOPTS_VALUE ? from_us(dts_, st_.time_base) : AV_NOPTS_VALUE;
    if (at_end) end_dts_.push_back(dts);
    return dts;
}

int64_t FfmpegClock::picture_pts(const AVFrame& picture, bool at_end) {
    int64_t pts = picture.best_effort_timestamp;
    if (at_end && pts == AV_NOPTS_VALUE && !end_dts_.empty()) {
        pts = end_dts_.front();
        end_dts_.pop_front();
    }
    if (pts == AV_NOPTS_VALUE) return picture.pts;
    const int64_t us = to_us(pts, st_.time_base);
    if (us != AV_NOPTS_VALUE) next_pts_ = pts_ = us;
    return pts;
}

void FfmpegClock::finish_call(bool got, int64_t picture_duration) {
    int64_t duration = 0;  // of the call's packet, to advance the decode clock
    if (!repeating_ || !have_packet_ || got) {
        if (have_packet_ && packet_duration_) {
            duration = to_us(packet_duration_, st_.time_base);
        } else if (dec_.framerate.num != 0 && dec_.framerate.den != 0) {
            const AVCodecParserContext* parser = libav().av_stream_get_parser(&st_);
            const int ticks = parser ? parser->repeat_pict + 1 : dec_.ticks_per_frame;
            const int64_t d = wmul(wmul(AV_TIME_BASE, dec_.framerate.den), ticks);
            duration = wdiv(wdiv(d, dec_.framerate.num), dec_.ticks_per_frame);
        }
        if (dts_ != AV_NOPTS_VALUE && duration)
            next_dts_ = wadd(next_dts_, duration);
        else
            next_dts_ = AV_NOPTS_VALUE;
    }
    if (got) next_pts_ = wadd(next_pts_, picture_duration > 0 ? to_us(picture_duration, st_.time_base) : duration);
    repeating_ = true;
}

}  // namespace speedqa::io
