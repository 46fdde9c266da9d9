#include "io/cfr_sync.hpp"

#include <algorithm>
#include <cmath>

namespace speedqa::io {

// The arithmetic is ffmpeg's, operation for operation (doubles, and lrintf's
// rounding through float), so that borderline frames fall the same way.
CfrSync::Step CfrSync::push(double pts, double duration) {
    double delta0 = pts - static_cast<double>(next_);  // how far the frame lies past its slot
    double delta = delta0 + duration;
    Step s;
    if (delta0 < 0 && delta > 0) {  // a little late: clipped onto its slot
        pts = static_cast<double>(next_);
        duration += delta0;
        delta0 = 0;
    }
    if (vscfr_ && written_ == 0 && delta0 >= 0.5) {  // the grid starts at a late first frame
        delta = duration;
        delta0 = 0;
        next_ = std::llrint(pts);
    }
    if (delta < -1.1) {
        s.total = 0;
    } else if (delta > 1.1) {
        s.total = std::lrintf(static_cast<float>(delta));
        if (delta0 > 1.1) s.previous = std::llrintf(static_cast<float>(delta0 - 0.6));
    }
    s.previous = std::min(s.previous, s.total);
    last_previous_ = {s.previous, last_previous_[0], last_previous_[1]};
    if (s.total > kMaxRepeats) return Step{0, 0, true};
    next_ += s.total;
    written_ += s.total;
    return s;
}

int64_t CfrSync::flush() const {
    const auto [a, b, c] = last_previous_;
    return std::max(std::min(a, b), std::min(std::max(a, b), c));  // the median (ffmpeg's mid_pred)
}

}  // namespace speedqa::io
