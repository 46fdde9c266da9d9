// The y4m reader, both ways an input is read: memory-mapped (a regular file)
// and streamed (a pipe or standard input), with and without -w -h -p -b.
// Every frame is read to the end; a malformed input must be refused with
// speedqa::Error, and both readers must agree on the frames.
#include <unistd.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "io/reader_common.hpp"

namespace {

using namespace speedqa;

// Frames read before the first error (or the end), and whether one came.
struct Outcome {
    long long frames = 0;
    bool failed = false;
};

Outcome read_all(const std::function<std::unique_ptr<io::VideoReader>()>& open) {
    Outcome o;
    try {
        auto r = open();
        while (io::FramePtr f = r->next()) {
            // touch the first and last byte of each plane: the reader's
            // picture must lie inside what it holds
            const VideoFormat& fmt = r->format();
            volatile uint8_t sink = 0;
            for (int p = 0; p < fmt.plane_count(); p++) {
                const size_t row = static_cast<size_t>(fmt.stored_w(p)) * fmt.bytes_per_sample();
                sink = sink + f->pic.plane[p][0];
                sink = sink + f->pic.plane[p][f->pic.stride[p] * (fmt.stored_h(p) - 1) + row - 1];
            }
            o.frames++;
        }
    } catch (const Error&) {
        o.failed = true;
    }
    return o;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limit_memory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    // the first byte: whether -w -h -p -b are given (a small raw format)
    std::optional<io::RawParams> raw;
    if (data[0] & 1) raw = io::RawParams{16 + (data[0] >> 4), 8 + ((data[0] >> 1) & 7), PixelFormat::yuv420, 8};
    data++;
    size--;
    const int fd = fuzz::memory_file(data, size);
    if (fd < 0) return 0;
    std::optional<VideoFormat> format;
    if (raw) format = VideoFormat{raw->width, raw->height, raw->pix, raw->bitdepth};
    // (the readers themselves: VideoReader::open would hand a file without
    // the y4m signature to the decoder)
    const Outcome mapped = read_all([&] {
        const int own = ::dup(fd);  // the mapping takes (and closes) its descriptor
        auto file = io::Mapping::map(own, size);
        if (!file) {
            ::close(own);
            throw Error("not mappable");
        }
        return io::make_mapped_reader("fuzz.y4m", "fuzz.y4m", std::move(file), format);
    });
    const Outcome streamed = read_all([&] { return io::make_stream_reader("-", "stdin", ::dup(fd), true, format); });
    ::close(fd);
    // a whole input gives the same frames both ways (a broken one may fail
    // at open when mapped and at its bad frame when streamed)
    if (!mapped.failed && (streamed.failed || streamed.frames != mapped.frames)) std::abort();
    return 0;
}
