// Integer VIF on a device, written once for the CUDA kernel and the host
// twin: per frame of a batch, the four scales' sums (exact::vif::Sums) and
// the halved images between them.
//
// A scale is one pass over tiles. A tile is kTileRows rows of
// tile_width(R) outputs (R the radius of the scale's filter) and works in a
// scratch of kColumns vertical sums a row: the outputs' columns and R more on
// each side. Its steps, each split into units that a team runs (on the
// device the tile's block of kBlock threads, a unit a thread, with a barrier
// between steps; on the host a loop):
//  1. vertical: a unit is one column of half the tile's rows. It reads the
//     column's 8 + 2R samples of ref and dis once (rows and columns through
//     the reference's mirrored padding, row_src / col_src), adds each to
//     the sums of the rows it reaches, and writes the rounded vertical sums
//     of mu1, mu2, xx, yy, xy at its 8 rows, and at its even rows the
//     vertical pass of the next scale's filter (halving).
//  2. statistic: a unit is kRun outputs of one row: the horizontal sums
//     (means unrounded, moments in 64 bits), exact::vif::sigmas and
//     accumulate; the team adds its units' sums into the frame's sums of
//     the scale (integers: any order).
//  3. halving: a unit is one output of the next scale's image: the
//     horizontal pass at an even column of an even row, rounded to 16 bits.
// Every value is the C kernel's integer (vif_kernels_c.cpp): the same taps,
// roundings and widths, with sums held narrower only where they provably
// cannot wrap (a mean's sum is below 65536 * 65535 < 2^32; an 8-bit
// sample's second moment below 65536 * 255^2 < 2^32).
//
// The team (host: HostTeam below; device: the kernel's in part.cu) gives
// for_each(n, f) (f(u) for every unit u < n), sync() (the barrier between
// steps) and add_sums(local, dst) (each member's sums of a step into *dst).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/grid.hpp"
#include "core/input_layout.hpp"
#include "features/vif/exact/vif_exact.hpp"
#include "features/vif/vif_feature.hpp"
#include "features/vif/vif_plan.hpp"

#if defined(__CUDA_ARCH__)
#define SPEEDQA_VIF_UNROLL _Pragma("unroll")
#else
#define SPEEDQA_VIF_UNROLL
#endif

namespace speedqa::vif::device {

namespace ev = exact::vif;

inline constexpr int kBlock = 256;     // team members a tile (device threads)
inline constexpr int kColumns = 128;   // vertical sums a scratch row
inline constexpr int kTileRows = 16;   // rows a tile
inline constexpr int kUnitRows = 8;    // rows a vertical unit
inline constexpr int kRun = 7;         // outputs a statistic unit (odd: see kPitch)
// Words a scratch row: 2 mod 32, so that a warp's 16 rows x 2 runs of an
// odd length read 32 banks.
inline constexpr int kPitch = kColumns + 2;

SPEEDQA_HD constexpr int tile_width(int radius) { return kColumns - 2 * radius; }
SPEEDQA_HD constexpr int runs_per_row(int radius) { return (tile_width(radius) + kRun - 1) / kRun; }

// What a tile keeps between its steps (shared memory on the device): the
// vertical sums, and the halving's vertical pass at the tile's even rows
// (16-bit values).
struct TileScratch {
    uint32_t mu1[kTileRows][kPitch], mu2[kTileRows][kPitch];
    uint32_t xx[kTileRows][kPitch], yy[kTileRows][kPitch], xy[kTileRows][kPitch];
    uint16_t half[2][kTileRows / 2][kPitch];  // [ref, dis][even row / 2][column]
};

// A scale's image of ref and dis: row r of side q of frame z at
// base[q] + z * frame_bytes + (row_index ? row_index[r] : r) * row_bytes,
// samples of the scale's type (uint8_t: scale 0 of 8-bit video, else
// little-endian uint16_t).
struct Source {
    const uint8_t* base[2] = {nullptr, nullptr};
    size_t frame_bytes = 0, row_bytes = 0;
    const int* row_index = nullptr;

    SPEEDQA_HD const uint8_t* row(int side, int z, int r) const {
        const int compact = row_index ? row_index[r] : r;
        return base[side] + static_cast<size_t>(z) * frame_bytes + static_cast<size_t>(compact) * row_bytes;
    }
};

// Scale 0: the lumas of the batch's frames, addressed as input_row
// (core/input_layout.hpp) addresses them.
inline Source input_source(const InputLayout& L, const uint8_t* input) {
    Source s;
    for (int side = 0; side < 2; side++)
        s.base[side] = input + static_cast<size_t>(L.position(0)) * L.frame_bytes + static_cast<size_t>(L.plane_offset[side][0]);
    s.frame_bytes = L.frame_bytes;
    s.row_bytes = static_cast<size_t>(L.row_bytes[0]);
    s.row_index = L.row_index[0];
    return s;
}

struct ScaleGeometry {
    int w = 0, h = 0;
    // the padded tables (vif_plan.hpp: padded_sources) at position 0:
    // valid for [-kMaxRadius, n + kMaxRadius)
    const int* row_src = nullptr;
    const int* col_src = nullptr;
};

struct Plan {
    int bitdepth = 8;
    bool skip_scale0 = false;
    double gain_limit = 100.0;
    const uint16_t* log2_table = nullptr;
    ScaleGeometry scales[ev::kScales];
};

// Where a plan's tables are: each at its vector's first element (the host
// plan's own vectors, or their device copies).
struct Tables {
    const int* row_src[ev::kScales] = {};
    const int* col_src[ev::kScales] = {};
    const uint16_t* log2_table = nullptr;
};

inline Tables host_tables(const vif::Plan& p) {
    Tables t;
    for (int s = 0; s < ev::kScales; s++) {
        t.row_src[s] = p.scales[s].row_src.data();
        t.col_src[s] = p.scales[s].col_src.data();
    }
    t.log2_table = p.log2_table.data();
    return t;
}

inline Plan make_plan(const vif::Plan& p, const Tables& t) {
    Plan d;
    d.bitdepth = p.bitdepth;
    d.skip_scale0 = p.skip_scale0;
    d.gain_limit = p.gain_limit;
    d.log2_table = t.log2_table;
    for (int s = 0; s < ev::kScales; s++) {
        d.scales[s].w = p.scales[s].w;
        d.scales[s].h = p.scales[s].h;
        d.scales[s].row_src = t.row_src[s] + ev::kMaxRadius;
        d.scales[s].col_src = t.col_src[s] + ev::kMaxRadius;
    }
    return d;
}

// The buffers of a batch: the halved images of scales 1..3 ([scale][side],
// frames one after another, rows w apart) and the sums [frame][scale],
// zeroed before the stages.
struct Buffers {
    uint16_t* images[ev::kScales][2] = {};
    ev::Sums* sums = nullptr;
};

inline size_t image_elements(const Plan& p, int scale, int frames) {
    return static_cast<size_t>(p.scales[scale].w) * static_cast<size_t>(p.scales[scale].h) * static_cast<size_t>(frames);
}
inline size_t sums_elements(int frames) { return static_cast<size_t>(frames) * ev::kScales; }

// One scale's work on one tile. S the scale, T its sample type; Stat: the
// statistic (not at scale 0 with vif_skip_scale0); Halve: the next scale's
// image (scales 0..2).
template <int S, class T, bool Stat, bool Halve>
struct ScaleTile {
    static constexpr int R = ev::filter(S).radius();
    static constexpr int TW = tile_width(R);
    static constexpr int kWindow = kUnitRows + 2 * R;  // rows a vertical unit reads
    // an 8-bit sample's second moments fit 32 bits; others take 64
    using Moment = std::conditional_t<sizeof(T) == 1, uint32_t, uint64_t>;

    Source in;
    ScaleGeometry g;
    ev::StatRounding rounding;
    ev::Rounding halve_rounding;
    double gain_limit = 100.0;
    const uint16_t* log2_table = nullptr;
    ev::Sums* sums = nullptr;       // the frames' sums of this scale: sums[z * kScales]
    uint16_t* out[2] = {};          // the next scale's images (Halve)
    int out_w = 0, out_h = 0;

    template <class Team>
    SPEEDQA_HD void operator()(const Team& team, TileScratch& s, int tx, int ty, int z) const {
        team.for_each(kColumns * (kTileRows / kUnitRows), [&](int u) { vertical(s, tx, ty, z, u); });
        team.sync();
        if constexpr (Stat) {
            ev::Sums local;
            team.for_each(kTileRows * runs_per_row(R), [&](int u) { statistic(s, tx, ty, u, local); });
            team.add_sums(local, sums + static_cast<size_t>(z) * ev::kScales);
        }
        if constexpr (Halve)
            team.for_each((kTileRows / 2) * (TW / 2), [&](int u) { halve(s, tx, ty, z, u); });
    }

    // Step 1: column u % kColumns of the rows of unit u / kColumns. Each of
    // the column's kWindow samples (and its squares and product, formed
    // once) is added to the sums of every output row whose taps reach it.
    SPEEDQA_HD void vertical(TileScratch& s, int tx, int ty, int z, int u) const {
        constexpr ev::Filter f = ev::filter(S);
        constexpr ev::Filter fh = ev::filter(Halve ? S + 1 : S);  // the halving's filter
        constexpr int r1 = fh.radius();
        const int c = u % kColumns;
        const int r0 = (u / kColumns) * kUnitRows;  // the unit's first tile row
        // columns past the right border's padding and rows past the bottom's
        // feed no output: any valid one is read there
        int p = tx * TW - R + c;
        p = p < g.w - 1 + R ? p : g.w - 1 + R;
        const int col = g.col_src[p];
        uint32_t m1[kUnitRows] = {}, m2[kUnitRows] = {};
        Moment sxx[kUnitRows] = {}, syy[kUnitRows] = {}, sxy[kUnitRows] = {};
        uint32_t hr[kUnitRows / 2] = {}, hd[kUnitRows / 2] = {};
        SPEEDQA_VIF_UNROLL
        for (int k = 0; k < kWindow; k++) {
            int r = ty * kTileRows + r0 - R + k;
            r = r < g.h - 1 + R ? r : g.h - 1 + R;
            const int src = g.row_src[r];
            const uint32_t x = reinterpret_cast<const T*>(in.row(0, z, src))[col];
            const uint32_t y = reinterpret_cast<const T*>(in.row(1, z, src))[col];
            if constexpr (Stat) {
                // below 2^32 for 16-bit samples
                const uint32_t xx = x * x, yy = y * y, xy = x * y;
                SPEEDQA_VIF_UNROLL
                for (int i = 0; i < kUnitRows; i++) {
                    const int t = k - i;  // the tap of output row i that reads window row k
                    if (t < 0 || t >= f.width) continue;
                    m1[i] += f.c[t] * x;
                    m2[i] += f.c[t] * y;
                    sxx[i] += static_cast<Moment>(f.c[t]) * xx;
                    syy[i] += static_cast<Moment>(f.c[t]) * yy;
                    sxy[i] += static_cast<Moment>(f.c[t]) * xy;
                }
            }
            if constexpr (Halve) {
                SPEEDQA_VIF_UNROLL
                for (int i = 0; i < kUnitRows; i += 2) {
                    const int t = k - (i + R - r1);
                    if (t < 0 || t >= fh.width) continue;
                    hr[i / 2] += fh.c[t] * x;
                    hd[i / 2] += fh.c[t] * y;
                }
            }
        }
        SPEEDQA_VIF_UNROLL
        for (int i = 0; i < kUnitRows; i++) {
            if constexpr (Stat) {
                const int row = r0 + i;
                s.mu1[row][c] = static_cast<uint32_t>(rounding.mean.apply(m1[i]));
                s.mu2[row][c] = static_cast<uint32_t>(rounding.mean.apply(m2[i]));
                s.xx[row][c] = static_cast<uint32_t>(rounding.moment.apply(sxx[i]));
                s.yy[row][c] = static_cast<uint32_t>(rounding.moment.apply(syy[i]));
                s.xy[row][c] = static_cast<uint32_t>(rounding.moment.apply(sxy[i]));
            }
            if constexpr (Halve) {
                if (i % 2) continue;
                s.half[0][(r0 + i) / 2][c] = static_cast<uint16_t>(halve_rounding.apply(hr[i / 2]));
                s.half[1][(r0 + i) / 2][c] = static_cast<uint16_t>(halve_rounding.apply(hd[i / 2]));
            }
        }
    }

    // The horizontal sums of one quantity at kRun outputs from tile column j0.
    template <class Sum>
    SPEEDQA_HD static void horizontal(const uint32_t* row, int j0, Sum* out) {
        constexpr ev::Filter f = ev::filter(S);
        uint32_t v[kRun + 2 * R];
        SPEEDQA_VIF_UNROLL
        for (int k = 0; k < kRun + 2 * R; k++) v[k] = row[j0 + k < kColumns ? j0 + k : kColumns - 1];
        SPEEDQA_VIF_UNROLL
        for (int o = 0; o < kRun; o++) {
            Sum acc = 0;
            SPEEDQA_VIF_UNROLL
            for (int k = 0; k < f.width; k++) acc += static_cast<Sum>(f.c[k]) * v[o + k];
            out[o] = acc;
        }
    }

    // Step 2: outputs [j0, j0 + kRun) of tile row u % kTileRows, j0 = kRun * (u / kTileRows).
    SPEEDQA_HD void statistic(const TileScratch& s, int tx, int ty, int u, ev::Sums& local) const {
        const int row = u % kTileRows;
        const int j0 = kRun * (u / kTileRows);
        if (ty * kTileRows + row >= g.h) return;
        uint32_t mu1[kRun], mu2[kRun];
        uint64_t xx[kRun], yy[kRun], xy[kRun];
        horizontal(s.mu1[row], j0, mu1);
        horizontal(s.mu2[row], j0, mu2);
        horizontal(s.xx[row], j0, xx);
        horizontal(s.yy[row], j0, yy);
        horizontal(s.xy[row], j0, xy);
        SPEEDQA_VIF_UNROLL
        for (int o = 0; o < kRun; o++) {
            const int j = j0 + o;
            if (j >= TW || tx * TW + j >= g.w) continue;
            ev::accumulate(ev::sigmas(ev::Filtered{mu1[o], mu2[o], xx[o], yy[o], xy[o]}), gain_limit, log2_table, local);
        }
    }

    // Step 3: output (o, q) of the next scale at tile row 2n and tile
    // column 2m, n = u / (TW / 2), m = u % (TW / 2) (a warp: one output row).
    SPEEDQA_HD void halve(const TileScratch& s, int tx, int ty, int z, int u) const {
        constexpr ev::Filter f = ev::filter(S + 1);
        constexpr int r1 = f.radius();
        const int n = u / (TW / 2), m = u % (TW / 2);
        const int o = ty * (kTileRows / 2) + n, q = tx * (TW / 2) + m;
        if (o >= out_h || q >= out_w) return;
        for (int side = 0; side < 2; side++) {
            const uint16_t* v = s.half[side][n] + 2 * m + R - r1;
            uint32_t acc = 0;
            SPEEDQA_VIF_UNROLL
            for (int k = 0; k < f.width; k++) acc += f.c[k] * v[k];
            out[side][static_cast<size_t>(z) * out_w * out_h + static_cast<size_t>(o) * out_w + q] =
                static_cast<uint16_t>((acc + ev::kHorizontalRound) >> ev::kHorizontalShift);
        }
    }
};

// The tiles of a scale for `frames` frames: x, y tiles, z frames.
template <int R>
Extent tile_grid(const ScaleGeometry& g, int frames) {
    return Extent{(g.w + tile_width(R) - 1) / tile_width(R), (g.h + kTileRows - 1) / kTileRows, frames};
}

template <int S, class T, class Tiles>
void run_scale(const Tiles& ex, const Plan& p, const Buffers& b, const Source& in, int frames) {
    constexpr bool halve = S + 1 < ev::kScales;
    const auto fill = [&](auto& tile) {
        tile.in = in;
        tile.g = p.scales[S];
        tile.rounding = ev::stat_rounding(S, p.bitdepth);
        tile.gain_limit = p.gain_limit;
        tile.log2_table = p.log2_table;
        tile.sums = b.sums + S;
        if constexpr (halve) {
            tile.halve_rounding = ev::halving_rounding(S + 1, p.bitdepth);
            tile.out[0] = b.images[S + 1][0];
            tile.out[1] = b.images[S + 1][1];
            tile.out_w = p.scales[S + 1].w;
            tile.out_h = p.scales[S + 1].h;
        }
    };
    constexpr int R = ev::filter(S).radius();
    if constexpr (S == 0) {
        if (p.skip_scale0) {
            ScaleTile<S, T, false, halve> tile;
            fill(tile);
            ex.run(tile_grid<R>(p.scales[S], frames), tile);
            return;
        }
    }
    ScaleTile<S, T, true, halve> tile;
    fill(tile);
    ex.run(tile_grid<R>(p.scales[S], frames), tile);
}

// Scale s >= 1's image as a source.
inline Source image_source(const Plan& p, const Buffers& b, int scale) {
    Source s;
    for (int side = 0; side < 2; side++) s.base[side] = reinterpret_cast<const uint8_t*>(b.images[scale][side]);
    s.row_bytes = static_cast<size_t>(p.scales[scale].w) * sizeof(uint16_t);
    s.frame_bytes = s.row_bytes * static_cast<size_t>(p.scales[scale].h);
    return s;
}

// Every scale for `frames` frames of the batch `input` (sums zeroed), on a
// tile executor: ex.run(Extent tiles, tile) runs tile(team, scratch, x, y,
// z) for every tile, the scales one after another.
template <class Tiles>
void launch_stages(const Tiles& ex, const Plan& p, const Buffers& b, const InputLayout& L, const uint8_t* input,
                   int frames) {
    const Source in = input_source(L, input);
    if (p.bitdepth == 8) run_scale<0, uint8_t>(ex, p, b, in, frames);
    else run_scale<0, uint16_t>(ex, p, b, in, frames);
    run_scale<1, uint16_t>(ex, p, b, image_source(p, b, 1), frames);
    run_scale<2, uint16_t>(ex, p, b, image_source(p, b, 2), frames);
    run_scale<3, uint16_t>(ex, p, b, image_source(p, b, 3), frames);
}

// The host's team: every unit in order; a step's sums added at its end.
struct HostTeam {
    template <class F>
    void for_each(int n, F&& f) const {
        for (int u = 0; u < n; u++) f(u);
    }
    void sync() const {}
    void add_sums(const ev::Sums& local, ev::Sums* dst) const { dst->add(local); }
};

// The host's tile executor (the twin of part.cu's): tiles in order, one
// scratch reused.
struct HostTiles {
    template <class Tile>
    void run(Extent n, const Tile& tile) const {
        auto scratch = std::make_unique<TileScratch>();
        for (int z = 0; z < n.z; z++)
            for (int y = 0; y < n.y; y++)
                for (int x = 0; x < n.x; x++) tile(HostTeam{}, *scratch, x, y, z);
    }
};

// The tail: frame k's raw values from the sums read back (the CPU kernel's
// own write_outputs).
inline void frame_raw(const vif::Plan& plan, const ev::Sums* sums, int k, double* raw) {
    write_outputs(plan, sums + static_cast<size_t>(k) * ev::kScales, raw);
}

}  // namespace speedqa::vif::device
