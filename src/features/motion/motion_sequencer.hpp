// The per-clip part of integer motion: what libvmaf's flush() derives from
// the per-frame scores once the clip has ended (motion2: the smaller of the
// neighbouring frames' scores; motion3: blended, clipped, optionally a moving
// average; the first frames stamped with a later frame's value), produced
// here frame by frame, as soon as each frame's values are final.
#pragma once

#include <deque>
#include <memory>

#include "core/feature.hpp"

namespace speedqa::motion {

struct SequenceOptions {
    bool five_frame_window = false;  // compare with the frame two back; motion2 from frames i - 1 and i + 1
    bool moving_average = false;     // motion3: mean of this frame's and the previous one's value
    double blend_factor = 1.0, blend_offset = 40.0, max_val = 10000.0;
    bool debug = false;              // outputs the score a second time (integer_motion)

    int first_scored() const { return five_frame_window ? 2 : 1; }
};

// Raw value per frame: its score (0 before first_scored()). Outputs per
// frame: score, [score again with debug], motion2, motion3.
std::unique_ptr<Sequencer> make_sequencer(const SequenceOptions& options);

}  // namespace speedqa::motion
