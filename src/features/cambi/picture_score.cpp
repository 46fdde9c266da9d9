#include "features/cambi/picture_score.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/pooling.hpp"

namespace speedqa::cambi {
namespace {

// Rows of a band of the filter and banding passes: their levels stay in
// cache between the two.
constexpr int kBandRows = 32;

size_t area(int w, int h) { return static_cast<size_t>(w) * static_cast<size_t>(h); }

int widest_window(const Plan& p) { return p.full_ref ? std::max(p.dis.window, p.src.window) : p.dis.window; }

unsigned sample_at(const uint8_t* row, int j, int bitdepth) {
    return bitdepth > 8 ? static_cast<unsigned>(row[2 * j] | row[2 * j + 1] << 8) : row[j];
}

// libvmaf refuses 9- to 15-bit pictures with samples above their range (and
// checks the whole picture, also when it then resamples it).
void check_range(unsigned largest, int bitdepth, long long frame) {
    if (bitdepth == 8 || bitdepth == 16) return;
    const unsigned top = (1u << bitdepth) - 1;
    if (largest > top)
        throw Error("cambi: frame " + std::to_string(frame) + " has a luma sample of " + std::to_string(largest) +
                    ", above the " + std::to_string(bitdepth) + "-bit maximum " + std::to_string(top) +
                    " (libvmaf refuses such pictures)");
}

void preprocess(const Picture& pic, const ImagePlan& ip, const Plan& plan, const Kernels& k, Workspace& ws,
                long long frame) {
    const int bd = plan.bitdepth;
    const uint8_t* plane = pic.plane[0];
    uint16_t* img = ws.image.data();
    unsigned largest = 0;
    // The 2x2 mean follows the conversion a row behind, while both rows are
    // in cache.
    auto antidither = [&](int r) {
        if (!plan.antidither || r < 0) return;
        if (r + 1 < ip.height) k.antidither_row(img + r * ws.stride, img + (r + 1) * ws.stride, ip.width);
        else k.antidither_last_row(img + r * ws.stride, ip.width);
    };
    if (!ip.resampled) {
        for (int r = 0; r < ip.height; r++) {
            largest = std::max(largest, k.convert_row(img + r * ws.stride, plane + r * pic.stride[0], ip.width, bd));
            antidither(r - 1);
        }
        antidither(ip.height - 1);
    } else {
        for (int r = 0; r < ip.height; r++) {
            const uint8_t* src = plane + static_cast<ptrdiff_t>(ip.source_row[static_cast<size_t>(r)]) * pic.stride[0];
            uint16_t* dst = img + r * ws.stride;
            for (int c = 0; c < ip.width; c++)
                dst[c] = to_10bit(sample_at(src, ip.source_column[static_cast<size_t>(c)], bd), bd);
            antidither(r - 1);
        }
        antidither(ip.height - 1);
        if (bd != 8 && bd != 16)
            for (int r = 0; r < plan.video_height; r++) {
                const uint8_t* src = plane + r * pic.stride[0];
                for (int c = 0; c < plan.video_width; c++) largest = std::max(largest, sample_at(src, c, bd));
            }
    }
    check_range(largest, bd, frame);
}

}  // namespace

namespace {

// Elements of each buffer of a Workspace.
struct WorkspaceSizes {
    size_t image, mask, mask_rows, mode_rows, levels, columns, nonzero, values, pooling;
};

WorkspaceSizes workspace_sizes(const Plan& plan) {
    const int w = plan.largest_width(), h = plan.largest_height();
    return {area(w, h) + kSpare,
            area(w, h) + kSpare,
            mask_scratch_bytes(w),
            area(w, 3),
            area(w, h),
            banding_scratch_bytes(w, widest_window(plan) >> 1, plan.levels),
            banding_bits_words(area(w, h)),
            banding_values_room(area(w, h)),
            area(w, h)};
}

}  // namespace

Workspace::Workspace(const Plan& plan) {
    const WorkspaceSizes z = workspace_sizes(plan);
    stride = plan.largest_width();
    image = ZeroedArray<uint16_t>(z.image);
    mask = ZeroedArray<uint8_t>(z.mask);
    mask_rows = ZeroedArray<uint8_t>(z.mask_rows);
    mode_rows = ZeroedArray<uint16_t>(z.mode_rows);
    levels = ZeroedArray<uint16_t>(z.levels);
    columns = ZeroedArray<uint8_t>(z.columns);
    nonzero = ZeroedArray<uint64_t>(z.nonzero);
    values = ZeroedArray<float>(z.values);
    pooling = ZeroedArray<float>(z.pooling);
}

size_t Workspace::bytes(const Plan& plan) {
    const WorkspaceSizes z = workspace_sizes(plan);
    return z.image * sizeof(uint16_t) + z.mask + z.mask_rows + z.mode_rows * sizeof(uint16_t) +
           z.levels * sizeof(uint16_t) + z.columns + z.nonzero * sizeof(uint64_t) +
           (z.values + z.pooling) * sizeof(float);
}

double picture_score(const Picture& picture, const ImagePlan& ip, const Plan& plan, const Kernels& k, Workspace& ws,
                     long long frame) {
    preprocess(picture, ip, plan, k, ws, frame);
    k.spatial_mask(ws.mask.data(), ws.image.data(), ws.stride, ip.width, ip.height, ip.mask_threshold,
                   ws.mask_rows.data());
    if (plan.speedup) k.decimate(ws.image.data(), ws.mask.data(), ws.stride, ip.scale_w[0], ip.scale_h[0]);
    double means[kScales];
    for (int s = 0; s < kScales; s++) {
        const int w = ip.scale_w[static_cast<size_t>(s)], h = ip.scale_h[static_cast<size_t>(s)];
        // Filters this scale and leaves the next one's picture and mask.
        ScaleArgs f;
        f.image = ws.image.data();
        f.mask = ws.mask.data();
        f.stride = ws.stride;
        f.width = w;
        f.height = h;
        f.levels = &plan.levels;
        f.level_out = ws.levels.data();
        f.decimate = s + 1 < kScales;
        f.scratch = ws.mode_rows.data();
        BandingArgs a;
        a.levels = ws.levels.data();
        a.width = w;
        a.height = h;
        a.pad = ip.window >> 1;
        a.plan = &plan;
        a.columns = ws.columns.data();
        a.nonzero = ws.nonzero.data();
        a.values = ws.values.data();
        // Bands of rows, the banding pass following the filter while the
        // levels it reads are still in cache.
        BandingStats st;
        for (int steps = 0, done = 0; done < h;) {
            const int to = std::min(h, steps + kBandRows);
            k.filter_scale(f, steps, to);
            steps = to;
            const int ready = to == h ? h : to - 1;  // rows with their levels
            const int upto = ready == h ? h : std::max(done, ready - a.pad);
            if (upto > done) k.banding(a, done, upto, &st);
            done = upto;
        }
        means[s] = topk_mean(ws.nonzero.data(), ws.values.data(), w * h, st, plan.topk, ws.pooling.data());
    }
    return weighted_score(means, ip.window);
}

}  // namespace speedqa::cambi
