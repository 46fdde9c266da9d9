// The straightforward full-frame path: the reference's data flow without
// shortcuts (convert the whole plane, prescale all of it, filter every pixel,
// then keep every 16th), with the per-pair covariance statement. It is the
// yardstick the fast engines are tested and benchmarked against.
#pragma once

#include <vector>

#include "features/speed/image_source.hpp"
#include "features/speed/image_stats.hpp"
#include "features/speed/plan.hpp"
#include "features/speed/reference/est_params.hpp"

namespace speedqa::reference {

class FullFramePipeline {
public:
    FullFramePipeline(const ImagePlan& plan, exact::CovOrder order);
    void run(const ImageSource& src, ImageStats& out);
    // The bytes a pipeline for this plan and order allocates.
    static size_t bytes(const ImagePlan& plan, exact::CovOrder order);
    const std::vector<float>& decimated() const { return dec_; }
    const EstParams& est() const { return est_; }

private:
    const ImagePlan& plan_;
    std::vector<exact::AxisTaps> all_col_taps_, all_row_taps_;
    std::vector<float> plane_, scaled_, vert_, filtered_, dec_, dec_vert_, dec_mean_;
    EstParams est_;
};

}  // namespace speedqa::reference
