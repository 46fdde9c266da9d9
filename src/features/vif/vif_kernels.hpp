// The hot loops of integer VIF: a C reference and SIMD variants beside it,
// each returning the C reference's integers (tests/vif_checkasm_test.cpp).
// A kernel runs one scale: the statistic of its image, and the next scale's
// image halved from it, in one pass over the rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/feature.hpp"
#include "features/vif/exact/vif_exact.hpp"

namespace speedqa::vif {

namespace ev = exact::vif;

// A scale's image of ref and dis as the reference reads it: rows r in
// [-kMaxRadius, h + kMaxRadius) through its mirrored padding (ref_rows[r];
// the arrays point at the entry of row 0), columns p in [-kMaxRadius,
// w + kMaxRadius) from column col_src[p].
struct ScaleImage {
    const void* const* ref_rows = nullptr;
    const void* const* dis_rows = nullptr;
    // Bits of the samples: 8 (uint8: scale 0 of 8-bit video), 10, 12 (uint16:
    // scale 0) or 16 (uint16: scale 0 of 16-bit video, and every later scale).
    int bits = 8;
    int w = 0, h = 0;
    const int* col_src = nullptr;
};

struct ScaleArgs {
    ScaleImage in;
    int scale = 0;  // 0..3: the filters are ev::filter(scale) and, halving, ev::filter(scale + 1)
    // The statistic of this scale.
    bool stat = false;
    ev::StatRounding rounding;
    double gain_limit = 100.0;
    const uint16_t* log2_table = nullptr;
    // The next scale's image (scale < 3): its filter at the even rows and
    // columns, w / 2 x h / 2 samples, rows `out_stride` samples apart.
    bool halve = false;
    ev::Rounding halve_rounding;
    uint16_t* ref_out = nullptr;
    uint16_t* dis_out = nullptr;
    ptrdiff_t out_stride = 0;
};

// Per-worker buffers of a kernel, sized once for the frame's widest scale.
class ScaleScratch {
public:
    // defined out of line: the type's identity is emitted once, outside the
    // files built for wider instruction sets
    virtual ~ScaleScratch();
};

struct Kernels {
    const char* name;
    std::unique_ptr<ScaleScratch> (*make_scratch)(int max_w);
    size_t (*scratch_bytes)(int max_w);  // what make_scratch allocates
    // Adds the statistic of every pixel of the scale to `sums` (if
    // args.stat) and writes the halved image (if args.halve).
    void (*scale_pass)(const ScaleArgs& args, ScaleScratch& scratch, ev::Sums& sums);
};

const Kernels& kernels_c();
const Kernels* kernels_avx2();    // nullptr where the build or the CPU lacks AVX2
const Kernels* kernels_avx512();  // nullptr where the build or the CPU lacks AVX-512 with VNNI
const Kernels& kernels_for(Isa isa);

}  // namespace speedqa::vif
