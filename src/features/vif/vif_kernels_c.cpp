// The C reference of the VIF kernels: the reference's loops, row by row, one
// statement per step of its arithmetic, in the widths it uses.
#include <vector>

#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {
namespace {

using ev::kMaxRadius;

inline uint32_t sample(const void* row, int bits, int j) {
    return bits == 8 ? static_cast<const uint8_t*>(row)[j] : static_cast<const uint16_t*>(row)[j];
}

// A row's vertical sums with the reference's mirrored columns beside it.
class Lane {
public:
    static size_t elements(int w) { return static_cast<size_t>(w) + 2 * kMaxRadius; }
    void resize(int w) { v_.assign(elements(w), 0); }
    uint32_t& operator[](int p) { return v_[static_cast<size_t>(p + kMaxRadius)]; }
    // Copies the positions beside [0, w) from the columns the padding takes.
    void mirror(int w, int radius, const int* col_src) {
        for (int p = -radius; p < 0; p++) (*this)[p] = (*this)[col_src[p]];
        for (int p = w; p < w + radius; p++) (*this)[p] = (*this)[col_src[p]];
    }

private:
    std::vector<uint32_t> v_;
};

class ScratchC final : public ScaleScratch {
public:
    explicit ScratchC(int max_w) {
        for (Lane& l : lanes) l.resize(max_w);
    }
    static constexpr int kLanes = 5;  // mu1, mu2, xx, yy, xy
    Lane lanes[kLanes];
};

// Statistic of output row i.
void stat_row(const ScaleArgs& a, int i, ScratchC& s, ev::Sums& sums) {
    const ScaleImage& im = a.in;
    const ev::Filter f = ev::filter(a.scale);
    const int r = f.radius();
    Lane &mu1 = s.lanes[0], &mu2 = s.lanes[1], &xx = s.lanes[2], &yy = s.lanes[3], &xy = s.lanes[4];
    for (int j = 0; j < im.w; j++) {
        uint64_t m1 = 0, m2 = 0, sxx = 0, syy = 0, sxy = 0;
        for (int k = 0; k < f.width; k++) {
            const uint64_t x = sample(im.ref_rows[i - r + k], im.bits, j);
            const uint64_t y = sample(im.dis_rows[i - r + k], im.bits, j);
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
    for (Lane& l : s.lanes) l.mirror(im.w, r, im.col_src);
    for (int j = 0; j < im.w; j++) {
        ev::Filtered v{0, 0, 0, 0, 0};
        for (int k = 0; k < f.width; k++) {
            const int p = j - r + k;
            v.mu1 += f.c[k] * mu1[p];
            v.mu2 += f.c[k] * mu2[p];
            v.xx += uint64_t{f.c[k]} * xx[p];
            v.yy += uint64_t{f.c[k]} * yy[p];
            v.xy += uint64_t{f.c[k]} * xy[p];
        }
        ev::accumulate(ev::sigmas(v), a.gain_limit, a.log2_table, sums);
    }
}

// Row o of the halved image: the filter at input row 2o and its even columns.
void halve_row(const ScaleArgs& a, int o, ScratchC& s) {
    const ScaleImage& im = a.in;
    const ev::Filter f = ev::filter(a.scale + 1);
    const int r = f.radius();
    Lane &ref = s.lanes[0], &dis = s.lanes[1];
    for (int j = 0; j < im.w; j++) {
        uint64_t vr = 0, vd = 0;
        for (int k = 0; k < f.width; k++) {
            vr += f.c[k] * sample(im.ref_rows[2 * o - r + k], im.bits, j);
            vd += f.c[k] * sample(im.dis_rows[2 * o - r + k], im.bits, j);
        }
        ref[j] = static_cast<uint32_t>(a.halve_rounding.apply(vr));
        dis[j] = static_cast<uint32_t>(a.halve_rounding.apply(vd));
    }
    ref.mirror(im.w, r, im.col_src);
    dis.mirror(im.w, r, im.col_src);
    uint16_t* out_r = a.ref_out + a.out_stride * o;
    uint16_t* out_d = a.dis_out + a.out_stride * o;
    for (int q = 0; q < im.w / 2; q++) {
        uint32_t hr = 0, hd = 0;
        for (int k = 0; k < f.width; k++) {
            hr += f.c[k] * ref[2 * q - r + k];
            hd += f.c[k] * dis[2 * q - r + k];
        }
        out_r[q] = static_cast<uint16_t>((hr + ev::kHorizontalRound) >> ev::kHorizontalShift);
        out_d[q] = static_cast<uint16_t>((hd + ev::kHorizontalRound) >> ev::kHorizontalShift);
    }
}

std::unique_ptr<ScaleScratch> make_scratch_c(int max_w) { return std::make_unique<ScratchC>(max_w); }
size_t scratch_bytes_c(int max_w) { return ScratchC::kLanes * Lane::elements(max_w) * sizeof(uint32_t); }

void scale_pass_c(const ScaleArgs& a, ScaleScratch& scratch, ev::Sums& sums) {
    ScratchC& s = static_cast<ScratchC&>(scratch);
    if (a.stat) {
        ev::Sums scale;
        for (int i = 0; i < a.in.h; i++) stat_row(a, i, s, scale);
        sums.add(scale);
    }
    if (a.halve)
        for (int o = 0; o < a.in.h / 2; o++) halve_row(a, o, s);
}

constexpr Kernels kC{"c", make_scratch_c, scratch_bytes_c, scale_pass_c};

}  // namespace

ScaleScratch::~ScaleScratch() = default;

const Kernels& kernels_c() { return kC; }

#if !defined(SPEEDQA_X86)
const Kernels* kernels_avx2() { return nullptr; }
const Kernels* kernels_avx512() { return nullptr; }
#endif

const Kernels& kernels_for(Isa isa) {
    if (isa == Isa::avx512)
        if (const Kernels* k = kernels_avx512()) return *k;
    if (isa != Isa::c)
        if (const Kernels* k = kernels_avx2()) return *k;
    return kC;
}

}  // namespace speedqa::vif
