// ms per frame of integer motion on one thread: our kernels (C and AVX2) and
// libvmaf's `vmaf --threads 1 --no_prediction --feature motion` (its AVX2
// dispatch, --cpumask 16) on the same frames, in the same run. Frame 0 has
// no predecessor and does no work in either: both are timed from frame 1.
//   speedqa_motion_bench [--vmaf PATH] [--repeats N] [--no-c]
#include <cstring>

#include "features/motion/motion.hpp"
#include "support/bench_kernels.hpp"
#include "support/run_feature.hpp"

int main(int argc, char** argv) {
    using namespace speedqa;
    std::string vmaf = bench::default_vmaf();
    int repeats = 3;
    bool with_c = true;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--vmaf") && i + 1 < argc) vmaf = argv[++i];
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--no-c")) with_c = false;
    }
    const auto data = testing::TestData::open(testing::shared_testdata_dir());
    if (!data) {
        std::fprintf(stderr, "no shared test data (set SPEEDQA_SHARED_TESTDATA)\n");
        return 1;
    }
    for (const bench::Clip& clip : bench::bench_clips(*data, 8, 4)) {
        const char* arg = "motion";
        const auto f = testing::feature_from_arg({&motion_feature()}, arg, clip.format);
        const double simd = bench::kernel_ms_per_frame(*f, {host_isa(), Dispatch::avx2}, clip, 1, repeats);
        const double c = with_c ? bench::kernel_ms_per_frame(*f, {Isa::c, Dispatch::avx2}, clip, 1, 1) : 0;
        const double lib = bench::vmaf_ms_per_frame(vmaf, arg, clip, repeats, "16");
        std::printf("[bench] --feature %-8s %-32s speedqa %s %7.3f ms/frame", arg, clip.label.c_str(),
                    testing::isa_name(host_isa()), simd);
        if (with_c) std::printf(", c %7.3f", c);
        if (lib > 0) std::printf("; libvmaf avx2 %7.3f ms/frame: %.2fx", lib, lib / simd);
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}
