#include "io/pooling.hpp"

namespace speedqa::io {

Pooled pool_metric(const ScoreTable& t, size_t m) {
    Pooled r;
    unsigned n = 0;
    double sum = 0., i_sum = 0.;
    for (size_t i = 0; i < t.frames.size(); i++) {
        if (!frame_selected(static_cast<unsigned>(i), t.subsample)) continue;
        const double s = t.frames[i][m];
        n++;
        sum += s;
        i_sum += 1. / (s + 1.);
        if (i == 0 || s < r.min) r.min = s;
        if (i == 0 || s > r.max) r.max = s;
    }
    if (n == 0) return r;
    r.valid = true;
    r.mean = sum / n;
    r.harmonic_mean = n / i_sum - 1.0;
    return r;
}

}  // namespace speedqa::io
