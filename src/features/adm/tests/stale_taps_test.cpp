// libvmaf's SIMD DWT at scales 2 and 3 reads, for the last column of the
// distorted image's detail bands, two values past its buffer's four rows:
// what the scale above left there (its last row's low-pass values). Where
// that column is decoupled (bands under 45 columns) it reaches the score. No
// golden clip has such a band; these crops do (scale 3 17 or 9 columns wide,
// scale 2 17). Their values were written out from libvmaf master's vmaf
// (data/stale_taps.json: frames 0 and 1 of the top-left crop of a golden
// clip, --feature adm=debug=true, each dispatch; the same values under
// MALLOC_PERTURB_, so no uninitialised memory is read).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "features/adm/adm.hpp"
#include "support/json.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

TEST(AdmStaleTaps, CropsExact) {
    const auto data = TestData::open(shared_testdata_dir());
    if (!data) {
        const char* ci = std::getenv("CI");
        if (ci && std::string(ci) == "true") FAIL() << "the shared test data is absent (set SPEEDQA_SHARED_TESTDATA)";
        GTEST_SKIP() << "the shared test data is absent: no value was checked";
    }
    std::ifstream in(std::string(SPEEDQA_SOURCE_DIR) + "/src/features/adm/tests/data/stale_taps.json");
    ASSERT_TRUE(in) << "no data/stale_taps.json";
    const nlohmann::ordered_json j = parse_ordered_json(in);
    const auto keys = j.at("keys").get<std::vector<std::string>>();
    long long values = 0, identical = 0;
    for (const auto& run : j.at("runs")) {
        const std::string clip_name = run.at("clip");
        const ClipInfo* clip = data->clip(clip_name);
        ASSERT_NE(clip, nullptr) << clip_name;
        VideoFormat crop = clip->format;
        crop.width = run.at("width");
        crop.height = run.at("height");
        const std::string d = run.at("dispatch");
        const Dispatch dispatch = d == "scalar" ? Dispatch::scalar : (d == "avx2" ? Dispatch::avx2 : Dispatch::avx512);
        SCOPED_TRACE(clip_name + " " + std::to_string(crop.width) + "x" + std::to_string(crop.height) + " " + d);
        // the crop: the clip's first frames' planes, read to the crop's size
        const auto ref_all = clip_pictures(*clip, clip->ref_xz), dis_all = clip_pictures(*clip, clip->dis_xz);
        const auto& want = run.at("frames");
        const std::vector<Picture> ref(ref_all.begin(), ref_all.begin() + static_cast<long>(want.size()));
        const std::vector<Picture> dis(dis_all.begin(), dis_all.begin() + static_cast<long>(want.size()));
        const auto feature = feature_from_arg({&adm_feature()}, "adm=debug=true", crop);
        std::vector<std::string> names;
        for (const auto& o : feature->outputs()) names.push_back(o.name);
        ASSERT_EQ(names, keys);
        for (const CpuTarget& target : host_targets(dispatch)) {
            SCOPED_TRACE(isa_name(target.isa));
            const auto got = run_feature(*feature, target, ref, dis);
            ASSERT_EQ(got.size(), want.size());
            for (size_t f = 0; f < got.size(); f++)
                for (size_t m = 0; m < keys.size(); m++) {
                    const double w = want[f][m].get<double>();
                    values++;
                    if (got[f][m] == w)
                        identical++;
                    else
                        ADD_FAILURE() << keys[m] << " frame " << f << ": got " << got[f][m] << ", want " << w;
                }
        }
    }
    std::printf("[adm stale taps] %lld values compared, %lld identical\n", values, identical);
    EXPECT_GT(values, 0);
    EXPECT_EQ(values, identical);
}

}  // namespace
}  // namespace speedqa::testing
