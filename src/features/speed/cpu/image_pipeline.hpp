// One image through the CPU engine: prescale (only the pixels the kept
// points read), the anti-alias filter at the kept points only, the local
// mean on the decimated image, then est_params.
#pragma once

#include <vector>

#include "features/speed/plan.hpp"
#include "features/speed/cpu/est_params.hpp"
#include "features/speed/cpu/image_source.hpp"

namespace speedqa::cpu {

class ImagePipeline {
public:
    ImagePipeline(const ImagePlan& plan, exact::CovOrder order, CovImpl impl = CovImpl::all_pairs,
                  const Kernels* kernels = nullptr);

    void run(const ImageSource& src, ImageStats& out);
    // The bytes a pipeline for this plan and order allocates.
    static size_t bytes(const ImagePlan& plan, exact::CovOrder order);

    // The decimated image after local-mean subtraction (operating size), for tests.
    const std::vector<float>& decimated() const { return dec_; }
    const EstParams& est() const { return est_; }

private:
    void resample(const ImageSource& src);
    void antialias_kept_points(const ImageSource& src);
    void subtract_local_mean();

    const ImagePlan& plan_;
    std::vector<float> compact_;   // prescaled plane at plan_.rows x plan_.cols
    std::vector<float> vrow_;      // vertical pass at one kept row, over plan_.cols
    // operating_h x operating_w: decimated, its local-mean vertical pass, and
    // the result (decimated minus local mean)
    std::vector<float> tmp_, vert_, dec_;
    EstParams est_;
    const struct Kernels& kernels_;
};

}  // namespace speedqa::cpu
