// Pipes, FIFOs and standard input: frames are read one after another into
// buffers from a FramePool, so a long stream reuses a handful of buffers.
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "io/fd_stream.hpp"
#include "io/frame_pool.hpp"
#include "io/reader_common.hpp"
#include "io/y4m.hpp"

namespace speedqa::io {

namespace {

class StreamReader final : public VideoReader {
public:
    StreamReader(const std::string& path, const std::string& name, std::unique_ptr<FdStream> in,
                 const std::optional<VideoFormat>& raw)
        : path_(path), name_(name), in_(std::move(in)), y4m_(has_y4m_signature(in_->peek(kY4mSignature.size()))) {
        if (!y4m_) {
            if (!raw) throw not_y4m_error(name_);
            format_ = *raw;
        } else {
            FdStream::Line head = in_->read_line(kMaxY4mHeader);
            if (!head.complete) {
                if (head.text.size() < kMaxY4mHeader)
                    throw Error(name_ + ": malformed y4m header: the input ends inside it");
                throw Error(name_ + ": malformed y4m header: longer than " + std::to_string(kMaxY4mHeader) + " bytes");
            }
            format_ = y4m_format(head.text, name_, raw);
        }
        frame_bytes_ = format_.frame_bytes();
        pool_ = FramePool::create(frame_bytes_, name_);
    }

    const VideoFormat& format() const override { return format_; }
    long long frame_count() const override { return -1; }
    const std::string& path() const override { return path_; }

    FramePtr next() override {
        if (done_) return nullptr;
        try {
            FramePtr f = read_frame();
            if (!f) done_ = true;
            return f;
        } catch (...) {
            done_ = true;  // nothing sensible follows a damaged frame
            throw;
        }
    }

private:
    FramePtr read_frame() {
        if (y4m_ && !read_frame_header()) return nullptr;
        if (next_ == INT_MAX) throw too_many_frames_error(name_);
        FramePool::SlotPtr slot = pool_->take();
        size_t got = in_->read(FramePool::data(*slot), frame_bytes_);
        if (got == 0 && !y4m_) return nullptr;  // raw: clean end between frames
        if (got < frame_bytes_) throw truncated_frame_error(name_, next_, got, frame_bytes_);
        return pool_->publish(std::move(slot), format_, static_cast<int>(next_++));
    }

    // False at the clean end of the stream.
    bool read_frame_header() {
        FdStream::Line line = in_->read_line(kMaxFrameHeader);
        if (line.text.empty() && !line.complete) return false;
        std::string_view v = line.text;
        size_t k = std::min(v.size(), kFrameTag.size());
        if (v.substr(0, k) != kFrameTag.substr(0, k)) check_frame_header(v, name_, next_);
        if (!line.complete) {
            if (line.text.size() < kMaxFrameHeader) throw truncated_frame_header_error(name_, next_);
            throw long_frame_header_error(name_, next_);
        }
        check_frame_header(v, name_, next_);
        return true;
    }

    std::string path_, name_;
    std::unique_ptr<FdStream> in_;
    bool y4m_;
    VideoFormat format_;
    size_t frame_bytes_ = 0;
    std::shared_ptr<FramePool> pool_;
    long long next_ = 0;
    bool done_ = false;
};

}  // namespace

std::unique_ptr<VideoReader> make_stream_reader(const std::string& path, const std::string& name, int fd,
                                                bool owned, const std::optional<VideoFormat>& raw) {
    std::unique_ptr<FdStream> in;
    try {
        in = std::make_unique<FdStream>(fd, owned, name);
    } catch (...) {
        if (owned) ::close(fd);
        throw;
    }
    return std::make_unique<StreamReader>(path, name, std::move(in), raw);
}

}  // namespace speedqa::io
