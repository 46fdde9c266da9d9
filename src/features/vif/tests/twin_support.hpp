// What the host twin tests of the vif and motion device parts share: the
// option sets the golden data has for a feature, the C kernel's raw values
// of a clip, synthetic clips, batches, and a tally of values compared with ==.
// (A device part's stages run on the host through core/grid.hpp's HostGrid,
// on a batch's input laid out as the engine stages it: support/host_input.)
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/feature.hpp"
#include "features/vif/tests/feature_golden.hpp"
#include "support/json.hpp"
#include "support/model_golden.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"

namespace speedqa::testing::twin {

// Values compared with == (bits; NaN with NaN), and the first few that differ.
struct Tally {
    long long values = 0, identical = 0;
    void compare(double want, double got, const std::string& what) {
        values++;
        if (std::memcmp(&want, &got, sizeof want) == 0 || (want != want && got != got)) {
            identical++;
            return;
        }
        if (values - identical <= 20)
            ADD_FAILURE() << what << ": cpu " << std::hexfloat << want << " (" << std::defaultfloat << want
                          << "), twin " << std::hexfloat << got << " (" << std::defaultfloat << got << ")";
    }
    void print(const char* feature) const {
        std::printf("[device-twin] %s: %lld values compared, %lld identical\n", feature, values, identical);
    }
};

// The --feature arguments of `name` that the golden data runs: the feature
// alone, its option sets ("<name>_oN" of models/feature_optionsets.json) and
// what each model of ../models gives it (the feature whose provided name
// holds `marker`), without repeats.
inline std::vector<std::string> golden_option_args(const std::string& testdata, const std::string& name,
                                                   const std::string& marker) {
    namespace fs = std::filesystem;
    std::vector<std::string> args = {name};
    std::ifstream sets(fs::path(testdata) / "models" / "feature_optionsets.json");
    const nlohmann::json j = parse_json(sets);
    for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key().rfind(name + "_o", 0) == 0) args.push_back(it.value().get<std::string>());
    std::vector<fs::path> models;
    for (const auto& e : fs::directory_iterator(fs::path(testdata) / ".." / "models"))
        if (e.path().extension() == ".json") models.push_back(e.path());
    std::sort(models.begin(), models.end());
    for (const fs::path& m : models) {
        const std::string arg = model_feature_arg(m.string(), marker, name);
        if (!arg.empty()) args.push_back(arg);
    }
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string& a : args)
        if (seen.insert(a).second) unique.push_back(a);
    return unique;
}

// Calls run(clip, format, ref, dis, arg) for every golden clip (its first
// `max_frames` frames) and every option set `arg` of golden_option_args;
// fails where the shared test data is absent in CI, skips it elsewhere.
using GoldenRun = std::function<void(const std::string&, const VideoFormat&, const std::vector<Picture>&,
                                     const std::vector<Picture>&, const std::string&)>;
inline void for_each_golden_run(const std::string& name, const std::string& marker, size_t max_frames,
                                const GoldenRun& run) {
    const std::string root = shared_testdata_dir();
    if (root.empty()) {
        if (in_ci()) ADD_FAILURE() << "CI=true but ../shared/testdata is absent";
        return;
    }
    const auto data = TestData::open(root);
    ASSERT_TRUE(data);
    const std::vector<std::string> args = golden_option_args(root, name, marker);
    std::printf("[device-twin] %s: %zu clips x %zu option sets of the golden data\n", name.c_str(), data->clips().size(),
                args.size());
    for (const ClipInfo& c : data->clips()) {
        const ClipFrames& clip = clip_frames(*data, c.name);
        const size_t n = std::min(clip.ref.size(), max_frames);
        const std::vector<Picture> ref(clip.ref.begin(), clip.ref.begin() + static_cast<ptrdiff_t>(n));
        const std::vector<Picture> dis(clip.dis.begin(), clip.dis.begin() + static_cast<ptrdiff_t>(n));
        for (const std::string& arg : args) run(c.name, clip.format, ref, dis, arg);
    }
}

// Each frame's raw values from the feature's C kernel (its only dispatch:
// kernel_target maps every one to scalar), frames in order with their
// history.
inline std::vector<std::vector<double>> cpu_raw(const Feature& f, const std::vector<Picture>& ref,
                                                const std::vector<Picture>& dis) {
    const auto kernel = f.make_cpu_kernel(CpuTarget{Isa::c, Dispatch::scalar, false});
    const auto scratch = kernel->make_scratch();
    std::vector<std::vector<double>> out(ref.size(), std::vector<double>(static_cast<size_t>(f.raw_count())));
    for (size_t i = 0; i < ref.size(); i++) {
        FrameView v;
        v.index = static_cast<long long>(i);
        v.ref = &ref[i];
        v.dis = &dis[i];
        for (size_t d = 1; d <= 2 && d <= i; d++) {
            v.prev_ref[d - 1] = &ref[i - d];
            v.prev_dis[d - 1] = &dis[i - d];
        }
        kernel->extract(*scratch, v, out[i].data());
    }
    return out;
}

// Calls run(first, count) for batches of `batch` frames from frame 0.
inline void in_batches(int frames, int batch, const std::function<void(int, int)>& run) {
    for (int first = 0; first < frames; first += batch) run(first, std::min(batch, frames - first));
}

// A synthetic clip of raw planar frames: a drifting pattern with noise, and
// in places the extremes of the range (saturated blocks, one-sample
// checkerboards) where the widths of intermediate sums are tested.
struct Clip {
    VideoFormat format;
    std::vector<uint8_t> ref_bytes, dis_bytes;
    std::vector<Picture> ref, dis;
    std::string name() const { return format.describe(); }
};

inline std::vector<uint8_t> synthetic_frames(const VideoFormat& f, int frames, uint32_t seed, bool distorted) {
    std::mt19937 rng(seed);
    const int maxv = (1 << f.bitdepth) - 1;
    std::vector<uint8_t> data(f.frame_bytes() * static_cast<size_t>(frames));
    size_t at = 0;
    const auto put = [&](int s) {
        if (f.bitdepth == 8) {
            data[at++] = static_cast<uint8_t>(s);
        } else {
            const uint16_t v = static_cast<uint16_t>(s);
            std::memcpy(&data[at], &v, 2);
            at += 2;
        }
    };
    for (int t = 0; t < frames; t++)
        for (int pl = 0; pl < f.plane_count(); pl++)
            for (int y = 0; y < f.stored_h(pl); y++)
                for (int x = 0; x < f.stored_w(pl); x++) {
                    const int bx = (x + 3 * t) / 8, by = (y + t) / 8;
                    int s;
                    if ((bx * 7 + by * 3) % 11 == 0) s = ((x + y) & 1) ? maxv : 0;  // checkerboard of extremes
                    else if ((bx + by * 5) % 13 == 0) s = (bx & 1) ? maxv : 0;      // saturated block
                    else s = static_cast<int>((x * 5 + y * 3 + t * 17) % (maxv + 1)) / 2 + static_cast<int>(rng() % (maxv / 2 + 1));
                    if (distorted && rng() % 4 == 0) s += static_cast<int>(rng() % 33) - 16;
                    put(std::clamp(s, 0, maxv));
                }
    return data;
}

inline Clip synthetic_clip(const VideoFormat& f, int frames, uint32_t seed) {
    Clip c;
    c.format = f;
    c.ref_bytes = synthetic_frames(f, frames, seed, false);
    c.dis_bytes = synthetic_frames(f, frames, seed + 1, true);
    c.ref = frames_of(f, c.ref_bytes);
    c.dis = frames_of(f, c.dis_bytes);
    return c;
}

// Formats of the synthetic clips: every bit depth and pixel format, odd sizes.
inline std::vector<VideoFormat> synthetic_formats() {
    return {{37, 29, PixelFormat::yuv420, 8},   {64, 48, PixelFormat::yuv422, 10}, {45, 33, PixelFormat::yuv444, 12},
            {51, 39, PixelFormat::yuv400, 16},  {130, 67, PixelFormat::yuv420, 10}, {97, 101, PixelFormat::yuv444, 8},
            {16, 16, PixelFormat::yuv400, 8},   {17, 19, PixelFormat::yuv420, 16}, {255, 129, PixelFormat::yuv422, 12}};
}

}  // namespace speedqa::testing::twin
