#include "support/host_input.hpp"

#include <algorithm>
#include <cstring>

namespace speedqa::testing {

HostInput::HostInput(const VideoFormat& format, const std::vector<const Feature*>& features)
    : plan_(make_input_plan(format, input_needs_of(features))), layout_(plan_.layout) {
    for (int p = 0; p < 3; p++)
        if (plan_.plane_used[p] && !plan_.whole[p]) layout_.row_index[p] = plan_.row_index[p].data();
}

void HostInput::fill(const std::vector<Picture>& ref, const std::vector<Picture>& dis, int first, int count) {
    const int positions = layout_.history + count;
    bytes_.assign(static_cast<size_t>(positions) * layout_.frame_bytes, 0);
    for (int position = 0; position < positions; position++) {
        const int frame = first - layout_.history + position;
        if (frame < 0) continue;
        const int e = position < layout_.history ? layout_.history - position : 0;
        for (int side = 0; side < 2; side++) {
            const Picture& pic = (side == 0 ? ref : dis)[static_cast<size_t>(frame)];
            for (int p = 0; p < 3; p++) {
                if (!((plan_.staged[e][side] >> p) & 1u)) continue;
                uint8_t* dst = bytes_.data() + static_cast<size_t>(position) * layout_.frame_bytes +
                               static_cast<size_t>(layout_.plane_offset[side][p]);
                const size_t rb = static_cast<size_t>(layout_.row_bytes[p]);
                for (size_t r = 0; r < plan_.rows[p].size(); r++)
                    std::memcpy(dst + r * rb, pic.plane[p] + static_cast<ptrdiff_t>(plan_.rows[p][r]) * pic.stride[p], rb);
            }
        }
    }
}

}  // namespace speedqa::testing
