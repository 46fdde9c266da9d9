// integer motion's device part: per queue the counters and the per-frame
// sums (read back, 8 bytes a frame); the tail turns a frame's sum into its
// raw value as the CPU kernel does (Params::raw_value). motion2 and motion3
// stay with the feature's sequencer, on the host.
#include "features/motion/cuda/part.hpp"

#include <stdexcept>

#include "cuda/device_feature.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/grid.cuh"
#include "features/motion/cuda/stages.hpp"
#include "features/motion/motion_feature.hpp"

namespace speedqa {
namespace {

using namespace speedqa::cuda;
namespace md = motion::device;

struct MotionWork final : QueueWork {
    DeviceBuffer counters, sad;
    PinnedBuffer sad_host;
    int frames = 0;
};

class MotionDevice final : public DeviceFeature {
public:
    explicit MotionDevice(const motion::Params& p) : p_(p), plan_(md::make_plan(p)) {}

    int raw_count() const override { return 1; }

    size_t device_bytes(int frames) const override {
        return (md::counter_elements(plan_, frames) + md::sad_elements(plan_, frames)) * sizeof(unsigned long long);
    }

    std::unique_ptr<QueueWork> make_queue_work(int frames) const override {
        auto q = std::make_unique<MotionWork>();
        q->frames = frames;
        if (plan_.force_zero) return q;
        q->counters.allocate(md::counter_elements(plan_, frames) * sizeof(unsigned long long));
        q->sad.allocate(md::sad_elements(plan_, frames) * sizeof(unsigned long long));
        q->sad_host.allocate(md::sad_elements(plan_, frames) * sizeof(unsigned long long));
        return q;
    }

    // forced to 0: nothing to compute (the feature reads no pixels)
    void launch(QueueWork& qw, const InputLayout& layout, const unsigned char* input, int frames, cudaStream_t stream,
                StageTimer* timer) const override {
        if (plan_.force_zero) return;
        auto& q = static_cast<MotionWork&>(qw);
        if (frames > q.frames) throw std::logic_error("motion: a batch larger than its queue's buffers");
        md::Buffers b;
        b.counters = q.counters.get<unsigned long long>();
        b.sad = q.sad.get<unsigned long long>();
        SPEEDQA_CUDA_CHECK(cudaMemsetAsync(b.counters, 0, md::counter_elements(plan_, frames) * sizeof(unsigned long long), stream));
        md::launch_stages(CudaGrid{stream}, plan_, b, layout, input, frames);
        if (timer) timer->mark("motion", stream);
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(q.sad_host.get(), b.sad, md::sad_elements(plan_, frames) * sizeof(unsigned long long),
                                           cudaMemcpyDeviceToHost, stream));
        if (timer) timer->mark("motion readback", stream);
    }

    std::unique_ptr<cuda::TailScratch> make_tail_scratch() const override { return std::make_unique<cuda::TailScratch>(); }

    void tail(const QueueWork& qw, cuda::TailScratch&, long long index, int k, double* raw) const override {
        raw[0] = md::frame_raw(p_, index, static_cast<const MotionWork&>(qw).sad_host.get<unsigned long long>(), k);
    }

private:
    motion::Params p_;
    md::Plan plan_;
};

}  // namespace

std::unique_ptr<EnginePart> motion::make_cuda_part(const Feature& feature, const PartContext&) {
    const auto* f = dynamic_cast<const MotionFeature*>(&feature);
    if (!f) throw std::logic_error("motion: make_cuda_part got a feature that is not integer motion: " + feature.name());
    return std::make_unique<MotionDevice>(f->params());
}

}  // namespace speedqa
