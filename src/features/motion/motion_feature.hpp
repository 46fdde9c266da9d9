// A configured integer motion feature: what its CPU kernel and its device
// part (cuda/) both need, and the per-frame raw value they both write.
#pragma once

#include <cstdint>

#include "core/feature.hpp"
#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_sequencer.hpp"

namespace speedqa::motion {

struct Params {
    SequenceOptions seq;
    bool force_zero = false;
    double fps_weight = 1.0;
    int w = 0, h = 0, bitdepth = 8;

    // How many frames back the frame compared with lies (1, or 2 with the
    // five-frame window).
    int distance() const { return seq.five_frame_window ? 2 : 1; }
    // Whether frame `index` has a score computed from pixels (else its raw
    // value is 0: forced, or no frame at the window's distance before it).
    bool scores(long long index) const { return !force_zero && index >= seq.first_scored(); }
    // The raw value of frame `index` whose sum of |blur(prev - cur)| is `sad`
    // (ignored where the frame is not scored).
    double raw_value(long long index, uint64_t sad) const {
        if (!scores(index)) return 0.0;
        return exact::motion::frame_score(sad, static_cast<unsigned>(w), static_cast<unsigned>(h), fps_weight,
                                          seq.max_val);
    }
};

class MotionFeature final : public Feature {
public:
    MotionFeature(const OptionValues& o, const Params& p);

    const Params& params() const { return p_; }

    // the frame one back, or two with the five-frame window; none when forced to 0
    int history() const override { return p_.force_zero ? 0 : p_.distance(); }
    int raw_count() const override { return 1; }
    // the reference's lumas (none when forced to 0)
    PlanesRead planes_read() const override {
        const unsigned y = p_.force_zero ? 0 : 1;
        return {y, 0, y, 0};
    }
    // Frame i's outputs read back: its score the frame compared with (1 or
    // 2 back), motion2 the score of the frame before it with the five-frame
    // window (so 3 back), motion3's moving average one frame's more; and
    // forward: motion2 the next frame's score, and the frames before the
    // first scored one (1 or 2) that frame's.
    Context context() const override {
        if (p_.force_zero) return {0, 0};
        return {(p_.seq.five_frame_window ? 3 : 1) + (p_.seq.moving_average ? 1 : 0), p_.seq.first_scored()};
    }
    // the reference's luma and the one of the frame it is compared with
    // (one back, or two with the five-frame window; not the one between)
    InputNeeds input_needs() const override;
    // the reference's scalar, AVX2 and AVX-512 sums are the same integers
    CpuTarget kernel_target(const CpuTarget& t) const override { return {t.isa, Dispatch::scalar, t.straightforward}; }
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override;
    std::unique_ptr<Sequencer> make_sequencer() const override { return motion::make_sequencer(p_.seq); }

private:
    Params p_;
};

}  // namespace speedqa::motion
