// Shards of a clip's scores (--frame_range, io::format_shard) read back and
// joined into the table a run of the whole clip makes: `speedqa merge`
// writes it in any layout, byte for byte the single run's file (its fps,
// a timing, aside: the shards' frames over their scoring time).
#pragma once

#include <string>
#include <vector>

#include "io/score_writer.hpp"

namespace speedqa::plot {

// Throws speedqa::Error, one line naming the file, where a file is not a
// shard, the shards disagree (metric names, size, version) or do not cover
// the clip from frame 0 to its end exactly once (a gap, an overlap, no
// shard that reached the clip's end).
io::ScoreTable merge_shards(const std::vector<std::string>& paths);

}  // namespace speedqa::plot
