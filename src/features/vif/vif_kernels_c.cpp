// The C reference of the VIF kernels: one statement per step of the
// reference's arithmetic, in the widths it uses.
#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {
namespace {

using ev::kMaxRadius;

inline uint32_t sample(const void* row, int bits, int j) {
    return bits == 8 ? static_cast<const uint8_t*>(row)[j] : static_cast<const uint16_t*>(row)[j];
}

// Copies the mirrored columns beside [0, w) of a lane from the columns the
// reference's padding takes them from.
inline void fill_borders(uint32_t* lane, int w, int radius, const int* col_src) {
    for (int p = -radius; p < 0; p++) lane[p] = lane[col_src[p]];
    for (int p = w; p < w + radius; p++) lane[p] = lane[col_src[p]];
}

void stat_row_c(const StatRowArgs& a, const RowScratch& s, ev::Sums& sums) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    uint32_t* mu1 = s.lanes[0] + kMaxRadius;
    uint32_t* mu2 = s.lanes[1] + kMaxRadius;
    uint32_t* xx = s.lanes[2] + kMaxRadius;
    uint32_t* yy = s.lanes[3] + kMaxRadius;
    uint32_t* xy = s.lanes[4] + kMaxRadius;
    for (int j = 0; j < a.w; j++) {
        uint64_t m1 = 0, m2 = 0, sxx = 0, syy = 0, sxy = 0;
        for (int k = 0; k < f.width; k++) {
            const uint64_t x = sample(a.ref_rows[k], a.bits, j);
            const uint64_t y = sample(a.dis_rows[k], a.bits, j);
            m1 += f.c[k] * x;
            m2 += f.c[k] * y;
            sxx += f.c[k] * x * x;
            syy += f.c[k] * y * y;
            sxy += f.c[k] * x * y;
        }
        mu1[j] = static_cast<uint32_t>(a.rounding.mean.apply(m1));
        mu2[j] = static_cast<uint32_t>(a.rounding.mean.apply(m2));
        xx[j] = static_cast<uint32_t>(a.rounding.moment.apply(sxx));
        yy[j] = static_cast<uint32_t>(a.rounding.moment.apply(syy));
        xy[j] = static_cast<uint32_t>(a.rounding.moment.apply(sxy));
    }
    for (uint32_t* lane : {mu1, mu2, xx, yy, xy}) fill_borders(lane, a.w, r, a.col_src);

    ev::Sums row;
    for (int j = 0; j < a.w; j++) {
        ev::Filtered v{0, 0, 0, 0, 0};
        for (int k = 0; k < f.width; k++) {
            const int p = j - r + k;
            v.mu1 += f.c[k] * mu1[p];
            v.mu2 += f.c[k] * mu2[p];
            v.xx += uint64_t{f.c[k]} * xx[p];
            v.yy += uint64_t{f.c[k]} * yy[p];
            v.xy += uint64_t{f.c[k]} * xy[p];
        }
        ev::accumulate(ev::sigmas(v), a.gain_limit, a.log2_table, row);
    }
    sums.add(row);
}

void halve_row_c(const HalveRowArgs& a, const RowScratch& s) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    uint32_t* ref = s.lanes[0] + kMaxRadius;
    uint32_t* dis = s.lanes[1] + kMaxRadius;
    for (int j = 0; j < a.w_in; j++) {
        uint64_t vr = 0, vd = 0;
        for (int k = 0; k < f.width; k++) {
            vr += f.c[k] * sample(a.ref_rows[k], a.bits, j);
            vd += f.c[k] * sample(a.dis_rows[k], a.bits, j);
        }
        ref[j] = static_cast<uint32_t>(a.vertical.apply(vr));
        dis[j] = static_cast<uint32_t>(a.vertical.apply(vd));
    }
    fill_borders(ref, a.w_in, r, a.col_src);
    fill_borders(dis, a.w_in, r, a.col_src);
    for (int o = 0; o < a.w_in / 2; o++) {
        uint32_t hr = 0, hd = 0;
        for (int k = 0; k < f.width; k++) {
            hr += f.c[k] * ref[2 * o - r + k];
            hd += f.c[k] * dis[2 * o - r + k];
        }
        a.ref_out[o] = static_cast<uint16_t>((hr + ev::kHorizontalRound) >> ev::kHorizontalShift);
        a.dis_out[o] = static_cast<uint16_t>((hd + ev::kHorizontalRound) >> ev::kHorizontalShift);
    }
}

constexpr Kernels kC{"c", stat_row_c, halve_row_c};

}  // namespace

size_t row_lane_len(int w) {
    // both borders, and a vector's worth of slack after them
    return static_cast<size_t>(w) + 2 * kMaxRadius + 32;
}

const Kernels& kernels_c() { return kC; }

#if !defined(SPEEDQA_X86)
const Kernels* kernels_avx2() { return nullptr; }
#endif

const Kernels& kernels_for(Isa isa) {
    if (isa != Isa::c)
        if (const Kernels* k = kernels_avx2()) return *k;
    return kC;
}

}  // namespace speedqa::vif
