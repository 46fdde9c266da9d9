// Feature requests as --feature takes them ("speed_chroma=speed_prescale=2:
// speed_sigma_nn=0.5", several a line each) at a video format the input
// picks, through the option parser and every feature's frame planning to
// three scored frames. A request the features cannot take must be refused
// with speedqa::Error; an accepted one must score.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "speedqa/speedqa.hpp"

namespace {

using namespace speedqa;

constexpr int kFrames = 3;  // motion and speed_temporal read two frames back

// The format of the first three bytes: 1-128 x 1-128, every layout and depth.
VideoFormat format_of(const uint8_t* b) {
    static constexpr PixelFormat kPix[] = {PixelFormat::yuv400, PixelFormat::yuv420, PixelFormat::yuv422,
                                           PixelFormat::yuv444};
    static constexpr int kDepth[] = {8, 10, 12, 16};
    return VideoFormat{1 + b[0] % 128, 1 + b[1] % 128, kPix[b[2] & 3], kDepth[(b[2] >> 2) & 3]};
}

// A frame of random samples within the bit depth.
std::vector<uint8_t> random_frame(const VideoFormat& f, std::mt19937& rng) {
    std::vector<uint8_t> bytes(f.frame_bytes());
    if (f.bitdepth == 8) {
        for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    } else {
        for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
            const uint16_t v = static_cast<uint16_t>(rng() & ((1u << f.bitdepth) - 1));
            std::memcpy(&bytes[i], &v, 2);
        }
    }
    return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limit_memory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4 || size > 4096) return 0;
    const VideoFormat format = format_of(data);
    std::vector<std::string> requests;
    std::string line;
    for (size_t i = 4; i <= size; i++) {
        if (i == size || data[i] == '\n') {
            requests.push_back(line);
            line.clear();
        } else {
            line += static_cast<char>(data[i]);
        }
    }
    ScorerOptions options;
    options.threads = 1;
    options.backend = (data[3] & 1) ? "cpu-reference" : "cpu";
    try {
        Scorer scorer(format, requests, options);
        std::mt19937 rng(data[3]);
        std::vector<uint8_t> ref[kFrames], dis[kFrames];
        size_t scored = 0;
        for (int k = 0; k < kFrames; k++) {
            ref[k] = random_frame(format, rng);
            dis[k] = random_frame(format, rng);
            scored += scorer.push(picture_in_frame(format, ref[k].data()), picture_in_frame(format, dis[k].data())).size();
        }
        scored += scorer.flush().size();
        if (scored != kFrames) std::abort();  // every frame has its scores
    } catch (const Error&) {
    }
    return 0;
}
