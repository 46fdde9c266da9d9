// ms per frame of integer motion on one thread: our kernels (C and AVX2) and
// libvmaf's `vmaf --threads 1 --no_prediction --feature motion` (its AVX2
// dispatch, --cpumask 16) on the same frames, in the same run. Frame 0 has
// no predecessor and does no work in either: both are timed from frame 1.
//   speedqa_motion_bench [--vmaf PATH] [--repeats N] [--no-c]
#include "features/motion/motion.hpp"
#include "support/bench_kernels.hpp"

int main(int argc, char** argv) {
    return speedqa::bench::kernel_bench_main(argc, argv, speedqa::motion_feature(), {"motion"}, 1);
}
