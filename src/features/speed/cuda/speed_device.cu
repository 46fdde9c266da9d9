// SpEED's device part: the plan's tables on the device, per queue the scratch
// of every stage and the pinned records read back (25 eigenvalues, one
// variance per block and two flags per image), and the host tail (the log2
// sums, with the host's C library, as exactness needs).
#include "features/speed/cuda/speed_device.hpp"

#include <atomic>
#include <cstring>

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

    void rows_read(std::set<int> rows[3]) const override {
        const std::set<int> r = source_rows();
        for (int p = first_plane(); p <= last_plane(); p++) rows[p].insert(r.begin(), r.end());
    }
    unsigned previous_frame_planes() const override { return spec_.kind == SpeedKind::temporal ? 1u : 0u; }
    int raw_count() const override { return spec_.kind == SpeedKind::chroma ? 3 : 1; }

    std::unique_ptr<QueueWork> make_queue_work(int frames) const override {
        auto q = std::make_unique<SpeedWork>();
        const exact::Dimensions& d = plan_.dim;
        const size_t images = static_cast<size_t>(frames) * images_per_frame(dplan_.kind);
        const size_t dec = static_cast<size_t>(d.operating_w) * d.operating_h;
        DeviceWork& w = q->work;
        w.images = static_cast<int>(images);
        auto take = [&](size_t bytes) {
            q->scratch.emplace_back(bytes);
            return q->scratch.back().get();
        };
        if (plan_.resample) w.resampled = static_cast<float*>(take(images * dplan_.n_rows * dplan_.n_cols * sizeof(float)));
        w.decimated = static_cast<float*>(take(images * dec * sizeof(float)));
        w.centred = static_cast<float*>(take(images * dec * sizeof(float)));
        w.means = static_cast<float*>(take(images * exact::kBlockElems * sizeof(float)));
        w.chains = static_cast<double*>(take(images * dplan_.layout.chains() * exact::kCovPairs * sizeof(double)));
        w.cov = static_cast<float*>(take(images * exact::kBlockElems * exact::kBlockElems * sizeof(float)));
        w.out = static_cast<float*>(take(images * record_ * sizeof(float)));
        w.out_stride = record_;
        q->records.allocate(images * record_ * sizeof(float));
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
    int first_plane() const { return spec_.kind == SpeedKind::chroma ? 1 : 0; }
    int last_plane() const { return spec_.kind == SpeedKind::chroma ? 2 : 0; }

    static int interpolation_taps(exact::PrescaleMethod m) {
        switch (m) {
        case exact::PrescaleMethod::nearest: return 1;
        case exact::PrescaleMethod::bilinear: return 2;
        case exact::PrescaleMethod::bicubic: return 4;
        default: return 9;
        }
    }

    // Rows of the original plane that the kernels read.
    std::set<int> source_rows() const {
        if (!plan_.resample) return {plan_.rows.begin(), plan_.rows.end()};
        std::set<int> rows;
        const int n = interpolation_taps(plan_.method);
        for (const exact::AxisTaps& t : plan_.row_taps)
            for (int k = 0; k < n; k++) rows.insert(t.idx[k]);
        return rows;
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

bool is_speed_feature(const Feature& feature) { return dynamic_cast<const SpeedFeature*>(&feature) != nullptr; }

std::unique_ptr<cuda::DeviceFeature> make_speed_device_feature(const Feature& feature, Dispatch dispatch) {
    const auto* f = dynamic_cast<const SpeedFeature*>(&feature);
    if (!f) return nullptr;
    return std::make_unique<SpeedDevice>(*f, dispatch);
}

}  // namespace speedqa
