#include "io_test_util.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

namespace speedqa::io::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/speedqa_io_test.XXXXXX";
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::vector<std::string> TempDir::list() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string pattern(size_t n, uint32_t seed) {
    std::string s(n, '\0');
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        s[i] = static_cast<char>(x >> 24);
    }
    return s;
}

std::vector<std::string> make_frames(const VideoFormat& f, int frames, uint32_t seed) {
    std::vector<std::string> v;
    for (int i = 0; i < frames; i++) v.push_back(pattern(f.frame_bytes(), seed * 1000 + static_cast<uint32_t>(i)));
    return v;
}

std::string raw_video(const std::vector<std::string>& frames) {
    std::string s;
    for (const std::string& f : frames) s += f;
    return s;
}

std::string y4m_video(const std::string& header, const std::vector<std::string>& frames,
                      const std::string& frame_params) {
    std::string s = header + "\n";
    for (const std::string& f : frames) s += "FRAME" + frame_params + "\n" + f;
    return s;
}

std::string y4m_header(int w, int h, const std::string& tag) {
    std::string s = "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " F25:1 Ip A1:1";
    if (!tag.empty()) s += " C" + tag;
    return s;
}

::testing::AssertionResult picture_matches(const VideoFormat& f, const Picture& pic, const std::string& frame) {
    if (frame.size() != f.frame_bytes())
        return ::testing::AssertionFailure() << "expected frame has " << frame.size() << " bytes";
    size_t offset = 0;
    for (int p = 0; p < 3; p++) {
        if (p >= f.plane_count()) {
            if (pic.plane[p] != nullptr) return ::testing::AssertionFailure() << "plane " << p << " should be null";
            continue;
        }
        const size_t row = static_cast<size_t>(f.stored_w(p)) * f.bytes_per_sample();
        if (pic.stride[p] != static_cast<ptrdiff_t>(row))
            return ::testing::AssertionFailure() << "plane " << p << " stride " << pic.stride[p] << ", expected " << row;
        if (f.bytes_per_sample() == 2 && reinterpret_cast<uintptr_t>(pic.plane[p]) % 2 != 0)
            return ::testing::AssertionFailure() << "plane " << p << " is not 2-byte aligned";
        for (int y = 0; y < f.stored_h(p); y++) {
            const uint8_t* got = pic.plane[p] + y * pic.stride[p];
            if (std::memcmp(got, frame.data() + offset, row) != 0)
                return ::testing::AssertionFailure() << "plane " << p << " row " << y << " differs";
            offset += row;
        }
    }
    return ::testing::AssertionSuccess();
}

PipeFeeder::PipeFeeder(std::string bytes) {
    std::signal(SIGPIPE, SIG_IGN);  // a reader that stops early must not kill the test
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    read_fd_ = fds[0];
    path_ = "/dev/fd/" + std::to_string(read_fd_);
    const int wfd = fds[1];
    writer_ = std::thread([wfd, data = std::move(bytes)] {
        size_t done = 0;
        while (done < data.size()) {
            ssize_t n = ::write(wfd, data.data() + done, std::min<size_t>(data.size() - done, 7000));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        ::close(wfd);
    });
}

void PipeFeeder::join() {
    if (writer_.joinable()) writer_.join();
}

PipeFeeder::~PipeFeeder() {
    if (read_fd_ >= 0) ::close(read_fd_);  // a writer still blocked then gets EPIPE
    join();
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const speedqa::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace speedqa::io::test
