#include "io/video_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

#include "io/reader_common.hpp"
#include "io/y4m.hpp"

namespace speedqa::io {

Error not_y4m_error(const std::string& name) {
    return Error(name + ": not a y4m file (it does not start with YUV4MPEG2); for raw .yuv input pass -w -h -p -b");
}

VideoFormat y4m_format(std::string_view header, const std::string& name, const std::optional<VideoFormat>& raw) {
    const VideoFormat f = parse_y4m_header(header, name);
    // vmaf reads such a file as raw, header bytes as pixels; speedqa reads
    // it as y4m and refuses a contradiction rather than guess which is meant
    if (raw && !(*raw == f))
        throw Error(name + ": the y4m header says " + f.describe() + " but -w -h -p -b say " + raw->describe());
    return f;
}

Error truncated_frame_error(const std::string& name, long long frame, size_t got, size_t want) {
    return Error(name + ": frame " + std::to_string(frame) + " is truncated (got " + std::to_string(got) + " of " +
                 std::to_string(want) + " bytes)");
}

Error truncated_frame_header_error(const std::string& name, long long frame) {
    return Error(name + ": frame " + std::to_string(frame) + " is truncated (the input ends inside its FRAME header)");
}

Error long_frame_header_error(const std::string& name, long long frame) {
    return Error(name + ": frame " + std::to_string(frame) + ": FRAME header longer than " +
                 std::to_string(kMaxFrameHeader) + " bytes");
}

Error too_many_frames_error(const std::string& name) {
    return Error(name + ": more than " + std::to_string(INT_MAX) + " frames");
}

namespace {

bool has_extension(const std::string& path, std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); i++)
        if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
    return true;
}

// Whether the regular file `fd` is encoded video: it has no y4m signature
// and is not named like y4m or raw video (those get the y4m reader's errors).
bool is_encoded(int fd, const std::string& path) {
    if (has_extension(path, ".y4m") || has_extension(path, ".yuv")) return false;
    char head[kY4mSignature.size()] = {};
    const ssize_t n = ::pread(fd, head, sizeof head, 0);
    return !(n > 0 && has_y4m_signature(std::string_view(head, static_cast<size_t>(n))));
}

}  // namespace

std::unique_ptr<VideoReader> VideoReader::open(const std::string& path, const std::optional<RawParams>& raw) {
    const bool is_stdin = path == "-";
    const std::string name = is_stdin ? "stdin" : path;
    if (path.empty()) throw Error("the input path is empty");

    std::optional<VideoFormat> format;
    if (raw) {
        format = VideoFormat{raw->width, raw->height, raw->pix, raw->bitdepth};
        check_format(*format, name);
    }
    if (is_stdin) return make_stream_reader(path, name, STDIN_FILENO, false, format);

    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        throw Error(path + ": cannot open: " + std::strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw Error(path + ": is a directory, not a video file");
    }
    if (S_ISREG(st.st_mode) && !raw && is_encoded(fd, path)) {
        ::close(fd);
        return make_decoded_reader(path);
    }
    if (S_ISREG(st.st_mode)) {
        std::shared_ptr<const Mapping> file;
        try {
            file = Mapping::map(fd, static_cast<size_t>(st.st_size));
        } catch (...) {
            ::close(fd);
            throw;
        }
        if (file) return make_mapped_reader(path, name, std::move(file), format);  // it holds fd
        // Not mappable: read it like a pipe.
    }
    return make_stream_reader(path, name, fd, true, format);
}

void RecentFrames::advance(const std::vector<FramePtr>& ref, const std::vector<FramePtr>& dis) {
    const size_t n = std::min(ref.size(), dis.size());
    if (n == 0) return;
    ref_[1] = n >= 2 ? ref[n - 2] : std::move(ref_[0]);
    dis_[1] = n >= 2 ? dis[n - 2] : std::move(dis_[0]);
    ref_[0] = ref[n - 1];
    dis_[0] = dis[n - 1];
}

}  // namespace speedqa::io
