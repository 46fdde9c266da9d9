// CAMBI's device part: the plan's tables on the device, per queue one arena
// of every stage's arrays (stages.hpp) and the pinned records read back, and
// the host tail (tail.hpp), which copies a scale's values back only where
// libvmaf's order of summation matters.
#include "features/cambi/cuda/part.hpp"

#include <stdexcept>

#include "cuda/device_feature.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/grid.cuh"
#include "features/cambi/cambi_feature.hpp"
#include "features/cambi/cuda/blocks.cuh"
#include "features/cambi/cuda/stages.hpp"
#include "features/cambi/cuda/tail.hpp"

namespace speedqa::cambi {
namespace {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

struct CambiWork final : cuda::QueueWork {
    DeviceBuffer arena;
    PinnedBuffer records;
    dev::DevBuffers buffers;
};

struct CambiTailScratch final : cuda::TailScratch {
    dev::HostTail tail;
};

class CambiDevice final : public cuda::DeviceFeature {
public:
    explicit CambiDevice(const Plan& plan) : plan_(plan) {
        SPEEDQA_CUDA_CHECK(cudaGetDevice(&device_));
        first_diff_ = cuda::upload(plan_.first_diff.data(), plan_.first_diff.size());
        weight_ = cuda::upload(plan_.weight.data(), plan_.weight.size());
        reciprocal_ = cuda::upload(plan_.reciprocal.data(), plan_.reciprocal.size());
        dev::Tables t;
        t.first_diff = first_diff_.get<uint8_t>();
        t.weight = weight_.get<int>();
        t.reciprocal = reciprocal_.get<float>();
        for (int i = 0; i < (plan_.full_ref ? 2 : 1); i++) {
            const ImagePlan& ip = i == 0 ? plan_.dis : plan_.src;
            if (!ip.resampled) continue;
            source_row_[i] = cuda::upload(ip.source_row.data(), ip.source_row.size());
            source_column_[i] = cuda::upload(ip.source_column.data(), ip.source_column.size());
            t.source_row[i] = source_row_[i].get<int>();
            t.source_column[i] = source_column_[i].get<int>();
        }
        dplan_ = dev::make_dev_plan(plan_, t);
    }

    int raw_count() const override { return plan_.full_ref ? 3 : 1; }

    size_t device_bytes(int frames) const override { return dev::arena_bytes(dplan_, frames); }

    std::unique_ptr<cuda::QueueWork> make_queue_work(int frames) const override {
        auto w = std::make_unique<CambiWork>();
        w->arena.allocate(dev::arena_bytes(dplan_, frames));
        w->records.allocate(dev::record_bytes(dplan_, frames));
        w->buffers = dev::carve(dplan_, frames, w->arena.get());
        return w;
    }

    void launch(cuda::QueueWork& qw, const InputLayout& layout, const unsigned char* input, int frames, cudaStream_t stream,
                cuda::StageTimer* timer) const override {
        auto& w = static_cast<CambiWork&>(qw);
        const auto mark = [&](const char* stage) {
            if (timer) timer->mark(stage, stream);
        };
        dev::launch_stages(cuda::CudaGrid{stream}, dev::CudaBlocks{stream}, dplan_, w.buffers, layout, input, frames, mark);
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(w.records.get(), w.buffers.records, dev::record_bytes(dplan_, frames),
                                           cudaMemcpyDeviceToHost, stream));
        mark("cambi readback");
    }

    std::unique_ptr<cuda::TailScratch> make_tail_scratch() const override { return std::make_unique<CambiTailScratch>(); }

    void tail(const cuda::QueueWork& qw, cuda::TailScratch& scratch, long long index, int k, double* raw) const override {
        const auto& w = static_cast<const CambiWork&>(qw);
        const dev::ImageRecord* records = w.records.get<dev::ImageRecord>() + static_cast<size_t>(k) * dplan_.images;
        // Where libvmaf's order matters: the scale's values, still in the
        // queue's buffers (the batch is done; the next one waits for this).
        const dev::FetchValues fetch = [&](int image, int s, float* dst, size_t n) {
            const dev::ImageDev& im = dplan_.image[image];
            SPEEDQA_CUDA_CHECK(cudaSetDevice(device_));
            SPEEDQA_CUDA_CHECK(cudaMemcpy(dst, dev::slot_of(w.buffers, im, image, k) + im.values[s], n * sizeof(float),
                                          cudaMemcpyDeviceToHost));
        };
        dev::frame_raw(plan_, dplan_, records, index, fetch, static_cast<CambiTailScratch&>(scratch).tail, raw);
    }

private:
    Plan plan_;
    int device_ = 0;
    DeviceBuffer first_diff_, weight_, reciprocal_, source_row_[2], source_column_[2];
    dev::DevPlan dplan_;
};

}  // namespace

std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext&) {
    const auto* f = dynamic_cast<const CambiFeature*>(&feature);
    if (!f) throw std::logic_error("cambi: make_cuda_part got a feature that is not CAMBI: " + feature.name());
    return std::make_unique<CambiDevice>(f->plan());
}

}  // namespace speedqa::cambi
