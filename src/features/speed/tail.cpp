#include "features/speed/tail.hpp"

#include "features/speed/exact/entropy.hpp"

namespace speedqa {
namespace {

void entropies(const ImageStats& s, float sigma_nn, std::vector<float>& out) {
    out.resize(s.variances.size());
    for (size_t j = 0; j < s.variances.size(); j++) out[j] = exact::block_entropy(s.eigenvalues, s.variances[j], sigma_nn);
}

// MIN(x, y) as the reference's macro: x < y ? x : y (a NaN score gives y).
double clip(float x, double max_val) { return x < max_val ? x : max_val; }

}  // namespace

PairScore score_pair(const ImagePlan& plan, const ImageStats& ref, const ImageStats& dis,
                     std::vector<float>& entropy_ref, std::vector<float>& entropy_dis) {
    PairScore r;
    entropies(ref, plan.sigma_nn, entropy_ref);
    entropies(dis, plan.sigma_nn, entropy_dis);
    r.error = ref.singular || dis.singular;
    if (ref.singular != dis.singular) {
        r.score = 0.0f;  // one side numerically unstable: the reference returns 0
    } else {
        r.score = exact::speed_score(entropy_ref.data(), ref.variances.data(), entropy_dis.data(),
                                     dis.variances.data(), plan.dim.num_blocks, plan.sigma_nn, plan.nn_floor,
                                     plan.weight_var_mode);
    }
    return r;
}

void chroma_outputs(const PairScore& u, const PairScore& v, double max_val, double* out3) {
    float uv;
    if (u.error && !v.error) uv = v.score;
    else if (v.error && !u.error) uv = u.score;
    else uv = static_cast<float>((u.score + v.score) / 2.0);
    out3[0] = clip(u.score, max_val);
    out3[1] = clip(v.score, max_val);
    out3[2] = clip(uv, max_val);
}

}  // namespace speedqa
