// The C reference of the motion kernel: the reference's loops, row by row.
#include <cstdlib>

#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

uint64_t sad_c(const SadArgs& a) {
    const bool bytes = a.bitdepth == 8;
    uint64_t sad = 0;
    for (int i = 0; i < a.h; i++) {
        const uint8_t* prev[em::kTaps];
        const uint8_t* cur[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) {
            const int r = em::mirror(i - em::kRadius + k, a.h);
            prev[k] = a.prev + a.prev_stride * r;
            cur[k] = a.cur + a.cur_stride * r;
        }
        for (int j = 0; j < a.w; j++) a.row[j] = em::vertical_at(prev, cur, bytes, j, a.bitdepth);
        // the reference sums a row in 32 bits (it cannot wrap: |value| < 2^16)
        uint32_t row_sad = 0;
        for (int j = 0; j < a.w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < em::kTaps; k++) acc += int64_t{em::tap(k)} * a.row[em::mirror(j - em::kRadius + k, a.w)];
            row_sad += static_cast<uint32_t>(std::abs(em::horizontal_round(acc)));
        }
        sad += row_sad;
    }
    return sad;
}

constexpr Kernels kC{"c", sad_c};

}  // namespace

// a row of int32 and, for the SIMD kernels up to 12 bits, 7 rows of int16
// (motion_sad.hpp)
size_t row_len(int w) { return 4 * (static_cast<size_t>(w) + 96); }

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

}  // namespace speedqa::motion
