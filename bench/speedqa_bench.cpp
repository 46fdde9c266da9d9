// speedqa_bench: ms per frame of every engine on generated video, printed as
// a table with the ratio to the straightforward full-frame path measured in
// the same run. Each case runs in a child process so that its peak host
// memory is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/engine_factory.hpp"
#include "core/engine.hpp"
#include "features/registry.hpp"
#ifdef SPEEDQA_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/cuda_engine.hpp"
#endif

namespace {

using namespace speedqa;

struct Size {
    int w, h;
};

struct CaseResult {
    double ms_per_frame = 0, min_ms = 0, max_ms = 0;
    double device_mb = 0, upload_bytes = 0;
    long peak_rss_kb = 0;
    bool ok = false;
    char error[200] = {};
};

// A moving pattern with texture and noise, cheap to make at 4K: two
// separable waves (row and column tables) plus per-sample noise.
std::vector<uint8_t> make_video(const VideoFormat& f, int frames, uint32_t seed) {
    std::vector<uint8_t> data(f.frame_bytes() * static_cast<size_t>(frames));
    uint32_t x = seed * 2654435761u + 1;
    auto rnd = [&] {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        return x;
    };
    const int maxv = (1 << f.bitdepth) - 1;
    uint8_t* p = data.data();
    std::vector<double> col_a, col_b, row_a, row_b;
    for (int t = 0; t < frames; t++)
        for (int pl = 0; pl < f.plane_count(); pl++) {
            const int w = f.stored_w(pl), h = f.stored_h(pl);
            const double sx = 2.0 * f.width / w, ph = seed * 0.7 + pl;
            col_a.resize(static_cast<size_t>(w)), col_b.resize(static_cast<size_t>(w));
            row_a.resize(static_cast<size_t>(h)), row_b.resize(static_cast<size_t>(h));
            for (int c = 0; c < w; c++) {
                col_a[static_cast<size_t>(c)] = 0.25 * std::sin(0.013 * c * sx + 0.21 * t + ph);
                col_b[static_cast<size_t>(c)] = 0.1 * std::sin(0.2 * c * sx + 0.05 * t);
            }
            for (int y = 0; y < h; y++) {
                row_a[static_cast<size_t>(y)] = std::cos(0.017 * y * sx - 0.13 * t);
                row_b[static_cast<size_t>(y)] = std::sin(0.15 * y * sx + t + ph);
            }
            for (int y = 0; y < h; y++)
                for (int c = 0; c < w; c++) {
                    const double v = 0.5 + col_a[static_cast<size_t>(c)] * row_a[static_cast<size_t>(y)] +
                                     col_b[static_cast<size_t>(c)] * row_b[static_cast<size_t>(y)] +
                                     0.08 * ((rnd() & 1023) / 1023.0 - 0.5);
                    const int s = std::clamp(static_cast<int>(v * maxv), 0, maxv);
                    if (f.bitdepth == 8) *p++ = static_cast<uint8_t>(s);
                    else {
                        const uint16_t s16 = static_cast<uint16_t>(s);
                        std::memcpy(p, &s16, 2);
                        p += 2;
                    }
                }
        }
    return data;
}

// Generated frames in pageable memory, or page-locked for "cuda-pinned".
class FrameStore {
public:
    FrameStore(const VideoFormat& f, int frames, uint32_t seed, bool page_locked) : page_locked_(page_locked) {
        std::vector<uint8_t> v = make_video(f, frames, seed);
#ifdef SPEEDQA_HAVE_CUDA
        if (page_locked) {
            if (cudaMallocHost(&pinned_, v.size()) != cudaSuccess) throw std::runtime_error("cudaMallocHost failed");
            std::memcpy(pinned_, v.data(), v.size());
            data_ = static_cast<const uint8_t*>(pinned_);
            return;
        }
#endif
        bytes_ = std::move(v);
        data_ = bytes_.data();
    }
    ~FrameStore() {
#ifdef SPEEDQA_HAVE_CUDA
        if (pinned_) cudaFreeHost(pinned_);
#endif
    }
    Picture picture(const VideoFormat& f, int i) const {
        Picture p = picture_in_frame(f, data_ + f.frame_bytes() * static_cast<size_t>(i));
        p.page_locked = page_locked_;
        return p;
    }

private:
    bool page_locked_;
    void* pinned_ = nullptr;
    std::vector<uint8_t> bytes_;
    const uint8_t* data_ = nullptr;
};

// The features of a case: one --feature string, several joined by '+', or
// a model's name for the features (at their options) the model reads.
std::vector<std::string> features_of(const std::string& c) {
    if (c == "vmaf_v0.6.1") return {"adm", "vif", "motion"};
    if (c == "vmaf_v1.0.16_3d0h")
        return {"cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
                "speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
                "speed_max_val=45.0",
                "adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val=0.5:adm_noise_weight=0.02:"
                "adm_norm_view_dist=3:adm_ref_display_height=1080",
                "motion=motion_max_val=18"};
    std::vector<std::string> out;
    std::stringstream ss(c);
    std::string item;
    while (std::getline(ss, item, '+')) out.push_back(item);
    return out;
}

// `frames` distinct frames are generated; the engine scores `scored` frames
// cycling through them (the CUDA engine needs many batches in flight to show
// its steady state; distinct frames would not fit in memory at 4K).
CaseResult run_case(const VideoFormat& f, const std::string& feature, const std::string& engine_name, int threads,
                    int frames, int scored, int repeats) {
    CaseResult r;
    try {
        const bool pinned = engine_name == "cuda-pinned";
        const std::string backend = pinned ? "cuda" : engine_name;
        const FrameStore rstore(f, frames, 1, pinned), dstore(f, frames, 2, pinned);
        std::vector<Picture> ref, dis;
        for (int i = 0; i < scored; i++) {
            ref.push_back(rstore.picture(f, i % frames));
            dis.push_back(dstore.picture(f, i % frames));
        }
        std::vector<std::unique_ptr<Feature>> owned;
        std::vector<const Feature*> specs;
        for (const std::string& one : features_of(feature)) {
            const FeatureRequest req = parse_feature_request(one);
            const FeatureDef* def = find_feature(req.name);
            if (!def) throw std::runtime_error("unknown feature " + req.name);
            owned.push_back(make_feature(*def, f, req.options));
            specs.push_back(owned.back().get());
        }
        EngineChoice c;
        c.backend = backend;
        c.threads = threads;
#ifdef SPEEDQA_HAVE_CUDA
        size_t free_before = 0, total = 0;
        if (backend == "cuda") cudaMemGetInfo(&free_before, &total);
#endif
        auto engine = make_engine(f, specs, c);
        const int metrics = RawLayout(specs).stride;
        std::vector<double> out(static_cast<size_t>(scored) * metrics);
        FrameBatch b;
        b.ref = ref.data();
        b.dis = dis.data();
        b.count = scored;
        engine->score(b, out.data());  // warm-up: page faults, graph capture, module load
#ifdef SPEEDQA_HAVE_CUDA
        if (backend == "cuda") {
            size_t free_after = 0;
            cudaMemGetInfo(&free_after, &total);
            r.device_mb = (static_cast<double>(free_before) - static_cast<double>(free_after)) / (1 << 20);
        }
#endif
        std::vector<double> ms;
        for (int k = 0; k < repeats; k++) {
            const auto t0 = std::chrono::steady_clock::now();
            engine->score(b, out.data());
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / scored);
        }
        std::sort(ms.begin(), ms.end());
        r.ms_per_frame = ms[ms.size() / 2];
        r.min_ms = ms.front();
        r.max_ms = ms.back();
#ifdef SPEEDQA_HAVE_CUDA
        if (const auto* device = dynamic_cast<const cuda::CudaEngine*>(engine.get())) r.upload_bytes = device->upload_bytes_per_frame();
#endif
        r.ok = true;
    } catch (const std::exception& e) {
        std::snprintf(r.error, sizeof r.error, "%s", e.what());
    }
    return r;
}

// Runs the case in a child; its peak RSS comes from wait4.
CaseResult run_isolated(const VideoFormat& f, const std::string& feature, const std::string& backend, int threads,
                        int frames, int scored, int repeats) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const CaseResult r = run_case(f, feature, backend, threads, frames, scored, repeats);
        const ssize_t n = write(fds[1], &r, sizeof r);
        _exit(n == sizeof r ? 0 : 1);
    }
    close(fds[1]);
    CaseResult r;
    const ssize_t n = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    if (n != sizeof r) {
        r = CaseResult{};
        std::snprintf(r.error, sizeof r.error, "child failed (status %d)", status);
    }
    r.peak_rss_kb = ru.ru_maxrss;
    return r;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// Pinned host-to-device bandwidth, measured in a child process: CUDA must
// not be initialised in the parent, whose children fork from it.
double h2d_gbps_here();
double h2d_gbps() {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const double v = h2d_gbps_here();
        const ssize_t n = write(fds[1], &v, sizeof v);
        _exit(n == sizeof v ? 0 : 1);
    }
    close(fds[1]);
    double v = 0;
    if (read(fds[0], &v, sizeof v) != sizeof v) v = 0;
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    return v;
}

double h2d_gbps_here() {
#ifdef SPEEDQA_HAVE_CUDA
    std::string why;
    if (!cuda_available(&why)) return 0;
    const size_t bytes = size_t{512} << 20;
    void *h = nullptr, *d = nullptr;
    if (cudaMallocHost(&h, bytes) != cudaSuccess || cudaMalloc(&d, bytes) != cudaSuccess) return 0;
    std::memset(h, 1, bytes);
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    std::vector<float> ms;
    for (int i = 0; i < 5; i++) {
        cudaEventRecord(a);
        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaFree(d), cudaFreeHost(h);
    return bytes / (ms[2] * 1e-3) / 1e9;
#else
    return 0;
#endif
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(item);
    return out;
}

}  // namespace

// --make-clip PATH WxH FRAMES [SEED]: writes generated 420 8-bit raw video, for timing the CLI.
int make_clip(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: speedqa_bench --make-clip PATH WxH FRAMES [SEED]\n");
        return 1;
    }
    Size s{};
    if (std::sscanf(argv[3], "%dx%d", &s.w, &s.h) != 2) return 1;
    const VideoFormat f{s.w, s.h, PixelFormat::yuv420, 8};
    const int frames = std::atoi(argv[4]);
    const uint32_t seed = argc > 5 ? static_cast<uint32_t>(std::atoi(argv[5])) : 1;
    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out) return 1;
    for (int t = 0; t < frames; t += 8) {
        const auto data = make_video(f, std::min(8, frames - t), seed * 1000 + static_cast<uint32_t>(t));
        std::fwrite(data.data(), 1, data.size(), out);
    }
    return std::fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--make-clip") return make_clip(argc, argv);
    std::string sizes = "576x324,1920x1080,3840x2160", features = "speed_chroma,speed_temporal";
    std::string engines = "cpu-reference:1,cpu:1,cpu:2,cuda,cuda-pinned,auto";
    int repeats = 5, bitdepth = 8, cuda_cycles = 10;
    double frame_budget_mpx = 400;  // megapixels generated per case
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--sizes") sizes = v;
        else if (a == "--features") features = v;
        else if (a == "--engines") engines = v;
        else if (a == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
        else if (a == "--bitdepth") bitdepth = std::atoi(v.c_str());
        else if (a == "--mpx") frame_budget_mpx = std::atof(v.c_str());
        else if (a == "--cuda-cycles") cuda_cycles = std::max(1, std::atoi(v.c_str()));
        else {
            std::fprintf(stderr, "usage: speedqa_bench [--sizes WxH,...] [--features f,f+g,vmaf_v0.6.1,...] [--engines "
                                 "cpu-reference:1,cpu:1,cpu:2,cuda,cuda-pinned,auto] [--repeats N] [--bitdepth B] [--mpx M] [--cuda-cycles N]\n");
            return 1;
        }
    }
    if (argc % 2 == 0) {
        std::fprintf(stderr, "speedqa_bench: options come in pairs (--name value)\n");
        return 1;
    }
    const double gbps = h2d_gbps();
    std::printf("speedqa_bench: %s, %ld cores", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    if (gbps > 0) std::printf("; NVIDIA GPU, host-to-device %.1f GB/s (pinned)", gbps);
    std::printf("\n420 %d-bit generated video; ms/frame = median of %d runs over all frames; ratio = full-frame path time / "
                "this engine's time\n"
                "cuda: frames in pageable memory (the engine gathers their rows into its pinned staging); cuda-pinned: frames in "
                "page-locked memory (rows copied straight to the device); auto: CPU and CUDA engines side by side; CUDA "
                "figures after a warm-up call, over the frames cycled %d times\n\n",
                bitdepth, repeats, cuda_cycles);
    std::printf("| size | feature | engine | threads | frames | ms/frame | fps | peak host MB | device MB | vs full-frame | upload floor ms/frame |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& sz : split(sizes)) {
        Size s{};
        if (std::sscanf(sz.c_str(), "%dx%d", &s.w, &s.h) != 2) continue;
        const VideoFormat f{s.w, s.h, PixelFormat::yuv420, bitdepth};
        const int frames = std::clamp(static_cast<int>(frame_budget_mpx * 1e6 / (s.w * s.h)), 8, 240);
        for (const std::string& feature : split(features)) {
            double reference_ms = 0;
            for (const std::string& e : split(engines)) {
                const size_t colon = e.find(':');
                const std::string backend = e.substr(0, colon);
                // cuda without a count: host threads (staging, log2 tail) = all cores
                const bool cuda = backend == "cuda" || backend == "cuda-pinned" || backend == "auto";
                const int threads = colon != std::string::npos ? std::atoi(e.c_str() + colon + 1)
                                    : cuda ? static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) : 1;
                // (CUDA is only ever touched in the children: a parent that
                // initialised it could not fork working children.)
                if (cuda && gbps == 0) {
                    std::printf("| %s | %s | %s | - | - | skipped: no CUDA device | | | | | |\n", sz.c_str(), feature.c_str(),
                                backend.c_str());
                    continue;
                }
                const int n = backend == "cpu-reference" ? std::max(4, frames / 8) : frames;
                const int scored = cuda ? n * cuda_cycles : n;
                const CaseResult r =
                    run_isolated(f, feature, backend, threads, n, scored, backend == "cpu-reference" ? 3 : repeats);
                if (!r.ok) {
                    std::printf("| %s | %s | %s | %d | %d | failed: %s | | | | | |\n", sz.c_str(), feature.c_str(),
                                backend.c_str(), threads, n, r.error);
                    continue;
                }
                if (backend == "cpu-reference") reference_ms = r.ms_per_frame;
                char ratio[32] = "", floor_ms[32] = "", dev[32] = "";
                if (reference_ms > 0) std::snprintf(ratio, sizeof ratio, "%.1fx", reference_ms / r.ms_per_frame);
                if (r.upload_bytes > 0 && gbps > 0) std::snprintf(floor_ms, sizeof floor_ms, "%.3f", r.upload_bytes / (gbps * 1e6));
                if (backend == "cuda") std::snprintf(dev, sizeof dev, "%.0f", r.device_mb);
                std::printf("| %s | %s | %s | %d | %d | %.3f | %.1f | %.0f | %s | %s | %s |\n", sz.c_str(), feature.c_str(),
                            backend.c_str(), threads, scored, r.ms_per_frame, 1000.0 / r.ms_per_frame,
                            r.peak_rss_kb / 1024.0, dev, ratio, floor_ms);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
