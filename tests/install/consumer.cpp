// A C++ program on the installed library (speedqa.hpp): scores the first
// FRAMES frames of two raw 4:2:0 8-bit files with MODEL and speed_chroma and
// prints them as `speedqa --csv --precision max` does, so that the install
// test can compare the two outputs byte for byte.
#include <speedqa/speedqa.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

void print(const std::vector<speedqa::FrameScores>& frames) {
    for (const speedqa::FrameScores& f : frames) {
        std::printf("%lld,", f.index);
        for (double v : f.values) std::printf("%.17g,", v);
        std::printf("\n");
    }
}

// speedqa::Error crosses the library boundary and is caught by its type; its
// message names the feature in the library's own words (no command-line flags).
bool refuses_unknown_feature(const speedqa::VideoFormat& format) {
    try {
        speedqa::Scorer scorer(format, {"no_such_feature"});
    } catch (const speedqa::Error& e) {
        const std::string what = e.what();
        return what.find("no_such_feature") != std::string::npos && what.find("--") == std::string::npos;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7) {
        std::cerr << "usage: " << argv[0] << " REF DIS WIDTH HEIGHT FRAMES MODEL\n";
        return 2;
    }
    const speedqa::VideoFormat format{std::atoi(argv[3]), std::atoi(argv[4]), speedqa::PixelFormat::yuv420, 8};
    const int frames = std::atoi(argv[5]);
    if (!refuses_unknown_feature(format)) {
        std::cerr << "an unknown feature was not refused as expected\n";
        return 1;
    }
    try {
        speedqa::ScorerOptions options;
        options.models = {argv[6]};
        speedqa::Scorer scorer(format, {"speed_chroma"}, options);
        std::printf("Frame,");
        for (const std::string& name : scorer.metric_names()) std::printf("%s,", name.c_str());
        std::printf("\n");

        std::ifstream ref(argv[1], std::ios::binary), dis(argv[2], std::ios::binary);
        std::vector<char> ref_frame(format.frame_bytes()), dis_frame(format.frame_bytes());
        for (int f = 0; f < frames; f++) {
            if (!ref.read(ref_frame.data(), ref_frame.size()) || !dis.read(dis_frame.data(), dis_frame.size())) {
                std::cerr << "short input\n";
                return 1;
            }
            const auto* r = reinterpret_cast<const uint8_t*>(ref_frame.data());
            const auto* d = reinterpret_cast<const uint8_t*>(dis_frame.data());
            print(scorer.push(speedqa::picture_in_frame(format, r), speedqa::picture_in_frame(format, d)));
        }
        print(scorer.flush());
    } catch (const speedqa::Error& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
