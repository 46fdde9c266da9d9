#include "support/run_engine.hpp"

#include <algorithm>
#include <stdexcept>

namespace speedqa::testing {

std::vector<Picture> frames_of(const VideoFormat& f, const std::vector<uint8_t>& data, int max_frames) {
    const size_t fb = f.frame_bytes();
    int n = static_cast<int>(data.size() / fb);
    if (max_frames >= 0) n = std::min(n, max_frames);
    std::vector<Picture> out;
    for (int i = 0; i < n; i++) out.push_back(picture_in_frame(f, data.data() + fb * static_cast<size_t>(i)));
    return out;
}

std::vector<std::vector<double>> run_clip(Engine& engine, const std::vector<Picture>& ref,
                                          const std::vector<Picture>& dis, int metrics, int batch) {
    const int n = static_cast<int>(std::min(ref.size(), dis.size()));
    std::vector<double> flat(static_cast<size_t>(n) * metrics);
    for (int first = 0; first < n; first += batch) {
        FrameBatch b;
        b.ref = ref.data() + first;
        b.dis = dis.data() + first;
        b.count = std::min(batch, n - first);
        b.first_index = first;
        for (int h = 0; h < 2 && first - 1 - h >= 0; h++) {
            b.prev_ref[h] = &ref[static_cast<size_t>(first - 1 - h)];
            b.prev_dis[h] = &dis[static_cast<size_t>(first - 1 - h)];
        }
        engine.score(b, flat.data() + static_cast<size_t>(first) * metrics);
    }
    std::vector<std::vector<double>> out(static_cast<size_t>(n));
    for (int i = 0; i < n; i++)
        out[static_cast<size_t>(i)].assign(flat.begin() + static_cast<ptrdiff_t>(i) * metrics,
                                           flat.begin() + static_cast<ptrdiff_t>(i + 1) * metrics);
    return out;
}


}  // namespace speedqa::testing
