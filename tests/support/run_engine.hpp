// Running an engine over a whole clip held in memory.
#pragma once

#include <memory>
#include <vector>

#include "core/engine.hpp"
#include "core/video.hpp"

namespace speedqa::testing {

// Pictures of each frame of a raw planar buffer.
std::vector<Picture> frames_of(const VideoFormat& f, const std::vector<uint8_t>& data, int max_frames = -1);

// All frames through `engine` in batches of `batch` frames: each frame's raw
// values, [frame][value] (for features whose sequencer passes them through,
// their outputs).
std::vector<std::vector<double>> run_clip(Engine& engine, const std::vector<Picture>& ref,
                                          const std::vector<Picture>& dis, int metrics, int batch = 4);

}  // namespace speedqa::testing
