#include "io/fd_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace speedqa::io {

namespace {
constexpr size_t kBufferBytes = 1 << 16;
}

FdStream::FdStream(int fd, bool owned, std::string name) : fd_(fd), owned_(owned), name_(std::move(name)) {}

FdStream::~FdStream() {
    if (owned_) ::close(fd_);
}

size_t FdStream::read_fd(uint8_t* dst, size_t n) {
    for (;;) {
        ssize_t got = ::read(fd_, dst, n);
        if (got >= 0) return static_cast<size_t>(got);
        if (errno == EINTR) continue;
        throw Error(name_ + ": read error: " + std::strerror(errno));
    }
}

bool FdStream::fill() {
    if (eof_) return false;
    if (buf_.empty()) buf_.resize(kBufferBytes);
    pos_ = 0;
    end_ = read_fd(buf_.data(), buf_.size());
    if (end_ == 0) eof_ = true;
    return end_ > 0;
}

size_t FdStream::read(uint8_t* dst, size_t n) {
    size_t done = 0;
    // First what is buffered, then large remainders straight into dst.
    if (pos_ < end_) {
        size_t k = std::min(n, end_ - pos_);
        std::memcpy(dst, buf_.data() + pos_, k);
        pos_ += k;
        done = k;
    }
    while (done < n && !eof_) {
        size_t want = n - done;
        if (want >= kBufferBytes) {
            size_t got = read_fd(dst + done, want);
            if (got == 0) eof_ = true;
            done += got;
        } else {
            if (!fill()) break;
            size_t k = std::min(want, end_ - pos_);
            std::memcpy(dst + done, buf_.data() + pos_, k);
            pos_ += k;
            done += k;
        }
    }
    return done;
}

std::string_view FdStream::peek(size_t n) {
    if (buf_.empty()) buf_.resize(kBufferBytes);
    n = std::min(n, buf_.size());
    if (end_ - pos_ < n) {
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        end_ -= pos_;
        pos_ = 0;
        while (end_ < n && !eof_) {
            const size_t got = read_fd(buf_.data() + end_, buf_.size() - end_);
            if (got == 0) eof_ = true;
            end_ += got;
        }
    }
    return {reinterpret_cast<const char*>(buf_.data() + pos_), std::min(n, end_ - pos_)};
}

FdStream::Line FdStream::read_line(size_t max) {
    Line line;
    while (line.text.size() < max) {
        if (pos_ == end_ && !fill()) return line;
        const uint8_t* start = buf_.data() + pos_;
        size_t avail = std::min(end_ - pos_, max - line.text.size());
        const void* nl = std::memchr(start, '\n', avail);
        if (nl) {
            size_t k = static_cast<size_t>(static_cast<const uint8_t*>(nl) - start);
            line.text.append(reinterpret_cast<const char*>(start), k);
            pos_ += k + 1;
            line.complete = true;
            return line;
        }
        line.text.append(reinterpret_cast<const char*>(start), avail);
        pos_ += avail;
    }
    return line;
}

}  // namespace speedqa::io
