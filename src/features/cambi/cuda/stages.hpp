// CAMBI's device stages, one source for the CUDA part (part.cu: CudaGrid and
// CudaBlocks) and its host twin (tests/device_twin_test.cpp: HostGrid and
// HostBlocks). Per batch, for each picture (the distorted luma; with
// full_ref also the reference's) of every frame at once:
//
//   convert   10-bit samples at CAMBI's size (nearest-neighbour resampling,
//             the anti-dithering 2x2 mean), the largest out-of-range sample
//   vcount    per pixel the zero-derivative flags of its 7 rows
//   mask      the 7x7 count against the threshold (with the speed-up only
//             at the even rows and columns: scale 0's mask)
//   per scale filter   the 3-tap mode along rows, then along columns
//             banding  (block stage) the banding value of every pixel and
//                      the scale's count, smallest and sum
//   pooling   (block stages) where a scale has more than k nonzero values:
//             the k-th largest by a radix select over its bits, and the sum
//             of the values above it
//
// The host tail (tail.hpp) turns a frame's records into its raw values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/grid.hpp"
#include "core/input_layout.hpp"
#include "features/cambi/cuda/blocks.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa::cambi::dev {

// The banding stage's tile of output pixels.
inline constexpr int kTileW = 32;
inline constexpr int kTileH = 64;
// Rows of vcount per point.
inline constexpr int kMaskSegment = 16;
// The pooling stages: blocks per scale of a picture (each takes a 1/64 of
// its values), threads per block.
inline constexpr int kPoolBlocks = 64;
inline constexpr int kPoolThreads = 256;
// The values [first, end) of block x of the pooling stages.
SPEEDQA_HD void pool_range(int n, int x, int* first, int* end) {
    const int per = (n + kPoolBlocks - 1) / kPoolBlocks;
    *first = x * per;
    *end = n - *first < per ? n : *first + per;
}
// The radix select: three passes over the bits of the nonzero values
// (non-negative floats order as their bits), digits 30..20, 19..10, 9..0.
inline constexpr int kSelectPasses = 3;
inline constexpr int kSelectBinsAll = 2048 + 1024 + 1024;
SPEEDQA_HD int select_shift(int pass) { return pass == 0 ? 20 : pass == 1 ? 10 : 0; }
SPEEDQA_HD int select_bins(int pass) { return pass == 0 ? 2048 : 1024; }
SPEEDQA_HD int select_offset(int pass) { return pass == 0 ? 0 : pass == 1 ? 2048 : 3072; }

// The bits of a float, and back (memcpy: a register move on the device).
SPEEDQA_HD uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
SPEEDQA_HD float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

// What one picture leaves of one scale for the tail.
struct ScaleRecord {
    double sum;             // every nonzero value, in any order
    double above_sum;       // count > k: the values above the k-th largest, in any order
    uint32_t count;         // nonzero values
    uint32_t inv_smallest;  // ~bits of the smallest nonzero value
    uint32_t kth;           // count > k: bits of the k-th largest (its leading digits while the select runs)
    uint32_t need;          // the select: the rank still to find among the values of those digits
    uint32_t above;         // count > k: values above the k-th largest
    uint32_t unused;
};
struct ImageRecord {
    ScaleRecord scale[kScales];
    uint32_t largest;  // the largest sample above the bit depth's range (0: none)
    uint32_t unused[3];
};

// One picture of a frame: its sizes and where its arrays lie in the frame's
// slot of its buffer.
struct ImageDev {
    int side = 1;  // of the input: 1 the distorted, 0 the reference
    int w = 0, h = 0;
    int resampled = 0;
    const int* source_row = nullptr;     // tables (resampled)
    const int* source_column = nullptr;
    int window = 0, pad = 0, mask_threshold = 0;
    int sw[kScales] = {}, sh[kScales] = {};
    size_t slot_bytes = 0;
    // offsets in the slot: the 10-bit picture (w x h), the flags' counts
    // (w x sh[0]), scale 0's mask (sw[0] x sh[0]), the filtered pictures of
    // even and odd scales, every scale's banding values (arrays no stage
    // reads at once may share bytes: tail.cpp)
    size_t image10 = 0, vcount = 0, mask0 = 0, filtered[2] = {}, values[kScales] = {};
    // the banding stage's block: threads, shared memory, histogram levels
    int band_threads = 0, hist_rows = 0;
    size_t band_shared = 0;
};

struct DevPlan {
    int video_w = 0, video_h = 0, bitdepth = 8;
    int antidither = 0, speedup = 0;
    double topk = 0.6;
    int num_diffs = 4;
    Levels levels;
    const uint8_t* first_diff = nullptr;  // Plan::first_diff, levels.row entries
    const int* weight = nullptr;          // Plan::weight
    const float* reciprocal = nullptr;    // Plan::reciprocal
    int images = 1;                       // 2 with full_ref: image 1 is the reference
    ImageDev image[2];
};

// A queue's arrays: per picture `frames` slots, then the records
// ([frame][image]) and the select's bins ([frame][image][scale][kSelectBinsAll]).
struct DevBuffers {
    uint8_t* slots[2] = {};
    ImageRecord* records = nullptr;
    uint32_t* bins = nullptr;
    int frames = 0;  // that the buffers hold
};

// The banding stage's shared memory: a header, the tile's levels with the
// window's reach around it, the counts of the tracked levels of a row's
// pixels, and per column of the tile's reach a byte per histogram level
// (the count of that level in the column's rows of the window: at most the
// window's height, 65), four columns a word.
struct BandingHeader {
    int lo, hi;  // the levels of the tile's counted pixels
    uint32_t count, inv_smallest;
    double sum;
    uint32_t counted[kTileH];  // per row of the tile: whether it has counted pixels
};
struct BandingShape {
    int lw = 0, lh = 0;  // levels tile: row length, rows
    int words = 0;       // a histogram level's words
    size_t off_levels = 0, off_counts = 0, off_hist = 0;
};
SPEEDQA_HD size_t round16(size_t v) { return (v + 15) / 16 * 16; }
SPEEDQA_HD BandingShape banding_shape(int pad, int num_diffs) {
    BandingShape s;
    s.lw = kTileW + 2 * pad;
    s.lh = kTileH + 2 * pad;
    s.words = (s.lw + 3) / 4;
    s.off_levels = round16(sizeof(BandingHeader));
    s.off_counts = s.off_levels + round16(static_cast<size_t>(s.lw) * s.lh * sizeof(uint16_t));
    s.off_hist = s.off_counts + round16(static_cast<size_t>(kTileW) * (2 * num_diffs + 1) * sizeof(uint16_t));
    return s;
}

// The sum of n bytes from byte `first` of a row of words (byte q at bits
// 8 (q % 4) of word q / 4).
SPEEDQA_HD uint32_t window_sum(const uint32_t* row, int first, int n) {
    const int last = first + n - 1;
    const int wa = first >> 2, wb = last >> 2;
    const uint32_t lo = ~0u << (8 * (first & 3)), hi = ~0u >> (8 * (3 - (last & 3)));
    if (wa == wb) return byte_sum(row[wa] & lo & hi);
    uint32_t sum = byte_sum(row[wa] & lo) + byte_sum(row[wb] & hi);
    for (int q = wa + 1; q < wb; q++) sum += byte_sum(row[q]);
    return sum;
}

// The arrays of picture i of frame z.
SPEEDQA_HD uint8_t* slot_of(const DevBuffers& b, const ImageDev& im, int i, int z) {
    return b.slots[i] + static_cast<size_t>(z) * im.slot_bytes;
}

// ---------------------------------------------------------------------------
// Point stages.

// Records and bins of `frames` frames to zero.
template <class Exec>
void zero_stats(const Exec& ex, const DevPlan& p, const DevBuffers& b, int frames) {
    const int rec_words = static_cast<int>(static_cast<size_t>(frames) * p.images * sizeof(ImageRecord) / 4);
    uint32_t* const rec = reinterpret_cast<uint32_t*>(b.records);
    ex.for_each(Extent{rec_words, 1, 1}, [=] SPEEDQA_HD_LAMBDA(int x, int, int) { rec[x] = 0; });
    uint32_t* const bins = b.bins;
    const int per_frame = p.images * kScales;
    ex.for_each(Extent{kSelectBinsAll, per_frame, frames}, [=] SPEEDQA_HD_LAMBDA(int x, int y, int z) {
        bins[(static_cast<size_t>(z) * per_frame + y) * kSelectBinsAll + x] = 0;
    });
}

// Columns of the 10-bit picture per point of the convert stage.
inline constexpr int kConvertRun = 4;

// Sample x of a row of the input (8-bit, or little-endian 16-bit above).
SPEEDQA_HD unsigned sample_in_row(const uint8_t* row, int x, int bitdepth) {
    return bitdepth > 8 ? reinterpret_cast<const uint16_t*>(row)[x] : row[x];
}

// The 10-bit picture at CAMBI's size, anti-dithered where asked; the largest
// sample above the range (9- to 15-bit video) of the whole picture.
template <class Exec>
void convert(const Exec& ex, const DevPlan& p, int i, const DevBuffers& b, const InputLayout& L, const uint8_t* input,
             int frames) {
    const ImageDev im = p.image[i];
    const int bd = p.bitdepth, antidither = p.antidither, images = p.images;
    const bool check = bd != 8 && bd != 16;
    const unsigned top = (1u << bd) - 1;
    ex.for_each(Extent{(im.w + kConvertRun - 1) / kConvertRun, im.h, frames}, [=] SPEEDQA_HD_LAMBDA(int q, int y, int z) {
        const int pos = L.position(z);
        const bool below = y + 1 < im.h;
        const auto source_row = [&](int r) { return input_row(L, input, pos, im.side, 0, im.resampled ? im.source_row[r] : r); };
        const uint8_t* row = source_row(y);
        const uint8_t* next = below ? source_row(y + 1) : row;
        const auto ten = [&](const uint8_t* r, int c) -> int {
            return to_10bit(sample_in_row(r, im.resampled ? im.source_column[c] : c, bd), bd);
        };
        uint16_t* out = reinterpret_cast<uint16_t*>(slot_of(b, im, i, z) + im.image10) + static_cast<size_t>(y) * im.w;
        const int x1 = (q + 1) * kConvertRun < im.w ? (q + 1) * kConvertRun : im.w;
        for (int x = q * kConvertRun; x < x1; x++) {
            int v = ten(row, x);
            if (antidither) {
                // the 2x2 mean of the samples before it (libvmaf's in-place
                // order reads only values not yet replaced)
                const bool right = x + 1 < im.w;
                if (below && right) v = (v + ten(row, x + 1) + ten(next, x) + ten(next, x + 1)) >> 2;
                else if (below) v = (v + ten(next, x)) >> 1;
                else if (right) v = (v + ten(row, x + 1)) >> 1;
            }
            out[x] = static_cast<uint16_t>(v);
            if (check && !im.resampled) {
                const unsigned s = sample_in_row(row, x, bd);
                if (s > top) atomic_max(&b.records[z * images + i].largest, s);
            }
        }
    });
    if (!check || !im.resampled) return;
    // resampled: libvmaf checks every sample of the picture all the same
    ex.for_each(Extent{p.video_w, p.video_h, frames}, [=] SPEEDQA_HD_LAMBDA(int x, int y, int z) {
        const unsigned s = input_sample(L, input, L.position(z), im.side, 0, y, x);
        if (s > top) atomic_max(&b.records[z * images + i].largest, s);
    });
}

// Per pixel of the rows the mask keeps (every row, or the even ones with the
// speed-up), how many of its 7 rows (clipped to the picture) have zero
// derivative there (equal to the right and lower neighbours; a missing
// neighbour counts as equal). kMaskSegment rows a point, sliding.
template <class Exec>
void vcount(const Exec& ex, const DevPlan& p, int i, const DevBuffers& b, int frames) {
    const ImageDev im = p.image[i];
    const int rows = im.sh[0], step = p.speedup ? 2 : 1;
    ex.for_each(Extent{im.w, (rows + kMaskSegment - 1) / kMaskSegment, frames},
                [=] SPEEDQA_HD_LAMBDA(int x, int seg, int z) {
                    uint8_t* const slot = slot_of(b, im, i, z);
                    const uint16_t* a = reinterpret_cast<const uint16_t*>(slot + im.image10);
                    uint8_t* out = slot + im.vcount;
                    const int w = im.w, h = im.h;
                    const auto flag = [&](int r) -> int {
                        const uint16_t* row = a + static_cast<size_t>(r) * w;
                        return (x == w - 1 || row[x] == row[x + 1]) && (r == h - 1 || row[x] == row[x + w]);
                    };
                    const int o0 = seg * kMaskSegment, o1 = o0 + kMaskSegment < rows ? o0 + kMaskSegment : rows;
                    int sum = 0, from = -1, to = -1;  // rows [from, to) are in the sum
                    for (int o = o0; o < o1; o++) {
                        const int r = o * step;
                        const int lo = r - kMaskPad > 0 ? r - kMaskPad : 0;
                        const int hi = r + kMaskPad + 1 < h ? r + kMaskPad + 1 : h;
                        if (from < 0) from = to = lo;
                        for (; to < hi; to++) sum += flag(to);
                        for (; from < lo; from++) sum -= flag(from);
                        out[static_cast<size_t>(o) * w + x] = static_cast<uint8_t>(sum);
                    }
                });
}

// Scale 0's mask: more than the threshold of the 7x7 neighbourhood (clipped)
// has zero derivative.
template <class Exec>
void mask(const Exec& ex, const DevPlan& p, int i, const DevBuffers& b, int frames) {
    const ImageDev im = p.image[i];
    const int step = p.speedup ? 2 : 1;
    ex.for_each(Extent{im.sw[0], im.sh[0], frames}, [=] SPEEDQA_HD_LAMBDA(int j, int o, int z) {
        uint8_t* const slot = slot_of(b, im, i, z);
        const uint8_t* counts = slot + im.vcount + static_cast<size_t>(o) * im.w;
        const int c = j * step;
        const int lo = c - kMaskPad > 0 ? c - kMaskPad : 0, hi = c + kMaskPad < im.w - 1 ? c + kMaskPad : im.w - 1;
        int sum = 0;
        for (int x = lo; x <= hi; x++) sum += counts[x];
        slot[im.mask0 + static_cast<size_t>(o) * im.sw[0] + j] = sum > im.mask_threshold;
    });
}

// Scale s's picture: every pixel of the 10-bit picture (scale 0; its even
// rows and columns with the speed-up) or of the filtered scale before (its
// even rows and columns), filtered: the 3-tap mode along the rows, then
// along the columns of that; the first and last rows, and the first and
// last columns of the row pass, keep their values.
template <class Exec>
void filter(const Exec& ex, const DevPlan& p, int i, int s, const DevBuffers& b, int frames) {
    const ImageDev im = p.image[i];
    const int ws = im.sw[s], hs = im.sh[s];
    const size_t in_off = s == 0 ? im.image10 : im.filtered[(s - 1) & 1];
    const int pitch = s == 0 ? im.w : im.sw[s - 1], step = s > 0 || p.speedup ? 2 : 1;
    const size_t out_off = im.filtered[s & 1];
    ex.for_each(Extent{ws, hs, frames}, [=] SPEEDQA_HD_LAMBDA(int j, int y, int z) {
        uint8_t* const slot = slot_of(b, im, i, z);
        const uint16_t* in = reinterpret_cast<const uint16_t*>(slot + in_off);
        const auto at = [&](int r, int c) { return in[static_cast<size_t>(r * step) * pitch + static_cast<size_t>(c * step)]; };
        const auto row = [&](int r) {
            return j == 0 || j == ws - 1 ? at(r, j) : mode3(at(r, j - 1), at(r, j), at(r, j + 1));
        };
        const uint16_t v = y == 0 || y == hs - 1 ? at(y, j) : mode3(row(y - 1), row(y), row(y + 1));
        reinterpret_cast<uint16_t*>(slot + out_off)[static_cast<size_t>(y) * ws + j] = v;
    });
}

// ---------------------------------------------------------------------------
// Block stages.

// Scale s's banding values, a tile of kTileW x kTileH pixels a block. The
// block holds the histogram levels of the tile and of the window's reach
// around it; per column of that reach the counts of each level in the rows
// of the window (slid down the tile a row at a time), for a range of levels
// at a time (the tracked levels of the tile's counted pixels, in as many
// passes as the histogram's rows need). A pixel's count of a level is the
// sum of its window's columns; its value pixel_banding_value's.
struct BandingStage {
    DevPlan p;
    DevBuffers b;
    int i = 0, s = 0;

    int threads() const { return p.image[i].band_threads; }
    size_t shared_bytes() const { return p.image[i].band_shared; }

    template <class Ctx>
    SPEEDQA_HD void operator()(const Ctx& ctx) const {
        const ImageDev& im = p.image[i];
        const Levels& lv = p.levels;
        const int nd = p.num_diffs, per = 2 * nd + 1, pad = im.pad, uncounted = lv.uncounted;
        const int ws = im.sw[s], hs = im.sh[s];
        const int c0 = ctx.x * kTileW, r0 = ctx.y * kTileH;
        const int tw = ws - c0 < kTileW ? ws - c0 : kTileW, th = hs - r0 < kTileH ? hs - r0 : kTileH;
        const int lw = tw + 2 * pad, lh = th + 2 * pad;
        const BandingShape shape = banding_shape(pad, nd);
        const int stride = shape.lw, words = shape.words;
        uint8_t* const slot = slot_of(b, im, i, ctx.z);
        const uint16_t* filtered = reinterpret_cast<const uint16_t*>(slot + im.filtered[s & 1]);
        const uint8_t* mask0 = slot + im.mask0;
        float* values = reinterpret_cast<float*>(slot + im.values[s]);
        BandingHeader* head = reinterpret_cast<BandingHeader*>(ctx.shared);
        uint16_t* levels = reinterpret_cast<uint16_t*>(ctx.shared + shape.off_levels);
        uint16_t* counts = reinterpret_cast<uint16_t*>(ctx.shared + shape.off_counts);
        uint32_t* hist = reinterpret_cast<uint32_t*>(ctx.shared + shape.off_hist);

        ctx.each(kTileH, [&](int t) {
            head->counted[t] = 0;
            if (t) return;
            head->lo = 0x7fffffff;
            head->hi = -1;
            head->count = 0;
            head->inv_smallest = 0;
            head->sum = 0;
        });
        // Levels (Levels: the masked pixels of the band are counted; scale
        // s's mask is scale 0's at every 2^s-th row and column); pixels
        // outside the picture are not counted. Uncounted pixels of the tile
        // have the value 0.
        ctx.each(lw * lh, [&](int t) {
            const int y = t / lw, x = t % lw, gy = r0 - pad + y, gx = c0 - pad + x;
            int level = uncounted;
            if (gy >= 0 && gy < hs && gx >= 0 && gx < ws) {
                const unsigned in_band = static_cast<unsigned>(filtered[static_cast<size_t>(gy) * ws + gx] - lv.band_base);
                const uint8_t m = mask0[(static_cast<size_t>(gy) << s) * im.sw[0] + (static_cast<size_t>(gx) << s)];
                if (m && in_band < static_cast<unsigned>(lv.band_size)) level = static_cast<int>(in_band) + lv.margin;
            }
            levels[y * stride + x] = static_cast<uint16_t>(level);
            if (y < pad || y >= pad + th || x < pad || x >= pad + tw) return;
            if (level == uncounted) {
                values[static_cast<size_t>(gy) * ws + gx] = 0.0f;
            } else {
                min_i32(&head->lo, level);
                max_i32(&head->hi, level);
                atomic_max(&head->counted[y - pad], 1);
            }
        });
        const int lo = head->lo, hi = head->hi;
        const int chunk = im.hist_rows - 2 * nd;  // the pixels' levels one pass takes
        for (int a = lo; a <= hi; a += chunk) {
            const int end = a + chunk < hi + 1 ? a + chunk : hi + 1;  // pixels of levels [a, end)
            const int rows = end - a + 2 * nd, base = a - nd;          // histogram levels [base, base + rows)
            // the column's count of level l in row q of the levels tile
            // goes in or out
            const auto slide = [&](int q, int x, bool in) {
                const int l = levels[q * stride + x];
                const unsigned row = static_cast<unsigned>(l - base);
                if (l == uncounted || row >= static_cast<unsigned>(rows)) return;
                const uint32_t one = 1u << (8 * (x & 3));
                add_u32(&hist[row * static_cast<unsigned>(words) + static_cast<unsigned>(x >> 2)], in ? one : 0u - one);
            };
            // the window moves from row y down to row y + 1 (t < 2 lw)
            const auto move_down = [&](int y, int t) {
                if (t < lw) slide(y, t, false);
                else slide(y + 2 * pad + 1, t - lw, true);
            };
            ctx.each(rows * words, [&](int t) { hist[t] = 0; });
            // the window of the tile's first row: rows 0 .. 2 pad of the tile
            ctx.each(lw * (2 * pad + 1), [&](int t) { slide(t / lw, t % lw, true); });
            for (int y = 0; y < th; y++) {
                const uint16_t* row = levels + (y + pad) * stride + pad;
                if (!head->counted[y]) {
                    // no value to find: the window moves down to row y + 1
                    if (y + 1 < th) ctx.each(2 * lw, [&](int t) { move_down(y, t); });
                    continue;
                }
                ctx.each(per * kTileW, [&](int t) {
                    const int d = t / kTileW, x = t % kTileW;
                    if (x >= tw) return;
                    const int l = row[x];
                    if (l == uncounted || l < a || l >= end) return;
                    counts[x * per + d] = static_cast<uint16_t>(window_sum(hist + (l - a + d) * words, x, 2 * pad + 1));
                });
                // the values of row y; the window moves down to row y + 1
                ctx.each(2 * lw, [&](int t) {
                    if (t < tw) {
                        const int l = row[t];
                        if (l != uncounted && l >= a && l < end) {
                            const float v = pixel_banding_value(counts + t * per + nd, p.first_diff[l], nd, p.weight,
                                                                p.reciprocal);
                            values[static_cast<size_t>(r0 + y) * ws + c0 + t] = v;
                            if (v != 0.0f) {
                                add_u32(&head->count, 1);
                                atomic_max(&head->inv_smallest, ~float_bits(v));
                                add_double(&head->sum, v);
                            }
                        }
                    }
                    if (y + 1 < th) move_down(y, t);
                });
            }
        }
        ctx.each(1, [&](int) {
            if (!head->count) return;
            ScaleRecord& r = b.records[ctx.z * p.images + i].scale[s];
            add_u32(&r.count, head->count);
            atomic_max(&r.inv_smallest, head->inv_smallest);
            add_double(&r.sum, head->sum);
        });
    }
};

// The pooling's stages act on the scales with more nonzero values than the
// topk count k.
SPEEDQA_HD bool selects(const DevPlan& p, const ImageDev& im, const ScaleRecord& r, int s) {
    return r.count > static_cast<uint32_t>(topk_count(p.topk, im.sw[s] * im.sh[s]));
}

// The bins of pass `pass` of the select on scale s of picture i of frame z.
SPEEDQA_HD uint32_t* select_bins_of(const DevPlan& p, const DevBuffers& b, int i, int s, int z, int pass) {
    return b.bins + (static_cast<size_t>(z) * p.images * kScales + static_cast<size_t>(i) * kScales + s) * kSelectBinsAll +
           select_offset(pass);
}

// Block x of a pooling stage on scale s of picture i of frame z: its share
// of the scale's values, [first, end), and the scale's record; no record
// where the block has nothing to do.
struct PoolBlock {
    ScaleRecord* record = nullptr;
    const float* values = nullptr;
    int first = 0, end = 0;
};
SPEEDQA_HD PoolBlock pool_block(const DevPlan& p, const DevBuffers& b, int i, int x, int s, int z) {
    const ImageDev& im = p.image[i];
    PoolBlock k;
    pool_range(im.sw[s] * im.sh[s], x, &k.first, &k.end);
    k.values = reinterpret_cast<const float*>(slot_of(b, im, i, z) + im.values[s]);
    ScaleRecord* r = &b.records[z * p.images + i].scale[s];
    if (k.first < k.end && selects(p, im, *r, s)) k.record = r;
    return k;
}

// Pass `pass` of the radix select: the counts of the pass's digit among the
// nonzero values whose leading digits are the ones found (ScaleRecord::kth).
struct SelectCountStage {
    DevPlan p;
    DevBuffers b;
    int i = 0, pass = 0;

    int threads() const { return kPoolThreads; }
    size_t shared_bytes() const { return static_cast<size_t>(select_bins(pass)) * sizeof(uint32_t); }

    template <class Ctx>
    SPEEDQA_HD void operator()(const Ctx& ctx) const {
        const int s = ctx.y;
        const PoolBlock k = pool_block(p, b, i, ctx.x, s, ctx.z);
        if (!k.record) return;
        const int shift = select_shift(pass), nb = select_bins(pass);
        const int leading = pass > 0 ? select_shift(pass - 1) : 0;
        const uint32_t prefix = k.record->kth;
        uint32_t* bins = reinterpret_cast<uint32_t*>(ctx.shared);
        uint32_t* out = select_bins_of(p, b, i, s, ctx.z, pass);
        ctx.each(nb, [&](int t) { bins[t] = 0; });
        ctx.each(kPoolThreads, [&](int t) {
            for (int q = k.first + t; q < k.end; q += kPoolThreads) {
                const uint32_t u = float_bits(k.values[q]);
                if (u == 0 || (pass > 0 && u >> leading != prefix)) continue;
                add_u32(&bins[(u >> shift) & static_cast<uint32_t>(nb - 1)], 1);
            }
        });
        ctx.each(nb, [&](int t) {
            if (bins[t]) add_u32(&out[t], bins[t]);
        });
    }
};

// After pass `pass`'s counts: its digit of the k-th largest (the bin where
// the rank left falls, from the top), the values above it.
struct SelectFindStage {
    DevPlan p;
    DevBuffers b;
    int i = 0, pass = 0;

    static constexpr int kGroups = 256;
    int threads() const { return kGroups; }
    size_t shared_bytes() const { return kGroups * sizeof(uint32_t); }

    template <class Ctx>
    SPEEDQA_HD void operator()(const Ctx& ctx) const {
        const ImageDev& im = p.image[i];
        const int s = ctx.y;
        ScaleRecord& r = b.records[ctx.z * p.images + i].scale[s];
        if (!selects(p, im, r, s)) return;
        const uint32_t* bins = select_bins_of(p, b, i, s, ctx.z, pass);
        const int group = select_bins(pass) / kGroups;
        uint32_t* part = reinterpret_cast<uint32_t*>(ctx.shared);
        ctx.each(kGroups, [&](int t) {
            uint32_t sum = 0;
            for (int q = 0; q < group; q++) sum += bins[t * group + q];
            part[t] = sum;
        });
        ctx.each(1, [&](int) {
            const uint32_t need = pass == 0 ? static_cast<uint32_t>(topk_count(p.topk, im.sw[s] * im.sh[s])) : r.need;
            uint32_t above = 0;
            int g = kGroups - 1;
            for (; g > 0 && above + part[g] < need; g--) above += part[g];
            int bin = (g + 1) * group - 1;
            for (; bin > g * group && above + bins[bin] < need; bin--) above += bins[bin];
            r.need = need - above;
            r.above += above;
            r.kth = pass == 0 ? static_cast<uint32_t>(bin) : r.kth << (select_shift(pass - 1) - select_shift(pass)) | static_cast<uint32_t>(bin);
        });
    }
};

// The sum of the values above the k-th largest.
struct AboveSumStage {
    DevPlan p;
    DevBuffers b;
    int i = 0;

    int threads() const { return kPoolThreads; }
    size_t shared_bytes() const { return sizeof(double); }

    template <class Ctx>
    SPEEDQA_HD void operator()(const Ctx& ctx) const {
        const PoolBlock k = pool_block(p, b, i, ctx.x, ctx.y, ctx.z);
        if (!k.record) return;
        const uint32_t kth = k.record->kth;
        double* sum = reinterpret_cast<double*>(ctx.shared);
        ctx.each(1, [&](int) { *sum = 0; });
        ctx.each(kPoolThreads, [&](int t) {
            double mine = 0;
            for (int q = k.first + t; q < k.end; q += kPoolThreads)
                if (float_bits(k.values[q]) > kth) mine += k.values[q];
            if (mine != 0) add_double(sum, mine);
        });
        ctx.each(1, [&](int) {
            if (*sum != 0) add_double(&k.record->above_sum, *sum);
        });
    }
};

// ---------------------------------------------------------------------------

// Every stage of a batch of `frames` frames (frame k at layout.position(k)),
// in order on the executors' stream; mark(name) after each group of stages.
template <class Exec, class Blocks, class Mark>
void launch_stages(const Exec& ex, const Blocks& blocks, const DevPlan& p, const DevBuffers& b, const InputLayout& L,
                   const uint8_t* input, int frames, Mark&& mark) {
    zero_stats(ex, p, b, frames);
    for (int i = 0; i < p.images; i++) {
        const ImageDev& im = p.image[i];
        convert(ex, p, i, b, L, input, frames);
        vcount(ex, p, i, b, frames);
        mask(ex, p, i, b, frames);
        mark("cambi preprocess and mask");
        for (int s = 0; s < kScales; s++) {
            filter(ex, p, i, s, b, frames);
            BandingStage band{p, b, i, s};
            blocks.launch(Extent{(im.sw[s] + kTileW - 1) / kTileW, (im.sh[s] + kTileH - 1) / kTileH, frames}, band);
        }
        mark("cambi scales");
        for (int pass = 0; pass < kSelectPasses; pass++) {
            blocks.launch(Extent{kPoolBlocks, kScales, frames}, SelectCountStage{p, b, i, pass});
            blocks.launch(Extent{1, kScales, frames}, SelectFindStage{p, b, i, pass});
        }
        blocks.launch(Extent{kPoolBlocks, kScales, frames}, AboveSumStage{p, b, i});
        mark("cambi pooling");
    }
}

}  // namespace speedqa::cambi::dev
