#include "features/motion/motion_sequencer.hpp"

#include "features/motion/exact/motion_exact.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

// Frame i (>= first scored) is final once frame i + 1 has arrived or the clip
// has ended; the frames before the first scored one, once the first scored
// one has arrived (its value is their stamp) or the clip has ended (stamp 0).
class MotionSequencer final : public Sequencer {
public:
    explicit MotionSequencer(const SequenceOptions& o) : o_(o) {}

    void push(long long index, const double* raw, const EmitFn& emit) override {
        scores_.push_back(raw[0]);
        pushed_ = index + 1;
        const int first = o_.first_scored();
        if (index == first) {
            prev_processed_ = processed(raw[0]);
            for (long long i = 0; i < first; i++) emit_frame(i, 0.0, prev_processed_, emit);
        } else if (index > first) {
            emit_scored(index - 1, true, emit);
        }
        // keep the scores of frames i - 1, i and i + 1 around the next frame to emit
        while (static_cast<long long>(scores_.size()) > 3) scores_.pop_front();
    }

    void finish(const EmitFn& emit) override {
        const int first = o_.first_scored();
        if (pushed_ == 0) return;
        if (pushed_ <= first) {
            for (long long i = 0; i < pushed_; i++) emit_frame(i, 0.0, 0.0, emit);
            return;
        }
        emit_scored(pushed_ - 1, false, emit);
    }

private:
    double processed(double motion2) const {
        return em::clip_max(em::blend(motion2, o_.blend_factor, o_.blend_offset), o_.max_val);
    }

    // The score of frame i (one of the last three pushed).
    double score(long long i) const { return scores_[scores_.size() - static_cast<size_t>(pushed_ - i)]; }

    void emit_scored(long long i, bool has_next, const EmitFn& emit) {
        const int first = o_.first_scored();
        double motion2 = score(i);
        if (has_next) {
            const double next = score(i + 1);
            // five-frame window: the frames either side; else this and the next
            const long long lo = o_.five_frame_window ? i - 1 : i;
            if (lo >= first) {
                const double before = score(lo);
                motion2 = before < next ? before : next;
            } else {
                motion2 = next;
            }
        }
        const double p = processed(motion2);
        const double motion3 = o_.moving_average ? (p + prev_processed_) / 2.0 : p;
        prev_processed_ = p;
        emit_frame(i, motion2, motion3, emit);
    }

    void emit_frame(long long i, double motion2, double motion3, const EmitFn& emit) const {
        double out[4];
        int n = 0;
        out[n++] = score(i);
        if (o_.debug) out[n++] = out[0];
        out[n++] = motion2;
        out[n++] = motion3;
        emit(i, out);
    }

    SequenceOptions o_;
    std::deque<double> scores_;
    long long pushed_ = 0;
    double prev_processed_ = 0.0;
};

}  // namespace

std::unique_ptr<Sequencer> make_sequencer(const SequenceOptions& options) {
    return std::make_unique<MotionSequencer>(options);
}

}  // namespace speedqa::motion
