// The decoded reader against its oracle, the `ffmpeg` command: every frame
// of every test encode equals, byte for byte and in number, what
// `ffmpeg -i FILE -strict -1 -f yuv4mpegpipe -` writes (8 to 16 bits, 4:2:0,
// 4:2:2, 4:4:4 and gray, odd sizes, B-frames, raw elementary streams,
// variable frame rates that the pipe repeats and drops frames of, video that
// starts after its audio); what the pipe cannot carry is refused by name.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "io/video_reader.hpp"
#include "io/y4m.hpp"
#include "io_test_util.hpp"
#include "support/command.hpp"

namespace speedqa::io::test {
namespace {

using speedqa::testing::ffmpeg;
using speedqa::testing::have_ffmpeg;
using speedqa::testing::slurp;

// A small test encode: `source` is a lavfi input, `options` the output's.
struct Encode {
    std::string file, source, options;
};

const std::string kSmall = "-f lavfi -i testsrc2=size=98x66:rate=25";  // even sizes (x264, x265)
const std::string kOdd = "-f lavfi -i testsrc=size=97x65:rate=25";      // odd sizes (lossless codecs)
const std::string kAudio = " -f lavfi -t 2.5 -i sine=sample_rate=48000";
const std::string kX265 = " -c:v libx265 -x265-params log-level=none";
const std::string kVfr = " -fps_mode passthrough -pix_fmt yuv420p -c:v libx264";

// The frames of a y4m stream (the header's format; frames without their
// FRAME lines).
struct Y4m {
    VideoFormat format;
    std::vector<std::string> frames;
};
Y4m parse_y4m(const std::string& bytes) {
    Y4m y;
    const size_t nl = bytes.find('\n');
    y.format = parse_y4m_header(std::string_view(bytes).substr(0, nl), "ffmpeg's output");
    const size_t size = y.format.frame_bytes();
    for (size_t at = nl + 1; at < bytes.size(); at += 6 + size) {
        EXPECT_EQ(bytes.compare(at, 6, "FRAME\n"), 0);
        y.frames.push_back(bytes.substr(at + 6, size));
    }
    return y;
}

class DecodedReader : public ::testing::Test {
protected:
    void SetUp() override {
        if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg command is not installed (Debian: apt-get install ffmpeg)";
    }
    std::string make(const Encode& e) {
        const std::string path = dir_.file(e.file);
        if (!ffmpeg(e.source + " " + e.options + " " + path)) {
            ADD_FAILURE() << "ffmpeg could not make " << e.file;
        }
        return path;
    }
    // Every frame of `path` as our reader gives it against `oracle`; returns
    // how many were compared.
    size_t compare(const std::string& path, const VideoFormat& format, const std::vector<std::string>& oracle) {
        SCOPED_TRACE(path);
        auto reader = VideoReader::open(path, std::nullopt);
        EXPECT_EQ(reader->format(), format) << reader->format().describe() << " vs " << format.describe();
        size_t n = 0;
        while (FramePtr f = reader->next()) {
            EXPECT_EQ(f->index, static_cast<int>(n));
            if (n < oracle.size()) {
                EXPECT_TRUE(picture_matches(format, f->pic, oracle[n])) << "frame " << n;
            }
            n++;
        }
        EXPECT_EQ(n, oracle.size());
        return n;
    }
    size_t compare_with_pipe(const std::string& path) {
        const std::string out = path + ".oracle.y4m";
        if (!ffmpeg("-i " + path + " -strict -1 -f yuv4mpegpipe " + out)) {
            ADD_FAILURE() << "ffmpeg could not decode " << path;
            return 0;
        }
        const Y4m y = parse_y4m(read_file(out));
        return compare(path, y.format, y.frames);
    }

    TempDir dir_;
};

TEST_F(DecodedReader, FramesEqualFfmpegsY4mPipe) {
    std::vector<Encode> encodes = {
        {"x264_420_bframes.mp4", kSmall, "-frames:v 30 -pix_fmt yuv420p -c:v libx264 -bf 3"},
        {"x264_420_10bit.mkv", kSmall, "-frames:v 30 -pix_fmt yuv420p10le -c:v libx264"},
        {"x265_422_10bit.mp4", kSmall, "-frames:v 30 -pix_fmt yuv422p10le" + kX265},
        {"x265_420_10bit.hevc", kSmall, "-frames:v 30 -pix_fmt yuv420p10le" + kX265},
        {"x264_ntsc.h264", "-f lavfi -i testsrc2=size=98x66:rate=30000/1001", "-frames:v 30 -pix_fmt yuv420p -c:v libx264 -bf 3"},
        {"ffv1_420_odd.nut", kOdd, "-frames:v 20 -pix_fmt yuv420p -c:v ffv1"},
        {"ffv1_444_odd.mkv", kOdd, "-frames:v 20 -pix_fmt yuv444p -c:v ffv1"},
        {"ffv1_444_12bit.mkv", kSmall, "-frames:v 20 -pix_fmt yuv444p12le -c:v ffv1"},
        {"ffv1_444_16bit.mkv", kSmall, "-frames:v 20 -pix_fmt yuv444p16le -c:v ffv1"},
        {"ffv1_gray_odd.mkv", kOdd, "-frames:v 20 -pix_fmt gray -c:v ffv1"},
        {"ffv1_gray10.mkv", kSmall, "-frames:v 20 -pix_fmt gray10le -c:v ffv1"},
        {"mjpeg_yuvj422.avi", kSmall, "-frames:v 20 -pix_fmt yuvj422p -c:v mjpeg"},
        {"vp9_444_10bit.webm", kSmall, "-frames:v 20 -pix_fmt yuv444p10le -c:v libvpx-vp9 -deadline realtime"},
        {"mpeg2_bframes.mpg", kSmall, "-frames:v 30 -pix_fmt yuv420p -c:v mpeg2video -bf 2"},
        // variable frame rates (timestamps kept as they are: -fps_mode passthrough): the
        // pipe repeats frames into gaps and drops crowded ones, tolerates jitter
        {"vfr_gaps.mkv", kSmall, "-frames:v 30 -vf setpts='(N+if(gte(N\\,10)\\,3\\,0)+if(gte(N\\,25)\\,(N-24)*2.6\\,0))/(25*TB)'" + kVfr},
        {"vfr_crowded.mp4", kSmall, "-frames:v 30 -vf setpts='(N-if(gte(N\\,10)\\,min(N-10\\,10)*0.5\\,0))/(25*TB)'" + kVfr + " -video_track_timescale 1000"},
        {"vfr_jitter.mp4", kSmall, "-frames:v 30 -vf setpts='(N+0.45*sin(N*1.3))/(25*TB)'" + kVfr + " -bf 2 -video_track_timescale 1000"},
        {"vfr_random.mkv", kSmall, "-frames:v 30 -vf setpts='(N*1.3+1.7*random(1))/(25*TB)'" + kVfr + " -bf 3"},
        {"vfr_accelerating.mkv", kSmall, "-frames:v 30 -vf setpts='N*N/10/(25*TB)' -fps_mode passthrough -pix_fmt yuv420p10le" + kX265},
        // video after the start of the file: filled from 0 when there is audio, not when alone
        {"late_with_audio.mp4", kSmall + kAudio, "-frames:v 30 -vf setpts='(N+7.3)/(25*TB)' -pix_fmt yuv420p -c:v libx264 -c:a aac"},
        {"late_alone.mkv", kSmall, "-frames:v 30 -vf setpts='(N+7.3)/(25*TB)' -pix_fmt yuv420p -c:v libx264"},
    };
    // audio half a second before the video: MPEG-TS (timestamp discontinuities
    // allowed) starts at the video for ffmpeg, Matroska at the audio (repeats)
    const std::string video = make({"video.mkv", kSmall, "-frames:v 30 -pix_fmt yuv420p -c:v libx264 -bf 2"});
    const std::string tone = make({"tone.mka", "-f lavfi -i sine=sample_rate=48000:d=2.5", "-c:a mp2"});
    for (const char* file : {"audio_first.ts", "audio_first.mkv"})
        encodes.push_back({file, "-itsoffset 0.5 -i " + video + " -i " + tone, "-map 0:v -map 1:a -c copy"});
    size_t frames = 0;
    for (const Encode& e : encodes) frames += compare_with_pipe(make(e));
    std::printf("[decode] %zu encodes, %zu frames identical to ffmpeg's yuv4mpegpipe output\n", encodes.size(), frames);
}

// FFmpeg 5.1's y4m muxer writes the chroma rows of an odd width above 8
// bits a byte short (it rounds bytes, not samples), so its pipe cannot carry
// them; the decoded frames equal its raw video output instead.
TEST_F(DecodedReader, OddWidthAboveEightBitsEqualsFfmpegsRawVideo) {
    const std::string path = make({"ffv1_422_10bit_odd.mkv", kOdd, "-frames:v 20 -pix_fmt yuv422p10le -c:v ffv1"});
    const std::string raw = path + ".yuv";
    ASSERT_TRUE(ffmpeg("-i " + path + " -f rawvideo " + raw));
    const VideoFormat f{97, 65, PixelFormat::yuv422, 10};
    const std::string bytes = read_file(raw);
    ASSERT_EQ(bytes.size() % f.frame_bytes(), 0u);
    std::vector<std::string> frames;
    for (size_t at = 0; at < bytes.size(); at += f.frame_bytes()) frames.push_back(bytes.substr(at, f.frame_bytes()));
    EXPECT_EQ(compare(path, f, frames), 20u);
}

// An mp4 whose track header asks for a quarter turn (ffmpeg's own muxer
// writes none): the matrix of its tkhd box, patched.
std::string rotated(std::string mp4) {
    const size_t tkhd = mp4.find("tkhd");
    if (tkhd == std::string::npos) return "";
    const size_t matrix = tkhd - 4 + 48;  // size, type, version and flags, times, id, duration, layer, volume
    const uint32_t quarter_turn[9] = {0, 0x10000, 0, 0xffff0000u, 0, 0, 0, 0, 0x40000000};
    for (int i = 0; i < 9; i++)
        for (int b = 0; b < 4; b++) mp4[matrix + 4 * i + b] = static_cast<char>(quarter_turn[i] >> (24 - 8 * b));
    return mp4;
}

TEST_F(DecodedReader, RefusesWhatThePipeCannotCarryByName) {
    struct Bad {
        Encode encode;
        std::string expect;
    };
    const std::vector<Bad> cases = {
        {{"yuv411.mkv", kSmall, "-frames:v 5 -pix_fmt yuv411p -c:v ffv1"}, "pixel format yuv411p is not supported"},
        {{"yuv440.mkv", kSmall, "-frames:v 5 -pix_fmt yuv440p -c:v ffv1"}, "pixel format yuv440p is not supported"},
        {{"yuv420p9.mkv", kSmall, "-frames:v 5 -pix_fmt yuv420p9le -c:v ffv1"}, "pixel format yuv420p9le is not supported"},
        {{"rgb.mkv", kSmall, "-frames:v 5 -pix_fmt rgb24 -c:v libx264rgb"}, "pixel format gbrp is not supported"},
        {{"alpha.mkv", kSmall, "-frames:v 5 -pix_fmt yuva420p -c:v ffv1"}, "pixel format yuva420p is not supported"},
        {{"interlaced.mpg", kSmall, "-frames:v 5 -vf setfield=tff -pix_fmt yuv420p -c:v mpeg2video -flags +ildct+ilme"},
         "interlaced video"},
        {{"audio.wav", "-f lavfi -i sine=d=0.2", ""}, "has no video stream"},
    };
    for (const Bad& c : cases) {
        const std::string path = make(c.encode);
        EXPECT_NE(error_of([&] { VideoReader::open(path, std::nullopt); }).find(path + ": " + c.expect), std::string::npos)
            << c.encode.file << ": " << error_of([&] { VideoReader::open(path, std::nullopt); });
    }

    // a size change mid-stream: two raw H.264 streams one after the other
    const std::string a = make({"a.h264", kSmall, "-frames:v 4 -pix_fmt yuv420p -c:v libx264"});
    const std::string b = make({"b.h264", "-f lavfi -i testsrc2=size=64x48:rate=25", "-frames:v 4 -pix_fmt yuv420p -c:v libx264"});
    write_file(dir_.file("ab.h264"), read_file(a) + read_file(b));
    EXPECT_NE(error_of([&] {
                  auto r = VideoReader::open(dir_.file("ab.h264"), std::nullopt);
                  while (r->next()) {
                  }
              }).find("picture 4 is 64x48 yuv420p, but the video started as 98x66 yuv420p"),
              std::string::npos);

    // a rotated mp4: ffmpeg turns it (its pipe is 66x98), we refuse
    const std::string plain = make({"plain.mp4", kSmall, "-frames:v 4 -pix_fmt yuv420p -c:v libx264"});
    const std::string turned = dir_.file("turned.mp4");
    write_file(turned, rotated(read_file(plain)));
    ASSERT_TRUE(ffmpeg("-i " + turned + " -f yuv4mpegpipe " + turned + ".y4m"));
    EXPECT_EQ(read_file(turned + ".y4m").rfind("YUV4MPEG2 W66 H98 ", 0), 0u);
    EXPECT_NE(error_of([&] { VideoReader::open(turned, std::nullopt); }).find("turned by 90 degrees"), std::string::npos)
        << error_of([&] { VideoReader::open(turned, std::nullopt); });

    // neither y4m nor anything libavformat knows
    write_file(dir_.file("noise.mp4"), pattern(5000, 7));
    EXPECT_NE(error_of([&] { VideoReader::open(dir_.file("noise.mp4"), std::nullopt); })
                  .find("noise.mp4: neither y4m nor a file libavformat can read"),
              std::string::npos);
}

}  // namespace
}  // namespace speedqa::io::test
