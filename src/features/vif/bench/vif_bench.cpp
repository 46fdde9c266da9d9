// ms per frame of integer VIF on one thread: our kernels (C and AVX2) and
// libvmaf's `vmaf --threads 1 --no_prediction --feature vif` (its AVX2
// dispatch, --cpumask 16) on the same frames, in the same run.
//   speedqa_vif_bench [--vmaf PATH] [--repeats N] [--no-c]
#include "features/vif/vif.hpp"
#include "support/bench_kernels.hpp"

int main(int argc, char** argv) {
    return speedqa::bench::kernel_bench_main(argc, argv, speedqa::vif_feature(), {"vif", "vif=vif_skip_scale0=true"}, 0);
}
