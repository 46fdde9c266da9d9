// The host tail shared by both engines: entropies from the eigenvalues and
// block variances, then the SpEED score of a ref/dis pair.
#pragma once

#include <vector>

#include "core/image_stats.hpp"
#include "core/plan.hpp"

namespace speedqa {

struct PairScore {
    float score = 0;
    bool error = false;  // either image was singular (speed_extract_score's return)
};

// `entropy_ref` / `entropy_dis` are scratch of num_blocks floats each.
PairScore score_pair(const ImagePlan& plan, const ImageStats& ref, const ImageStats& dis,
                     std::vector<float>& entropy_ref, std::vector<float>& entropy_dis);

// speed_chroma's three outputs from the u and v pair scores, clipped to max_val.
void chroma_outputs(const PairScore& u, const PairScore& v, double max_val, double* out3);

}  // namespace speedqa
