// A batch's device input laid out on the host, as a device engine's staging
// lays it out (core/input_plan.hpp), for the host twins of device stages
// (core/grid.hpp: HostGrid) in tests without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "core/input_plan.hpp"

namespace speedqa::testing {

class HostInput {
public:
    HostInput(const VideoFormat& format, const std::vector<const Feature*>& features);
    // Frames [first, first + count) of a clip, and the history positions
    // before first (those before frame 0 left zero).
    void fill(const std::vector<Picture>& ref, const std::vector<Picture>& dis, int first, int count);
    const InputPlan& plan() const { return plan_; }
    const InputLayout& layout() const { return layout_; }  // its row tables on the host
    const uint8_t* data() const { return bytes_.data(); }

private:
    InputPlan plan_;
    InputLayout layout_;
    std::vector<uint8_t> bytes_;
};

}  // namespace speedqa::testing
