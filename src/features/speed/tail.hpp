// The host tail shared by both engines: entropies from the eigenvalues and
// block variances, then the SpEED score of a ref/dis pair.
#pragma once

#include <vector>

#include "features/speed/image_stats.hpp"
#include "features/speed/speed_options.hpp"
#include "features/speed/plan.hpp"

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

// Per-worker scratch for frame_outputs.
struct TailScratch {
    ImageStats ref, dis;
    std::vector<float> entropy_ref, entropy_dis;
};

// The images of a frame, in the order both engines produce them: speed_chroma
// u ref, u dis, v ref, v dis; speed_temporal ref, dis.
enum class ImageRole { ref, dis };

// One frame's outputs of one SpEED feature (chroma: u, v, uv; temporal: one),
// written to out. `stats(image, role, st)` fills st with the engine's result
// for that image (image: chroma 0 = u, 1 = v; temporal 0); it is not called
// for speed_temporal at frame 0, which scores 0.
template <class Stats>
void speed_frame_outputs(const SpeedSpec& spec, const ImagePlan& plan, long long index, TailScratch& t, Stats&& stats,
                         double* out) {
    if (spec.kind == SpeedKind::chroma) {
        PairScore uv[2];
        for (int c = 0; c < 2; c++) {
            stats(c, ImageRole::ref, t.ref);
            stats(c, ImageRole::dis, t.dis);
            uv[c] = score_pair(plan, t.ref, t.dis, t.entropy_ref, t.entropy_dis);
        }
        chroma_outputs(uv[0], uv[1], spec.options.max_val, out);
    } else if (index == 0) {
        out[0] = 0.0;
    } else {
        stats(0, ImageRole::ref, t.ref);
        stats(0, ImageRole::dis, t.dis);
        out[0] = score_pair(plan, t.ref, t.dis, t.entropy_ref, t.entropy_dis).score;
    }
}

}  // namespace speedqa
