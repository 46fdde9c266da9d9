// The wiring of SpEED: the feature objects the registry builds and which
// path runs their images (cpu/'s pipeline, or reference/'s straightforward
// one for the straightforward kernel target). The one file of the feature
// that sees all its parts (tests/layering_test.cpp); they see only the root.
#include "features/speed/speed.hpp"

#include <atomic>

#include "features/speed/cpu/image_pipeline.hpp"
#include "features/speed/cpu/kernels.hpp"
#include "features/speed/exact/sequence.hpp"
#include "features/speed/image_source.hpp"
#include "features/speed/reference/full_frame.hpp"
#include "features/speed/speed_feature.hpp"
#include "features/speed/tail.hpp"

namespace speedqa {
namespace {

// libvmaf's speed_init picks its covariance kernel by the dispatch.
exact::CovOrder cov_order_of(Dispatch d) {
    switch (d) {
    case Dispatch::scalar: return exact::CovOrder::scalar;
    case Dispatch::avx2: return exact::CovOrder::avx2;
    default: return exact::CovOrder::avx512;
    }
}

std::vector<FeatureOutput> speed_outputs(SpeedKind kind, const OptionValues& options) {
    if (kind == SpeedKind::temporal) return Feature::outputs_for({"Speed_temporal_feature_speed_temporal_score"}, options);
    return Feature::outputs_for({"Speed_chroma_feature_speed_chroma_u_score", "Speed_chroma_feature_speed_chroma_v_score",
                                 "Speed_chroma_feature_speed_chroma_uv_score"},
                                options);
}

// One image through the fast pipeline or the straightforward full-frame path.
class ImageRunner {
public:
    virtual ~ImageRunner() = default;
    virtual void run(const ImageSource& src, ImageStats& out) = 0;
};

template <class Pipeline>
class Runner final : public ImageRunner {
public:
    template <class... Args>
    explicit Runner(Args&&... args) : p_(std::forward<Args>(args)...) {}
    void run(const ImageSource& src, ImageStats& out) override { p_.run(src, out); }

private:
    Pipeline p_;
};

struct SpeedScratch final : KernelScratch {
    std::unique_ptr<ImageRunner> runner;
    TailScratch tail;
};

class SpeedKernel final : public CpuKernel {
public:
    SpeedKernel(const SpeedFeature& f, const CpuTarget& t)
        : feature_(f), target_(t), order_(cov_order_of(t.dispatch)), bitdepth_(f.format().bitdepth) {}

    std::unique_ptr<KernelScratch> make_scratch() const override {
        auto s = std::make_unique<SpeedScratch>();
        if (target_.straightforward)
            s->runner = std::make_unique<Runner<reference::FullFramePipeline>>(feature_.plan(), order_);
        else
            s->runner = std::make_unique<Runner<cpu::ImagePipeline>>(feature_.plan(), order_, &cpu::kernels_for(target_.isa));
        return s;
    }

    // The pipeline, and the tail's variances and entropies of ref and dis
    // (one float a block each), which grow to their size on the first frame.
    size_t scratch_bytes() const override {
        const ImagePlan& plan = feature_.plan();
        const size_t tail = 4 * static_cast<size_t>(plan.dim.num_blocks) * sizeof(float);
        return tail + (target_.straightforward ? reference::FullFramePipeline::bytes(plan, order_)
                                                : cpu::ImagePipeline::bytes(plan, order_));
    }

    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        auto& s = static_cast<SpeedScratch&>(scratch);
        const SpeedSpec& spec = feature_.spec();
        const exact::ImageKind kind = spec.kind == SpeedKind::chroma ? exact::ImageKind::chroma : exact::ImageKind::temporal;
        speed_frame_outputs(spec, feature_.plan(), frame.index, s.tail,
                            [&](int image, ImageRole role, ImageStats& st) {
                                const int side = role == ImageRole::ref ? 0 : 1;
                                const exact::ImageComposition c =
                                    exact::compose_image(kind, spec.options.use_ref_diff, image * 2 * (1 - static_cast<int>(kind)) + side);
                                ImageSource src;
                                src.a = plane_of(frame, c.a, c.plane);
                                if (c.diff) src.b = plane_of(frame, c.b, c.plane);
                                src.difference = c.diff;
                                src.bitdepth = bitdepth_;
                                s.runner->run(src, st);
                                if (st.eigen_sweeps >= exact::kMaxEigenSweeps) unconverged_++;
                            },
                            raw);
    }

    std::vector<std::string> notes() const override {
        if (!unconverged_) return {};
        return {feature_.name() + ": " + std::to_string(unconverged_.load()) +
                " images stopped at 500 eigenvalue sweeps (libvmaf warns: possible non-convergence); their scores "
                "are libvmaf's all the same"};
    }

private:
    static PlaneRef plane_of(const FrameView& f, exact::SampleRef r, int plane) {
        const Picture* p = r.frame == 0 ? (r.side == 0 ? f.ref : f.dis) : (r.side == 0 ? f.prev_ref[0] : f.prev_dis[0]);
        return {p->plane[plane], p->stride[plane]};
    }

    const SpeedFeature& feature_;
    CpuTarget target_;
    exact::CovOrder order_;
    int bitdepth_;
    mutable std::atomic<long long> unconverged_{0};
};

std::unique_ptr<Feature> create_chroma(const VideoFormat& f, const OptionValues& o) {
    return std::make_unique<SpeedFeature>(f, SpeedKind::chroma, o);
}
std::unique_ptr<Feature> create_temporal(const VideoFormat& f, const OptionValues& o) {
    return std::make_unique<SpeedFeature>(f, SpeedKind::temporal, o);
}

}  // namespace

SpeedFeature::SpeedFeature(const VideoFormat& format, SpeedKind kind, const OptionValues& options)
    : Feature(options, speed_outputs(kind, options)), format_(format), spec_(speed_spec(kind, options)),
      plan_(make_feature_plan(format, spec_)) {}

InputNeeds SpeedFeature::input_needs() const {
    InputNeeds n = Feature::input_needs();
    RowSet rows;
    if (!plan_.resample) {
        rows = RowSet::only(plan_.rows);
    } else {
        const int taps = exact::interp_taps(plan_.method);
        std::vector<int> read;
        for (const exact::AxisTaps& t : plan_.row_taps)
            for (int k = 0; k < taps; k++) read.push_back(t.idx[k]);
        rows = RowSet::only(std::move(read));
    }
    for (int p = 0; p < 3; p++) n.rows[p] = rows;
    return n;
}

std::unique_ptr<CpuKernel> SpeedFeature::make_cpu_kernel(const CpuTarget& target) const {
    return std::make_unique<SpeedKernel>(*this, target);
}

const FeatureDef& speed_chroma_feature() {
    static const FeatureDef def{"speed_chroma", speed_chroma_options(), create_chroma};
    return def;
}

const FeatureDef& speed_temporal_feature() {
    static const FeatureDef def{"speed_temporal", speed_temporal_options(), create_temporal};
    return def;
}

}  // namespace speedqa
