// One image through the CPU engine: prescale (only the pixels the kept
// points read), the anti-alias filter at the kept points only, the local
// mean on the decimated image, then est_params.
#pragma once

#include <vector>

#include "features/speed/plan.hpp"
#include "features/speed/cpu/est_params.hpp"
#include "features/speed/image_source.hpp"

namespace speedqa::cpu {

// The source rows the resampling reads, converted once each (prescale only).
struct SourceRows {
    std::vector<float> buf;             // slots x original width
    std::vector<int> held;              // the source row in each slot (-1: none)
    std::vector<const float*> by_row;   // by source row: its slot, for the rows of the output row at hand
    // Slots enough for the rows any one output row reads.
    static size_t slots(const ImagePlan& plan);
};

class ImagePipeline {
public:
    // kernels: the CPU kernels to use (nullptr: the widest this host runs).
    ImagePipeline(const ImagePlan& plan, exact::CovOrder order, const Kernels* kernels = nullptr);

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
    SourceRows rows_;
    std::vector<float> vrow_;      // vertical pass at one kept row, over plan_.cols
    // operating_h x operating_w: decimated, its local-mean vertical pass, and
    // the result (decimated minus local mean)
    std::vector<float> tmp_, vert_, dec_;
    EstParams est_;
    const struct Kernels& kernels_;
};

}  // namespace speedqa::cpu
