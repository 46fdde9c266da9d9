// The y4m header parser, and a little fuzzing of both readers with damaged
// files: every outcome must be frames or a speedqa::Error, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "io/video_reader.hpp"
#include "io/y4m.hpp"
#include "io_test_util.hpp"

namespace speedqa::io {
namespace {

using test::error_of;

VideoFormat parse(const std::string& line) { return parse_y4m_header(line, "in.y4m"); }
std::string parse_error(const std::string& line) {
    return error_of([&] { parse(line); });
}

TEST(Y4mHeader, Tags) {
    VideoFormat f = parse("YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420p10 XYSCSS=420P10");
    EXPECT_EQ(f, (VideoFormat{576, 324, PixelFormat::yuv420, 10}));
    // Order, repeated spaces, unknown and repeated tags (the last one wins).
    f = parse("YUV4MPEG2  C444  H2 Zfoo W3 W4 F30000:1001 A0:0 I?  ");
    EXPECT_EQ(f, (VideoFormat{4, 2, PixelFormat::yuv444, 8}));
    EXPECT_EQ(parse("YUV4MPEG2 W1 H1"), (VideoFormat{1, 1, PixelFormat::yuv420, 8}));
    EXPECT_EQ(parse("YUV4MPEG2 W1 H1 Cmono12"), (VideoFormat{1, 1, PixelFormat::yuv400, 12}));
}

TEST(Y4mHeader, Interlaced) {
    for (const char* i : {"It", "Ib", "Im", "Imixed"})
        EXPECT_EQ(parse_error(std::string("YUV4MPEG2 W8 H8 ") + i),
                  std::string("in.y4m: interlaced y4m (") + i + ") is not supported; only progressive (Ip) video is");
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 Ix"),
              "in.y4m: malformed y4m header: unknown interlacing tag Ix (expected Ip, It, Ib, Im or I?)");
    EXPECT_NE(parse_error("YUV4MPEG2 W8 H8 I"), "");
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 Ip"), "");
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 I?"), "");
}

TEST(Y4mHeader, UnsupportedColourSpaces) {
    const std::string list =
        " (supported: 420, 420jpeg, 420mpeg2, 420paldv, 420p10, 420p12, 420p16, 422, 422p10, 422p12, 422p16, "
        "444, 444p10, 444p12, 444p16, mono, mono10, mono12, mono16)";
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 C411"), "in.y4m: unsupported y4m colour space C411" + list);
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 C444alpha"), "in.y4m: unsupported y4m colour space C444alpha" + list);
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 C"), "in.y4m: unsupported y4m colour space C" + list);
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H8 C420\r"), "in.y4m: unsupported y4m colour space C420?" + list);
}

TEST(Y4mHeader, Malformed) {
    EXPECT_EQ(parse_error("YUV4MPEG2 H8"), "in.y4m: malformed y4m header: no W (width) tag");
    EXPECT_EQ(parse_error("YUV4MPEG2 W8"), "in.y4m: malformed y4m header: no H (height) tag");
    EXPECT_EQ(parse_error("YUV4MPEG2"), "in.y4m: malformed y4m header: no W (width) tag");
    EXPECT_EQ(parse_error("YUV4MPEG2 Wabc H8"), "in.y4m: malformed y4m header: bad width tag Wabc");
    EXPECT_EQ(parse_error("YUV4MPEG2 W H8"), "in.y4m: malformed y4m header: bad width tag W");
    EXPECT_EQ(parse_error("YUV4MPEG2 W-8 H8"), "in.y4m: malformed y4m header: bad width tag W-8");
    EXPECT_EQ(parse_error("YUV4MPEG2 W8 H99999999999"), "in.y4m: malformed y4m header: bad height tag H99999999999");
    EXPECT_EQ(parse_error("YUV4MPEG2 W0 H8"), "in.y4m: width and height must be positive (got 0x8)");
    EXPECT_EQ(parse_error("YUV4MPEG2 W2000000 H8"),
              "in.y4m: frame size 2000000x8 is too large (at most 1048576 a side and 2147483647 pixels)");
    EXPECT_NE(parse_error("YUV4MPEG2 W65536 H65536"), "");
    EXPECT_EQ(parse_error("YUV4MPEG2X W8 H8"),
              "in.y4m: malformed y4m header: unexpected \"YUV4MPEG2X W8 H8\" where \"YUV4MPEG2 \" was expected");
    EXPECT_NE(parse_error("YUV4MPEG W8 H8"), "");
}

TEST(Y4mHeader, OverlongHeader) {
    test::TempDir dir;
    std::string path = dir.file("v.y4m");
    test::write_file(path, "YUV4MPEG2 W8 H8 X" + std::string(5000, 'a') + "\n");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": malformed y4m header: longer than 4096 bytes");
    test::write_file(path, "YUV4MPEG2 W8 H8");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": malformed y4m header: the file ends inside it");
}

TEST(Y4mHeader, MessagesStayOnOneLine) {
    std::string e = parse_error(std::string("YUV4MPEG2 W8 H8 C\x01\x7f\xff") + std::string(100, 'z'));
    EXPECT_EQ(e.find_first_of("\n\r\x01\x7f"), std::string::npos) << e;
    EXPECT_LT(e.size(), 400u);
}

// Damaged copies of a small valid y4m: random byte changes, cuts and
// insertions. Opening and reading must give frames or an Error.
TEST(Y4mFuzz, DamagedFilesNeverCrash) {
    test::TempDir dir;
    VideoFormat f{6, 4, PixelFormat::yuv420, 10};
    const std::string good = test::y4m_video("YUV4MPEG2 W6 H4 F25:1 Ip C420p10", test::make_frames(f, 3));
    std::mt19937 rng(1234);
    int opened = 0, failed = 0;
    for (int iter = 0; iter < 300; iter++) {
        std::string bad = good;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = rng() % (bad.size() + 1);
            switch (rng() % 4) {
            case 0:
                if (at < bad.size()) bad[at] = static_cast<char>(rng());
                break;
            case 1: bad.resize(at); break;
            case 2: bad.insert(at, 1, "\n FRAMEWHC0123456789"[rng() % 20]); break;
            case 3: bad.insert(at, std::string(rng() % 40, static_cast<char>(rng()))); break;
            }
        }
        std::string path = dir.file("f.y4m");
        test::write_file(path, bad);
        for (bool pipe : {false, true}) {
            if (pipe && iter % 3 != 0) continue;  // threads are slow on a busy machine
            try {
                std::optional<test::PipeFeeder> feeder;
                if (pipe) feeder.emplace(bad);
                auto r = VideoReader::open(pipe ? feeder->path() : path, std::nullopt);
                ASSERT_GT(r->format().frame_bytes(), 0u);
                int n = 0;
                while (FramePtr fr = r->next()) {
                    ASSERT_EQ(fr->index, n);
                    // Both ends of the frame are readable (planes are contiguous).
                    volatile uint8_t first = fr->pic.plane[0][0];
                    volatile uint8_t last = fr->pic.plane[0][r->format().frame_bytes() - 1];
                    (void)first;
                    (void)last;
                    n++;
                }
                if (!pipe) {
                    EXPECT_EQ(n, r->frame_count());
                }
                opened++;
            } catch (const speedqa::Error& e) {
                std::string m = e.what();
                EXPECT_EQ(m.find('\n'), std::string::npos) << m;
                failed++;
            }
        }
    }
    EXPECT_GT(opened, 0);
    EXPECT_GT(failed, 0);
}

// Random header lines straight into the parser.
TEST(Y4mFuzz, RandomHeaderLines) {
    std::mt19937 rng(99);
    const std::string alphabet = "YUV4MPEG2 WHFIACX0123456789:pmtb?-jpegmonoalph\r\t\x01\xff";
    for (int iter = 0; iter < 3000; iter++) {
        std::string line = iter % 2 ? "YUV4MPEG2 " : "";
        size_t n = rng() % 40;
        for (size_t i = 0; i < n; i++) line += alphabet[rng() % alphabet.size()];
        try {
            VideoFormat f = parse(line);
            EXPECT_GT(f.width, 0);
            EXPECT_GT(f.height, 0);
        } catch (const speedqa::Error&) {
        }
    }
}

}  // namespace
}  // namespace speedqa::io
