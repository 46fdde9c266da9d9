// integer VIF's device part: the plan's tables on the device (uploaded
// once), per queue the halved images of scales 1..3 and the sums of every
// frame and scale (read back, 128 bytes a frame); the tail turns a frame's
// sums into its raw values with the CPU kernel's own write_outputs.
//
// A scale's tiles (stages.hpp: ScaleTile) run as one kernel launch, a tile a
// block of kBlock threads: the team below gives a tile's steps its threads
// (a unit a thread), __syncthreads between them, and adds the threads' sums
// through warp shuffles and one atomic per sum and block. The host twin
// (stages.hpp: HostTiles) runs the same tile code unit by unit.
#include "features/vif/cuda/part.hpp"

#include <stdexcept>

#include "cuda/device_feature.cuh"
#include "cuda/device_memory.cuh"
#include "features/vif/cuda/stages.hpp"
#include "features/vif/vif_feature.hpp"

namespace speedqa {
namespace {

using namespace speedqa::cuda;
namespace vd = vif::device;
namespace ev = exact::vif;

constexpr int kWarps = vd::kBlock / 32;

// The block's team (stages.hpp's contract). Device code only: the host
// branches are empty (the host twin uses vd::HostTeam).
struct BlockTeam {
    long long (*partial)[4];  // shared: one row of sums a warp

    template <class F>
    SPEEDQA_HD void for_each(int n, F&& f) const {
#if defined(__CUDA_ARCH__)
        for (int u = static_cast<int>(threadIdx.x); u < n; u += static_cast<int>(blockDim.x)) f(u);
#else
        (void)n;
        (void)f;
#endif
    }

    SPEEDQA_HD void sync() const {
#if defined(__CUDA_ARCH__)
        __syncthreads();
#endif
    }

    SPEEDQA_HD void add_sums(const ev::Sums& local, ev::Sums* dst) const {
#if defined(__CUDA_ARCH__)
        long long v[4] = {local.num_log, local.den_log, local.num_non_log, local.den_non_log};
        for (int i = 0; i < 4; i++)
            for (int offset = 16; offset > 0; offset >>= 1) v[i] += __shfl_down_sync(0xffffffffu, v[i], offset);
        const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
        if (lane == 0)
            for (int i = 0; i < 4; i++) partial[warp][i] = v[i];
        __syncthreads();
        if (threadIdx.x == 0) {
            long long t[4] = {0, 0, 0, 0};
            for (int w = 0; w < kWarps; w++)
                for (int i = 0; i < 4; i++) t[i] += partial[w][i];
            atomic_add(reinterpret_cast<long long*>(&dst->num_log), t[0]);
            atomic_add(reinterpret_cast<long long*>(&dst->den_log), t[1]);
            atomic_add(reinterpret_cast<long long*>(&dst->num_non_log), t[2]);
            atomic_add(reinterpret_cast<long long*>(&dst->den_non_log), t[3]);
        }
#else
        (void)local;
        (void)dst;
#endif
    }
};

template <class Tile>
__global__ void __launch_bounds__(vd::kBlock) k_tiles(Tile tile) {
    __shared__ vd::TileScratch scratch;
    __shared__ long long partial[kWarps][4];
    tile(BlockTeam{partial}, scratch, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
         static_cast<int>(blockIdx.z));
}

// The tile executor of stages.hpp's launch_stages: a scale's tiles as one
// launch on the stream.
struct CudaTiles {
    cudaStream_t stream = nullptr;
    template <class Tile>
    void run(Extent n, const Tile& tile) const {
        if (n.x <= 0 || n.y <= 0 || n.z <= 0) return;
        k_tiles<<<dim3(static_cast<unsigned>(n.x), static_cast<unsigned>(n.y), static_cast<unsigned>(n.z)), vd::kBlock, 0,
                  stream>>>(tile);
        SPEEDQA_CUDA_CHECK(cudaGetLastError());
    }
};

struct VifWork final : QueueWork {
    DeviceBuffer images[ev::kScales][2];
    DeviceBuffer sums;
    PinnedBuffer sums_host;
    vd::Buffers buffers;
    int frames = 0;
};

class VifDevice final : public DeviceFeature {
public:
    explicit VifDevice(const vif::VifFeature& f) : plan_(f.plan()), raw_count_(f.raw_count()) {
        vd::Tables t;
        for (int s = 0; s < ev::kScales; s++) {
            row_src_[s] = upload(plan_.scales[s].row_src.data(), plan_.scales[s].row_src.size());
            col_src_[s] = upload(plan_.scales[s].col_src.data(), plan_.scales[s].col_src.size());
            t.row_src[s] = row_src_[s].get<int>();
            t.col_src[s] = col_src_[s].get<int>();
        }
        log2_ = upload(plan_.log2_table.data(), plan_.log2_table.size());
        t.log2_table = log2_.get<uint16_t>();
        dplan_ = vd::make_plan(plan_, t);
    }

    int raw_count() const override { return raw_count_; }

    size_t device_bytes(int frames) const override {
        size_t bytes = vd::sums_elements(frames) * sizeof(ev::Sums);
        for (int s = 1; s < ev::kScales; s++) bytes += 2 * vd::image_elements(dplan_, s, frames) * sizeof(uint16_t);
        return bytes;
    }

    std::unique_ptr<QueueWork> make_queue_work(int frames) const override {
        auto q = std::make_unique<VifWork>();
        q->frames = frames;
        for (int s = 1; s < ev::kScales; s++)
            for (int side = 0; side < 2; side++) {
                q->images[s][side].allocate(vd::image_elements(dplan_, s, frames) * sizeof(uint16_t));
                q->buffers.images[s][side] = q->images[s][side].get<uint16_t>();
            }
        q->sums.allocate(vd::sums_elements(frames) * sizeof(ev::Sums));
        q->sums_host.allocate(vd::sums_elements(frames) * sizeof(ev::Sums));
        q->buffers.sums = q->sums.get<ev::Sums>();
        return q;
    }

    void launch(QueueWork& qw, const InputLayout& layout, const unsigned char* input, int frames, cudaStream_t stream,
                StageTimer* timer) const override {
        auto& q = static_cast<VifWork&>(qw);
        if (frames > q.frames) throw std::logic_error("vif: a batch larger than its queue's buffers");
        const size_t sums_bytes = vd::sums_elements(frames) * sizeof(ev::Sums);
        SPEEDQA_CUDA_CHECK(cudaMemsetAsync(q.buffers.sums, 0, sums_bytes, stream));
        vd::launch_stages(CudaTiles{stream}, dplan_, q.buffers, layout, input, frames);
        if (timer) timer->mark("vif", stream);
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(q.sums_host.get(), q.buffers.sums, sums_bytes, cudaMemcpyDeviceToHost, stream));
        if (timer) timer->mark("vif readback", stream);
    }

    std::unique_ptr<cuda::TailScratch> make_tail_scratch() const override { return std::make_unique<cuda::TailScratch>(); }

    void tail(const QueueWork& qw, cuda::TailScratch&, long long, int k, double* raw) const override {
        vd::frame_raw(plan_, static_cast<const VifWork&>(qw).sums_host.get<ev::Sums>(), k, raw);
    }

private:
    vif::Plan plan_;
    int raw_count_ = 0;
    DeviceBuffer row_src_[ev::kScales], col_src_[ev::kScales], log2_;
    vd::Plan dplan_;
};

}  // namespace

std::unique_ptr<EnginePart> vif::make_cuda_part(const Feature& feature, const PartContext&) {
    const auto* f = dynamic_cast<const VifFeature*>(&feature);
    if (!f) throw std::logic_error("vif: make_cuda_part got a feature that is not integer VIF: " + feature.name());
    return std::make_unique<VifDevice>(*f);
}

}  // namespace speedqa
