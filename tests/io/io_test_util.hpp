// Helpers for the I/O tests: a temporary directory, synthetic videos, and a
// check that a Frame's picture holds exactly the bytes of a frame.
#pragma once

#include <cstdint>
#include <functional>
#include <thread>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/video.hpp"
#include "io/video_reader.hpp"

namespace speedqa::io::test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::vector<std::string> list() const;  // names in it, sorted

private:
    std::string path_;
};

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

// Deterministic pseudo-random bytes, different for each seed.
std::string pattern(size_t n, uint32_t seed);

// `frames` frames of format f, each frame_bytes() of pattern data.
std::vector<std::string> make_frames(const VideoFormat& f, int frames, uint32_t seed = 1);
// Raw planar file contents.
std::string raw_video(const std::vector<std::string>& frames);
// A y4m file: `header` (without '\n'), then each frame after "FRAME" +
// frame_params + '\n'.
std::string y4m_video(const std::string& header, const std::vector<std::string>& frames,
                      const std::string& frame_params = "");
// "YUV4MPEG2 W.. H.. F25:1 Ip A1:1 C<tag>" (no C tag when tag is empty).
std::string y4m_header(int w, int h, const std::string& tag);

// Whether the picture holds exactly `frame` laid out as format f (rows of
// stored_w * bytes per sample, planes Y, U, V); explains otherwise.
::testing::AssertionResult picture_matches(const VideoFormat& f, const Picture& pic, const std::string& frame);

// Feeds `bytes` into the write end of a new pipe from a thread; the reader
// opens the returned path ("/dev/fd/N"). join() waits for the writer.
class PipeFeeder {
public:
    explicit PipeFeeder(std::string bytes);
    ~PipeFeeder();
    const std::string& path() const { return path_; }
    void join();

private:
    int read_fd_ = -1;
    std::string path_;
    std::thread writer_;
};

// The message of the speedqa::Error that fn throws ("" if none).
std::string error_of(const std::function<void()>& fn);

}  // namespace speedqa::io::test
