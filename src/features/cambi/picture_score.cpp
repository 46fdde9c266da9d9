#include "features/cambi/picture_score.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/pooling.hpp"

namespace speedqa::cambi {

// (libvmaf checks the whole picture, also when it then resamples it.)
void check_range(unsigned largest, int bitdepth, long long frame) {
    if (bitdepth == 8 || bitdepth == 16) return;
    const unsigned top = (1u << bitdepth) - 1;
    if (largest > top)
        throw Error("cambi: frame " + std::to_string(frame) + " has a luma sample of " + std::to_string(largest) +
                    ", above the " + std::to_string(bitdepth) + "-bit maximum " + std::to_string(top) +
                    " (libvmaf refuses such pictures)");
}

void write_raw(const Plan& p, double dis, double src, double* raw) {
    const auto clipped = [&](double score) { return score < p.max_val ? score : p.max_val; };
    raw[0] = clipped(dis);
    if (!p.full_ref) return;
    const double gain = 0 > dis - src ? 0 : dis - src;
    raw[1] = clipped(src);
    raw[2] = clipped(gain);
}

namespace {

// Rows of a band of the filter and banding passes: their levels stay in
// cache between the two.
constexpr int kBandRows = 32;

size_t area(int w, int h) { return static_cast<size_t>(w) * static_cast<size_t>(h); }

int widest_window(const Plan& p) { return p.full_ref ? std::max(p.dis.window, p.src.window) : p.dis.window; }

unsigned sample_at(const uint8_t* row, int j, int bitdepth) {
    return bitdepth > 8 ? static_cast<unsigned>(row[2 * j] | row[2 * j + 1] << 8) : row[j];
}

// Rows of the picture at CAMBI's size kept while they stream through the
// preprocessing, the mask and the first decimation (with the speedup; else
// the whole picture stays for scale 0). Converting row c finishes row c - 1
// (the anti-dithering reads the row below); the flags of row q read rows q
// and q + 1; mask row e needs the flags up to e + kMaskPad and takes part
// in the decimation as it is made. So rows e .. c are alive, c - e <= 5.
constexpr int kStreamRows = 8;

// The preprocessing to 10 bits, the spatial mask and, with the speedup, the
// first decimation, row by row: each row is read again while in cache.
void preprocess_and_mask(const Picture& pic, const ImagePlan& ip, const Plan& plan, const Kernels& k, Workspace& ws,
                         long long frame) {
    const int bd = plan.bitdepth, w = ip.width, h = ip.height;
    const bool ring = plan.speedup;
    const uint8_t* plane = pic.plane[0];
    const ptrdiff_t stride = ws.stride;
    unsigned largest = 0;
    int converted = 0, final_rows = 0, added = 0, emitted = 0;
    // Picture row r: in the ring (the speedup) or the picture itself.
    auto row = [&](int r) -> uint16_t* {
        if (!ring) return ws.image.data() + r * stride;
        if (r < 0 || r >= converted + 1 || converted - r >= kStreamRows)
            throw std::logic_error("cambi: row " + std::to_string(r) + " has left the stream (" +
                                   std::to_string(converted) + " converted)");
        return ws.stream.data() + static_cast<ptrdiff_t>(r % kStreamRows) * stride;
    };
    auto convert = [&](int r) {
        uint16_t* dst = row(r);
        if (!ip.resampled) {
            largest = std::max(largest, k.convert_row(dst, plane + r * pic.stride[0], w, bd));
            return;
        }
        const uint8_t* src = plane + static_cast<ptrdiff_t>(ip.source_row[static_cast<size_t>(r)]) * pic.stride[0];
        for (int c = 0; c < w; c++) dst[c] = to_10bit(sample_at(src, ip.source_column[static_cast<size_t>(c)], bd), bd);
    };
    uint8_t* scratch = ws.mask_rows.data();
    std::memset(scratch, 0, mask_scratch_bytes(w));
    // Flags and mask rows as far as the final rows allow.
    auto pump = [&] {
        for (;;) {
            if (emitted < h && added >= std::min(h, emitted + kMaskPad + 1)) {
                // with the speedup only the even rows are kept
                const bool kept = !ring || (emitted % 2 == 0 && emitted / 2 < ip.scale_h[0]);
                uint8_t* out = !kept ? nullptr : ring ? ws.stream_mask.data() : ws.mask.data() + emitted * stride;
                k.mask_row(out, scratch, w, emitted, ip.mask_threshold);
                if (ring && kept)
                    k.decimate_row(ws.image.data() + (emitted / 2) * stride, ws.mask.data() + (emitted / 2) * stride,
                                   row(emitted), out, ip.scale_w[0]);
                emitted++;
            } else if (added < h && added <= emitted + kMaskPad && (added + 1 < h ? added + 1 : added) < final_rows) {
                k.mask_add_row(scratch, row(added), added + 1 < h ? row(added + 1) : nullptr, w, added);
                added++;
            } else {
                return;
            }
        }
    };
    for (int r = 0; r < h; r++) {
        convert(r);
        converted = r + 1;
        if (!plan.antidither) {
            final_rows = r + 1;
        } else if (r > 0) {
            k.antidither_row(row(r - 1), row(r), w);
            final_rows = r;
        }
        pump();
    }
    if (plan.antidither) {
        k.antidither_last_row(row(h - 1), w);
        final_rows = h;
    }
    pump();
    if (ip.resampled && bd != 8 && bd != 16)
        for (int r = 0; r < plan.video_height; r++) {
            const uint8_t* src = plane + r * pic.stride[0];
            for (int c = 0; c < plan.video_width; c++) largest = std::max(largest, sample_at(src, c, bd));
        }
    check_range(largest, bd, frame);
}

}  // namespace

namespace {

// Elements of each buffer of a Workspace.
struct WorkspaceSizes {
    size_t image, mask, mask_rows, stream, stream_mask, mode_rows, levels, columns, nonzero, values, pooling;
};

WorkspaceSizes workspace_sizes(const Plan& plan) {
    const int w = plan.largest_width(), h = plan.largest_height();
    return {area(w, h) + kSpare,
            area(w, h) + kSpare,
            mask_scratch_bytes(w),
            plan.speedup ? area(w, kStreamRows) + kSpare : 0,
            plan.speedup ? static_cast<size_t>(w) + kSpare : 0,
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
    stream = ZeroedArray<uint16_t>(z.stream);
    stream_mask = ZeroedArray<uint8_t>(z.stream_mask);
    mode_rows = ZeroedArray<uint16_t>(z.mode_rows);
    levels = ZeroedArray<uint16_t>(z.levels);
    columns = ZeroedArray<uint8_t>(z.columns);
    nonzero = ZeroedArray<uint64_t>(z.nonzero);
    values = ZeroedArray<float>(z.values);
    pooling = ZeroedArray<float>(z.pooling);
}

size_t Workspace::bytes(const Plan& plan) {
    const WorkspaceSizes z = workspace_sizes(plan);
    return z.image * sizeof(uint16_t) + z.mask + z.mask_rows + z.stream * sizeof(uint16_t) + z.stream_mask +
           z.mode_rows * sizeof(uint16_t) +
           z.levels * sizeof(uint16_t) + z.columns + z.nonzero * sizeof(uint64_t) +
           (z.values + z.pooling) * sizeof(float);
}

double picture_score(const Picture& picture, const ImagePlan& ip, const Plan& plan, const Kernels& k, Workspace& ws,
                     long long frame) {
    preprocess_and_mask(picture, ip, plan, k, ws, frame);
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
