#include "cpu/cpu_engine.hpp"

#include "core/error.hpp"
#include "core/tail.hpp"
#include "reference/full_frame.hpp"

namespace speedqa::cpu {

struct CpuEngine::Worker {
    std::vector<std::unique_ptr<ImageRunner>> pipelines;  // one per feature
    ImageStats ref, dis;
    std::vector<float> entropy_ref, entropy_dis;
};

namespace {

class FastRunner final : public ImageRunner {
public:
    FastRunner(const ImagePlan& plan, exact::CovOrder order) : p_(plan, order) {}
    void run(const ImageSource& src, ImageStats& out) override { p_.run(src, out); }

private:
    ImagePipeline p_;
};

class FullFrameRunner final : public ImageRunner {
public:
    FullFrameRunner(const ImagePlan& plan, exact::CovOrder order) : p_(plan, order) {}
    void run(const ImageSource& src, ImageStats& out) override { p_.run(src, out); }

private:
    reference::FullFramePipeline p_;
};

ImagePlan plan_for(const VideoFormat& f, const FeatureSpec& spec) {
    if (spec.kind == FeatureKind::chroma) {
        if (f.pix == PixelFormat::yuv400)
            throw Error("speed_chroma needs chroma planes, but the input is 4:0:0 (luma only)");
        return make_plan(f.feature_w(1), f.feature_h(1), spec.options, "speed_chroma");
    }
    return make_plan(f.feature_w(0), f.feature_h(0), spec.options, "speed_temporal");
}

ImageSource plane_image(const Picture& p, int plane, int bitdepth) {
    ImageSource s;
    s.a = {p.plane[plane], p.stride[plane]};
    s.bitdepth = bitdepth;
    return s;
}

ImageSource difference_image(const Picture& a, const Picture& b, int bitdepth) {
    ImageSource s;
    s.a = {a.plane[0], a.stride[0]};
    s.b = {b.plane[0], b.stride[0]};
    s.difference = true;
    s.bitdepth = bitdepth;
    return s;
}

}  // namespace

CpuEngine::CpuEngine(const VideoFormat& format, const std::vector<FeatureSpec>& features, const CpuEngineConfig& config)
    : format_(format), features_(features), config_(config), pool_(config.threads), metrics_(metric_count(features)) {
    for (const FeatureSpec& f : features_) plans_.push_back(plan_for(format_, f));
    for (int w = 0; w < pool_.size(); w++) {
        auto worker = std::make_unique<Worker>();
        for (const ImagePlan& plan : plans_)
            worker->pipelines.push_back(config_.full_frame ? std::unique_ptr<ImageRunner>(new FullFrameRunner(plan, config_.order))
                                                           : std::unique_ptr<ImageRunner>(new FastRunner(plan, config_.order)));
        workers_.push_back(std::move(worker));
    }
}

CpuEngine::~CpuEngine() = default;

std::string CpuEngine::describe() const {
    return std::string(config_.full_frame ? "cpu full-frame reference path (" : "cpu (") + std::to_string(pool_.size()) + " thread" + (pool_.size() > 1 ? "s" : "") +
           ", " + cov_order_name(config_.order) + " covariance order)";
}

void CpuEngine::score_frame(Worker& w, const FrameBatch& batch, int k, double* out) {
    const int index = batch.first_index + k;
    const Picture& ref = batch.ref[k];
    const Picture& dis = batch.dis[k];
    const int bd = format_.bitdepth;
    auto run = [&](ImageRunner& p, const ImageSource& src, ImageStats& st) {
        p.run(src, st);
        if (st.eigen_sweeps >= exact::kMaxEigenSweeps) unconverged_++;
        if (st.singular) singular_++;
    };
    for (size_t f = 0; f < features_.size(); f++) {
        const FeatureSpec& spec = features_[f];
        ImageRunner& pipe = *w.pipelines[f];
        const ImagePlan& plan = plans_[f];
        if (spec.kind == FeatureKind::chroma) {
            PairScore uv[2];
            for (int c = 0; c < 2; c++) {
                run(pipe, plane_image(ref, 1 + c, bd), w.ref);
                run(pipe, plane_image(dis, 1 + c, bd), w.dis);
                uv[c] = score_pair(plan, w.ref, w.dis, w.entropy_ref, w.entropy_dis);
            }
            chroma_outputs(uv[0], uv[1], spec.options.max_val, out);
            out += 3;
        } else {
            if (index == 0) {
                *out++ = 0.0;
                continue;
            }
            const Picture& prev_ref = k > 0 ? batch.ref[k - 1] : *batch.prev_ref;
            const Picture& prev_dis = k > 0 ? batch.dis[k - 1] : *batch.prev_dis;
            run(pipe, difference_image(prev_ref, ref, bd), w.ref);
            run(pipe, difference_image(prev_dis, spec.options.use_ref_diff ? ref : dis, bd), w.dis);
            *out++ = score_pair(plan, w.ref, w.dis, w.entropy_ref, w.entropy_dis).score;
        }
    }
}

void CpuEngine::score(const FrameBatch& batch, double* out) {
    if (batch.first_index > 0 && (!batch.prev_ref || !batch.prev_dis)) {
        for (const FeatureSpec& f : features_)
            if (f.kind == FeatureKind::temporal)
                throw Error("speed_temporal: a batch that starts after frame 0 needs the previous frame");
    }
    pool_.parallel_for(batch.count, [&](int worker, int k) {
        score_frame(*workers_[static_cast<size_t>(worker)], batch, k, out + static_cast<size_t>(k) * metrics_);
    });
}

}  // namespace speedqa::cpu
