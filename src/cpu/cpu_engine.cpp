#include "cpu/cpu_engine.hpp"

#include "core/error.hpp"
#include "core/tail.hpp"
#include "reference/full_frame.hpp"

namespace speedqa::cpu {

struct CpuEngine::Worker {
    std::vector<std::unique_ptr<ImageRunner>> pipelines;  // one per feature
    TailScratch tail;
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
    for (const FeatureSpec& f : features_) plans_.push_back(make_feature_plan(format_, f));
    for (const ImagePlan& p : plans_) plan_ptrs_.push_back(&p);
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
    frame_outputs(features_, plan_ptrs_, index, w.tail,
                  [&](size_t f, int image, ImageRole role, ImageStats& st) {
                      const Picture& cur = role == ImageRole::ref ? ref : dis;
                      ImageSource src;
                      if (features_[f].kind == FeatureKind::chroma) {
                          src = plane_image(cur, 1 + image, bd);
                      } else {
                          // prev - curr; with speed_use_ref_diff the distorted image is prev dis - curr ref
                          const Picture& prev = role == ImageRole::ref ? (k > 0 ? batch.ref[k - 1] : *batch.prev_ref)
                                                                       : (k > 0 ? batch.dis[k - 1] : *batch.prev_dis);
                          const bool from_ref = role == ImageRole::ref || features_[f].options.use_ref_diff;
                          src = difference_image(prev, from_ref ? ref : dis, bd);
                      }
                      w.pipelines[f]->run(src, st);
                      if (st.eigen_sweeps >= exact::kMaxEigenSweeps) unconverged_++;
                      if (st.singular) singular_++;
                  },
                  out);
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
