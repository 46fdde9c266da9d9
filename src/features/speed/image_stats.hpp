// What an engine hands to the host tail for one image: the 25 eigenvalues
// of its block covariance and one variance per block.
#pragma once

#include <vector>

#include "features/speed/exact/constants.hpp"

namespace speedqa {

struct ImageStats {
    float eigenvalues[exact::kBlockElems] = {};
    std::vector<float> variances;  // S, one per block, row-major over blocks
    bool singular = false;         // the reference's est_params error: X was zeroed
    int eigen_sweeps = 0;
};

}  // namespace speedqa
