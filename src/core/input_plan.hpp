// The upload a device engine makes for a batch of frames, planned once from
// the features' needs (Feature::input_needs) for any device engine: which
// planes of which side, which rows of each plane, how many frames before the
// batch, and where each lands in the batch's input (core/input_layout.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "core/feature.hpp"
#include "core/input_layout.hpp"

namespace speedqa {

// Rows of a plane that one strided copy moves: n_runs runs of run_len
// consecutive rows, `spacing` rows apart in the picture, landing as
// consecutive compact rows from dst_row on. (The rows a 16x decimation reads
// form a few such groups; a whole plane is one.)
struct RowGroup {
    int first_row = 0, run_len = 0, spacing = 0, n_runs = 0;
    size_t dst_row = 0;
};

struct InputPlan {
    // The layout, row_index left null: the engine points it at its own
    // device copies of row_index below where a plane is not whole.
    InputLayout layout;
    bool plane_used[3] = {false, false, false};
    bool whole[3] = {false, false, false};   // every row, in order
    std::vector<int> rows[3];                // sorted source rows per plane
    std::vector<int> row_index[3];           // source row -> compact row (-1: not uploaded), per plane
    std::vector<RowGroup> groups[3];         // the rows as strided copies
    bool multi_row_runs[3] = {false, false, false};  // a copy spans rows (needs stride == row bytes)
    // The planes to fill, [e][side]: e = 0 for the batch's own frames, e =
    // 1 or 2 for the history position e frames before the first.
    unsigned staged[InputNeeds::kMaxDistance + 1][2] = {};

    // Bytes of samples the plan moves per frame of a batch (its own frame
    // positions; history positions come once per batch).
    size_t bytes_per_frame() const;
};

InputPlan make_input_plan(const VideoFormat& format, const InputNeeds& needs);
// The union of the features' needs.
InputNeeds input_needs_of(const std::vector<const Feature*>& features);

}  // namespace speedqa
