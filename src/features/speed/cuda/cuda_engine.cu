// The CUDA engine. Per batch of frames: the rows the features read are
// gathered into pinned staging, then one replayed CUDA graph uploads them,
// runs every feature's kernel chain and reads back 25 eigenvalues plus one
// variance per block for each image; the host finishes with the log2 tail.
// Lanes (stream + buffers + graphs) let batch n+1's staging and upload run
// while batch n computes and batch n-1's tail is summed.
#include "features/speed/cuda/cuda_engine.hpp"

#include <algorithm>
#include <chrono>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "features/speed/exact/constants.hpp"
#include "features/speed/plan.hpp"
#include "features/speed/speed_feature.hpp"
#include "features/speed/tail.hpp"
#include "core/thread_pool.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.cuh"
#include "features/speed/cuda/device_types.cuh"
#include "features/speed/cuda/kernels.cuh"

namespace speedqa::cuda {

bool device_present(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (why)
            *why = std::string("no CUDA device is present (") +
                   (e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices") + ")";
        cudaGetLastError();
        return false;
    }
    return true;
}

namespace {

// Copies a row into pinned staging with non-temporal stores: the bytes go to
// memory rather than into the CPU's caches, so that the DMA that uploads
// them next does not have to pull dirty lines out of the caches first.
void stream_copy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__SSE2__)
    size_t i = 0;
    while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 15)) {
        dst[i] = src[i];
        i++;
    }
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    for (; i < n; i++) dst[i] = src[i];
#else
    std::memcpy(dst, src, n);
#endif
}

constexpr size_t kAlign = 256;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

int interpolation_taps(exact::PrescaleMethod m) {
    switch (m) {
    case exact::PrescaleMethod::nearest: return 1;
    case exact::PrescaleMethod::bilinear: return 2;
    case exact::PrescaleMethod::bicubic: return 4;
    default: return 9;
    }
}

// Rows of the original plane that the feature reads.
std::set<int> source_rows(const ImagePlan& plan) {
    if (!plan.resample) return {plan.rows.begin(), plan.rows.end()};
    std::set<int> rows;
    const int n = interpolation_taps(plan.method);
    for (const exact::AxisTaps& t : plan.row_taps)
        for (int k = 0; k < n; k++) rows.insert(t.idx[k]);
    return rows;
}

// Rows of a plane that one 2D copy moves from page-locked frames: n_runs runs
// of run_len consecutive rows, `spacing` rows apart in the picture, landing
// as consecutive rows from dst_row on in the device layout. The rows the
// 16x decimation reads form a few such groups (9 of every 16 rows, plus the
// mirrored borders).
struct RowGroup {
    int first_row = 0, run_len = 0, spacing = 0, n_runs = 0;
    size_t dst_row = 0;
};

std::vector<RowGroup> row_groups(const std::vector<int>& rows) {
    std::vector<std::pair<int, int>> runs;  // (first row, length)
    for (size_t i = 0; i < rows.size();) {
        size_t j = i + 1;
        while (j < rows.size() && rows[j] == rows[j - 1] + 1) j++;
        runs.emplace_back(rows[i], static_cast<int>(j - i));
        i = j;
    }
    std::vector<RowGroup> groups;
    size_t dst = 0;
    for (size_t i = 0; i < runs.size();) {
        RowGroup g;
        g.first_row = runs[i].first;
        g.run_len = runs[i].second;
        g.n_runs = 1;
        g.dst_row = dst;
        size_t j = i + 1;
        if (j < runs.size() && runs[j].second == g.run_len) {
            g.spacing = runs[j].first - runs[i].first;
            while (j < runs.size() && runs[j].second == g.run_len && runs[j].first - runs[j - 1].first == g.spacing) {
                g.n_runs++;
                j++;
            }
        } else {
            g.spacing = g.run_len;
        }
        dst += static_cast<size_t>(g.run_len) * static_cast<size_t>(g.n_runs);
        groups.push_back(g);
        i = j;
    }
    return groups;
}

// Stage timings for SPEEDQA_CUDA_STAGES=1: events after each stage, summed
// per stage name and printed when the engine is destroyed.
class EventTimer final : public StageTimer {
public:
    void start(cudaStream_t s) {
        last_ = event();
        cudaEventRecord(last_, s);
    }
    void mark(const char* stage, cudaStream_t s) override {
        cudaEvent_t e = event();
        cudaEventRecord(e, s);
        pending_.push_back({stage, last_, e});
        last_ = e;
    }
    void collect() {
        for (auto& p : pending_) {
            float ms = 0;
            cudaEventSynchronize(p.end);
            cudaEventElapsedTime(&ms, p.begin, p.end);
            totals_[p.stage] += ms;
        }
        pending_.clear();
    }
    ~EventTimer() override {
        collect();
        for (auto& [stage, ms] : totals_) std::fprintf(stderr, "[cuda-stages] %-12s %10.3f ms\n", stage.c_str(), ms);
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
    }

private:
    struct Pending {
        std::string stage;
        cudaEvent_t begin, end;
    };
    cudaEvent_t event() {
        cudaEvent_t e;
        cudaEventCreate(&e);
        events_.push_back(e);
        return e;
    }
    cudaEvent_t last_ = nullptr;
    std::vector<Pending> pending_;
    std::vector<cudaEvent_t> events_;
    std::map<std::string, double> totals_;
};

exact::CovOrder cov_order_of(Dispatch d) {
    switch (d) {
    case Dispatch::scalar: return exact::CovOrder::scalar;
    case Dispatch::avx2: return exact::CovOrder::avx2;
    default: return exact::CovOrder::avx512;
    }
}

class SpeedCudaEngine final : public CudaEngine {
public:
    SpeedCudaEngine(const VideoFormat& format, const std::vector<const SpeedFeature*>& features, const CudaEngineConfig& config);
    ~SpeedCudaEngine() override;
    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    std::vector<std::string> notes() const override;
    long long batches_copied_directly() const override { return direct_batches_; }
    bool holds_device() const override { return true; }
    double upload_bytes_per_frame() const override { return static_cast<double>(layout_.slot_bytes); }
    // several batches per call, so that lanes overlap within it
    int preferred_batch() const override { return batch_ * static_cast<int>(lanes_.size()) * 4; }

private:
    struct Feature {
        SpeedSpec spec;
        ImagePlan plan;
        DevicePlan dplan;
        DeviceBuffer taps_aa, taps_lm, row_slot, col_slot, row_taps, col_taps;
        int images_per_frame = 0;
        size_t out_stride = 0;   // floats per image record
        size_t out_offset = 0;   // floats, in a lane's output buffer
    };
    struct Lane {
        cudaStream_t stream = nullptr;
        cudaEvent_t done = nullptr;
        StagingBuffer staging;  // allocated at the first batch that needs it
        PinnedBuffer out_host;
        DeviceBuffer input, out_dev;
        std::vector<DeviceBuffer> scratch;
        std::vector<DeviceWork> work;  // per feature, for batch_ frames
        std::map<std::pair<int, bool>, cudaGraphExec_t> graphs;  // (frames, with upload)
        int count = 0, first_index = 0;
        double* out = nullptr;
        std::future<void> tail;  // waits for the batch in flight, then sums its tail
    };

    void build_layout();
    void build_lane(Lane& lane);
    void allocate_staging(Lane& lane);
    cudaGraphExec_t graph_for(Lane& lane, int count, bool with_upload);
    void stage(Lane& lane, const FrameBatch& batch, int k0, int count);
    bool can_copy_directly(const FrameBatch& batch, int k0, int count) const;
    void copy_directly(Lane& lane, const FrameBatch& batch, int k0, int count);
    void run_timed(Lane& lane, int count, bool with_upload);
    void finish(Lane& lane);
    void tail_frame(TailScratch& t, const Lane& lane, int k, double* out);
    void read_record(const float* rec, const Feature& f, ImageStats& st);

    VideoFormat format_;
    CudaEngineConfig config_;
    std::vector<Feature> features_;
    RawLayout raw_;
    bool temporal_ = false;
    std::string device_name_;
    // input layout
    InputLayout layout_;
    std::vector<int> rows_[3];   // source rows uploaded per plane
    std::vector<RowGroup> groups_[3];  // the same rows as 2D copies, for page-locked frames
    bool multi_row_runs_[3] = {false, false, false};  // a copy spans several rows (needs stride == row bytes)
    bool direct_possible_ = false;     // the copies are large enough to go straight from page-locked frames
    bool plane_used_[3] = {false, false, false};
    DeviceBuffer row_slot_dev_[3];
    int batch_ = 0;
    size_t out_floats_ = 0;  // per lane
    std::vector<Lane> lanes_;
    size_t next_lane_ = 0;
    ThreadPool pool_;       // staging uploads
    ThreadPool tail_pool_;  // the log2 tail, which runs while the next batch is staged
    std::mutex tail_mutex_; // one tail at a time (tail_pool_ and tail_ are shared)
    std::vector<TailScratch> tail_;
    std::atomic<long long> unconverged_{0}, singular_{0};
    long long direct_batches_ = 0;
    std::unique_ptr<EventTimer> stages_;  // SPEEDQA_CUDA_STAGES=1
    // SPEEDQA_TIMING: host time per phase of score(), summed over batches
    struct HostPhases {
        std::atomic<long long> wait_lane_us{0}, stage_us{0}, launch_us{0}, wait_device_us{0}, tail_us{0}, batches{0},
            frames{0};
    };
    bool timing_ = false;
    HostPhases phases_;
};

SpeedCudaEngine::SpeedCudaEngine(const VideoFormat& format, const std::vector<const SpeedFeature*>& features,
                                 const CudaEngineConfig& config)
    : format_(format), config_(config), raw_(std::vector<const speedqa::Feature*>(features.begin(), features.end())),
      pool_(std::max(1, config.host_threads)),
      tail_pool_(std::max(1, config.host_threads / 2)) {
    if (const char* env = std::getenv("SPEEDQA_CUDA_STAGES"); env && *env == '1') {
        stages_ = std::make_unique<EventTimer>();
        config_.lanes = 1;  // stage times of one batch at a time
    }
    timing_ = std::getenv("SPEEDQA_TIMING") != nullptr;
    auto t0 = std::chrono::steady_clock::now();
    auto mark = [&](const char* what) {
        if (!timing_) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "[timing]   cuda engine: %-18s %8.1f ms\n", what, std::chrono::duration<double, std::milli>(now - t0).count());
        t0 = now;
    };
    SPEEDQA_CUDA_CHECK(cudaSetDevice(config_.device));
    SPEEDQA_CUDA_CHECK(cudaFree(nullptr));  // create the context here, so that its cost is measured as such
    mark("context");
    cudaDeviceProp prop{};
    SPEEDQA_CUDA_CHECK(cudaGetDeviceProperties(&prop, config_.device));
    device_name_ = prop.name;
    for (const SpeedFeature* sf : features) {
        Feature f;
        f.spec = sf->spec();
        f.plan = sf->plan();
        if (f.spec.kind == SpeedKind::temporal) temporal_ = true;
        features_.push_back(std::move(f));
    }
    build_layout();
    if (timing_) {
        for (int p = 0; p < 3; p++)
            if (plane_used_[p])
                std::fprintf(stderr, "[timing]   cuda engine: plane %d: %zu rows, %zu 2D copies from page-locked frames\n", p,
                             rows_[p].size(), groups_[p].size());
    }
    for (Feature& f : features_) {
        const ImagePlan& p = f.plan;
        f.taps_aa = upload(&p.antialias, 1);
        f.taps_lm = upload(&p.local_mean, 1);
        DevicePlan& d = f.dplan;
        d.dim = p.dim;
        d.antialias = f.taps_aa.get<exact::Taps>();
        d.local_mean = f.taps_lm.get<exact::Taps>();
        d.method = p.method;
        d.resample = p.resample;
        d.n_rows = static_cast<int>(p.rows.size());
        d.n_cols = static_cast<int>(p.cols.size());
        if (p.resample) {
            f.row_slot = upload(p.row_slot.data(), p.row_slot.size());
            f.col_slot = upload(p.col_slot.data(), p.col_slot.size());
            f.row_taps = upload(p.row_taps.data(), p.row_taps.size());
            f.col_taps = upload(p.col_taps.data(), p.col_taps.size());
            d.row_slot = f.row_slot.get<int>();
            d.col_slot = f.col_slot.get<int>();
            d.row_taps = f.row_taps.get<exact::AxisTaps>();
            d.col_taps = f.col_taps.get<exact::AxisTaps>();
        }
        d.order = cov_order_of(config_.dispatch);
        d.layout = exact::cov_layout(d.order, p.dim.sub_w);
        d.kind = f.spec.kind == SpeedKind::chroma ? ImageKind::chroma : ImageKind::temporal;
        d.use_ref_diff = f.spec.options.use_ref_diff;
        f.images_per_frame = images_per_frame(d.kind);
        f.out_stride = out_floats(p.dim.num_blocks);
    }
    // Frames per graph replay: enough images side by side to hide the
    // sequential stages (eigen sweep, chains), staging kept near 192 MB a lane.
    batch_ = config_.batch > 0 ? config_.batch
                               : static_cast<int>(std::clamp<size_t>((size_t{192} << 20) / layout_.slot_bytes, 8, 128));
    size_t off = 0;
    for (Feature& f : features_) {
        f.out_offset = off;
        off += static_cast<size_t>(batch_) * f.images_per_frame * f.out_stride;
    }
    out_floats_ = off;
    mark("plans and tables");
    lanes_.resize(static_cast<size_t>(std::max(1, config_.lanes)));
    for (Lane& lane : lanes_) build_lane(lane);
    mark("lanes (pinned, device)");
    tail_.resize(static_cast<size_t>(tail_pool_.size()));
}

SpeedCudaEngine::~SpeedCudaEngine() {
    if (timing_ && phases_.batches) {
        const double f = static_cast<double>(phases_.frames);
        auto line = [&](const char* what, const std::atomic<long long>& us) {
            std::fprintf(stderr, "[timing]   cuda host: %-30s %9.1f ms  %7.4f ms/frame\n", what, us / 1e3, us / 1e3 / f);
        };
        std::fprintf(stderr, "[timing]   cuda host: %lld batches, %lld frames\n", phases_.batches.load(), phases_.frames.load());
        line("wait for a free lane", phases_.wait_lane_us);
        line("stage rows into pinned memory", phases_.stage_us);
        line("launch (copies, graph)", phases_.launch_us);
        line("tail: wait for the device", phases_.wait_device_us);
        line("tail: log2 sums", phases_.tail_us);
    }
    for (Lane& lane : lanes_) {
        if (lane.stream) cudaStreamSynchronize(lane.stream);
        for (auto& [count, exec] : lane.graphs) cudaGraphExecDestroy(exec);
        if (lane.done) cudaEventDestroy(lane.done);
        if (lane.stream) cudaStreamDestroy(lane.stream);
    }
}

void SpeedCudaEngine::build_layout() {
    std::set<int> rows[3];
    for (const Feature& f : features_) {
        const std::set<int> r = source_rows(f.plan);
        const int first = f.spec.kind == SpeedKind::chroma ? 1 : 0, last = f.spec.kind == SpeedKind::chroma ? 2 : 0;
        for (int p = first; p <= last; p++) {
            plane_used_[p] = true;
            rows[p].insert(r.begin(), r.end());
        }
    }
    size_t off = 0;
    layout_.bitdepth = format_.bitdepth;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < 3; p++) {
            if (!plane_used_[p]) continue;
            if (side == 0) {
                rows_[p].assign(rows[p].begin(), rows[p].end());
                layout_.row_bytes[p] = format_.feature_w(p) * format_.bytes_per_sample();
                std::vector<int> slot(static_cast<size_t>(format_.feature_h(p)), -1);
                for (size_t i = 0; i < rows_[p].size(); i++) slot[static_cast<size_t>(rows_[p][i])] = static_cast<int>(i);
                row_slot_dev_[p] = upload(slot.data(), slot.size());
                layout_.row_slot[p] = row_slot_dev_[p].get<int>();
            }
            layout_.plane_offset[side][p] = off;
            off = align_up(off + rows_[p].size() * static_cast<size_t>(layout_.row_bytes[p]));
        }
    layout_.slot_bytes = align_up(off);
    // Each 2D copy costs a few microseconds of host time to queue: straight
    // copies pay only where they are large (at 4K, not at 1080p chroma).
    constexpr size_t kMinBytesPerCopy = size_t{256} << 10;
    direct_possible_ = true;
    for (int p = 0; p < 3; p++) {
        if (!plane_used_[p]) continue;
        groups_[p] = row_groups(rows_[p]);
        for (const RowGroup& g : groups_[p]) multi_row_runs_[p] = multi_row_runs_[p] || g.run_len > 1;
        const size_t bytes = rows_[p].size() * static_cast<size_t>(layout_.row_bytes[p]);
        if (bytes / groups_[p].size() < kMinBytesPerCopy) direct_possible_ = false;
    }
    // SPEEDQA_DIRECT_COPIES=always|never overrides that (tests, benchmarks)
    if (const char* env = std::getenv("SPEEDQA_DIRECT_COPIES")) {
        if (std::strcmp(env, "always") == 0) direct_possible_ = true;
        if (std::strcmp(env, "never") == 0) direct_possible_ = false;
    }
}

void SpeedCudaEngine::build_lane(Lane& lane) {
    SPEEDQA_CUDA_CHECK(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    SPEEDQA_CUDA_CHECK(cudaEventCreateWithFlags(&lane.done, cudaEventDisableTiming));
    const size_t input_bytes = static_cast<size_t>(batch_ + 1) * layout_.slot_bytes;
    lane.input.allocate(input_bytes);
    SPEEDQA_CUDA_CHECK(cudaMemset(lane.input.get(), 0, input_bytes));
    lane.out_host.allocate(out_floats_ * sizeof(float));
    for (const Feature& f : features_) {
        const exact::Dimensions& d = f.plan.dim;
        const size_t images = static_cast<size_t>(batch_) * f.images_per_frame;
        const size_t dec = static_cast<size_t>(d.operating_w) * d.operating_h;
        DeviceWork w;
        w.images = static_cast<int>(images);
        auto take = [&](size_t bytes) {
            lane.scratch.emplace_back(bytes);
            return lane.scratch.back().get();
        };
        if (f.plan.resample) w.resampled = static_cast<float*>(take(images * f.dplan.n_rows * f.dplan.n_cols * sizeof(float)));
        w.decimated = static_cast<float*>(take(images * dec * sizeof(float)));
        w.centred = static_cast<float*>(take(images * dec * sizeof(float)));
        w.means = static_cast<float*>(take(images * exact::kBlockElems * sizeof(float)));
        w.chains = static_cast<double*>(take(images * f.dplan.layout.slots() * exact::kCovPairs * sizeof(double)));
        w.cov = static_cast<float*>(take(images * exact::kBlockElems * exact::kBlockElems * sizeof(float)));
        w.out = static_cast<float*>(take(images * f.out_stride * sizeof(float)));
        w.out_stride = f.out_stride;
        lane.work.push_back(w);
    }
}

// Staging is made only when frames come from pageable memory; its pages are
// first touched by the staging pool, in parallel.
void SpeedCudaEngine::allocate_staging(Lane& lane) {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t bytes = static_cast<size_t>(batch_ + 1) * layout_.slot_bytes;
    const char* mode = std::getenv("SPEEDQA_STAGING");  // "hostalloc": cudaMallocHost (for comparison)
    const bool huge = !(mode && std::strcmp(mode, "hostalloc") == 0);
    lane.staging.allocate(bytes, huge, [&](uint8_t* p, size_t n) {
        const int parts = pool_.size();
        pool_.parallel_for(parts, [&](int, int i) {
            const size_t a = n / parts * i, b = i + 1 == parts ? n : n / parts * (i + 1);
            std::memset(p + a, 0, b - a);
        });
    });
    if (timing_)
        std::fprintf(stderr, "[timing]   cuda engine: staging %zu MB (%s) %.1f ms\n", bytes >> 20,
                     huge ? "huge pages, registered" : "cudaMallocHost",
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

cudaGraphExec_t SpeedCudaEngine::graph_for(Lane& lane, int count, bool with_upload) {
    auto it = lane.graphs.find({count, with_upload});
    if (it != lane.graphs.end()) return it->second;
    SPEEDQA_CUDA_CHECK(cudaStreamBeginCapture(lane.stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
        if (with_upload)
            SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(lane.input.get(), lane.staging.get(),
                                               static_cast<size_t>(count + 1) * layout_.slot_bytes, cudaMemcpyHostToDevice,
                                               lane.stream));
        for (size_t i = 0; i < features_.size(); i++) {
            const Feature& f = features_[i];
            DeviceWork w = lane.work[i];
            w.images = count * f.images_per_frame;
            launch_feature_chain(f.dplan, layout_, lane.input.get<uint8_t>(), w, lane.stream);
            SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(lane.out_host.get<float>() + f.out_offset, w.out,
                                               static_cast<size_t>(w.images) * f.out_stride * sizeof(float),
                                               cudaMemcpyDeviceToHost, lane.stream));
        }
    } catch (...) {
        cudaStreamEndCapture(lane.stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    SPEEDQA_CUDA_CHECK(cudaStreamEndCapture(lane.stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    SPEEDQA_CUDA_CHECK(e);
    lane.graphs.emplace(std::make_pair(count, with_upload), exec);
    return exec;
}

// The graph's work launched directly, with a stage timer (profiling only).
void SpeedCudaEngine::run_timed(Lane& lane, int count, bool with_upload) {
    if (with_upload) {
        stages_->start(lane.stream);
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(lane.input.get(), lane.staging.get(),
                                           static_cast<size_t>(count + 1) * layout_.slot_bytes, cudaMemcpyHostToDevice,
                                           lane.stream));
    }
    stages_->mark("upload", lane.stream);
    for (size_t i = 0; i < features_.size(); i++) {
        const Feature& f = features_[i];
        DeviceWork w = lane.work[i];
        w.images = count * f.images_per_frame;
        launch_feature_chain(f.dplan, layout_, lane.input.get<uint8_t>(), w, lane.stream, stages_.get());
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(lane.out_host.get<float>() + f.out_offset, w.out,
                                           static_cast<size_t>(w.images) * f.out_stride * sizeof(float),
                                           cudaMemcpyDeviceToHost, lane.stream));
        stages_->mark("readback", lane.stream);
    }
}

// The picture of a batch's input slot: slot 0 is the frame before frame k0
// (speed_temporal's previous frame), slots 1..count are frames k0..; side 0
// is the reference, 1 the distorted.
const Picture& slot_picture(const FrameBatch& batch, int k0, int slot, int side) {
    if (slot == 0) return k0 > 0 ? (side == 0 ? batch.ref : batch.dis)[k0 - 1] : *(side == 0 ? batch.prev_ref : batch.prev_dis)[0];
    return (side == 0 ? batch.ref : batch.dis)[k0 + slot - 1];
}

void SpeedCudaEngine::stage(Lane& lane, const FrameBatch& batch, int k0, int count) {
    uint8_t* staging = lane.staging.get<uint8_t>();
    const bool need_prev = temporal_ && batch.first_index + k0 > 0;
    // slot 0: the frame before the first (speed_temporal); slots 1..count: the frames
    // items: (slot, side, plane); slot 0 carries luma only (speed_temporal's previous frame)
    pool_.parallel_for((count + 1) * 6, [&](int, int item) {
        const int slot = item / 6, side = (item / 3) % 2, p = item % 3;
        if (!plane_used_[p] || (slot == 0 && (!need_prev || p > 0))) return;
        const Picture* pic = &slot_picture(batch, k0, slot, side);
        uint8_t* dst = staging + static_cast<size_t>(slot) * layout_.slot_bytes + layout_.plane_offset[side][p];
        const size_t rb = static_cast<size_t>(layout_.row_bytes[p]);
        for (size_t r = 0; r < rows_[p].size(); r++)
            stream_copy(dst + r * rb, pic->plane[p] + static_cast<ptrdiff_t>(rows_[p][r]) * pic->stride[p], rb);
#if defined(__SSE2__)
        _mm_sfence();  // the streamed stores are visible before the upload is queued
#endif
    });
}

bool SpeedCudaEngine::can_copy_directly(const FrameBatch& batch, int k0, int count) const {
    if (!direct_possible_) return false;
    const bool need_prev = temporal_ && batch.first_index + k0 > 0;
    for (int slot = need_prev ? 0 : 1; slot <= count; slot++)
        for (int side = 0; side < 2; side++) {
            const Picture& pic = slot_picture(batch, k0, slot, side);
            if (!pic.page_locked) return false;
            // a run of several rows is one span only where rows follow each other
            for (int p = 0; p < 3; p++)
                if (plane_used_[p] && multi_row_runs_[p] && pic.stride[p] != layout_.row_bytes[p]) return false;
        }
    return true;
}

// The rows of page-locked frames go straight to the device's input layout,
// a few 2D copies per plane, queued ahead of the graph on the lane's stream.
void SpeedCudaEngine::copy_directly(Lane& lane, const FrameBatch& batch, int k0, int count) {
    const bool need_prev = temporal_ && batch.first_index + k0 > 0;
    uint8_t* input = lane.input.get<uint8_t>();
    for (int slot = need_prev ? 0 : 1; slot <= count; slot++)
        for (int side = 0; side < 2; side++)
            for (int p = 0; p < 3; p++) {
                if (!plane_used_[p] || (slot == 0 && p > 0)) continue;
                const Picture* pic = &slot_picture(batch, k0, slot, side);
                uint8_t* dst = input + static_cast<size_t>(slot) * layout_.slot_bytes + layout_.plane_offset[side][p];
                const size_t rb = static_cast<size_t>(layout_.row_bytes[p]);
                const size_t stride = static_cast<size_t>(pic->stride[p]);
                for (const RowGroup& g : groups_[p])
                    SPEEDQA_CUDA_CHECK(cudaMemcpy2DAsync(dst + g.dst_row * rb, g.run_len * rb,
                                                         pic->plane[p] + static_cast<size_t>(g.first_row) * stride,
                                                         static_cast<size_t>(g.spacing) * stride, g.run_len * rb,
                                                         static_cast<size_t>(g.n_runs), cudaMemcpyHostToDevice, lane.stream));
            }
}

void SpeedCudaEngine::read_record(const float* rec, const Feature& f, ImageStats& st) {
    const int nb = f.plan.dim.num_blocks;
    std::memcpy(st.eigenvalues, rec, sizeof st.eigenvalues);
    st.variances.assign(rec + exact::kBlockElems, rec + exact::kBlockElems + nb);
    st.singular = rec[exact::kBlockElems + nb] != 0.0f;
    st.eigen_sweeps = static_cast<int>(rec[exact::kBlockElems + nb + 1]);
    if (st.eigen_sweeps >= exact::kMaxEigenSweeps) unconverged_++;
    if (st.singular) singular_++;
}

void SpeedCudaEngine::tail_frame(TailScratch& t, const Lane& lane, int k, double* out) {
    const float* host = lane.out_host.get<float>();
    for (size_t fi = 0; fi < features_.size(); fi++) {
        const Feature& f = features_[fi];
        speed_frame_outputs(f.spec, f.plan, lane.first_index + k, t,
                            [&](int image, ImageRole role, ImageStats& st) {
                                // records in the order of image_source(): chroma frame*4 + c*2 + side, temporal frame*2 + side
                                const int side = role == ImageRole::ref ? 0 : 1;
                                const int record = f.spec.kind == SpeedKind::chroma ? k * 4 + image * 2 + side : k * 2 + side;
                                read_record(host + f.out_offset + static_cast<size_t>(record) * f.out_stride, f, st);
                            },
                            out + raw_.offset[fi]);
    }
}

void SpeedCudaEngine::finish(Lane& lane) {
    const auto t0 = std::chrono::steady_clock::now();
    SPEEDQA_CUDA_CHECK(cudaEventSynchronize(lane.done));
    std::lock_guard<std::mutex> lock(tail_mutex_);
    const auto t1 = std::chrono::steady_clock::now();
    tail_pool_.parallel_for(lane.count, [&](int worker, int k) {
        tail_frame(tail_[static_cast<size_t>(worker)], lane, k, lane.out + static_cast<size_t>(k) * raw_.stride);
    });
    if (timing_) {
        phases_.wait_device_us += std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
        phases_.tail_us += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t1).count();
    }
}

void SpeedCudaEngine::score(const FrameBatch& batch, double* out) {
    if (temporal_ && batch.first_index > 0 && (!batch.prev_ref[0] || !batch.prev_dis[0]))
        throw Error("speed_temporal: a batch that starts after frame 0 needs the previous frame");
    // Per batch: wait for the lane's previous batch to be summed, stage the
    // rows (pool_), replay the graph, and leave the tail to a task that runs
    // while the next batch is staged into the other lane.
    try {
        for (int k0 = 0; k0 < batch.count; k0 += batch_) {
            const int count = std::min(batch_, batch.count - k0);
            Lane& lane = lanes_[next_lane_];
            next_lane_ = (next_lane_ + 1) % lanes_.size();
            const auto t0 = std::chrono::steady_clock::now();
            if (lane.tail.valid()) lane.tail.get();
            const auto t1 = std::chrono::steady_clock::now();
            const bool direct = can_copy_directly(batch, k0, count);
            if (!direct) {
                if (!lane.staging.get()) allocate_staging(lane);
                stage(lane, batch, k0, count);
            }
            const auto t2 = std::chrono::steady_clock::now();
            if (direct) {
                direct_batches_++;
                if (stages_) stages_->start(lane.stream);
                copy_directly(lane, batch, k0, count);
            }
            if (stages_) {
                run_timed(lane, count, !direct);
            } else {
                const cudaGraphExec_t exec = graph_for(lane, count, !direct);
                SPEEDQA_CUDA_CHECK(cudaGraphLaunch(exec, lane.stream));
            }
            if (timing_) {
                using us = std::chrono::microseconds;
                phases_.wait_lane_us += std::chrono::duration_cast<us>(t1 - t0).count();
                phases_.stage_us += std::chrono::duration_cast<us>(t2 - t1).count();
                phases_.launch_us += std::chrono::duration_cast<us>(std::chrono::steady_clock::now() - t2).count();
                phases_.batches++;
                phases_.frames += count;
            }
            SPEEDQA_CUDA_CHECK(cudaEventRecord(lane.done, lane.stream));
            lane.count = count;
            lane.first_index = batch.first_index + k0;
            lane.out = out + static_cast<size_t>(k0) * raw_.stride;
            lane.tail = std::async(std::launch::async, [this, &lane] { finish(lane); });
        }
        for (Lane& lane : lanes_)
            if (lane.tail.valid()) lane.tail.get();
    } catch (...) {
        for (Lane& lane : lanes_) {
            if (lane.tail.valid()) lane.tail.wait();
            lane.tail = {};
            cudaStreamSynchronize(lane.stream);
        }
        throw;
    }
}

std::string SpeedCudaEngine::describe() const {
    return "cuda (" + device_name_ + ", " + std::to_string(batch_) + " frames a batch, " + std::to_string(lanes_.size()) +
           " lanes, libvmaf's " + dispatch_name(config_.dispatch) + " dispatch)";
}

std::vector<std::string> SpeedCudaEngine::notes() const {
    if (!unconverged_) return {};
    return {std::to_string(unconverged_.load()) +
            " images stopped at 500 eigenvalue sweeps (libvmaf warns: possible non-convergence); their scores are "
            "libvmaf's all the same"};
}

}  // namespace

bool has_device_kernels(const speedqa::Feature& feature) { return dynamic_cast<const SpeedFeature*>(&feature) != nullptr; }

std::unique_ptr<CudaEngine> make_cuda_engine(const VideoFormat& format, const std::vector<const speedqa::Feature*>& features,
                                             const CudaEngineConfig& config) {
    std::vector<const SpeedFeature*> speed;
    for (const speedqa::Feature* f : features) {
        const auto* sf = dynamic_cast<const SpeedFeature*>(f);
        if (!sf) throw Error("the CUDA engine has no kernels for " + f->name());
        speed.push_back(sf);
    }
    return std::make_unique<SpeedCudaEngine>(format, speed, config);
}

}  // namespace speedqa::cuda
