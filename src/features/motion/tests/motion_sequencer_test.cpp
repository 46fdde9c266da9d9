// The motion sequencer against a plain transcription of libvmaf's flush()
// (integer_motion.c), which sees the whole clip's scores at once: random
// score sequences of every length 0..12 under every combination of the
// options the sequencer uses. Also checks that each frame is emitted exactly
// once, in order, and as soon as its values are final.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_sequencer.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

struct Flushed {
    std::vector<double> motion2, motion3;
};

// flush(): the scores of frames 0..n-1 in; motion2 and motion3 of each out.
Flushed flush_transcription(const std::vector<double>& sad, const SequenceOptions& o) {
    Flushed f;
    const unsigned n = static_cast<unsigned>(sad.size());
    const unsigned stride = o.five_frame_window ? 2 : 1;
    const unsigned min_idx = o.five_frame_window ? 2 : 1;
    if (!n) return f;
    double stamp_value = 0.;
    if (n > min_idx) stamp_value = em::clip_max(em::blend(sad[min_idx], o.blend_factor, o.blend_offset), o.max_val);
    double prev_processed = 0.;
    for (unsigned i = 0; i < n; i++) {
        const double sad_i = sad[i];
        double motion2;
        if (i < min_idx) {
            motion2 = 0.;
        } else {
            const int lo_idx = static_cast<int>(i) - static_cast<int>(stride - 1);
            const int hi_idx = static_cast<int>(i) + 1;
            const bool has_hi = hi_idx < static_cast<int>(n);
            if (!has_hi) {
                motion2 = sad_i;
            } else if (lo_idx >= static_cast<int>(min_idx)) {
                const double lo = sad[static_cast<unsigned>(lo_idx)], hi = sad[static_cast<unsigned>(hi_idx)];
                motion2 = lo < hi ? lo : hi;
            } else {
                motion2 = sad[static_cast<unsigned>(hi_idx)];
            }
        }
        f.motion2.push_back(motion2);
        double motion3;
        if (i < min_idx) {
            motion3 = stamp_value;
            prev_processed = stamp_value;
        } else {
            const double processed = em::clip_max(em::blend(motion2, o.blend_factor, o.blend_offset), o.max_val);
            motion3 = o.moving_average ? (processed + prev_processed) / 2.0 : processed;
            prev_processed = processed;
        }
        f.motion3.push_back(motion3);
    }
    return f;
}

// Scores with ties, zeros and values either side of the offsets and clips.
std::vector<double> random_scores(std::mt19937& rng, int n) {
    std::uniform_int_distribution<int> kind(0, 5);
    std::uniform_real_distribution<double> val(0.0, 60.0);
    std::vector<double> s;
    for (int i = 0; i < n; i++) {
        switch (kind(rng)) {
        case 0: s.push_back(0.0); break;
        case 1: s.push_back(s.empty() ? 3.0 : s.back()); break;  // a tie
        case 2: s.push_back(20.0); break;                        // at an offset
        default: s.push_back(val(rng));
        }
    }
    return s;
}

TEST(MotionSequencer, MatchesFlushTranscriptionForEveryLengthAndOption) {
    std::mt19937 rng(20260);
    long long sequences = 0, values = 0;
    for (int five = 0; five < 2; five++)
        for (int mma = 0; mma < 2; mma++)
            for (int debug = 0; debug < 2; debug++)
                for (double factor : {1.0, 0.5, 0.3, 0.0})
                    for (double offset : {40.0, 20.0, 5.5, 0.0})
                        for (double max_val : {10000.0, 18.0, 5.0, 0.7, 0.0})
                            for (int n = 0; n <= 12; n++)
                                for (int rep = 0; rep < 3; rep++) {
                                    SequenceOptions o;
                                    o.five_frame_window = five;
                                    o.moving_average = mma;
                                    o.debug = debug;
                                    o.blend_factor = factor;
                                    o.blend_offset = offset;
                                    o.max_val = max_val;
                                    const std::vector<double> sad = random_scores(rng, n);
                                    const Flushed want = flush_transcription(sad, o);
                                    const int outputs = debug ? 4 : 3;
                                    std::vector<std::vector<double>> got;
                                    const auto seq = make_sequencer(o);
                                    const EmitFn emit = [&](long long i, const double* v) {
                                        ASSERT_EQ(i, static_cast<long long>(got.size())) << "emitted out of order";
                                        got.emplace_back(v, v + outputs);
                                    };
                                    for (int i = 0; i < n; i++) {
                                        seq->push(i, &sad[static_cast<size_t>(i)], emit);
                                        // final as soon as possible, never earlier
                                        const int ready = i >= o.first_scored() ? i : 0;
                                        ASSERT_EQ(static_cast<int>(got.size()), ready) << "after frame " << i;
                                    }
                                    seq->finish(emit);
                                    ASSERT_EQ(static_cast<int>(got.size()), n);
                                    for (int i = 0; i < n; i++) {
                                        const auto& g = got[static_cast<size_t>(i)];
                                        EXPECT_EQ(g[0], sad[static_cast<size_t>(i)]);
                                        if (debug) {
                                            EXPECT_EQ(g[1], sad[static_cast<size_t>(i)]);
                                        }
                                        EXPECT_EQ(g[outputs - 2], want.motion2[static_cast<size_t>(i)])
                                            << "motion2 frame " << i << " of " << n;
                                        EXPECT_EQ(g[outputs - 1], want.motion3[static_cast<size_t>(i)])
                                            << "motion3 frame " << i << " of " << n;
                                        values += 2;
                                    }
                                    sequences++;
                                }
    std::printf("[motion-sequencer] %lld sequences (lengths 0..12, 640 option sets), %lld motion2/motion3 values "
                "identical to flush()\n",
                sequences, values);
}

TEST(MotionSequencer, MovingAverageStampsTheFirstFrames) {
    // hfr models: frames 0 and 1 carry the clipped blend of frame 2's score,
    // and frame 2's moving average starts from it
    SequenceOptions o;
    o.five_frame_window = true;
    o.moving_average = true;
    o.max_val = 18.0;
    const std::vector<double> sad = {0.0, 0.0, 30.0, 4.0, 8.0};
    std::vector<std::vector<double>> got;
    const auto seq = make_sequencer(o);
    const EmitFn emit = [&](long long, const double* v) { got.emplace_back(v, v + 3); };
    for (int i = 0; i < 5; i++) seq->push(i, &sad[static_cast<size_t>(i)], emit);
    seq->finish(emit);
    ASSERT_EQ(got.size(), 5u);
    EXPECT_EQ(got[0][2], 18.0);
    EXPECT_EQ(got[1][2], 18.0);
    EXPECT_EQ(got[2][1], 4.0);                // frame 3's score: frame 1 is not scored
    EXPECT_EQ(got[2][2], (4.0 + 18.0) / 2.0);
    EXPECT_EQ(got[3][1], 8.0);                // min(frame 2, frame 4)
    EXPECT_EQ(got[4][1], 8.0);                // last frame: its own score
}

}  // namespace
}  // namespace speedqa::motion
