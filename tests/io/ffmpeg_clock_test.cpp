// FfmpegClock's corrections of demuxed timestamps, against ffmpeg's
// statements (fftools/ffmpeg.c of FFmpeg 5.1, process_input()) worked by
// hand, including damaged files whose timestamps overflow ffmpeg's int64_t
// arithmetic: there the clock wraps around as ffmpeg's builds do, without
// undefined behaviour (which the sanitizer build of tools/test.sh stops at).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "io/ffmpeg_clock.hpp"
#include "io/libav.hpp"

namespace speedqa::io::test {
namespace {

struct Input {
    AVInputFormat iformat{};
    AVStream stream{};
    AVStream* streams[1] = {&stream};
    AVFormatContext fmt{};
    AVCodecContext dec{};

    Input(int64_t start_time_us, AVRational time_base, int wrap_bits) {
        libav("the test");  // (loaded as a reader loads it)
        fmt.iformat = &iformat;  // (no AVFMT_TS_DISCONT)
        fmt.start_time = start_time_us;
        fmt.nb_streams = 1;
        fmt.streams = streams;
        stream.time_base = time_base;
        stream.pts_wrap_bits = wrap_bits;
        stream.start_time = AV_NOPTS_VALUE;
    }
};

AVPacket packet(int64_t dts, int64_t pts) {
    AVPacket p{};
    p.dts = dts;
    p.pts = pts;
    return p;
}

TEST(FfmpegClock, TimestampsThatWrappedBeforeTheStartAreUnwrappedThenShiftedToZero) {
    // MPEG-TS: 90 kHz, 33 bits. The file starts 1 s in (stime = 90000); a
    // packet stamped just below 2^33 lies more than half a period past stime,
    // so it wrapped: 2^33 comes off, then the start time (1 s = 90000 ticks).
    Input in(1000000, {1, 90000}, 33);
    FfmpegClock clock(in.fmt, in.stream, in.dec);
    AVPacket p = packet((int64_t{1} << 33) - 900, (int64_t{1} << 33) - 450);
    clock.demuxed(p);
    EXPECT_EQ(p.dts, -900 - 90000);
    EXPECT_EQ(p.pts, -450 - 90000);
    // the next packet is checked again (the correction applied), one in range is not moved
    AVPacket q = packet(180000, AV_NOPTS_VALUE);
    clock.demuxed(q);
    EXPECT_EQ(q.dts, 180000 - 90000);
    EXPECT_EQ(q.pts, AV_NOPTS_VALUE);
}

TEST(FfmpegClock, OverflowingTimestampsWrapAroundAsFfmpegsDo) {
    // A damaged file (found by fuzz_decode): 63 wrap bits and a start time of
    // -128 us. ffmpeg computes stime + 2^63 and stime + 2^62, the first of
    // which overflows; wrapped, 2^63 is INT64_MIN, stime2 = INT64_MAX - 127 >
    // stime, and 0 is not past stime + 2^62: the packet is only shifted by 128.
    Input in(-128, {1, AV_TIME_BASE}, 63);
    FfmpegClock clock(in.fmt, in.stream, in.dec);
    AVPacket p = packet(0, AV_NOPTS_VALUE);
    clock.demuxed(p);
    EXPECT_EQ(p.dts, 128);
    EXPECT_EQ(p.pts, AV_NOPTS_VALUE);

    // The shift itself overflowing: a start time of INT64_MIN + 1 shifts by
    // INT64_MAX, and a packet at 2 wraps to INT64_MIN + 1.
    Input far(std::numeric_limits<int64_t>::min() + 1, {1, AV_TIME_BASE}, 64);
    FfmpegClock far_clock(far.fmt, far.stream, far.dec);
    AVPacket r = packet(2, 2);
    far_clock.demuxed(r);
    EXPECT_EQ(r.dts, std::numeric_limits<int64_t>::min() + 1);
    EXPECT_EQ(r.pts, std::numeric_limits<int64_t>::min() + 1);
}

}  // namespace
}  // namespace speedqa::io::test
