#include "features/cambi/cuda/tail.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "features/cambi/picture_score.hpp"
#include "features/cambi/pooling.hpp"

namespace speedqa::cambi::dev {
namespace {

constexpr size_t kAlign = 256;
size_t aligned(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t area(int w, int h) { return static_cast<size_t>(w) * static_cast<size_t>(h); }

void plan_image(const Plan& plan, const ImagePlan& ip, const Tables& t, int i, size_t budget, ImageDev& im) {
    im.side = i == 0 ? 1 : 0;
    im.w = ip.width;
    im.h = ip.height;
    im.resampled = ip.resampled;
    im.source_row = t.source_row[i];
    im.source_column = t.source_column[i];
    im.window = ip.window;
    im.pad = ip.window >> 1;
    im.mask_threshold = ip.mask_threshold;
    for (int s = 0; s < kScales; s++) {
        im.sw[s] = ip.scale_w[static_cast<size_t>(s)];
        im.sh[s] = ip.scale_h[static_cast<size_t>(s)];
    }
    size_t off = 0;
    const auto take = [&](size_t bytes) {
        const size_t at = off;
        off += aligned(bytes);
        return at;
    };
    // Arrays whose lifetimes do not meet share their bytes: the banding
    // values are written once scale 0's filter has read the 10-bit picture;
    // scale 0's filter writes once the mask has read the flags' counts.
    size_t values = 0;
    for (int s = 0; s < kScales; s++) values += aligned(area(im.sw[s], im.sh[s]) * sizeof(float));
    im.image10 = take(std::max(area(im.w, im.h) * sizeof(uint16_t), values));
    size_t at = im.image10;
    for (int s = 0; s < kScales; s++) {
        im.values[s] = at;
        at += aligned(area(im.sw[s], im.sh[s]) * sizeof(float));
    }
    im.vcount = im.filtered[0] = take(std::max(area(im.w, im.sh[0]), area(im.sw[0], im.sh[0]) * sizeof(uint16_t)));
    im.mask0 = take(area(im.sw[0], im.sh[0]));
    im.filtered[1] = take(area(im.sw[1], im.sh[1]) * sizeof(uint16_t));
    im.slot_bytes = off;

    // The banding stage: as many histogram levels as the budget holds, and
    // no more than the band needs (its levels and the tracked ones around).
    const int nd = plan.num_diffs, per = 2 * nd + 1;
    const BandingShape shape = banding_shape(im.pad, nd);
    const size_t row_bytes = static_cast<size_t>(shape.words) * sizeof(uint32_t);
    if (budget < shape.off_hist + per * row_bytes)
        throw std::logic_error("cambi: " + std::to_string(budget) + " bytes of shared memory cannot hold the banding stage's histogram (window " +
                               std::to_string(im.window) + ", " + std::to_string(nd) + " differences)");
    size_t rows = (budget - shape.off_hist) / row_bytes;
    const size_t needed = static_cast<size_t>(plan.levels.band_size) + 2 * static_cast<size_t>(nd);
    if (rows > needed) rows = needed < static_cast<size_t>(per) ? static_cast<size_t>(per) : needed;
    im.hist_rows = static_cast<int>(rows);
    im.band_shared = shape.off_hist + rows * row_bytes;
    const int threads = (per * kTileW + 31) / 32 * 32;
    im.band_threads = threads < 1024 ? threads : 1024;
}

size_t bins_bytes(const DevPlan& p, int frames) {
    return static_cast<size_t>(frames) * p.images * kScales * kSelectBinsAll * sizeof(uint32_t);
}

}  // namespace

DevPlan make_dev_plan(const Plan& plan, const Tables& t, size_t banding_shared) {
    DevPlan d;
    d.video_w = plan.video_width;
    d.video_h = plan.video_height;
    d.bitdepth = plan.bitdepth;
    d.antidither = plan.antidither;
    d.speedup = plan.speedup;
    d.topk = plan.topk;
    d.num_diffs = plan.num_diffs;
    d.levels = plan.levels;
    d.first_diff = t.first_diff;
    d.weight = t.weight;
    d.reciprocal = t.reciprocal;
    d.images = plan.full_ref ? 2 : 1;
    plan_image(plan, plan.dis, t, 0, banding_shared, d.image[0]);
    if (plan.full_ref) plan_image(plan, plan.src, t, 1, banding_shared, d.image[1]);
    return d;
}

size_t record_bytes(const DevPlan& p, int frames) { return static_cast<size_t>(frames) * p.images * sizeof(ImageRecord); }

size_t arena_bytes(const DevPlan& p, int frames) {
    size_t bytes = 0;
    for (int i = 0; i < p.images; i++) bytes += static_cast<size_t>(frames) * p.image[i].slot_bytes;
    return bytes + aligned(record_bytes(p, frames)) + bins_bytes(p, frames);
}

DevBuffers carve(const DevPlan& p, int frames, void* base) {
    DevBuffers b;
    uint8_t* at = static_cast<uint8_t*>(base);
    for (int i = 0; i < p.images; i++) {
        b.slots[i] = at;
        at += static_cast<size_t>(frames) * p.image[i].slot_bytes;
    }
    b.records = reinterpret_cast<ImageRecord*>(at);
    at += aligned(record_bytes(p, frames));
    b.bins = reinterpret_cast<uint32_t*>(at);
    b.frames = frames;
    return b;
}

namespace {

// Scale s's topk mean: from the record where its order cannot matter, else
// from the values themselves in libvmaf's order.
double scale_mean(const DevPlan& dp, int i, int s, const ScaleRecord& r, const FetchValues& fetch, HostTail& t) {
    const ImageDev& im = dp.image[i];
    const int n = im.sw[s] * im.sh[s], k = topk_count(dp.topk, n);
    ScaleSummary sum;
    sum.count = r.count;
    sum.smallest = bits_float(~r.inv_smallest);
    sum.sum = r.sum;
    if (sum.count > k) {
        // the k largest: those above the k-th, and the k-th as often as it
        // takes
        sum.kth = bits_float(r.kth);
        sum.top_sum = r.above_sum + static_cast<double>(k - static_cast<long long>(r.above)) * static_cast<double>(sum.kth);
    }
    double mean = 0;
    if (!t.always_ordered && order_free_mean(sum, k, &mean)) {
        (sum.count == 0 ? t.paths.none : sum.count <= k ? t.paths.all : t.paths.top)++;
        return mean;
    }
    t.paths.ordered++;
    t.dense.resize(static_cast<size_t>(n));
    fetch(i, s, t.dense.data(), static_cast<size_t>(n));
    t.bits.assign(banding_bits_words(static_cast<size_t>(n)), 0);
    t.compact.clear();
    for (int q = 0; q < n; q++)
        if (t.dense[static_cast<size_t>(q)] != 0.0f) {
            t.bits[static_cast<size_t>(q) / 64] |= uint64_t{1} << (q % 64);
            t.compact.push_back(t.dense[static_cast<size_t>(q)]);
        }
    if (static_cast<long long>(t.compact.size()) != sum.count)
        throw std::logic_error("cambi: the device counted " + std::to_string(sum.count) + " nonzero banding values, its values hold " +
                               std::to_string(t.compact.size()));
    t.scratch.resize(static_cast<size_t>(n));
    return ordered_topk_mean(t.bits.data(), t.compact.data(), n, sum.count, k, t.scratch.data());
}

}  // namespace

void frame_raw(const Plan& plan, const DevPlan& dp, const ImageRecord* records, long long index,
               const FetchValues& fetch, HostTail& t, double* raw) {
    double score[2] = {0.0, 0.0};
    for (int i = 0; i < dp.images; i++) {
        check_range(records[i].largest, plan.bitdepth, index);
        double means[kScales];
        for (int s = 0; s < kScales; s++) means[s] = scale_mean(dp, i, s, records[i].scale[s], fetch, t);
        score[i] = weighted_score(means, dp.image[i].window);
    }
    write_raw(plan, score[0], score[1], raw);
}

}  // namespace speedqa::cambi::dev
