// The host twin of CAMBI's device part: the device's stages (cuda/stages.hpp)
// run on the host (HostGrid, HostBlocks) over batches laid out as the CUDA
// engine stages them (HostInput), then the part's own tail (cuda/tail.hpp),
// compared with == against the CPU kernel (the C reference; libvmaf's
// dispatch changes nothing in CAMBI) on every clip and CAMBI option set of
// the golden data, the models' CAMBI options and synthetic banding; every
// error the CPU gives (a sample above the bit depth's range) with the same
// text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/cambi/cambi.hpp"
#include "features/cambi/cambi_feature.hpp"
#include "features/cambi/cuda/stages.hpp"
#include "features/cambi/cuda/tail.hpp"
#include "support/host_input.hpp"
#include "support/json.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;
namespace dev = cambi::dev;
using cambi::CambiFeature;

// One frame: its raw values, or the text of its error.
struct Outcome {
    std::vector<double> raw;
    std::string error;
};

struct Tally {
    long long runs = 0, frames = 0, values = 0, identical = 0, errors = 0, same_errors = 0, refused = 0;
    dev::TailPaths paths;
};

std::vector<Outcome> cpu_outcomes(const CambiFeature& f, const std::vector<Picture>& ref, const std::vector<Picture>& dis) {
    const auto kernel = f.make_cpu_kernel(CpuTarget{});
    const auto scratch = kernel->make_scratch();
    std::vector<Outcome> out(dis.size());
    for (size_t k = 0; k < dis.size(); k++) {
        FrameView v;
        v.index = static_cast<long long>(k);
        v.ref = &ref[k];
        v.dis = &dis[k];
        out[k].raw.resize(static_cast<size_t>(f.raw_count()));
        try {
            kernel->extract(*scratch, v, out[k].raw.data());
        } catch (const Error& e) {
            out[k].error = e.what();
            out[k].raw.clear();
        }
    }
    return out;
}

struct TwinOptions {
    int batch = 3;
    size_t shared = dev::kBandingShared;
    bool always_ordered = false;
};

// The device part's stages and tail on the host: a first batch of one frame,
// then batches of `batch` (so that batches start after frame 0), the queue's
// arrays reused from batch to batch and starting as garbage (cudaMalloc's
// memory is not zeroed).
std::vector<Outcome> twin_outcomes(const CambiFeature& f, const VideoFormat& format, const std::vector<Picture>& ref,
                                   const std::vector<Picture>& dis, const TwinOptions& o, dev::TailPaths& paths) {
    const cambi::Plan& plan = f.plan();
    HostInput in(format, {&f});
    dev::Tables t;
    t.first_diff = plan.first_diff.data();
    t.weight = plan.weight.data();
    t.reciprocal = plan.reciprocal.data();
    t.source_row[0] = plan.dis.source_row.data();
    t.source_column[0] = plan.dis.source_column.data();
    t.source_row[1] = plan.src.source_row.data();
    t.source_column[1] = plan.src.source_column.data();
    const dev::DevPlan dp = dev::make_dev_plan(plan, t, o.shared);
    std::vector<uint64_t> arena(dev::arena_bytes(dp, o.batch) / 8 + 1, 0xa5a5a5a5a5a5a5a5u);
    const dev::DevBuffers b = dev::carve(dp, o.batch, arena.data());
    dev::HostTail tail;
    tail.always_ordered = o.always_ordered;
    const int frames = static_cast<int>(dis.size());
    std::vector<Outcome> out(dis.size());
    for (int first = 0, count = 1; first < frames; first += count, count = o.batch) {
        count = std::min(count, frames - first);
        in.fill(ref, dis, first, count);
        dev::launch_stages(HostGrid{}, dev::HostBlocks{}, dp, b, in.layout(), in.data(), count, [](const char*) {});
        for (int k = 0; k < count; k++) {
            const dev::FetchValues fetch = [&](int image, int s, float* dst, size_t n) {
                const dev::ImageDev& im = dp.image[image];
                std::memcpy(dst, dev::slot_of(b, im, image, k) + im.values[s], n * sizeof(float));
            };
            Outcome& r = out[static_cast<size_t>(first + k)];
            r.raw.resize(static_cast<size_t>(f.raw_count()));
            try {
                dev::frame_raw(plan, dp, b.records + static_cast<size_t>(k) * dp.images, first + k, fetch, tail, r.raw.data());
            } catch (const Error& e) {
                r.error = e.what();
                r.raw.clear();
            }
        }
    }
    paths.none += tail.paths.none;
    paths.all += tail.paths.all;
    paths.top += tail.paths.top;
    paths.ordered += tail.paths.ordered;
    return out;
}

void compare(const std::string& what, const Feature& f, const std::vector<Outcome>& want, const std::vector<Outcome>& got,
             Tally& t) {
    ASSERT_EQ(want.size(), got.size());
    t.runs++;
    for (size_t k = 0; k < want.size(); k++) {
        t.frames++;
        if (!want[k].error.empty()) {
            t.errors++;
            if (got[k].error == want[k].error) t.same_errors++;
            else ADD_FAILURE() << what << " frame " << k << ": error \"" << got[k].error << "\", want \"" << want[k].error << "\"";
            continue;
        }
        if (!got[k].error.empty()) {
            ADD_FAILURE() << what << " frame " << k << ": error \"" << got[k].error << "\"";
            continue;
        }
        for (size_t m = 0; m < want[k].raw.size(); m++) {
            t.values++;
            if (got[k].raw[m] == want[k].raw[m]) t.identical++;
            else
                ADD_FAILURE() << what << " frame " << k << " " << f.outputs()[m].name << ": got " << std::hexfloat
                              << got[k].raw[m] << ", want " << want[k].raw[m] << std::defaultfloat << " (" << got[k].raw[m]
                              << " vs " << want[k].raw[m] << ")";
        }
    }
}

// The feature for a --feature argument, or nullptr where CAMBI refuses the
// format (as libvmaf does).
std::unique_ptr<Feature> cambi_for(const std::string& arg, const VideoFormat& format) {
    try {
        return feature_from_arg({&cambi_feature()}, arg, format);
    } catch (const Error&) {
        return nullptr;
    }
}

void run_case(const std::string& what, const std::string& arg, const VideoFormat& format, const std::vector<Picture>& ref,
              const std::vector<Picture>& dis, const TwinOptions& o, Tally& t) {
    SCOPED_TRACE(what + " " + arg);
    const auto feature = cambi_for(arg, format);
    if (!feature) {
        t.refused++;
        return;
    }
    const auto& f = dynamic_cast<const CambiFeature&>(*feature);
    compare(what + " " + arg, f, cpu_outcomes(f, ref, dis), twin_outcomes(f, format, ref, dis, o, t.paths), t);
}

// ---------------------------------------------------------------------------
// Synthetic video.

struct Clip {
    VideoFormat format;
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<Picture> pictures;
    void finish() {
        for (const auto& b : bytes) pictures.push_back(picture_in_frame(format, b.data()));
    }
};

void put(const VideoFormat& f, uint8_t* plane, int stride_samples, int x, int y, unsigned v) {
    if (f.bitdepth > 8) {
        uint8_t* p = plane + (static_cast<size_t>(y) * stride_samples + x) * 2;
        p[0] = static_cast<uint8_t>(v);
        p[1] = static_cast<uint8_t>(v >> 8);
    } else {
        plane[static_cast<size_t>(y) * stride_samples + x] = static_cast<uint8_t>(v);
    }
}

// Frames of a sample function luma(x, y, frame) (chroma mid-grey).
template <class Luma>
Clip make_clip(const VideoFormat& f, int frames, Luma luma) {
    Clip c;
    c.format = f;
    for (int t = 0; t < frames; t++) {
        std::vector<uint8_t> frame(f.frame_bytes(), 0);
        size_t offset = 0;
        for (int p = 0; p < f.plane_count(); p++) {
            const int w = f.stored_w(p), h = f.stored_h(p);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    put(f, frame.data() + offset, w, x, y, p == 0 ? luma(x, y, t) : 1u << (f.bitdepth - 1));
            offset += f.plane_bytes(p);
        }
        c.bytes.push_back(std::move(frame));
    }
    c.finish();
    return c;
}

// Smooth gradients quantized to few levels (steps of 1 to 2 10-bit levels,
// one level of the video's depth at 8 bits): rings around a centre that
// moves, over a diagonal ramp; `noise` of the samples off by one.
Clip banded(int w, int h, PixelFormat pix, int bitdepth, int frames, double noise, unsigned seed) {
    const VideoFormat f{w, h, pix, bitdepth};
    std::mt19937 rng(seed);
    std::bernoulli_distribution off(noise), up(0.5);
    const int top = (1 << bitdepth) - 1;
    return make_clip(f, frames, [&](int x, int y, int t) -> unsigned {
        const double cx = w * (0.4 + 0.05 * t), cy = h * 0.5;
        const double r = std::sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (w + h);
        const double ramp = static_cast<double>(x + 2 * y) / (w + 2 * h);
        // 10-bit values from 120 to about 420, in steps
        const int level = static_cast<int>(std::floor((0.6 * r + 0.4 * ramp) * 60));
        int v10 = 120 + level * (bitdepth == 8 ? 4 : 2 + (level % 3 == 0));
        int v = bitdepth == 8 ? v10 >> 2 : v10 << (bitdepth - 10);
        if (noise > 0 && off(rng)) v += up(rng) ? 1 : -1;
        return static_cast<unsigned>(std::clamp(v, 0, top));
    });
}

// Strong banding that libvmaf's order of summation decides: 55% of the
// picture vertical stripes 8 pixels wide, 8 levels apart (large banding
// values), the rest flat with a 2x2 block one level up every 60 pixels
// (values near 4): the k-th largest is a small value under a sum of large
// ones, beyond 2^53 units of its last place.
Clip order_matters(int w, int h) {
    const VideoFormat f{w, h, PixelFormat::yuv420, 10};
    return make_clip(f, 1, [&](int x, int y, int) -> unsigned {
        if (x < w * 55 / 100) return (x / 8) % 2 ? 408u : 400u;
        return x % 60 < 2 && y % 60 < 2 ? 151u : 150u;
    });
}

// ---------------------------------------------------------------------------

std::vector<std::string> option_sets(const std::string& root) {
    std::vector<std::string> out = {"cambi"};
    std::ifstream in(fs::path(root) / "models" / "feature_optionsets.json");
    if (in) {
        const nlohmann::json j = parse_json(in);
        for (const auto& [key, value] : j.items())
            if (key.rfind("cambi", 0) == 0) out.push_back(value.get<std::string>());
    }
    // the models' CAMBI options
    std::set<std::string> models;
    const fs::path model_dir = fs::path(root).parent_path() / "models";
    if (fs::is_directory(model_dir))
        for (const auto& e : fs::directory_iterator(model_dir))
            if (e.path().extension() == ".json") {
                const std::string arg = model_feature_arg(e.path().string(), "_feature_cambi_score", "cambi");
                if (!arg.empty()) models.insert(arg);
            }
    out.insert(out.end(), models.begin(), models.end());
    // one of each request (the models spell options the feature sets name
    // in another order)
    const VideoFormat any{1920, 1080, PixelFormat::yuv420, 8};
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string& arg : out)
        if (seen.insert(feature_from_arg({&cambi_feature()}, arg, any)->canonical()).second) unique.push_back(arg);
    return unique;
}

void print(const char* what, const Tally& t) {
    std::printf("[device-twin] cambi%s: %lld values compared, %lld identical; %lld errors compared, %lld identical "
                "(%lld runs, %lld frames, %lld refused as libvmaf refuses them)\n",
                what, t.values, t.identical, t.errors, t.same_errors, t.runs, t.frames, t.refused);
    std::printf("[device-twin] cambi%s: scale means: %lld without values, %lld order-free sums of all, %lld order-free "
                "top-k sums (radix select), %lld in libvmaf's order (values copied back)\n",
                what, t.paths.none, t.paths.all, t.paths.top, t.paths.ordered);
}

TEST(CambiDeviceTwin, EveryValueEqualsTheCpuKernel) {
    Tally t;
    const std::string root = shared_testdata_dir();
    const auto data = TestData::open(root);
    if (!data && in_ci()) FAIL() << "the shared test data is absent (set SPEEDQA_SHARED_TESTDATA)";
    if (data) {
        const std::vector<std::string> args = option_sets(root);
        for (const ClipInfo& c : data->clips()) {
            const auto ref = first_golden_frames(clip_pictures(c, c.ref_xz));
            const auto dis = first_golden_frames(clip_pictures(c, c.dis_xz));
            for (const std::string& arg : args) run_case(c.name, arg, c.format, ref, dis, TwinOptions{}, t);
        }
        // A histogram of a few levels at a time (many passes over a tile),
        // and every scale's mean from the values copied back.
        const ClipInfo* v1 = data->clip("v1");
        const ClipInfo* v4 = data->clip("v4");
        ASSERT_TRUE(v1 && v4);
        for (const ClipInfo* c : {v1, v4}) {
            const auto ref = first_golden_frames(clip_pictures(*c, c->ref_xz));
            const auto dis = first_golden_frames(clip_pictures(*c, c->dis_xz));
            for (const std::string& arg : {std::string("cambi=full_ref=true"), args.back()}) {
                TwinOptions small;
                small.batch = 2;
                small.shared = 8 * 1024;  // 4 levels a pass at window 33
                run_case(c->name + " (8 KiB shared)", arg, c->format, ref, dis, small, t);
                TwinOptions ordered;
                ordered.always_ordered = true;
                run_case(c->name + " (libvmaf's order)", arg, c->format, ref, dis, ordered, t);
            }
        }
    }
    const int frames = sanitizer_build() ? 1 : 2;
    const std::vector<std::string> synthetic_args = {
        "cambi", "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
        "cambi=topk=0.05:max_log_contrast=3", "cambi=full_ref=true:src_width=480:src_height=270:enc_width=400:enc_height=240",
        "cambi=enc_bitdepth=8:eotf=pq:window_size=17",
        // 32 differences (a block of 1024 threads loops over 2112 counts);
        // 1 difference and an empty band (nothing counted)
        "cambi=max_log_contrast=5:window_size=40", "cambi=max_log_contrast=0:cambi_vis_lum_threshold=300"};
    struct Synthetic {
        int w, h;
        PixelFormat pix;
        int bitdepth;
        double noise;
    };
    const Synthetic shapes[] = {
        {1920, 1080, PixelFormat::yuv420, 8, 0.0},   // the speed-up applies
        {1920, 1080, PixelFormat::yuv420, 10, 0.02},
        {643, 367, PixelFormat::yuv422, 10, 0.0},    // odd sizes
        {641, 359, PixelFormat::yuv444, 12, 0.05},
        {500, 301, PixelFormat::yuv400, 16, 0.01},
        {640, 360, PixelFormat::yuv420, 8, 0.1},
    };
    unsigned seed = 1;
    for (const Synthetic& s : shapes) {
        const Clip c = banded(s.w, s.h, s.pix, s.bitdepth, s.w >= 1920 ? 1 : frames, s.noise, seed++);
        for (const std::string& arg : synthetic_args) {
            if (s.w >= 1920 && (arg.find("topk=0.05") != std::string::npos || arg.find("contrast") != std::string::npos))
                continue;  // (time)
            run_case(c.format.describe(), arg, c.format, c.pictures, c.pictures, TwinOptions{}, t);
        }
    }
    // libvmaf's order decides: in the top-k sum (radix select on the
    // device) and in the sum of all (topk 1).
    const long long ordered_before = t.paths.ordered;
    const Clip strong = order_matters(1600, 900);
    for (const char* arg : {"cambi=window_size=127:max_log_contrast=3:cambi_topk=0.9",
                            "cambi=window_size=127:max_log_contrast=3:cambi_topk=1"})
        run_case("strong banding", arg, strong.format, strong.pictures, strong.pictures, TwinOptions{}, t);
    EXPECT_GT(t.paths.ordered, ordered_before) << "no scale needed libvmaf's order on its own";
    print("", t);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
    EXPECT_GT(t.paths.top, 0);
    EXPECT_GT(t.paths.all, 0);
}

// A 10- or 12-bit picture with a sample above its range: the CPU's error, in
// the frame it names, also where the picture is resampled (libvmaf checks
// every sample) and where only the reference (full_ref) has it.
TEST(CambiDeviceTwin, OutOfRangeSamplesGiveTheCpusError) {
    Tally t;
    for (const int bitdepth : {10, 12}) {
        const int top = (1 << bitdepth) - 1;
        const VideoFormat f{640, 360, PixelFormat::yuv420, bitdepth};
        // frame 1: one sample above the range in column 1 (no column the
        // resampling to 480 reads: 0, 1.33, 2.67, ... round to 0, 2, 3, ...)
        // and frame 2 two, the larger last
        const Clip bad = make_clip(f, 3, [&](int x, int y, int frame) -> unsigned {
            if (frame == 1 && x == 1 && y == 100) return static_cast<unsigned>(top + 77);
            if (frame == 2 && x == 600 && y == 7) return static_cast<unsigned>(top + 5);
            if (frame == 2 && x == 601 && y == 359) return 65535u;
            return static_cast<unsigned>((x + y) / 40 * 3 + 200) << (bitdepth - 10);
        });
        const Clip good = banded(640, 360, PixelFormat::yuv420, bitdepth, 3, 0.0, 9);
        for (const char* arg : {"cambi", "cambi=enc_width=480:enc_height=270", "cambi=enc_bitdepth=8"})
            run_case("out of range", arg, f, bad.pictures, bad.pictures, TwinOptions{}, t);
        // only the reference is out of range
        run_case("out of range reference", "cambi=full_ref=true", f, bad.pictures, good.pictures, TwinOptions{}, t);
        run_case("out of range distorted", "cambi=full_ref=true", f, good.pictures, bad.pictures, TwinOptions{}, t);
    }
    print(" (out of range)", t);
    EXPECT_EQ(t.errors, 5 * 2 * 2);
    EXPECT_EQ(t.errors, t.same_errors);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing
