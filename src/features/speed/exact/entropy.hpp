// The host tail: per-block entropies from the eigenvalues and block
// variances, and the SpEED score from the entropies of ref and dis.
//
// These call the C library's log2 in double; to stay exact on every backend
// they run on the host only, over 25 floats per image plus one float per block.
#pragma once

#include <cmath>

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

// log2(2 * pi * e), folded by the compiler as in the reference.
inline const double kLog2TwoPiE = std::log2(2 * M_PI * M_E);

// E = sum over k of log2(max(eig_k, 0) * S + sigma) + log2(2 pi e), with the
// running sum kept in float (each step: double sum, rounded to float).
inline float block_entropy(const float* eigenvalues, float variance, float sigma_nn) {
    float e = 0;
    for (int k = 0; k < kBlockElems; k++) {
        const float l = eigenvalues[k] < 0 ? 0 : eigenvalues[k];
        const float arg = l * variance + sigma_nn;
        e = static_cast<float>(static_cast<double>(e) + (std::log2(static_cast<double>(arg)) + kLog2TwoPiE));
    }
    return e;
}

inline float base_entropy(float sigma_nn, float nn_floor) {
    const float arg = (1 + nn_floor) * sigma_nn;
    return static_cast<float>(static_cast<double>(kBlockElems) * (std::log2(static_cast<double>(arg)) + kLog2TwoPiE));
}

inline double log2_1p(float v) { return std::log2(static_cast<double>(1 + v)); }

// One block's |spatial_ref - spatial_dis| under speed_weight_var_mode 0..6.
inline float block_difference(int mode, float e_ref, float v_ref, float e_dis, float v_dis) {
    const double er = e_ref, ed = e_dis;
    double wr = 0, wd = 0;
    switch (mode) {
    case 0: wr = log2_1p(v_ref); wd = log2_1p(v_dis); break;
    case 1: wr = log2_1p(v_ref); wd = log2_1p(v_ref); break;
    case 2: wr = log2_1p(v_dis); wd = log2_1p(v_dis); break;
    case 3: {
        const double mix = static_cast<double>(v_ref + v_dis) / 2.0;
        wr = std::log2(1 + mix);
        wd = wr;
        break;
    }
    case 4: wr = log2_1p(v_ref); wd = std::log2(1 + static_cast<double>(v_ref + v_dis) / 2.0); break;
    case 5: wr = log2_1p(v_ref); wd = std::log2(1 + (0.75 * v_ref + 0.25 * v_dis)); break;
    default: wr = log2_1p(v_ref); wd = std::log2(1 + (0.25 * v_ref + 0.75 * v_dis)); break;
    }
    const float spatial_ref = static_cast<float>(er * wr);
    const float spatial_dis = static_cast<float>(ed * wd);
    return std::fabs(spatial_ref - spatial_dis);
}

// The reference's get_speed_score over all blocks, float sum in block order.
inline float speed_score(const float* e_ref, const float* v_ref, const float* e_dis, const float* v_dis,
                         int num_blocks, float sigma_nn, float nn_floor, int mode) {
    const float base = base_entropy(sigma_nn, nn_floor);
    float score = 0;
    for (int i = 0; i < num_blocks; i++) {
        if (e_ref[i] < base && e_dis[i] < base) {
            score += 0;
        } else {
            score += block_difference(mode, e_ref[i], v_ref[i], e_dis[i], v_dis[i]);
        }
    }
    return score / static_cast<float>(num_blocks);
}

}  // namespace speedqa::exact
