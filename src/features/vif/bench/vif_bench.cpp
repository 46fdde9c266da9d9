// ms per frame of integer VIF on one thread: our kernels (C and AVX2) and
// libvmaf's `vmaf --threads 1 --no_prediction --feature vif` (its AVX2
// dispatch, --cpumask 16) on the same frames, in the same run.
//   speedqa_vif_bench [--vmaf PATH] [--repeats N] [--no-c]
#include <cstring>

#include "support/bench_kernels.hpp"
#include "features/vif/vif.hpp"
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
        for (const char* arg : {"vif", "vif=vif_skip_scale0=true"}) {
            const auto f = testing::feature_from_arg({&vif_feature()}, arg, clip.format);
            const double simd = bench::kernel_ms_per_frame(*f, {host_isa(), Dispatch::avx2}, clip, 0, repeats);
            const double c = with_c ? bench::kernel_ms_per_frame(*f, {Isa::c, Dispatch::avx2}, clip, 0, 1) : 0;
            const double lib = bench::vmaf_ms_per_frame(vmaf, arg, clip, repeats, "16");
            std::printf("[bench] --feature %-24s %-32s speedqa %s %7.2f ms/frame", arg, clip.label.c_str(),
                        testing::isa_name(host_isa()), simd);
            if (with_c) std::printf(", c %7.2f", c);
            if (lib > 0) std::printf("; libvmaf avx2 %7.2f ms/frame: %.2fx", lib, lib / simd);
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    return 0;
}
