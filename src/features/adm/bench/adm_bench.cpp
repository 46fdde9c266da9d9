// ADM benchmark and value dump.
//
//   speedqa_adm_bench bench [frames] [dir for the 8-bit frames] [c|avx2|avx512] [case name part]
//     ms/frame of one thread (its CPU time, best of 3 runs), per kernel, on 1080p 10-bit (clip v2 when the
//     shared test data is there), and on 1080p and 4K 8-bit frames made by
//     scaling a clip up here.
//   speedqa_adm_bench dump W H BITDEPTH REF DIS FRAMES DISPATCH ISA [opt=val ...]
//     every output of every frame of two raw luma-only files, %.17g, one
//     line a frame (for comparing with other implementations).
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/cpu_flags.hpp"
#include "features/adm/adm.hpp"
#include "support/testdata.hpp"

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
    t.isa = isa == "c" ? Isa::c : (isa == "avx2" ? Isa::avx2 : Isa::avx512);
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


// A clip's luma scaled to w x h (bilinear, 8-bit), frame by frame.
std::vector<uint8_t> scale_luma(const testing::ClipInfo& clip, const std::vector<uint8_t>& raw, int frames, int w,
                                int h) {
    const VideoFormat& f = clip.format;
    std::vector<uint8_t> out(static_cast<size_t>(w) * h * frames);
    const int shift = f.bitdepth - 8;
    for (int n = 0; n < frames; ++n) {
        const uint8_t* src = raw.data() + static_cast<size_t>(n % clip.frames) * f.frame_bytes();
        auto px = [&](int x, int y) -> double {
            if (f.bitdepth == 8) return src[static_cast<size_t>(y) * f.width + x];
            uint16_t v;
            std::memcpy(&v, src + 2 * (static_cast<size_t>(y) * f.width + x), 2);
            return v >> shift;
        };
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double sx = (x + 0.5) * f.width / w - 0.5, sy = (y + 0.5) * f.height / h - 0.5;
                const int x0 = std::max(0, std::min(f.width - 2, static_cast<int>(sx)));
                const int y0 = std::max(0, std::min(f.height - 2, static_cast<int>(sy)));
                const double ax = std::clamp(sx - x0, 0.0, 1.0), ay = std::clamp(sy - y0, 0.0, 1.0);
                const double v = (1 - ay) * ((1 - ax) * px(x0, y0) + ax * px(x0 + 1, y0)) +
                                 ay * ((1 - ax) * px(x0, y0 + 1) + ax * px(x0 + 1, y0 + 1));
                out[static_cast<size_t>(n) * w * h + static_cast<size_t>(y) * w + x] =
                    static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
            }
    }
    return out;
}

struct Case {
    std::string name;
    VideoFormat format;
    std::vector<uint8_t> ref, dis;   // luma only, frames concatenated
    int frames;
};

double ms_per_frame(const Case& c, const CpuTarget& t, int reps) {
    const auto feature = make_feature(adm_feature(), c.format, {});
    const auto kernel = feature->make_cpu_kernel(t);
    const auto scratch = kernel->make_scratch();
    std::vector<double> raw(static_cast<size_t>(feature->raw_count()));
    const size_t fb = static_cast<size_t>(c.format.width) * c.format.height * c.format.bytes_per_sample();
    // CPU time of this thread: the machine may be shared with other work.
    auto cpu_ms = [] {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    };
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        const double t0 = cpu_ms();
        for (int i = 0; i < c.frames; ++i) {
            FrameView v;
            v.index = i;
            const Picture rp = luma_picture(c.format, c.ref.data() + i * fb), dp = luma_picture(c.format, c.dis.data() + i * fb);
            v.ref = &rp;
            v.dis = &dp;
            kernel->extract(*scratch, v, raw.data());
        }
        const double ms = cpu_ms() - t0;
        best = std::min(best, ms / c.frames);
    }
    return best;
}

int bench(int argc, char** argv) {
    const int frames = argc > 2 ? std::atoi(argv[2]) : 6;
    const char* out_dir = argc > 3 && argv[3][0] ? argv[3] : nullptr;   // where to write the 8-bit frames for other tools
    const std::string only = argc > 4 ? argv[4] : "";                   // "c", "avx2" or "avx512": that kernel alone
    const std::string which = argc > 5 ? argv[5] : "";                  // only the cases whose name has this
    const auto data = testing::TestData::open(testing::shared_testdata_dir());
    if (!data) {
        std::fprintf(stderr, "the shared test data is absent (SPEEDQA_SHARED_TESTDATA)\n");
        return 1;
    }
    std::vector<Case> cases;
    auto wanted = [&](const std::string& name) { return name.find(which) != std::string::npos; };
    if (const testing::ClipInfo* v2 = data->clip("v2"); v2 && wanted("1080p 10-bit (v2)")) {
        Case c{"1080p 10-bit (v2)", v2->format, {}, {}, std::min(frames, v2->frames)};
        c.format.pix = PixelFormat::yuv400;
        const size_t luma = static_cast<size_t>(v2->format.width) * v2->format.height * 2;
        for (const auto* dst : {&c.ref, &c.dis}) {
            const auto& raw = testing::load_xz(dst == &c.ref ? v2->ref_xz : v2->dis_xz);
            auto& d = const_cast<std::vector<uint8_t>&>(*dst);
            for (int i = 0; i < c.frames; ++i)
                d.insert(d.end(), raw.begin() + i * v2->format.frame_bytes(), raw.begin() + i * v2->format.frame_bytes() + luma);
        }
        cases.push_back(std::move(c));
    }
    if (const testing::ClipInfo* v1 = data->clip("v1")) {
        const auto& ref = testing::load_xz(v1->ref_xz);
        const auto& dis = testing::load_xz(v1->dis_xz);
        for (auto [w, h, name] : {std::tuple{1920, 1080, "1080p 8-bit (v1 scaled)"}, std::tuple{3840, 2160, "4K 8-bit (v1 scaled)"}}) {
            if (!wanted(name)) continue;
            Case c{name, {w, h, PixelFormat::yuv400, 8}, scale_luma(*v1, ref, frames, w, h), scale_luma(*v1, dis, frames, w, h),
                   frames};
            if (out_dir) {
                // 4:2:0 files (chroma 128) for tools that want a whole picture.
                const std::string base = std::string(out_dir) + "/adm_" + std::to_string(w) + "x" + std::to_string(h);
                const std::vector<char> chroma(static_cast<size_t>(w / 2) * (h / 2) * 2, static_cast<char>(128));
                for (const auto& [suffix, luma] : {std::pair{"_ref.yuv", &c.ref}, std::pair{"_dis.yuv", &c.dis}}) {
                    std::ofstream out(base + suffix, std::ios::binary);
                    for (int i = 0; i < frames; ++i) {
                        out.write(reinterpret_cast<const char*>(luma->data()) + static_cast<size_t>(i) * w * h, static_cast<std::streamsize>(w) * h);
                        out.write(chroma.data(), static_cast<std::streamsize>(chroma.size()));
                    }
                }
            }
            cases.push_back(std::move(c));
        }
    }
    const CpuFlags flags = detect_cpu_flags();
    std::printf("%-26s %-9s %-8s %10s\n", "frames", "dispatch", "kernel", "ms/frame");
    for (const Case& c : cases)
        for (Dispatch d : {Dispatch::avx512, Dispatch::avx2, Dispatch::scalar}) {
            if (c.name.find(which) == std::string::npos) continue;
            if (d == Dispatch::avx512 && !flags.avx512) continue;
            std::vector<std::pair<Isa, const char*>> isas;
            if (only.empty() || only == "c") isas.push_back({Isa::c, "c"});
            if (flags.avx2 && (only.empty() || only == "avx2")) isas.push_back({Isa::avx2, "avx2"});
            if (flags.avx512 && (only.empty() || only == "avx512")) isas.push_back({Isa::avx512, "avx512"});
            for (const auto& [isa, isa_name] : isas)
                std::printf("%-26s %-9s %-8s %10.2f\n", c.name.c_str(), dispatch_name(d), isa_name,
                            ms_per_frame(c, {isa, d}, 3));
        }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "dump") == 0) return dump(argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "bench") == 0) return bench(argc, argv);
    std::fprintf(stderr, "usage: speedqa_adm_bench dump|bench ...\n");
    return 2;
}
