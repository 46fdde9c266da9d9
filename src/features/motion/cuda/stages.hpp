// Integer motion on a device, written once for the CUDA executor and the
// host twin (core/grid.hpp): per frame of a batch, the sum over the
// reference's luma of |blur(prev - cur)|, prev the luma `distance` frames
// before (1, or 2 with the five-frame window).
//
// Stage strip_sad: one point per column and strip of kStripRows rows. The point
// walks down its strip keeping the differences prev - cur of the last five
// rows at its column's five neighbours (mirrored), forms the five vertical
// sums of each row (rounded by the bit depth), their horizontal sum (rounded
// by 16) and adds |value| to its strip's counter. The reference sums a row
// in 32 bits; no row can wrap while w * 65535 < 2^32 (|value| <= 65535), so
// up to w = 65537 the strip counters hold plain sums. Wider frames take
// run_sad instead: one point per run of kRunColumns columns of one row, one
// counter a row, each row's sum truncated to 32 bits as the reference's is.
// Last stage: one point per frame, the sum of its counters.
//
// Every value is an integer and every sum order-free: exact by construction.
// The input's history positions before frame 0 hold zeros (or a previous
// clip's frames): those frames' sums are garbage the tail never reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/grid.hpp"
#include "core/input_layout.hpp"
#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_feature.hpp"

namespace speedqa::motion::device {

namespace em = exact::motion;

inline constexpr int kStripRows = 32;
inline constexpr int kRunColumns = 32;
// The widest frame whose rows the reference sums without wrapping.
inline constexpr int kMaxUnwrappedWidth = 65537;

struct Plan {
    int w = 0, h = 0, bitdepth = 8;
    int distance = 1;         // frames back (1, or 2 with the five-frame window)
    bool force_zero = false;  // nothing to compute: every raw value is 0

    SPEEDQA_HD bool wide() const { return w > kMaxUnwrappedWidth; }
    // counters per frame: one a strip, or one a row for wide frames
    SPEEDQA_HD int counters() const { return wide() ? h : (h + kStripRows - 1) / kStripRows; }
};

inline Plan make_plan(const Params& params) {
    Plan p;
    p.w = params.w;
    p.h = params.h;
    p.bitdepth = params.bitdepth;
    p.distance = params.distance();
    p.force_zero = params.force_zero;
    return p;
}

struct Buffers {
    unsigned long long* counters = nullptr;  // [frame][counter], zeroed before the stages
    unsigned long long* sad = nullptr;       // [frame]: the sums read back
};

// Elements of each buffer for `frames` frames (none when forced to 0).
inline size_t counter_elements(const Plan& p, int frames) {
    return p.force_zero ? 0 : static_cast<size_t>(p.counters()) * static_cast<size_t>(frames);
}
inline size_t sad_elements(const Plan& p, int frames) { return p.force_zero ? 0 : static_cast<size_t>(frames); }

// The luma of the reference at a frame position, row y (mirrored by the caller).
SPEEDQA_HD const uint8_t* luma_row(const InputLayout& L, const uint8_t* input, int position, int y) {
    return input_row(L, input, position, 0, 0, y);
}

SPEEDQA_HD int32_t luma_sample(const uint8_t* row, bool bytes, int x) {
    return bytes ? row[x] : reinterpret_cast<const uint16_t*>(row)[x];
}

// |horizontal blur| at one column from the vertical sums of its five
// neighbours (v[0] two to the left ... v[4] two to the right).
template <class Acc>
SPEEDQA_HD uint32_t abs_blurred(const Acc* v) {
    int64_t acc = 0;
    for (int k = 0; k < em::kTaps; k++) acc += int64_t{em::tap(k)} * v[k];
    const int32_t b = em::horizontal_round(acc);
    return static_cast<uint32_t>(b < 0 ? -b : b);
}

// One column of one strip (frames up to w = kMaxUnwrappedWidth). Acc holds
// a vertical sum: int32 up to 15 bits (|sum| < 2^16 * 2^15), else int64.
template <class Acc>
SPEEDQA_HD void strip_sad(const Plan& p, const InputLayout& L, const uint8_t* input, unsigned long long* counters,
                          int x, int strip, int z) {
    const bool bytes = p.bitdepth == 8;
    const int cur_pos = L.position(z), prev_pos = L.position(z, p.distance);
    int cols[em::kTaps];
    for (int k = 0; k < em::kTaps; k++) cols[k] = em::mirror(x - em::kRadius + k, p.w);
    // d[t][k]: prev - cur at row (current - kRadius + t), column cols[k]
    int32_t d[em::kTaps][em::kTaps];
    const auto load = [&](int32_t* dst, int y) {
        const int r = em::mirror(y, p.h);
        const uint8_t* prow = luma_row(L, input, prev_pos, r);
        const uint8_t* crow = luma_row(L, input, cur_pos, r);
        for (int k = 0; k < em::kTaps; k++) dst[k] = luma_sample(prow, bytes, cols[k]) - luma_sample(crow, bytes, cols[k]);
    };
    const int y0 = strip * kStripRows;
    const int y1 = y0 + kStripRows < p.h ? y0 + kStripRows : p.h;
    for (int t = 1; t < em::kTaps; t++) load(d[t], y0 - em::kRadius + t - 1);
    uint64_t sum = 0;
    for (int y = y0; y < y1; y++) {
        for (int t = 0; t + 1 < em::kTaps; t++)
            for (int k = 0; k < em::kTaps; k++) d[t][k] = d[t + 1][k];
        load(d[em::kTaps - 1], y + em::kRadius);
        Acc v[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) {
            Acc acc = 0;
            for (int t = 0; t < em::kTaps; t++) acc += static_cast<Acc>(em::tap(t)) * d[t][k];
            v[k] = em::vertical_round(acc, p.bitdepth);
        }
        sum += abs_blurred(v);
    }
    atomic_add(counters + static_cast<size_t>(z) * p.counters() + strip, sum);
}

// One run of kRunColumns columns of one row (wide frames): the row's sum in
// 64 bits, which the "frames" stage truncates as the reference's 32 do.
SPEEDQA_HD void run_sad(const Plan& p, const InputLayout& L, const uint8_t* input, unsigned long long* counters,
                        int run, int y, int z) {
    const bool bytes = p.bitdepth == 8;
    const uint8_t* prev[em::kTaps];
    const uint8_t* cur[em::kTaps];
    for (int k = 0; k < em::kTaps; k++) {
        const int r = em::mirror(y - em::kRadius + k, p.h);
        prev[k] = luma_row(L, input, L.position(z, p.distance), r);
        cur[k] = luma_row(L, input, L.position(z), r);
    }
    const int x0 = run * kRunColumns;
    int32_t v[kRunColumns + 2 * em::kRadius];
    for (int c = 0; c < kRunColumns + 2 * em::kRadius; c++) {
        // columns past the frame's mirrored border are not needed: any valid one
        const int x = x0 - em::kRadius + c;
        v[c] = em::vertical_at(prev, cur, bytes, em::mirror(x < p.w + em::kRadius ? x : p.w - 1, p.w), p.bitdepth);
    }
    uint32_t sum = 0;
    for (int o = 0; o < kRunColumns && x0 + o < p.w; o++) sum += abs_blurred(v + o);
    atomic_add(counters + static_cast<size_t>(z) * p.counters() + y, uint64_t{sum});
}

// Every stage for `frames` frames of the batch `input`; counters zeroed.
// Nothing when forced to 0.
template <class Exec>
void launch_stages(const Exec& ex, const Plan& p, const Buffers& b, const InputLayout& L, const uint8_t* input,
                   int frames) {
    if (p.force_zero) return;
    unsigned long long* counters = b.counters;
    unsigned long long* sad = b.sad;
    if (!p.wide()) {
        const Extent n{p.w, p.counters(), frames};
        if (p.bitdepth <= 15)
            ex.for_each(n, [=] SPEEDQA_HD_LAMBDA(int x, int strip, int z) {
                strip_sad<int32_t>(p, L, input, counters, x, strip, z);
            });
        else
            ex.for_each(n, [=] SPEEDQA_HD_LAMBDA(int x, int strip, int z) {
                strip_sad<int64_t>(p, L, input, counters, x, strip, z);
            });
    } else {
        ex.for_each(Extent{(p.w + kRunColumns - 1) / kRunColumns, p.h, frames},
                    [=] SPEEDQA_HD_LAMBDA(int run, int y, int z) { run_sad(p, L, input, counters, run, y, z); });
    }
    ex.for_each(Extent{1, 1, frames}, [=] SPEEDQA_HD_LAMBDA(int, int, int z) {
        const int n = p.counters();
        const unsigned long long* c = counters + static_cast<size_t>(z) * n;
        unsigned long long s = 0;
        if (p.wide())
            for (int i = 0; i < n; i++) s += static_cast<uint32_t>(c[i]);
        else
            for (int i = 0; i < n; i++) s += c[i];
        sad[z] = s;
    });
}

// The tail: the raw value of frame k of a batch (clip index `index`) from
// the sums read back (not read where the frame is not scored: forced to 0,
// or before the window's first frame, where the sum is garbage).
inline double frame_raw(const Params& params, long long index, const unsigned long long* sad, int k) {
    return params.scores(index) ? params.raw_value(index, sad[k]) : 0.0;
}

}  // namespace speedqa::motion::device
