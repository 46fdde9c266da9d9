// The CUDA engine: a runner of the features' device parts. It owns the
// queues (stream, event, input buffer, pinned staging, the features' buffers
// and the captured graphs), gathers and uploads the rows the features read,
// replays one graph per batch and runs the features' host tails on a pool
// while the next batch is staged.
#include "cuda/cuda_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "core/env.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "cuda/device_feature.cuh"
#include "cuda/handles.cuh"
#include "cuda/staging.cuh"
#include "cuda/timing.cuh"

namespace speedqa::cuda {

bool device_present(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return true;
    if (why) {
        switch (e) {
        case cudaSuccess:
        case cudaErrorNoDevice: *why = "no CUDA GPU is present on this machine"; break;
        case cudaErrorInsufficientDriver:
            // what the runtime says where no NVIDIA driver is installed at all
            *why = "no NVIDIA driver is installed (or it is older than this build of speedqa needs: CUDA " +
                   std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) + ")";
            break;
        default: *why = std::string("the CUDA driver cannot be used: ") + cudaGetErrorString(e);
        }
    }
    cudaGetLastError();
    return false;
}

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

namespace {

// The frame at a position of the input of the part of `batch` that starts at
// k0: positions 0 .. history - 1 are the frames before it, then its own.
// Relative to frame k0; nullptr where the batch does not hold it.
const Picture* picture_at(const FrameBatch& batch, int k0, int history, int position, int side) {
    const int rel = k0 - history + position;
    if (rel >= 0) return &(side == 0 ? batch.ref : batch.dis)[rel];
    if (-1 - rel >= 2) return nullptr;
    return (side == 0 ? batch.prev_ref : batch.prev_dis)[-1 - rel];
}

class Runner final : public CudaEngine {
public:
    Runner(const VideoFormat& format, const InputNeeds& needs, const std::vector<DeviceFeatureMaker>& makers,
           const CudaEngineConfig& config);
    ~Runner() override;
    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    std::vector<std::string> notes() const override;
    long long batches_copied_directly() const override { return direct_batches_; }
    bool holds_device() const override { return true; }
    double upload_bytes_per_frame() const override { return static_cast<double>(upload_.plan.bytes_per_frame()); }
    // several batches per call, so that the queues overlap within it
    int preferred_batch() const override { return batch_ * static_cast<int>(queues_.size()) * 4; }

private:
    // One queue of batches in flight.
    struct Queue {
        Stream stream;
        Event done;
        StagingBuffer staging;  // made at the first batch that needs it
        DeviceBuffer input;
        std::vector<std::unique_ptr<QueueWork>> work;  // per feature
        std::map<std::pair<int, bool>, GraphExec> graphs;  // (frames, with upload)
        int count = 0;
        long long first_index = 0;
        double* out = nullptr;
        std::future<void> tail;  // waits for the batch in flight, then runs its host tails
    };

    int choose_batch() const;
    void build_queue(Queue& q);
    void allocate_staging(Queue& q);
    void enqueue_work(Queue& q, int count, bool with_upload, StageTimer* timer);
    cudaGraphExec_t graph_for(Queue& q, int count, bool with_upload);
 // Whether position `position` of the part from k0 holds a frame of the clip.
    bool position_in_clip(const FrameBatch& batch, int k0, int position) const {
        return batch.first_index + k0 - history_ + position >= 0;
    }
    // The planes staged at a position (bits), for one side.
    unsigned planes_at(int position, int side) const {
        return upload_.plan.staged[position < history_ ? history_ - position : 0][side];
    }
    void stage(Queue& q, const FrameBatch& batch, int k0, int count);
    bool can_copy_directly(const FrameBatch& batch, int k0, int count) const;
    void copy_directly(Queue& q, const FrameBatch& batch, int k0, int count);
    void finish(Queue& q);

    VideoFormat format_;
    CudaEngineConfig config_;
    std::string device_name_;
    std::vector<std::unique_ptr<DeviceFeature>> features_;
    std::vector<int> raw_offset_;
    int raw_stride_ = 0;
    UploadPlan upload_;
    int history_ = 0;      // frame positions before a batch's first
    int positions_ = 0;    // of a full batch: history_ + batch_
    InputLayout layout_;   // the plan's, its row tables on the device
    DeviceBuffer row_index_dev_[3];
    int batch_ = 0;
    std::vector<Queue> queues_;
    size_t next_queue_ = 0;
    ThreadPool pool_;       // staging
    ThreadPool tail_pool_;  // the host tails, which run while the next batch is staged
    std::mutex tail_mutex_;  // one batch's tail at a time (tail_pool_ and tail_ are shared)
    std::vector<std::vector<std::unique_ptr<TailScratch>>> tail_;  // [tail thread][feature]
    long long direct_batches_ = 0;
    std::unique_ptr<EventTimer> stages_;  // SPEEDQA_CUDA_STAGES=1
    HostPhases phases_;                   // SPEEDQA_TIMING=1
};

Runner::Runner(const VideoFormat& format, const InputNeeds& needs, const std::vector<DeviceFeatureMaker>& makers,
               const CudaEngineConfig& config)
    : format_(format), config_(config), pool_(std::max(1, config.host_threads)),
      tail_pool_(std::max(1, config.host_threads / 2)) {
    if (env_flag("SPEEDQA_CUDA_STAGES")) {
        stages_ = std::make_unique<EventTimer>();
        config_.queues = 1;  // stage times of one batch at a time
    }
    SPEEDQA_CUDA_CHECK(cudaSetDevice(config_.device));
    SPEEDQA_CUDA_CHECK(cudaFree(nullptr));  // create the context here, so that its cost is measured as such
    cudaDeviceProp prop{};
    SPEEDQA_CUDA_CHECK(cudaGetDeviceProperties(&prop, config_.device));
    device_name_ = std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
    for (const DeviceFeatureMaker& make : makers) {
        std::unique_ptr<EnginePart> part = make();
        auto* device = dynamic_cast<DeviceFeature*>(part.get());
        if (!device) throw std::logic_error("cuda engine: a feature's part is not a cuda::DeviceFeature");
        part.release();
        features_.emplace_back(device);
        raw_offset_.push_back(raw_stride_);
        raw_stride_ += features_.back()->raw_count();
    }
    upload_ = make_upload_plan(format_, needs);
    history_ = upload_.plan.layout.history;
    layout_ = upload_.plan.layout;
    for (int p = 0; p < 3; p++)
        if (upload_.plan.plane_used[p] && !upload_.plan.whole[p]) {
            row_index_dev_[p] = upload(upload_.plan.row_index[p].data(), upload_.plan.row_index[p].size());
            layout_.row_index[p] = row_index_dev_[p].get<int>();
        }
    batch_ = choose_batch();
    positions_ = history_ + batch_;
    queues_.resize(static_cast<size_t>(std::max(1, config_.queues)));
    for (Queue& q : queues_) build_queue(q);
    tail_.resize(static_cast<size_t>(tail_pool_.size()));
    for (auto& t : tail_)
        for (const auto& f : features_) t.push_back(f->make_tail_scratch());
}

// Frames per graph replay: enough images side by side to hide the sequential
// stages, staging kept near 192 MB a queue; fewer where the features' device
// buffers for that many frames, in every queue, would take more than half
// of the device's free memory.
int Runner::choose_batch() const {
    const size_t frame_bytes = std::max<size_t>(layout_.frame_bytes, 1);
    int batch = config_.batch > 0 ? config_.batch : static_cast<int>(std::clamp<size_t>((size_t{192} << 20) / frame_bytes, 8, 128));
    size_t free_bytes = 0, total_bytes = 0;
    SPEEDQA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const size_t queues = static_cast<size_t>(std::max(1, config_.queues));
    const auto need = [&](int frames) {
        size_t bytes = static_cast<size_t>(history_ + frames) * frame_bytes;
        for (const auto& f : features_) bytes += f->device_bytes(frames);
        return bytes * queues;
    };
    const size_t budget = free_bytes / 2;
    while (batch > 1 && need(batch) > budget) batch = std::max(1, batch * 3 / 4);
    if (need(batch) > free_bytes)
        throw Error("the GPU's free memory (" + std::to_string(free_bytes >> 20) + " MB of " + std::to_string(total_bytes >> 20) +
                    ") cannot hold the work of one frame in " + std::to_string(queues) + " queues (" +
                    std::to_string(need(batch) >> 20) + " MB)");
    return batch;
}

Runner::~Runner() {
    cudaSetDevice(config_.device);
    for (Queue& q : queues_) {
        if (q.tail.valid()) q.tail.wait();
        if (q.stream) cudaStreamSynchronize(q.stream.get());
    }
}

void Runner::build_queue(Queue& q) {
    q.stream = make_stream();
    q.done = make_event();
    const size_t input_bytes = static_cast<size_t>(positions_) * layout_.frame_bytes;
    q.input.allocate(input_bytes);
    SPEEDQA_CUDA_CHECK(cudaMemset(q.input.get(), 0, input_bytes));
    for (const auto& f : features_) q.work.push_back(f->make_queue_work(batch_));
}

// Staging is made only when frames come from pageable memory; its pages are
// first touched by the staging pool, in parallel.
void Runner::allocate_staging(Queue& q) {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t bytes = static_cast<size_t>(positions_) * layout_.frame_bytes;
    // SPEEDQA_STAGING=hostalloc: cudaMallocHost (for comparison)
    const bool huge = env_choice("SPEEDQA_STAGING", {"huge-pages", "hostalloc"}, 0) == 0;
    q.staging.allocate(bytes, huge, [&](uint8_t* p, size_t n) {
        const int parts = pool_.size();
        pool_.parallel_for(parts, [&](int, int i) {
            const size_t a = n / parts * i, b = i + 1 == parts ? n : n / parts * (i + 1);
            std::memset(p + a, 0, b - a);
        });
    });
    if (phases_.on())
        std::fprintf(stderr, "[timing]   cuda engine: staging %zu MB (%s) %.1f ms\n", bytes >> 20,
                     huge ? "huge pages, registered" : "cudaMallocHost",
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

// The upload (unless the rows came straight from page-locked frames) and every
// feature's kernels and read-back, on the queue's stream.
void Runner::enqueue_work(Queue& q, int count, bool with_upload, StageTimer* timer) {
    if (with_upload)
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(q.input.get(), q.staging.get(), static_cast<size_t>(history_ + count) * layout_.frame_bytes,
                                           cudaMemcpyHostToDevice, q.stream.get()));
    if (timer) timer->mark("upload", q.stream.get());
    for (size_t i = 0; i < features_.size(); i++)
        features_[i]->launch(*q.work[i], layout_, q.input.get<unsigned char>(), count, q.stream.get(), timer);
}

cudaGraphExec_t Runner::graph_for(Queue& q, int count, bool with_upload) {
    auto it = q.graphs.find({count, with_upload});
    if (it != q.graphs.end()) return it->second.get();
    SPEEDQA_CUDA_CHECK(cudaStreamBeginCapture(q.stream.get(), cudaStreamCaptureModeThreadLocal));
    Graph graph;
    try {
        enqueue_work(q, count, with_upload, nullptr);
    } catch (...) {
        cudaGraph_t g = nullptr;
        cudaStreamEndCapture(q.stream.get(), &g);
        graph = Graph(g);
        throw;
    }
    cudaGraph_t g = nullptr;
    SPEEDQA_CUDA_CHECK(cudaStreamEndCapture(q.stream.get(), &g));
    graph = Graph(g);
    cudaGraphExec_t exec = nullptr;
    SPEEDQA_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
    return q.graphs.emplace(std::make_pair(count, with_upload), GraphExec(exec)).first->second.get();
}

void Runner::stage(Queue& q, const FrameBatch& batch, int k0, int count) {
    uint8_t* staging = q.staging.get<uint8_t>();
    // items: (frame position, side); a history position carries only the
    // planes read of the frames that far back
    pool_.parallel_for((history_ + count) * 2, [&](int, int item) {
        const int position = item / 2, side = item % 2;
        const unsigned planes = planes_at(position, side);
        if (!planes || !position_in_clip(batch, k0, position)) return;
        stage_picture(upload_, *picture_at(batch, k0, history_, position, side), side, planes,
                      staging + static_cast<size_t>(position) * layout_.frame_bytes);
    });
}

bool Runner::can_copy_directly(const FrameBatch& batch, int k0, int count) const {
    for (int position = 0; position < history_ + count; position++)
        for (int side = 0; side < 2; side++)
            if (planes_at(position, side) && position_in_clip(batch, k0, position) &&
                !cuda::can_copy_directly(upload_, *picture_at(batch, k0, history_, position, side)))
                return false;
    return true;
}

// The rows of page-locked frames go straight to the device's input layout,
// a few 2D copies per plane, queued ahead of the graph on the queue's stream.
void Runner::copy_directly(Queue& q, const FrameBatch& batch, int k0, int count) {
    for (int position = 0; position < history_ + count; position++)
        for (int side = 0; side < 2; side++) {
            const unsigned planes = planes_at(position, side);
            if (!planes || !position_in_clip(batch, k0, position)) continue;
            copy_picture_directly(upload_, *picture_at(batch, k0, history_, position, side), side, planes,
                                  q.input.get<uint8_t>() + static_cast<size_t>(position) * layout_.frame_bytes,
                                  q.stream.get());
        }
}

void Runner::finish(Queue& q) {
    // (a thread of its own: the engine's device must be its current one)
    SPEEDQA_CUDA_CHECK(cudaSetDevice(config_.device));
    const auto t0 = std::chrono::steady_clock::now();
    SPEEDQA_CUDA_CHECK(cudaEventSynchronize(q.done.get()));
    std::lock_guard<std::mutex> lock(tail_mutex_);
    const auto t1 = std::chrono::steady_clock::now();
    tail_pool_.parallel_for(q.count, [&](int worker, int k) {
        double* out = q.out + static_cast<size_t>(k) * raw_stride_;
        for (size_t f = 0; f < features_.size(); f++)
            features_[f]->tail(*q.work[f], *tail_[static_cast<size_t>(worker)][f], q.first_index + k, k, out + raw_offset_[f]);
    });
    phases_.add(HostPhases::wait_device, t1 - t0);
    phases_.add(HostPhases::tail, std::chrono::steady_clock::now() - t1);
}

void Runner::score(const FrameBatch& batch, double* out) {
    // the caller's thread may have another GPU current (several engines, one a GPU)
    SPEEDQA_CUDA_CHECK(cudaSetDevice(config_.device));
    for (int d = 1; d <= history_; d++)
        if (batch.first_index >= d && (!batch.prev_ref[d - 1] || !batch.prev_dis[d - 1]))
            throw Error("a batch that starts at frame " + std::to_string(batch.first_index) + " needs the " +
                        std::to_string(d) + " frame(s) before it");
    // Per batch: wait for the queue's previous batch to be done, stage the
    // rows (pool_), replay the graph, and leave the tail to a task that runs
    // while the next batch is staged into another queue.
    try {
        for (int k0 = 0; k0 < batch.count; k0 += batch_) {
            const int count = std::min(batch_, batch.count - k0);
            Queue& q = queues_[next_queue_];
            next_queue_ = (next_queue_ + 1) % queues_.size();
            const auto t0 = std::chrono::steady_clock::now();
            if (q.tail.valid()) q.tail.get();
            const auto t1 = std::chrono::steady_clock::now();
            const bool direct = can_copy_directly(batch, k0, count);
            if (!direct) {
                if (!q.staging.get()) allocate_staging(q);
                stage(q, batch, k0, count);
            }
            const auto t2 = std::chrono::steady_clock::now();
            if (direct) {
                direct_batches_++;
                if (stages_) stages_->start(q.stream.get());
                copy_directly(q, batch, k0, count);
            }
            if (stages_) {
                if (!direct) stages_->start(q.stream.get());
                enqueue_work(q, count, !direct, stages_.get());
            } else {
                SPEEDQA_CUDA_CHECK(cudaGraphLaunch(graph_for(q, count, !direct), q.stream.get()));
            }
            phases_.add(HostPhases::wait_queue, t1 - t0);
            phases_.add(HostPhases::stage, t2 - t1);
            phases_.add(HostPhases::launch, std::chrono::steady_clock::now() - t2);
            phases_.batch(count);
            SPEEDQA_CUDA_CHECK(cudaEventRecord(q.done.get(), q.stream.get()));
            q.count = count;
            q.first_index = batch.first_index + k0;
            q.out = out + static_cast<size_t>(k0) * raw_stride_;
            q.tail = std::async(std::launch::async, [this, &q] { finish(q); });
        }
        for (Queue& q : queues_)
            if (q.tail.valid()) q.tail.get();
    } catch (...) {
        for (Queue& q : queues_) {
            if (q.tail.valid()) q.tail.wait();
            q.tail = {};
            cudaStreamSynchronize(q.stream.get());
        }
        throw;
    }
}

std::string Runner::describe() const {
    return "cuda (" + device_name_ + ", " + std::to_string(batch_) + " frames a batch, " + std::to_string(queues_.size()) +
           " queues)";
}

std::vector<std::string> Runner::notes() const {
    std::vector<std::string> out;
    for (const auto& f : features_)
        for (std::string& n : f->notes()) out.push_back(std::move(n));
    return out;
}

}  // namespace

std::unique_ptr<CudaEngine> make_cuda_engine(const VideoFormat& format, const InputNeeds& needs,
                                             const std::vector<DeviceFeatureMaker>& features,
                                             const CudaEngineConfig& config) {
    return std::make_unique<Runner>(format, needs, features, config);
}

}  // namespace speedqa::cuda
