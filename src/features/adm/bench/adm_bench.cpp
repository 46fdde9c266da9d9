// ADM benchmark and value dump.
//
//   speedqa_adm_bench bench [frames]
//     ms/frame of one thread, per kernel, on 1080p 10-bit (clip v2 when the
//     shared test data is there), and on 1080p and 4K 8-bit frames made by
//     scaling a clip up here.
//   speedqa_adm_bench dump W H BITDEPTH REF DIS FRAMES DISPATCH ISA [opt=val ...]
//     every output of every frame of two raw luma-only files, %.17g, one
//     line a frame (for comparing with other implementations).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "features/adm/adm.hpp"

namespace {

using namespace speedqa;

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Picture luma_picture(const VideoFormat& f, const uint8_t* data) {
    Picture p;
    p.plane[0] = data;
    p.stride[0] = static_cast<ptrdiff_t>(f.width) * f.bytes_per_sample();
    return p;
}

int dump(int argc, char** argv) {
    if (argc < 10) return 2;
    VideoFormat f;
    f.width = std::atoi(argv[2]);
    f.height = std::atoi(argv[3]);
    f.bitdepth = std::atoi(argv[4]);
    f.pix = PixelFormat::yuv400;
    const auto ref = read_file(argv[5]), dis = read_file(argv[6]);
    const int frames = std::atoi(argv[7]);
    const std::string d = argv[8], isa = argv[9];
    std::vector<std::pair<std::string, std::string>> opts{{"debug", "true"}};
    for (int a = 10; a < argc; ++a) {
        const std::string kv = argv[a];
        const size_t eq = kv.find('=');
        opts.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    std::unique_ptr<Feature> feature;
    try {
        feature = make_feature(adm_feature(), f, opts);
    } catch (const std::exception& e) {
        std::printf("ERROR %s\n", e.what());
        return 0;
    }
    CpuTarget t;
    t.dispatch = d == "scalar" ? Dispatch::scalar : (d == "avx2" ? Dispatch::avx2 : Dispatch::avx512);
    t.isa = isa == "c" ? Isa::c : Isa::avx2;
    const auto kernel = feature->make_cpu_kernel(t);
    const auto scratch = kernel->make_scratch();
    std::vector<double> raw(static_cast<size_t>(feature->raw_count()));
    const size_t fb = static_cast<size_t>(f.width) * f.height * f.bytes_per_sample();
    for (int i = 0; i < frames; ++i) {
        FrameView v;
        v.index = i;
        const Picture r = luma_picture(f, ref.data() + i * fb), s = luma_picture(f, dis.data() + i * fb);
        v.ref = &r;
        v.dis = &s;
        kernel->extract(*scratch, v, raw.data());
        std::printf("%d", i);
        for (double x : raw) std::printf(" %.17g", x);
        std::printf("\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "dump") == 0) return dump(argc, argv);
    std::fprintf(stderr, "usage: speedqa_adm_bench dump|bench ...\n");
    return 2;
}
