// SpEED's device part: the plan's tables on the device, per queue the scratch
// of every stage and the pinned records read back (25 eigenvalues, one
// variance per block and two flags per image), and the host tail (the log2
// sums, with the host's C library, as exactness needs).
#include "features/speed/cuda/part.hpp"

#include <atomic>
#include <cstring>
#include <stdexcept>

#include "cuda/device_feature.cuh"
#include "cuda/device_memory.cuh"
#include "features/speed/cuda/device_types.cuh"
#include "features/speed/cuda/kernels.cuh"
#include "features/speed/speed_feature.hpp"
#include "features/speed/tail.hpp"

namespace speedqa {
namespace {

using namespace speedqa::cuda;

exact::CovOrder cov_order_of(Dispatch d) {
    switch (d) {
    case Dispatch::scalar: return exact::CovOrder::scalar;
    case Dispatch::avx2: return exact::CovOrder::avx2;
    default: return exact::CovOrder::avx512;
    }
}

// Where each image's kernel input and output records live for one queue.
struct SpeedWork final : QueueWork {
    std::vector<DeviceBuffer> scratch;
    DeviceWork work;  // for the most frames a batch holds
    PinnedBuffer records;
};

struct SpeedTailScratch final : cuda::TailScratch {
    speedqa::TailScratch tail;
};

class SpeedDevice final : public DeviceFeature {
public:
    SpeedDevice(const SpeedFeature& f, Dispatch dispatch) : spec_(f.spec()), plan_(f.plan()) {
        const ImagePlan& p = plan_;
        taps_aa_ = upload(&p.antialias, 1);
        taps_lm_ = upload(&p.local_mean, 1);
        DevicePlan& d = dplan_;
        d.dim = p.dim;
        d.antialias = taps_aa_.get<exact::Taps>();
        d.local_mean = taps_lm_.get<exact::Taps>();
        d.method = p.method;
        d.resample = p.resample;
        d.n_rows = static_cast<int>(p.rows.size());
        d.n_cols = static_cast<int>(p.cols.size());
        if (p.resample) {
            row_index_ = upload(p.row_index.data(), p.row_index.size());
            col_index_ = upload(p.col_index.data(), p.col_index.size());
            row_taps_ = upload(p.row_taps.data(), p.row_taps.size());
            col_taps_ = upload(p.col_taps.data(), p.col_taps.size());
            d.row_index = row_index_.get<int>();
            d.col_index = col_index_.get<int>();
            d.row_taps = row_taps_.get<exact::AxisTaps>();
            d.col_taps = col_taps_.get<exact::AxisTaps>();
        }
        d.order = cov_order_of(dispatch);
        d.layout = exact::cov_layout(d.order, p.dim.sub_w);
        d.kind = spec_.kind == SpeedKind::chroma ? ImageKind::chroma : ImageKind::temporal;
        d.use_ref_diff = spec_.options.use_ref_diff;
        record_ = out_floats(p.dim.num_blocks);
    }

    int raw_count() const override { return spec_.kind == SpeedKind::chroma ? 3 : 1; }

    size_t device_bytes(int frames) const override {
        size_t bytes = 0;
        buffers(frames, [&](size_t b) { bytes += b; });
        return bytes;
    }

    std::unique_ptr<QueueWork> make_queue_work(int frames) const override {
        auto q = std::make_unique<SpeedWork>();
        DeviceWork& w = q->work;
        w.images = frames * images_per_frame(dplan_.kind);
        void* taken[7] = {};
        int n = 0;
        buffers(frames, [&](size_t bytes) {
            q->scratch.emplace_back(bytes);
            taken[n++] = q->scratch.back().get();
        });
        n = 0;
        if (plan_.resample) w.resampled = static_cast<float*>(taken[n++]);
        w.decimated = static_cast<float*>(taken[n++]);
        w.centred = static_cast<float*>(taken[n++]);
        w.means = static_cast<float*>(taken[n++]);
        w.chains = static_cast<double*>(taken[n++]);
        w.cov = static_cast<float*>(taken[n++]);
        w.out = static_cast<float*>(taken[n++]);
        w.out_stride = record_;
        q->records.allocate(static_cast<size_t>(w.images) * record_ * sizeof(float));
        return q;
    }

    void launch(QueueWork& qw, const InputLayout& layout, const unsigned char* input, int frames, cudaStream_t stream,
                StageTimer* timer) const override {
        auto& q = static_cast<SpeedWork&>(qw);
        DeviceWork w = q.work;
        w.images = frames * images_per_frame(dplan_.kind);
        launch_feature_chain(dplan_, layout, input, w, stream, timer);
        SPEEDQA_CUDA_CHECK(cudaMemcpyAsync(q.records.get(), w.out, static_cast<size_t>(w.images) * record_ * sizeof(float),
                                           cudaMemcpyDeviceToHost, stream));
        if (timer) timer->mark("readback", stream);
    }

    std::unique_ptr<cuda::TailScratch> make_tail_scratch() const override { return std::make_unique<SpeedTailScratch>(); }

    void tail(const QueueWork& qw, cuda::TailScratch& scratch, long long index, int k, double* raw) const override {
        const auto& q = static_cast<const SpeedWork&>(qw);
        const float* records = q.records.get<float>();
        const int per_frame = images_per_frame(dplan_.kind);
        speed_frame_outputs(spec_, plan_, index, static_cast<SpeedTailScratch&>(scratch).tail,
                            [&](int image, ImageRole role, ImageStats& st) {
                                // records in the order of exact::compose_image
                                const int side = role == ImageRole::ref ? 0 : 1;
                                const int in_frame = dplan_.kind == ImageKind::chroma ? image * 2 + side : side;
                                read_record(records + static_cast<size_t>(k * per_frame + in_frame) * record_, st);
                            },
                            raw);
    }

    std::vector<std::string> notes() const override {
        if (!unconverged_) return {};
        return {std::string(spec_.kind == SpeedKind::chroma ? "speed_chroma" : "speed_temporal") + ": " +
                std::to_string(unconverged_.load()) +
                " images stopped at 500 eigenvalue sweeps (libvmaf warns: possible non-convergence); their scores are "
                "libvmaf's all the same"};
    }

private:
    // The device buffers of a queue for `frames` frames, in the order
    // make_queue_work takes them: take(bytes) for each.
    template <class Take>
    void buffers(int frames, Take take) const {
        const exact::Dimensions& d = plan_.dim;
        const size_t images = static_cast<size_t>(frames) * images_per_frame(dplan_.kind);
        const size_t dec = static_cast<size_t>(d.operating_w) * d.operating_h;
        if (plan_.resample) take(images * dplan_.n_rows * dplan_.n_cols * sizeof(float));
        take(images * dec * sizeof(float));
        take(images * dec * sizeof(float));
        take(images * exact::kBlockElems * sizeof(float));
        take(images * dplan_.layout.chains() * exact::kCovPairs * sizeof(double));
        take(images * exact::kBlockElems * exact::kBlockElems * sizeof(float));
        take(images * record_ * sizeof(float));
    }

    void read_record(const float* rec, ImageStats& st) const {
        const int nb = plan_.dim.num_blocks;
        std::memcpy(st.eigenvalues, rec, sizeof st.eigenvalues);
        st.variances.assign(rec + exact::kBlockElems, rec + exact::kBlockElems + nb);
        st.singular = rec[exact::kBlockElems + nb] != 0.0f;
        st.eigen_sweeps = static_cast<int>(rec[exact::kBlockElems + nb + 1]);
        if (st.eigen_sweeps >= exact::kMaxEigenSweeps) unconverged_++;
    }

    SpeedSpec spec_;
    ImagePlan plan_;
    DevicePlan dplan_;
    DeviceBuffer taps_aa_, taps_lm_, row_index_, col_index_, row_taps_, col_taps_;
    size_t record_ = 0;
    mutable std::atomic<long long> unconverged_{0};
};

}  // namespace

std::unique_ptr<EnginePart> speed::make_cuda_part(const Feature& feature, const PartContext& context) {
    const auto* f = dynamic_cast<const SpeedFeature*>(&feature);
    if (!f) throw std::logic_error("speed: make_cuda_part got a feature that is not SpEED: " + feature.name());
    return std::make_unique<SpeedDevice>(*f, context.dispatch);
}

}  // namespace speedqa
