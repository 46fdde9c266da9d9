// Regular files: raw .yuv and y4m through the memory-mapped reader.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "core/truncation_guard.hpp"
#include "io/mapped_file.hpp"
#include "io/video_reader.hpp"
#include "io_test_util.hpp"

namespace speedqa::io {
namespace {

using test::error_of;
using test::make_frames;
using test::picture_matches;
using test::TempDir;
using test::write_file;

RawParams raw_of(const VideoFormat& f) { return RawParams{f.width, f.height, f.pix, f.bitdepth}; }

// Reads every frame and checks each against `frames`.
void expect_frames(VideoReader& r, const std::vector<std::string>& frames) {
    for (size_t i = 0; i < frames.size(); i++) {
        FramePtr f = r.next();
        ASSERT_TRUE(f) << "frame " << i;
        EXPECT_EQ(f->index, static_cast<int>(i));
        EXPECT_TRUE(picture_matches(r.format(), f->pic, frames[i])) << "frame " << i;
    }
    EXPECT_EQ(r.next(), nullptr);
    EXPECT_EQ(r.next(), nullptr);  // and stays at the end
}

TEST(RawFile, EveryLayoutAndDepth) {
    TempDir dir;
    for (PixelFormat pix : {PixelFormat::yuv400, PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444}) {
        for (int depth : {8, 10, 12, 16}) {
            VideoFormat f{33, 17, pix, depth};  // odd sizes: chroma rounds up
            auto frames = make_frames(f, 3, static_cast<uint32_t>(depth));
            std::string path = dir.file("v.yuv");
            write_file(path, test::raw_video(frames));
            auto r = VideoReader::open(path, raw_of(f));
            SCOPED_TRACE(f.describe());
            EXPECT_EQ(r->format(), f);
            EXPECT_EQ(r->frame_count(), 3);
            EXPECT_EQ(r->path(), path);
            expect_frames(*r, frames);
        }
    }
}

TEST(RawFile, FramesPointIntoTheMapping) {
    TempDir dir;
    VideoFormat f{16, 8, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 2);
    write_file(dir.file("v.yuv"), test::raw_video(frames));
    auto r = VideoReader::open(dir.file("v.yuv"), raw_of(f));
    FramePtr a = r->next(), b = r->next();
    ASSERT_TRUE(a && b);
    EXPECT_TRUE(a->storage);  // the mapping
    EXPECT_EQ(b->pic.plane[0], a->pic.plane[0] + f.frame_bytes());
    EXPECT_EQ(a->pic.plane[1], a->pic.plane[0] + 16 * 8);
}

// A mapped frame names its file and where each plane lies there (the CPU
// engine preads them): the bytes at those offsets are the picture's.
void expect_planes_in_file(const VideoFormat& f, const Picture& pic) {
    ASSERT_GE(pic.fd, 0);
    for (int p = 0; p < f.plane_count(); p++) {
        std::string bytes(f.plane_bytes(p), '\0');
        ASSERT_EQ(::pread(pic.fd, bytes.data(), bytes.size(), static_cast<off_t>(pic.file_offset[p])),
                  static_cast<ssize_t>(bytes.size()));
        EXPECT_EQ(std::memcmp(bytes.data(), pic.plane[p], bytes.size()), 0) << "plane " << p;
        EXPECT_EQ(pic.stride[p], static_cast<ptrdiff_t>(f.stored_w(p)) * f.bytes_per_sample());
    }
}

TEST(RawFile, FramesNameTheirPlanesInTheFile) {
    TempDir dir;
    for (PixelFormat pix : {PixelFormat::yuv400, PixelFormat::yuv422}) {
        VideoFormat f{33, 17, pix, 10};
        auto frames = make_frames(f, 3);
        write_file(dir.file("v.yuv"), test::raw_video(frames));
        auto r = VideoReader::open(dir.file("v.yuv"), raw_of(f));
        for (int i = 0; i < 3; i++) {
            FramePtr a = r->next();
            ASSERT_TRUE(a);
            expect_planes_in_file(f, a->pic);
            EXPECT_EQ(a->pic.file_offset[0], static_cast<long long>(f.frame_bytes()) * i);
        }
    }
    // y4m: after the headers; a frame copied to align its wide samples names no file
    VideoFormat f{6, 4, PixelFormat::yuv420, 10};
    auto frames = make_frames(f, 2);
    write_file(dir.file("even.y4m"), test::y4m_video("YUV4MPEG2 W6 H4 C420p10", frames));
    auto even = VideoReader::open(dir.file("even.y4m"), std::nullopt);
    for (int i = 0; i < 2; i++) expect_planes_in_file(f, even->next()->pic);
    write_file(dir.file("odd.y4m"), test::y4m_video("YUV4MPEG2 W6 H4 C420p10 Xa", frames));
    auto odd = VideoReader::open(dir.file("odd.y4m"), std::nullopt);
    EXPECT_EQ(odd->next()->pic.fd, -1);
}

TEST(RawFile, SizeNotAWholeNumberOfFrames) {
    TempDir dir;
    VideoFormat f{576, 324, PixelFormat::yuv420, 8};  // 279936 bytes a frame
    std::string path = dir.file("clip.yuv");
    write_file(path, std::string(279936 * 2 + 1000, 'x'));
    EXPECT_EQ(error_of([&] { VideoReader::open(path, raw_of(f)); }),
              path + ": size 560872 bytes is not a whole number of 576x324 420 8-bit frames (279936 bytes each)");
}

TEST(RawFile, EmptyFileHasNoFrames) {
    TempDir dir;
    write_file(dir.file("e.yuv"), "");
    auto r = VideoReader::open(dir.file("e.yuv"), RawParams{8, 8, PixelFormat::yuv420, 8});
    EXPECT_EQ(r->frame_count(), 0);
    EXPECT_EQ(r->next(), nullptr);
}

TEST(RawFile, BadParameters) {
    TempDir dir;
    std::string path = dir.file("v.yuv");
    write_file(path, std::string(96, 'x'));
    EXPECT_EQ(error_of([&] { VideoReader::open(path, RawParams{0, 8, PixelFormat::yuv420, 8}); }),
              path + ": width and height must be positive (got 0x8)");
    EXPECT_NE(error_of([&] { VideoReader::open(path, RawParams{8, -2, PixelFormat::yuv420, 8}); }), "");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, RawParams{8, 8, PixelFormat::yuv420, 9}); }),
              path + ": unsupported bit depth 9 (expected 8, 10, 12 or 16)");
    EXPECT_NE(error_of([&] { VideoReader::open(path, RawParams{8, 1 << 21, PixelFormat::yuv420, 8}); }), "");
    EXPECT_NE(error_of([&] { VideoReader::open(path, RawParams{65536, 65536, PixelFormat::yuv444, 16}); }), "");
}

// vmaf reads a y4m file given with -w -h -p -b as raw, its header bytes as
// pixels; speedqa reads it as y4m, and refuses flags that contradict it.
TEST(Y4mFile, ReadAsY4mWithAgreeingRawParams) {
    TempDir dir;
    VideoFormat f{8, 6, PixelFormat::yuv420, 10};
    auto frames = make_frames(f, 3);
    write_file(dir.file("v.y4m"), test::y4m_video(test::y4m_header(8, 6, "420p10"), frames));
    auto r = VideoReader::open(dir.file("v.y4m"), raw_of(f));
    EXPECT_EQ(r->format(), f);
    EXPECT_EQ(r->frame_count(), 3);
    expect_frames(*r, frames);
}

TEST(Y4mFile, ContradictingRawParamsAreRefused) {
    TempDir dir;
    const std::string path = dir.file("v.y4m");
    write_file(path, test::y4m_video(test::y4m_header(8, 6, "420p10"), make_frames({8, 6, PixelFormat::yuv420, 10}, 2)));
    const std::string says = path + ": the y4m header says 8x6 420 10-bit but -w -h -p -b say ";
    EXPECT_EQ(error_of([&] { VideoReader::open(path, RawParams{8, 6, PixelFormat::yuv420, 8}); }), says + "8x6 420 8-bit");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, RawParams{6, 8, PixelFormat::yuv420, 10}); }), says + "6x8 420 10-bit");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, RawParams{8, 6, PixelFormat::yuv444, 10}); }), says + "8x6 444 10-bit");
}

TEST(OpenErrors, MissingFileAndDirectory) {
    TempDir dir;
    std::string missing = dir.file("nope.y4m");
    EXPECT_EQ(error_of([&] { VideoReader::open(missing, std::nullopt); }),
              missing + ": cannot open: No such file or directory");
    EXPECT_EQ(error_of([&] { VideoReader::open(dir.path(), std::nullopt); }),
              dir.path() + ": is a directory, not a video file");
    EXPECT_EQ(error_of([&] { VideoReader::open("", std::nullopt); }), "the input path is empty");
}

TEST(OpenErrors, NotY4mWithoutRawParams) {
    TempDir dir;
    std::string path = dir.file("v.yuv");
    write_file(path, std::string(1000, '\x10'));
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": not a y4m file (it does not start with YUV4MPEG2); for raw .yuv input pass -w -h -p -b");
    write_file(path, "");
    EXPECT_NE(error_of([&] { VideoReader::open(path, std::nullopt); }).find("pass -w -h -p -b"), std::string::npos);
    write_file(path, "YUV4MPEG");
    EXPECT_NE(error_of([&] { VideoReader::open(path, std::nullopt); }).find("not a y4m file"), std::string::npos);
}

struct TagCase {
    const char* tag;
    PixelFormat pix;
    int depth;
};
const TagCase kTags[] = {
    {"420", PixelFormat::yuv420, 8},      {"420jpeg", PixelFormat::yuv420, 8},
    {"420mpeg2", PixelFormat::yuv420, 8}, {"420paldv", PixelFormat::yuv420, 8},
    {"420p10", PixelFormat::yuv420, 10},  {"420p12", PixelFormat::yuv420, 12},
    {"420p16", PixelFormat::yuv420, 16},  {"422", PixelFormat::yuv422, 8},
    {"422p10", PixelFormat::yuv422, 10},  {"422p12", PixelFormat::yuv422, 12},
    {"422p16", PixelFormat::yuv422, 16},  {"444", PixelFormat::yuv444, 8},
    {"444p10", PixelFormat::yuv444, 10},  {"444p12", PixelFormat::yuv444, 12},
    {"444p16", PixelFormat::yuv444, 16},  {"mono", PixelFormat::yuv400, 8},
    {"mono10", PixelFormat::yuv400, 10},  {"mono12", PixelFormat::yuv400, 12},
    {"mono16", PixelFormat::yuv400, 16},  {"", PixelFormat::yuv420, 8},
};

TEST(Y4mFile, EveryColourSpace) {
    TempDir dir;
    for (const TagCase& c : kTags) {
        SCOPED_TRACE(c.tag);
        VideoFormat f{7, 5, c.pix, c.depth};
        auto frames = make_frames(f, 3, 7);
        std::string path = dir.file("v.y4m");
        write_file(path, test::y4m_video(test::y4m_header(7, 5, c.tag), frames));
        auto r = VideoReader::open(path, std::nullopt);
        EXPECT_EQ(r->format(), f);
        EXPECT_EQ(r->frame_count(), 3);
        expect_frames(*r, frames);
    }
}

TEST(Y4mFile, OddHeaderLengthKeepsWideSamplesAligned) {
    TempDir dir;
    VideoFormat f{6, 4, PixelFormat::yuv420, 10};
    auto frames = make_frames(f, 4);
    for (std::string header : {"YUV4MPEG2 W6 H4 C420p10", "YUV4MPEG2 W6 H4 C420p10 Xa"}) {
        write_file(dir.file("v.y4m"), test::y4m_video(header, frames));
        auto r = VideoReader::open(dir.file("v.y4m"), std::nullopt);
        expect_frames(*r, frames);  // checks 2-byte alignment too
    }
}

TEST(Y4mFile, FrameParametersAreSkipped) {
    TempDir dir;
    VideoFormat f{8, 4, PixelFormat::yuv444, 8};
    auto frames = make_frames(f, 3);
    std::string video = test::y4m_header(8, 4, "444") + "\nFRAME\n" + frames[0] + "FRAME Ip XFOO=1\n" + frames[1] +
                        "FRAMEX\n" + frames[2];
    write_file(dir.file("v.y4m"), video);
    auto r = VideoReader::open(dir.file("v.y4m"), std::nullopt);
    EXPECT_EQ(r->frame_count(), 3);
    expect_frames(*r, frames);
}

TEST(Y4mFile, HeaderOnlyHasNoFrames) {
    TempDir dir;
    write_file(dir.file("v.y4m"), "YUV4MPEG2 W8 H8\n");
    auto r = VideoReader::open(dir.file("v.y4m"), std::nullopt);
    EXPECT_EQ(r->frame_count(), 0);
    EXPECT_EQ(r->next(), nullptr);
}

TEST(Y4mFile, TruncatedLastFrame) {
    TempDir dir;
    VideoFormat f{10, 6, PixelFormat::yuv420, 8};  // 60 + 2 * 15 = 90 bytes
    auto frames = make_frames(f, 3);
    std::string path = dir.file("t.y4m");
    std::string video = test::y4m_video("YUV4MPEG2 W10 H6", frames);
    write_file(path, video.substr(0, video.size() - 80));
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 2 is truncated (got 10 of 90 bytes)");
    write_file(path, video + "FRAME\n");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 3 is truncated (got 0 of 90 bytes)");
    write_file(path, video + "FRA");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 3 is truncated (the input ends inside its FRAME header)");
    write_file(path, video + "FRAME Ixx");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 3 is truncated (the input ends inside its FRAME header)");
}

TEST(Y4mFile, LossOfFraming) {
    TempDir dir;
    VideoFormat f{10, 6, PixelFormat::yuv420, 8};
    auto frames = make_frames(f, 2);
    std::string path = dir.file("t.y4m");
    std::string video = test::y4m_video("YUV4MPEG2 W10 H6", frames);
    write_file(path, video + "junk\n");
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 2: expected a FRAME header, found \"junk\"");
    write_file(path, video + "FRAME\n" + frames[0] + "\n");  // one byte of trailing garbage
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 3: expected a FRAME header, found \"\"");
    write_file(path, video + "FRAME" + std::string(5000, ' ') + "\n" + frames[0]);
    EXPECT_EQ(error_of([&] { VideoReader::open(path, std::nullopt); }),
              path + ": frame 2: FRAME header longer than 4096 bytes");
}

TEST(Y4mFile, FramesOutliveTheReader) {
    TempDir dir;
    VideoFormat f{5, 3, PixelFormat::yuv420, 16};
    auto frames = make_frames(f, 3);
    write_file(dir.file("v.y4m"), test::y4m_video("YUV4MPEG2 W5 H3 C420p16", frames));   // mapped frames
    write_file(dir.file("w.y4m"), test::y4m_video("YUV4MPEG2 W5 H3  C420p16", frames));  // odd offset: copied
    for (const char* name : {"v.y4m", "w.y4m"}) {
        std::vector<FramePtr> kept;
        {
            auto r = VideoReader::open(dir.file(name), std::nullopt);
            while (FramePtr fr = r->next()) kept.push_back(fr);
        }
        ASSERT_EQ(kept.size(), 3u);
        for (size_t i = 0; i < kept.size(); i++) EXPECT_TRUE(picture_matches(f, kept[i]->pic, frames[i]));
    }
}

// Resident memory of this process's file mappings (RssFile), in bytes: the
// mapped frames, without anonymous memory (under AddressSanitizer every
// address read also reads its shadow, an eighth of it, which some kernels
// count as resident: 18 MB for the file below).
size_t resident_file_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    size_t kb = 0;
    while (status >> key)
        if (key == "RssFile:" && status >> kb) break;
    return kb * 1024;
}

// A file of `frames` frames of format f (y4m with `header`, else raw),
// written a frame at a time.
void write_long_video(const std::string& path, const VideoFormat& f, int frames, const std::string& header) {
    std::ofstream out(path, std::ios::binary);
    const std::string frame = test::pattern(f.frame_bytes(), 3);
    if (!header.empty()) out << header << '\n';
    for (int i = 0; i < frames; i++) out << (header.empty() ? "" : "FRAME\n") << frame;
    ASSERT_TRUE(out.good());
}

// Drops a file's pages from the page cache (written back first), so that
// the next read of it reads the file again: the mapping's read-ahead then
// makes its folios (2 MiB ones where transparent huge pages are on for
// madvised mappings). A hint: where the system keeps some pages, they stay.
void evict_from_page_cache(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

// A mapped file's frames leave resident memory with the frames: reading a
// long clip while holding two frames takes about two frames of memory, not
// the clip (a 2000-frame 720p run once reached 5.4 GB). Also where the clip
// is not in the page cache when it is opened, so that the reader's mapping
// reads it in (in 2 MiB folios where the system has them: the pages of a
// frame then leave a folio that stays mapped around them).
TEST(MappedFile, ResidentMemoryDoesNotGrowWithTheClip) {
    TempDir dir;
    const VideoFormat f{1024, 512, PixelFormat::yuv444, 8};  // 1.5 MB a frame
    const int n = 96;                                         // 144 MB a file
    struct Case {
        const char* name;
        std::string header;  // empty: a raw file
        bool cold;           // dropped from the page cache before it is opened
    };
    for (const Case& c : {Case{"raw", "", false}, Case{"y4m", test::y4m_header(1024, 512, "444"), false},
                          Case{"raw, read from the file", "", true},
                          Case{"y4m, read from the file", test::y4m_header(1024, 512, "444"), true}}) {
        SCOPED_TRACE(c.name);
        write_long_video(dir.file("long"), f, n, c.header);
        if (c.cold) evict_from_page_cache(dir.file("long"));
        auto r = VideoReader::open(dir.file("long"), c.header.empty() ? std::optional(raw_of(f)) : std::nullopt);
        const size_t base = resident_file_bytes();
        size_t peak = base;
        FramePtr held[2];
        unsigned sum = 0;
        for (int i = 0; i < n; i++) {
            FramePtr fr = r->next();
            ASSERT_TRUE(fr);
            for (int p = 0; p < 3; p++)  // touch every page, as a kernel reading the frame does
                for (size_t at = 0; at < f.plane_bytes(p); at += 512) sum += fr->pic.plane[p][at];
            held[i % 2] = std::move(fr);
            peak = std::max(peak, resident_file_bytes());
        }
        EXPECT_NE(sum, 0u);
        EXPECT_LT(peak - base, size_t{12} << 20) << "resident memory grew by " << ((peak - base) >> 20) << " MB";
    }
}

// Page faults of this process so far (minor ones: pages mapped from the
// page cache, or read into it by a fault's read-ahead).
long minor_faults() {
    struct rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// A byte from every 4 KiB of [p, p + n), summed. Not instrumented by
// AddressSanitizer: its check of each load would read the shadow memory,
// whose pages fault too (one for each 32 KiB read).
__attribute__((no_sanitize_address)) unsigned touch_pages(const uint8_t* p, size_t n) {
    unsigned sum = 0;
    for (size_t at = 0; at < n; at += 4096) sum += p[at];
    return sum;
}

// Faults to open a file dropped from the page cache and read all its frames,
// touching every page.
long faults_to_read_from_storage(const std::string& path, const std::optional<RawParams>& raw) {
    evict_from_page_cache(path);
    const long before = minor_faults();
    auto r = VideoReader::open(path, raw);
    unsigned sum = 0;
    while (FramePtr fr = r->next())
        for (int p = 0; p < r->format().plane_count(); p++) sum += touch_pages(fr->pic.plane[p], r->format().plane_bytes(p));
    EXPECT_NE(sum, 0u);
    return minor_faults() - before;
}

// A y4m file read from storage is read into the page cache as a raw file is:
// in 2 MiB folios where the system makes them, each mapped by one fault. Its
// frame headers, read when it is opened, bring in a page each, and that page
// kept 2 MiB around it from one folio (6,000 faults against 2,300 for 48
// 1080p frames of ref and dis); the reader drops those pages again.
TEST(MappedFile, AY4mFileReadFromStorageTakesTheFoliosARawFileTakes) {
    TempDir dir;
    const VideoFormat f{1024, 1024, PixelFormat::yuv444, 8};  // 3 MiB a frame
    const int n = 16;
    write_long_video(dir.file("raw"), f, n, "");
    write_long_video(dir.file("y4m"), f, n, test::y4m_header(1024, 1024, "444"));
    const long pages = static_cast<long>(f.frame_bytes() * n / 4096);
    const long raw = faults_to_read_from_storage(dir.file("raw"), raw_of(f));
    if (raw > pages / 64)
        GTEST_SKIP() << "this system does not read the file into 2 MiB folios: a raw file read from storage took "
                     << raw << " faults for " << pages << " pages (" << dir.path() << ")";
    const long y4m = faults_to_read_from_storage(dir.file("y4m"), std::nullopt);
    EXPECT_LE(y4m, 2 * raw + 32) << "raw: " << raw << " faults";
}

// A file that gets shorter under the mapping of its frames (another program
// cuts or rewrites it while it is scored): reading a page past its new end
// ends the process with one line and status 1, not SIGBUS; a SIGBUS at an
// address that is no input's still takes the default action.
TEST(MappedFile, AFileCutUnderItsMappingIsOneLine) {
    TempDir dir;
    const VideoFormat f{1024, 512, PixelFormat::yuv444, 8};
    write_long_video(dir.file("cut"), f, 4, "");
    auto r = VideoReader::open(dir.file("cut"), raw_of(f));
    if (!guarding_truncation())
        GTEST_SKIP() << "SIGBUS has a handler of its own in this process (AddressSanitizer's): the guard is not installed";
    FramePtr last;
    for (int i = 0; i < 4; i++) last = r->next();
    ASSERT_TRUE(last);
    const uint8_t* page = last->pic.plane[2];
    ASSERT_EQ(::truncate(dir.file("cut").c_str(), 4096), 0);
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *page; std::exit(0); }, ::testing::ExitedWithCode(1),
                "^speedqa: error: an input file got shorter while it was read \\(cut or rewritten by another program\\); "
                "no scores were written\n$");

    // the same fault in a mapping of the test's own
    write_long_video(dir.file("other"), f, 1, "");
    const int fd = ::open(dir.file("other").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    void* m = ::mmap(nullptr, f.frame_bytes(), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    ASSERT_NE(m, MAP_FAILED);
    ASSERT_EQ(::truncate(dir.file("other").c_str(), 0), 0);
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *static_cast<const uint8_t*>(m); std::exit(0); },
                ::testing::KilledBySignal(SIGBUS), "");
    ::munmap(m, f.frame_bytes());
}

}  // namespace
}  // namespace speedqa::io
