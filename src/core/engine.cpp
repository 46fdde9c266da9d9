#include "core/engine.hpp"

#include "core/error.hpp"

namespace speedqa {

FrameView FrameBatch::view(int k, int history) const {
    FrameView v;
    v.index = first_index + k;
    v.ref = &ref[k];
    v.dis = &dis[k];
    for (int h = 0; h < history && h < 2; h++) {
        const int i = k - 1 - h;  // position in the batch of frame index - 1 - h
        if (i >= 0) {
            v.prev_ref[h] = &ref[i];
            v.prev_dis[h] = &dis[i];
        } else {
            v.prev_ref[h] = prev_ref[-1 - i];
            v.prev_dis[h] = prev_dis[-1 - i];
        }
    }
    return v;
}

RawLayout::RawLayout(const std::vector<const Feature*>& features) {
    for (const Feature* f : features) {
        offset.push_back(stride);
        stride += f->raw_count();
    }
}

void check_history(const FrameBatch& batch, const std::vector<const Feature*>& features) {
    for (const Feature* f : features)
        for (int h = 0; h < f->history() && h < 2; h++)
            if (batch.first_index > h && (!batch.prev_ref[h] || !batch.prev_dis[h]))
                throw Error(f->name() + ": a batch that starts at frame " + std::to_string(batch.first_index) +
                            " needs the " + std::to_string(h + 1) + " frame(s) before it");
}

}  // namespace speedqa
