// ADM's device part: the plan's reciprocal table on the device, per queue
// the scratch of a chunk of frames and the batch's totals (pinned for the
// read-back), the stages of stages.hpp on the queue's stream, and the host
// tail (the powf of each scale's sums, with the host's C library).
#include "features/adm/cuda/part.hpp"

#include <stdexcept>
#include <vector>

#include "cuda/device_feature.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/grid.cuh"
#include "features/adm/adm_feature.hpp"
#include "features/adm/cuda/stages.hpp"

namespace speedqa::adm {
namespace {

using namespace speedqa::cuda;

struct AdmWork final : QueueWork {
    std::vector<DeviceBuffer> memory;
    device::Buffers buffers;
    PinnedBuffer totals;
};

struct AdmTailScratch final : cuda::TailScratch {};

class AdmDevice final : public DeviceFeature {
public:
    AdmDevice(const AdmFeature& f, Dispatch dispatch)
        : plan_(make_plan(f.format(), f.adm_options(), dispatch)), raw_count_(f.raw_count()) {
        div_lookup_ = upload(plan_.div_lookup.data(), plan_.div_lookup.size());
        dplan_ = device::make_device_plan(plan_, div_lookup_.get<int32_t>());
    }

    int raw_count() const override { return raw_count_; }

    size_t device_bytes(int frames) const override {
        size_t bytes = 0;
        device::make_buffers(dplan_, frames, [&](size_t b) -> void* {
            bytes += b;
            return nullptr;
        });
        return bytes;
    }

    std::unique_ptr<QueueWork> make_queue_work(int frames) const override {
        auto q = std::make_unique<AdmWork>();
        q->buffers = device::make_buffers(dplan_, frames, [&](size_t b) -> void* {
            q->memory.emplace_back(b);
            return q->memory.back().get();
        });
        q->totals.allocate(static_cast<size_t>(frames) * device::kTotals * sizeof(long long));
        return q;
    }

    void launch(QueueWork& qw, const InputLayout& layout, const unsigned char* input, int frames, cudaStream_t stream,
                StageTimer* timer) const override {
        auto& q = static_cast<AdmWork&>(qw);
        device::launch_stages(CudaGrid{stream}, dplan_, q.buffers, layout, input, frames, [&](const char* stage) {
            if (timer) timer->mark(stage, stream);
        });
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(q.totals.get(), q.buffers.totals,
                                           static_cast<size_t>(frames) * device::kTotals * sizeof(long long),
                                           cudaMemcpyDeviceToHost, stream));
        if (timer) timer->mark("readback", stream);
    }

    std::unique_ptr<cuda::TailScratch> make_tail_scratch() const override { return std::make_unique<AdmTailScratch>(); }

    void tail(const QueueWork& qw, cuda::TailScratch&, long long, int k, double* raw) const override {
        const auto& q = static_cast<const AdmWork&>(qw);
        device::frame_raw(plan_, q.totals.get<long long>() + static_cast<size_t>(k) * device::kTotals, raw);
    }

private:
    Plan plan_;
    int raw_count_ = 0;
    DeviceBuffer div_lookup_;
    device::DevicePlan dplan_;
};

}  // namespace

std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context) {
    const auto* f = dynamic_cast<const AdmFeature*>(&feature);
    if (!f) throw std::logic_error("adm: make_cuda_part got a feature that is not ADM: " + feature.name());
    return std::make_unique<AdmDevice>(*f, context.dispatch);
}

}  // namespace speedqa::adm
