// CAMBI per-frame time, single-threaded, on 1080p and 4K frames, next to
// libvmaf's on the same frames.
//
//   speedqa_cambi_bench [--out DIR] [--vmaf PATH] [--repeat N] [--only FRAMES] [--isa c|avx2]
//                       [--feature ARG]
//
// Frames: the v2 clip's reference (1920x1080 10-bit), the same at 8 bits, and
// an 8-bit 4K made from it by bilinear upscaling at 10 bits then rounding to 8
// (smooth areas band, as CAMBI is meant to see). They are written to DIR as
// raw yuv so that libvmaf reads the same frames; with --vmaf the bench runs
//   vmaf --threads 1 --no_prediction --feature <cambi...> -q
// on them and prints its wall time per frame, and that of a run with the
// cheap psnr feature (reading and setup) for comparison. Times are CPU times
// (this thread's, the vmaf process's), the best of --repeat passes.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cpu_flags.hpp"
#include "features/cambi/cambi.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace fs = std::filesystem;
using namespace speedqa;

namespace {

struct Clip {
    std::string name;
    VideoFormat format;
    std::vector<std::vector<uint8_t>> frames;  // raw planar frames
};

uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// 10-bit 420 frames to 8 bits (rounded).
Clip to_8bit(const Clip& c) {
    Clip out{c.name + "_8bit", c.format, {}};
    out.format.bitdepth = 8;
    for (const auto& f : c.frames) {
        std::vector<uint8_t> o(out.format.frame_bytes());
        for (size_t i = 0; i < o.size(); i++) o[i] = static_cast<uint8_t>(std::min(255, (get16(&f[2 * i]) + 2) >> 2));
        out.frames.push_back(std::move(o));
    }
    return out;
}

// Twice the size, bilinear at 10 bits, rounded to 8 bits.
Clip upscale_to_8bit(const Clip& c) {
    Clip out{"4k_8bit", c.format, {}};
    out.format.width *= 2;
    out.format.height *= 2;
    out.format.bitdepth = 8;
    for (const auto& f : c.frames) {
        std::vector<uint8_t> o(out.format.frame_bytes());
        size_t in_off = 0, out_off = 0;
        for (int p = 0; p < c.format.plane_count(); p++) {
            const int w = c.format.stored_w(p), h = c.format.stored_h(p);
            const int ow = out.format.stored_w(p), oh = out.format.stored_h(p);
            auto at = [&](int x, int y) {
                x = std::clamp(x, 0, w - 1);
                y = std::clamp(y, 0, h - 1);
                return static_cast<int>(get16(&f[in_off + 2 * (static_cast<size_t>(y) * w + x)]));
            };
            for (int y = 0; y < oh; y++)
                for (int x = 0; x < ow; x++) {
                    // output pixel centre in input coordinates: (x + 0.5) / 2 - 0.5, in quarters
                    const int x4 = 2 * x - 1, y4 = 2 * y - 1;
                    const int x0 = x4 >> 2, y0 = y4 >> 2, fx = x4 & 3, fy = y4 & 3;
                    const int v = (at(x0, y0) * (4 - fx) + at(x0 + 1, y0) * fx) * (4 - fy) +
                                  (at(x0, y0 + 1) * (4 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
                    o[out_off + static_cast<size_t>(y) * ow + x] = static_cast<uint8_t>(std::min(255, (v + 32) >> 6));
                }
            in_off += c.format.plane_bytes(p);
            out_off += out.format.plane_bytes(p);
        }
        out.frames.push_back(std::move(o));
    }
    return out;
}

std::string write_yuv(const Clip& c, const fs::path& dir) {
    const fs::path p = dir / (c.name + ".yuv");
    std::ofstream out(p, std::ios::binary);
    for (const auto& f : c.frames) out.write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
    return p.string();
}

// CPU time of this thread: the machine is shared, wall time would count
// other processes' turns.
double now_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// CPU time (user + system) of the children waited for so far.
double children_ms() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) * 1e-3; };
    return ms(u.ru_utime) + ms(u.ru_stime);
}

// Our time per frame: the best of `repeat` passes over the clip, one thread.
double ours_ms(const Clip& c, const std::string& arg, const CpuTarget& target, int repeat, std::vector<double>* values) {
    const auto feature = testing::feature_from_arg({&cambi_feature()}, arg, c.format);
    const auto kernel = feature->make_cpu_kernel(target);
    const auto scratch = kernel->make_scratch();
    std::vector<Picture> pics;
    for (const auto& f : c.frames) pics.push_back(picture_in_frame(c.format, f.data()));
    std::vector<double> raw(static_cast<size_t>(feature->raw_count()));
    double best = 1e30;
    for (int rep = 0; rep < repeat; rep++) {
        const double t0 = now_ms();
        for (size_t i = 0; i < pics.size(); i++) {
            FrameView v;
            v.index = static_cast<long long>(i);
            v.ref = v.dis = &pics[i];
            kernel->extract(*scratch, v, raw.data());
            if (rep == 0) values->push_back(raw[0]);
        }
        best = std::min(best, (now_ms() - t0) / static_cast<double>(pics.size()));
    }
    return best;
}

// libvmaf's time per frame; its per-frame values of the first output go to
// `values`.
double vmaf_ms(const std::string& vmaf, const Clip& c, const std::string& yuv, const std::string& feature, int repeat,
               const fs::path& json, std::vector<double>* values) {
    const std::string cmd = vmaf + " -r " + yuv + " -d " + yuv + " -w " + std::to_string(c.format.width) + " -h " +
                            std::to_string(c.format.height) + " -p 420 -b " + std::to_string(c.format.bitdepth) +
                            " --threads 1 --no_prediction --feature " + feature + " -q -o " + json.string() + " --json";
    double best = 1e30;
    for (int rep = 0; rep < repeat; rep++) {
        const double t0 = children_ms();
        if (std::system(cmd.c_str()) != 0) return -1;
        best = std::min(best, (children_ms() - t0) / static_cast<double>(c.frames.size()));
    }
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& fr : j.at("frames")) values->push_back(fr.at("metrics").begin()->get<double>());
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path out = "/tmp/speedqa-cambi-bench";
    std::string vmaf;
    int repeat = 3;
    std::string only;  // a frames name: run only those
    std::string isa;   // c or avx2: run only that variant
    std::string feature;  // a --feature argument: run only it
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
        else if (!std::strcmp(argv[i], "--isa")) isa = argv[i + 1];
        else if (!std::strcmp(argv[i], "--feature")) feature = argv[i + 1];
        else if (!std::strcmp(argv[i], "--out")) out = argv[i + 1];
        else if (!std::strcmp(argv[i], "--vmaf")) vmaf = argv[i + 1];
        else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
    }
    const auto data = testing::TestData::open(testing::shared_testdata_dir());
    if (!data || !data->clip("v2")) {
        std::fprintf(stderr, "the shared test data (clip v2) is absent: set SPEEDQA_SHARED_TESTDATA\n");
        return 1;
    }
    const testing::ClipInfo& v2 = *data->clip("v2");
    Clip ten{"1080p_10bit", v2.format, {}};
    const std::vector<uint8_t>& bytes = testing::load_xz(v2.ref_xz);
    for (int i = 0; i < v2.frames; i++) {
        const auto* f = bytes.data() + static_cast<size_t>(i) * v2.format.frame_bytes();
        ten.frames.emplace_back(f, f + v2.format.frame_bytes());
    }
    const std::vector<Clip> clips = {ten, to_8bit(ten), upscale_to_8bit(ten)};
    fs::create_directories(out);
    std::vector<std::string> options = {"cambi", "cambi=cambi_high_res_speedup=1080"};
    if (!feature.empty()) options = {feature};
    std::vector<CpuTarget> targets;
    if (isa != "avx2") targets.push_back({Isa::c, Dispatch::scalar});
    if (isa != "c" && detect_cpu_flags().avx2) targets.push_back({Isa::avx2, Dispatch::avx2});
    std::printf("%-16s %-36s %-6s %10s %12s %12s %8s\n", "frames", "feature", "ours", "ms/frame", "vmaf ms/fr",
                "(psnr run)", "speed-up");
    for (const Clip& c : clips) {
        if (!only.empty() && c.name != only) continue;
        const std::string yuv = write_yuv(c, out);
        std::vector<double> ignored;
        const double base = vmaf.empty() ? -1 : vmaf_ms(vmaf, c, yuv, "psnr", repeat, out / "psnr.json", &ignored);
        for (const std::string& opt : options) {
            std::vector<double> want;
            const double theirs = vmaf.empty() ? -1 : vmaf_ms(vmaf, c, yuv, opt, repeat, out / "cambi.json", &want);
            for (const CpuTarget& t : targets) {
                std::vector<double> got;
                const double ms = ours_ms(c, opt, t, repeat, &got);
                const char* same = want.empty() ? "" : got == want ? "values ==" : "VALUES DIFFER";
                std::printf("%-16s %-36s %-6s %10.2f %12.2f %12.2f %7.2fx  %s (frame 0: %.17g)\n", c.name.c_str(), opt.c_str(),
                            testing::isa_name(t.isa), ms, theirs, base, theirs > 0 ? theirs / ms : 0.0, same, got[0]);
            }
        }
    }
    return 0;
}
