// Sequential, buffered reading from a file descriptor (a pipe, a FIFO,
// standard input): whole blocks go straight into the caller's memory, the
// small reads of y4m headers come from a buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace speedqa::io {

class FdStream {
public:
    // Reads `fd`, closing it at the end when `owned`. `name` starts errors.
    FdStream(int fd, bool owned, std::string name);
    ~FdStream();
    FdStream(const FdStream&) = delete;
    FdStream& operator=(const FdStream&) = delete;

    // Reads `n` bytes into dst; fewer only at the end of the stream. Returns
    // how many it read. Throws Error when reading fails.
    size_t read(uint8_t* dst, size_t n);

    // Reads a line: the bytes up to '\n' (consumed, not stored), at most
    // `max` of them '\n' included. `complete` is false when the stream ended
    // or `max` bytes went by first.
    struct Line {
        std::string text;
        bool complete = false;
    };
    Line read_line(size_t max);

    // The next `n` bytes (fewer only at the end of the stream), left to be
    // read. `n` is at most the buffer's 64 KB.
    std::string_view peek(size_t n);

private:
    bool fill();  // false at the end of the stream
    size_t read_fd(uint8_t* dst, size_t n);

    int fd_;
    bool owned_;
    std::string name_;
    std::vector<uint8_t> buf_;
    size_t pos_ = 0, end_ = 0;
    bool eof_ = false;
};

}  // namespace speedqa::io
