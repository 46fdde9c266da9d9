// What the per-feature kernel benchmarks share: the frames (v2 as it is, and
// 8-bit 1080p / 4K frames made by scaling v1 up, bilinear, with our own
// code), per-frame timing of a feature's CPU kernel on one thread, and the
// same frames through libvmaf's `vmaf --threads 1 --no_prediction` for
// comparison, in the same run.
#pragma once

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "core/feature.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::bench {

struct Clip {
    std::string label;
    VideoFormat format;
    std::vector<uint8_t> ref, dis;  // raw planar frames
    int frames = 0;
};

// Bilinear resize of one plane (8-bit), source centres at (x + 0.5) * ratio - 0.5.
inline void resize_plane(const uint8_t* src, int sw, int sh, uint8_t* dst, int dw, int dh) {
    for (int y = 0; y < dh; y++) {
        const double fy = std::clamp((y + 0.5) * sh / dh - 0.5, 0.0, sh - 1.0);
        const int y0 = static_cast<int>(fy), y1 = std::min(y0 + 1, sh - 1);
        const double wy = fy - y0;
        for (int x = 0; x < dw; x++) {
            const double fx = std::clamp((x + 0.5) * sw / dw - 0.5, 0.0, sw - 1.0);
            const int x0 = static_cast<int>(fx), x1 = std::min(x0 + 1, sw - 1);
            const double wx = fx - x0;
            const double top = src[y0 * sw + x0] * (1 - wx) + src[y0 * sw + x1] * wx;
            const double bot = src[y1 * sw + x0] * (1 - wx) + src[y1 * sw + x1] * wx;
            dst[y * dw + x] = static_cast<uint8_t>(std::lround(top * (1 - wy) + bot * wy));
        }
    }
}

// The first `frames` frames of an 8-bit 4:2:0 clip scaled to w x h.
inline std::vector<uint8_t> scale_clip(const std::vector<uint8_t>& raw, const VideoFormat& from, int w, int h,
                                       int frames) {
    VideoFormat to = from;
    to.width = w;
    to.height = h;
    std::vector<uint8_t> out(to.frame_bytes() * frames);
    for (int f = 0; f < frames; f++) {
        const uint8_t* s = raw.data() + from.frame_bytes() * f;
        uint8_t* d = out.data() + to.frame_bytes() * f;
        for (int p = 0; p < 3; p++) {
            resize_plane(s, from.stored_w(p), from.stored_h(p), d, to.stored_w(p), to.stored_h(p));
            s += from.plane_bytes(p);
            d += to.plane_bytes(p);
        }
    }
    return out;
}

inline std::vector<Clip> bench_clips(const testing::TestData& data, int frames_1080, int frames_4k) {
    std::vector<Clip> clips;
    const testing::ClipInfo* v2 = data.clip("v2");
    const testing::ClipInfo* v1 = data.clip("v1");
    if (v2) {
        Clip c{"1920x1080 10-bit (v2)", v2->format, testing::load_xz(v2->ref_xz), testing::load_xz(v2->dis_xz),
               v2->frames};
        clips.push_back(std::move(c));
    }
    if (v1) {
        const auto& r = testing::load_xz(v1->ref_xz);
        const auto& d = testing::load_xz(v1->dis_xz);
        for (auto [w, h, n] : {std::tuple{1920, 1080, frames_1080}, std::tuple{3840, 2160, frames_4k}}) {
            Clip c;
            c.label = std::to_string(w) + "x" + std::to_string(h) + " 8-bit (v1 scaled up)";
            c.format = v1->format;
            c.format.width = w;
            c.format.height = h;
            c.frames = std::min(n, v1->frames);
            c.ref = scale_clip(r, v1->format, w, h, c.frames);
            c.dis = scale_clip(d, v1->format, w, h, c.frames);
            clips.push_back(std::move(c));
        }
    }
    return clips;
}

// CPU time, not wall time: the machine may be shared, and a thread's or a
// child's CPU time does not grow while it waits for a core.
inline double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
inline double children_cpu_ms() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    const auto ms = [](const timeval& v) { return v.tv_sec * 1e3 + v.tv_usec * 1e-3; };
    return ms(u.ru_utime) + ms(u.ru_stime);
}

// Best (smallest) mean CPU time per frame over `repeats` passes of frames
// [first, frames): the feature's kernel on this thread, one scratch.
inline double kernel_ms_per_frame(const Feature& feature, const CpuTarget& target, const Clip& clip, int first,
                                  int repeats) {
    const auto ref = testing::frames_of(clip.format, clip.ref, clip.frames);
    const auto dis = testing::frames_of(clip.format, clip.dis, clip.frames);
    const auto kernel = feature.make_cpu_kernel(target);
    const auto scratch = kernel->make_scratch();
    std::vector<double> raw(static_cast<size_t>(feature.raw_count()));
    double best = 1e300;
    for (int rep = 0; rep < repeats; rep++) {
        const double t0 = thread_cpu_ms();
        for (int i = first; i < clip.frames; i++) {
            FrameView v;
            v.index = i;
            v.ref = &ref[static_cast<size_t>(i)];
            v.dis = &dis[static_cast<size_t>(i)];
            for (int h = 0; h < feature.history() && h < i; h++) {
                v.prev_ref[h] = &ref[static_cast<size_t>(i - h - 1)];
                v.prev_dis[h] = &dis[static_cast<size_t>(i - h - 1)];
            }
            kernel->extract(*scratch, v, raw.data());
        }
        best = std::min(best, (thread_cpu_ms() - t0) / (clip.frames - first));
    }
    return best;
}

// libvmaf's CPU time per frame for `--feature <arg>` on the same frames: the
// best of `repeats` runs over all frames less the best over one frame,
// divided by the frames in between (start-up and reading excluded as far as
// they are per run). 0 when the command is absent.
inline double vmaf_ms_per_frame(const std::string& vmaf, const std::string& feature_arg, const Clip& clip,
                                int repeats, const std::string& cpumask) {
    namespace fs = std::filesystem;
    if (vmaf.empty() || !fs::exists(vmaf)) return 0;
    const fs::path dir = fs::temp_directory_path() / ("speedqa-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path rp = dir / "ref.yuv", dp = dir / "dis.yuv";
    std::ofstream(rp, std::ios::binary).write(reinterpret_cast<const char*>(clip.ref.data()), clip.ref.size());
    std::ofstream(dp, std::ios::binary).write(reinterpret_cast<const char*>(clip.dis.data()), clip.dis.size());
    const auto run = [&](int frames) {
        const std::string cmd = vmaf + " -r " + rp.string() + " -d " + dp.string() + " -w " +
                                std::to_string(clip.format.width) + " -h " + std::to_string(clip.format.height) +
                                " -p " + pixel_format_name(clip.format.pix) + " -b " +
                                std::to_string(clip.format.bitdepth) + " --threads 1 --no_prediction --feature " +
                                feature_arg + " -q --cpumask " + cpumask + " --frame_cnt " + std::to_string(frames) +
                                " --json -o /dev/null > /dev/null 2>&1";
        double best = 1e300;
        for (int rep = 0; rep < repeats; rep++) {
            const double t0 = children_cpu_ms();
            if (std::system(cmd.c_str()) != 0) return -1.0;
            best = std::min(best, children_cpu_ms() - t0);
        }
        return best;
    };
    const double one = run(1), all = run(clip.frames);
    fs::remove_all(dir);
    if (one < 0 || all < 0) return 0;
    return (all - one) / (clip.frames - 1);
}

// libvmaf's vmaf to compare with: SPEEDQA_VMAF_BIN, else none.
inline std::string default_vmaf() {
    if (const char* e = std::getenv("SPEEDQA_VMAF_BIN")) return e;
    return "";
}

// The main of a feature's kernel benchmark:
//   PROGRAM [--vmaf PATH] [--repeats N] [--no-c]
// On each bench clip and for each of `args` (--feature arguments of
// `feature`): our kernel at the host's instruction set and the C one, and
// libvmaf's AVX2 dispatch (--cpumask 16), timed from frame `first` (a
// temporal feature does no work on frame 0 in either), one line each.
inline int kernel_bench_main(int argc, char** argv, const FeatureDef& feature, const std::vector<std::string>& args,
                             int first) {
    std::string vmaf = default_vmaf();
    int repeats = 3;
    bool with_c = true;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--vmaf" && i + 1 < argc) vmaf = argv[++i];
        else if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-c") with_c = false;
        else {
            std::fprintf(stderr, "%s: unknown argument %s (--vmaf PATH, --repeats N, --no-c)\n", argv[0], a.c_str());
            return 2;
        }
    }
    const auto data = testing::TestData::open(testing::shared_testdata_dir());
    if (!data) {
        std::fprintf(stderr, "no shared test data (set SPEEDQA_SHARED_TESTDATA)\n");
        return 1;
    }
    if (vmaf.empty()) std::printf("[bench] no libvmaf column: set SPEEDQA_VMAF_BIN or pass --vmaf PATH\n");
    for (const Clip& clip : bench_clips(*data, 8, 4)) {
        for (const std::string& arg : args) {
            const auto f = testing::feature_from_arg({&feature}, arg, clip.format);
            const double simd = kernel_ms_per_frame(*f, {host_isa(), Dispatch::avx2}, clip, first, repeats);
            const double c = with_c ? kernel_ms_per_frame(*f, {Isa::c, Dispatch::avx2}, clip, first, 1) : 0;
            const double lib = vmaf_ms_per_frame(vmaf, arg, clip, repeats, "16");
            std::printf("[bench] --feature %-24s %-32s speedqa %s %8.3f ms/frame", arg.c_str(), clip.label.c_str(),
                        testing::isa_name(host_isa()), simd);
            if (with_c) std::printf(", c %8.3f", c);
            if (lib > 0) std::printf("; libvmaf avx2 %8.3f ms/frame: %.2fx", lib, lib / simd);
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    return 0;
}

}  // namespace speedqa::bench
