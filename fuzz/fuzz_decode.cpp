// Encoded video through the libav reader (builds with libavformat and
// libavcodec): the input as a file, every frame read (up to 64). Whatever
// libav makes of it, the reader must refuse what it cannot read with
// speedqa::Error, and the pictures it hands out must lie in its buffers.
#include <unistd.h>

#include <string>

#include "fuzz_common.hpp"
#include "io/reader_common.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    speedqa::fuzz::limit_memory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace speedqa;
    const int fd = fuzz::memory_file(data, size);
    if (fd < 0) return 0;
    try {
        auto r = io::make_decoded_reader("/proc/self/fd/" + std::to_string(fd));
        const VideoFormat& f = r->format();
        for (int n = 0; n < 64; n++) {
            io::FramePtr frame = r->next();
            if (!frame) break;
            volatile uint8_t sink = 0;
            for (int p = 0; p < f.plane_count(); p++) {
                const size_t row = static_cast<size_t>(f.stored_w(p)) * f.bytes_per_sample();
                sink = sink + frame->pic.plane[p][0];
                sink = sink + frame->pic.plane[p][frame->pic.stride[p] * (f.stored_h(p) - 1) + row - 1];
            }
        }
    } catch (const Error&) {
    }
    ::close(fd);
    return 0;
}
