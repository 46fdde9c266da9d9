// Pipes, FIFOs and standard input: the streaming reader.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "core/error.hpp"
#include "io/frame_pool.hpp"
#include "io/video_reader.hpp"
#include "io_test_util.hpp"

namespace speedqa::io {
namespace {

using test::error_of;
using test::make_frames;
using test::picture_matches;
using test::PipeFeeder;

TEST(Stream, Y4mThroughAPipe) {
    VideoFormat f{35, 19, PixelFormat::yuv420, 10};
    auto frames = make_frames(f, 5);
    PipeFeeder feeder(test::y4m_video(test::y4m_header(35, 19, "420p10"), frames, " Ip"));
    auto r = VideoReader::open(feeder.path(), std::nullopt);
    EXPECT_EQ(r->format(), f);
    EXPECT_EQ(r->frame_count(), -1);
    EXPECT_EQ(r->path(), feeder.path());
    for (size_t i = 0; i < frames.size(); i++) {
        FramePtr fr = r->next();
        ASSERT_TRUE(fr);
        EXPECT_EQ(fr->index, static_cast<int>(i));
        EXPECT_TRUE(picture_matches(f, fr->pic, frames[i])) << i;
    }
    EXPECT_EQ(r->next(), nullptr);
    EXPECT_EQ(r->next(), nullptr);
}

TEST(Stream, EveryColourSpace) {
    const std::pair<const char*, VideoFormat> cases[] = {
        {"420", {9, 7, PixelFormat::yuv420, 8}},     {"420jpeg", {9, 7, PixelFormat::yuv420, 8}},
        {"420mpeg2", {9, 7, PixelFormat::yuv420, 8}}, {"420paldv", {9, 7, PixelFormat::yuv420, 8}},
        {"420p12", {9, 7, PixelFormat::yuv420, 12}}, {"420p16", {9, 7, PixelFormat::yuv420, 16}},
        {"422", {9, 7, PixelFormat::yuv422, 8}},     {"422p10", {9, 7, PixelFormat::yuv422, 10}},
        {"422p12", {9, 7, PixelFormat::yuv422, 12}}, {"422p16", {9, 7, PixelFormat::yuv422, 16}},
        {"444", {9, 7, PixelFormat::yuv444, 8}},     {"444p10", {9, 7, PixelFormat::yuv444, 10}},
        {"444p12", {9, 7, PixelFormat::yuv444, 12}}, {"444p16", {9, 7, PixelFormat::yuv444, 16}},
        {"mono", {9, 7, PixelFormat::yuv400, 8}},    {"mono10", {9, 7, PixelFormat::yuv400, 10}},
        {"mono12", {9, 7, PixelFormat::yuv400, 12}}, {"mono16", {9, 7, PixelFormat::yuv400, 16}},
    };
    for (const auto& [tag, f] : cases) {
        SCOPED_TRACE(tag);
        auto frames = make_frames(f, 2, 3);
        PipeFeeder feeder(test::y4m_video(test::y4m_header(9, 7, tag), frames));
        auto r = VideoReader::open(feeder.path(), std::nullopt);
        EXPECT_EQ(r->format(), f);
        for (const std::string& expected : frames) {
            FramePtr fr = r->next();
            ASSERT_TRUE(fr);
            EXPECT_TRUE(picture_matches(f, fr->pic, expected));
        }
        EXPECT_EQ(r->next(), nullptr);
    }
}

TEST(Stream, TruncatedLastFrame) {
    VideoFormat f{10, 6, PixelFormat::yuv420, 8};  // 90 bytes a frame
    auto frames = make_frames(f, 3);
    std::string video = test::y4m_video("YUV4MPEG2 W10 H6", frames);
    PipeFeeder feeder(video.substr(0, video.size() - 80));
    auto r = VideoReader::open(feeder.path(), std::nullopt);
    ASSERT_TRUE(r->next());
    ASSERT_TRUE(r->next());
    EXPECT_EQ(error_of([&] { r->next(); }), feeder.path() + ": frame 2 is truncated (got 10 of 90 bytes)");
    EXPECT_EQ(r->next(), nullptr);  // nothing more after a damaged frame
}

TEST(Stream, DamagedFrameHeaders) {
    VideoFormat f{10, 6, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 1);
    const std::string head = test::y4m_video("YUV4MPEG2 W10 H6", frames);
    const std::pair<std::string, std::string> cases[] = {
        {"FRA", ": frame 1 is truncated (the input ends inside its FRAME header)"},
        {"FRAME Ip", ": frame 1 is truncated (the input ends inside its FRAME header)"},
        {"FRAME\n", ": frame 1 is truncated (got 0 of 90 bytes)"},
        {"GARBAGE\nxx", ": frame 1: expected a FRAME header, found \"GARBAGE\""},
        {"FRAMf", ": frame 1: expected a FRAME header, found \"FRAMf\""},
        {"FRAME" + std::string(5000, 'x'), ": frame 1: FRAME header longer than 4096 bytes"},
    };
    for (const auto& [tail, message] : cases) {
        PipeFeeder feeder(head + tail);
        auto r = VideoReader::open(feeder.path(), std::nullopt);
        ASSERT_TRUE(r->next());
        EXPECT_EQ(error_of([&] { r->next(); }), feeder.path() + message);
    }
}

TEST(Stream, HeaderProblems) {
    {
        PipeFeeder feeder("");
        EXPECT_EQ(error_of([&] { VideoReader::open(feeder.path(), std::nullopt); }),
                  feeder.path() +
                      ": not a y4m file (it does not start with YUV4MPEG2); for raw .yuv input pass -w -h -p -b");
    }
    {
        PipeFeeder feeder("YUV4MPEG2 W8 H8");
        EXPECT_EQ(error_of([&] { VideoReader::open(feeder.path(), std::nullopt); }),
                  feeder.path() + ": malformed y4m header: the input ends inside it");
    }
    {
        PipeFeeder feeder("YUV4MPEG2 W8 H8 " + std::string(6000, 'X'));
        EXPECT_EQ(error_of([&] { VideoReader::open(feeder.path(), std::nullopt); }),
                  feeder.path() + ": malformed y4m header: longer than 4096 bytes");
    }
    {
        PipeFeeder feeder("YUV4MPEG2 W8 H8 It\n");
        EXPECT_NE(error_of([&] { VideoReader::open(feeder.path(), std::nullopt); }).find("interlaced"),
                  std::string::npos);
    }
}

TEST(Stream, BuffersAreRecycled) {
    VideoFormat f{64, 32, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 6);
    std::vector<std::string> many;
    for (int i = 0; i < 60; i++) many.push_back(frames[static_cast<size_t>(i) % frames.size()]);
    PipeFeeder feeder(test::y4m_video("YUV4MPEG2 W64 H32", many));
    auto r = VideoReader::open(feeder.path(), std::nullopt);
    std::set<const uint8_t*> buffers;
    std::vector<FramePtr> batch;  // batches of 12 frames in flight, like the CLI's
    int n = 0;
    while (FramePtr fr = r->next()) {
        EXPECT_TRUE(picture_matches(f, fr->pic, many[static_cast<size_t>(n)]));
        buffers.insert(fr->pic.plane[0]);
        batch.push_back(fr);
        if (batch.size() == 12) batch.clear();
        n++;
    }
    EXPECT_EQ(n, 60);
    EXPECT_EQ(buffers.size(), 12u);  // one batch's worth, reused for the other four
}

TEST(Stream, FramesOutliveTheReaderAndMoveAcrossThreads) {
    VideoFormat f{16, 16, PixelFormat::yuv444, 12};
    auto frames = make_frames(f, 8);
    std::vector<FramePtr> kept;
    {
        PipeFeeder feeder(test::y4m_video("YUV4MPEG2 W16 H16 C444p12", frames));
        auto r = VideoReader::open(feeder.path(), std::nullopt);
        while (FramePtr fr = r->next()) kept.push_back(fr);
    }
    ASSERT_EQ(kept.size(), frames.size());
    for (size_t i = 0; i < kept.size(); i++) EXPECT_TRUE(picture_matches(f, kept[i]->pic, frames[i]));
    std::thread release([k = std::move(kept)]() mutable { k.clear(); });  // buffers go back from another thread
    release.join();
}

TEST(FramePool, RecyclesAndOutlivesItsOwner) {
    VideoFormat f{4, 2, PixelFormat::yuv420, 8};
    std::vector<FramePtr> frames;
    {
        auto pool = FramePool::create(f.frame_bytes(), "test");
        for (int i = 0; i < 3; i++) frames.push_back(pool->publish(pool->take(), f, i));
        EXPECT_EQ(pool->allocated(), 3u);
        EXPECT_EQ(pool->idle(), 0u);
        EXPECT_EQ(frames[2]->index, 2);
        EXPECT_EQ(frames[1]->pic.plane[1], frames[1]->pic.plane[0] + 8);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(frames[0]->pic.plane[0]) % 64, 0u);
        std::thread([&] { frames.pop_back(); }).join();
        EXPECT_EQ(pool->idle(), 1u);
        FramePtr again = pool->publish(pool->take(), f, 3);
        EXPECT_EQ(pool->allocated(), 3u);  // the returned buffer, not a new one
    }
    frames.clear();  // the pool is gone from here but lives on in its frames until now
}

TEST(Stream, RawThroughAFifo) {
    test::TempDir dir;
    std::string fifo = dir.file("raw.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    VideoFormat f{12, 10, PixelFormat::yuv422, 16};
    auto frames = make_frames(f, 4);
    for (bool truncated : {false, true}) {
        std::string bytes = test::raw_video(frames);
        if (truncated) bytes.resize(bytes.size() - 7);
        std::thread writer([&] { test::write_file(fifo, bytes); });
        {
            auto r = VideoReader::open(fifo, RawParams{12, 10, PixelFormat::yuv422, 16});
            EXPECT_EQ(r->frame_count(), -1);
            for (size_t i = 0; i + (truncated ? 1 : 0) < frames.size(); i++) {
                FramePtr fr = r->next();
                ASSERT_TRUE(fr);
                EXPECT_TRUE(picture_matches(f, fr->pic, frames[i]));
            }
            if (truncated)
                EXPECT_EQ(error_of([&] { r->next(); }),
                          fifo + ": frame 3 is truncated (got " + std::to_string(f.frame_bytes() - 7) + " of " +
                              std::to_string(f.frame_bytes()) + " bytes)");
            else
                EXPECT_EQ(r->next(), nullptr);
        }
        writer.join();
    }
}

TEST(Stream, StandardInput) {
    VideoFormat f{8, 6, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 3);
    PipeFeeder feeder(test::y4m_video("YUV4MPEG2 W8 H6 C420jpeg", frames));
    int saved = ::dup(STDIN_FILENO);
    int in = ::open(feeder.path().c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    ASSERT_EQ(::dup2(in, STDIN_FILENO), STDIN_FILENO);
    ::close(in);
    {
        auto r = VideoReader::open("-", std::nullopt);
        EXPECT_EQ(r->path(), "-");
        EXPECT_EQ(r->frame_count(), -1);
        for (const std::string& expected : frames) {
            FramePtr fr = r->next();
            ASSERT_TRUE(fr);
            EXPECT_TRUE(picture_matches(f, fr->pic, expected));
        }
        EXPECT_EQ(r->next(), nullptr);
    }
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
}

// Standard input is read like a FIFO: y4m by its signature (and -w -h -p -b,
// when given, must agree with its header), anything else as raw video.
TEST(Stream, StandardInputRawOrY4mWithRawParams) {
    const VideoFormat f{8, 6, PixelFormat::yuv420, 8};
    const RawParams params{8, 6, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 3);
    for (const std::string& bytes : {test::raw_video(frames), test::y4m_video("YUV4MPEG2 W8 H6 C420jpeg", frames)}) {
        PipeFeeder feeder(bytes);
        const int saved = ::dup(STDIN_FILENO);
        const int in = ::open(feeder.path().c_str(), O_RDONLY);
        ASSERT_GE(in, 0);
        ASSERT_EQ(::dup2(in, STDIN_FILENO), STDIN_FILENO);
        ::close(in);
        {
            auto r = VideoReader::open("-", params);
            EXPECT_EQ(r->format(), f);
            for (const std::string& expected : frames) {
                FramePtr fr = r->next();
                ASSERT_TRUE(fr);
                EXPECT_TRUE(picture_matches(f, fr->pic, expected));
            }
            EXPECT_EQ(r->next(), nullptr);
        }
        ::dup2(saved, STDIN_FILENO);
        ::close(saved);
        feeder.join();
    }
}

TEST(Stream, Y4mThroughAPipeWithContradictingRawParams) {
    PipeFeeder feeder(test::y4m_video("YUV4MPEG2 W8 H6 C444", make_frames({8, 6, PixelFormat::yuv444, 8}, 2)));
    EXPECT_EQ(error_of([&] { VideoReader::open(feeder.path(), RawParams{8, 6, PixelFormat::yuv420, 8}); }),
              feeder.path() + ": the y4m header says 8x6 444 8-bit but -w -h -p -b say 8x6 420 8-bit");
    feeder.join();
}

}  // namespace
}  // namespace speedqa::io
