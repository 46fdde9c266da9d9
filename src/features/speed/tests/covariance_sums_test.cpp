// The covariance orders against libvmaf itself, on any CPU: every
// un-normalised fp64 sum that libvmaf's scalar, AVX2 and AVX-512 covariance
// kernels returned for the first frames of six clips
// (../shared/testdata/covariance, README there), compared with == to the sums
// our emulation of the same order gives on the same images, through both
// est_params (the straightforward path's, pair by pair, and the CPU
// engine's, all pairs at once, with every kernel variant this CPU runs). The orders differ on most lines, so a wrong
// lane assignment or finishing tree fails here even where the feature values
// agree.
#include <gtest/gtest.h>

#include <lzma.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "features/speed/cpu/image_pipeline.hpp"
#include "features/speed/cpu/kernels.hpp"
#include "features/speed/reference/est_params.hpp"
#include "features/speed/speed.hpp"
#include "features/speed/speed_feature.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

struct SumsFile {
    std::string path, clip, optionset, feature, dispatch;
    std::vector<double> sums;  // 325 per image, images in libvmaf's order
};

std::string xz_text(const std::string& path) {
    const std::vector<uint8_t>& bytes = load_xz(path);
    return std::string(bytes.begin(), bytes.end());
}

std::vector<SumsFile> load_sums(const std::string& root) {
    std::vector<SumsFile> out;
    const fs::path dir = fs::path(root) / "covariance";
    if (root.empty() || !fs::is_directory(dir)) return out;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().string().ends_with(".txt.xz")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
        SumsFile f;
        f.path = p.string();
        std::string name = p.filename().string();
        name.resize(name.size() - std::strlen(".txt.xz"));
        std::vector<std::string> parts;
        for (size_t at = 0;;) {
            const size_t next = name.find("__", at);
            parts.push_back(name.substr(at, next == std::string::npos ? std::string::npos : next - at));
            if (next == std::string::npos) break;
            at = next + 2;
        }
        if (parts.size() != 4) throw std::runtime_error("unexpected covariance file name " + f.path);
        f.clip = parts[0];
        f.optionset = parts[1];
        f.feature = parts[2];
        f.dispatch = parts[3];
        std::istringstream lines(xz_text(f.path));
        std::string line;
        int expected = 0;  // pairs run x = 0..24, y = 0..x
        while (std::getline(lines, line)) {
            int rx, cx, ry, cy;
            char hex[64];
            if (std::sscanf(line.c_str(), "%d %d %d %d %63s", &rx, &cx, &ry, &cy, hex) != 5)
                throw std::runtime_error(f.path + ": bad line " + line);
            const int x = rx * 5 + cx, y = ry * 5 + cy;
            const int p325 = expected % exact::kCovPairs;
            int px = 0;
            while ((px + 1) * (px + 2) / 2 <= p325) px++;
            if (x != px || y != p325 - px * (px + 1) / 2) throw std::runtime_error(f.path + ": pairs out of order at " + line);
            f.sums.push_back(std::strtod(hex, nullptr));
            expected++;
        }
        out.push_back(std::move(f));
    }
    return out;
}

Dispatch dispatch_named(const std::string& d) {
    return d == "scalar" ? Dispatch::scalar : d == "avx2" ? Dispatch::avx2 : Dispatch::avx512;
}

exact::CovOrder order_of(Dispatch d) {
    return d == Dispatch::scalar ? exact::CovOrder::scalar : d == Dispatch::avx2 ? exact::CovOrder::avx2 : exact::CovOrder::avx512;
}

// The images libvmaf fed its covariance kernel for the file's frames:
// speed_chroma frames 0-1 (U ref, U dis, V ref, V dis), speed_temporal
// frames 1-2 (ref difference, dis difference).
std::vector<ImageSource> images_of(const SumsFile& f, const VideoFormat& fmt, const std::vector<Picture>& ref,
                                        const std::vector<Picture>& dis) {
    auto plane = [&](const Picture& p, int i) {
        ImageSource s;
        s.a = {p.plane[i], p.stride[i]};
        s.bitdepth = fmt.bitdepth;
        return s;
    };
    auto diff = [&](const Picture& prev, const Picture& cur) {
        ImageSource s;
        s.a = {prev.plane[0], prev.stride[0]};
        s.b = {cur.plane[0], cur.stride[0]};
        s.difference = true;
        s.bitdepth = fmt.bitdepth;
        return s;
    };
    std::vector<ImageSource> out;
    if (f.feature == "speed_chroma") {
        for (int fr = 0; fr < 2; fr++)
            for (int c = 1; c <= 2; c++) {
                out.push_back(plane(ref[static_cast<size_t>(fr)], c));
                out.push_back(plane(dis[static_cast<size_t>(fr)], c));
            }
    } else {
        for (int fr = 1; fr < 3; fr++) {
            out.push_back(diff(ref[static_cast<size_t>(fr - 1)], ref[static_cast<size_t>(fr)]));
            out.push_back(diff(dis[static_cast<size_t>(fr - 1)], dis[static_cast<size_t>(fr)]));
        }
    }
    return out;
}

TEST(CovarianceSums, EveryLibvmafSumOfEveryOrderExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const std::string root = shared_testdata_dir();
    const std::vector<SumsFile> files = load_sums(root);
    if (files.empty()) {
        if (in_ci()) FAIL() << "CI=true but ../shared/testdata/covariance is absent";
        GTEST_SKIP() << "../shared/testdata/covariance is absent: libvmaf's covariance sums were not compared";
    }
    const auto data = TestData::open(root);
    ASSERT_TRUE(data);
    std::ifstream optionsets(fs::path(root) / "optionsets.json");
    const auto options = parse_json(optionsets)["optionsets"];
    std::vector<const cpu::Kernels*> kernels = {&cpu::kernels_c()};
    if (cpu::kernels_avx2()) kernels.push_back(cpu::kernels_avx2());
    if (cpu::kernels_avx512()) kernels.push_back(cpu::kernels_avx512());
    const std::vector<const FeatureDef*> defs = {&speed_chroma_feature(), &speed_temporal_feature()};
    long long lines = 0, compared = 0, identical = 0, files_done = 0;
    for (const SumsFile& f : files) {
        SCOPED_TRACE(f.path);
        const ClipInfo* clip = data->clip(f.clip);
        ASSERT_NE(clip, nullptr);
        const std::string opts = options[f.optionset][f.feature].get<std::string>();
        const auto feature = feature_from_arg(defs, opts.empty() ? f.feature : f.feature + "=" + opts, clip->format);
        const ImagePlan& plan = dynamic_cast<const SpeedFeature&>(*feature).plan();
        const auto ref = frames_of(clip->format, load_xz(clip->ref_xz), 3);
        const auto dis = frames_of(clip->format, load_xz(clip->dis_xz), 3);
        const std::vector<ImageSource> images = images_of(f, clip->format, ref, dis);
        ASSERT_EQ(f.sums.size(), images.size() * exact::kCovPairs) << "lines in the file vs images libvmaf computed";
        lines += static_cast<long long>(f.sums.size());
        files_done++;
        const exact::CovOrder order = order_of(dispatch_named(f.dispatch));
        const auto compare = [&](size_t img, const double* sums, const std::string& what) {
            size_t line = img * exact::kCovPairs;
            for (int x = 0; x < exact::kBlockElems; x++)
                for (int y = 0; y <= x; y++, line++) {
                    compared++;
                    const double want = f.sums[line], have = sums[x * exact::kBlockElems + y];
                    if (have == want) identical++;
                    else if (compared - identical <= 20)
                        ADD_FAILURE() << "image " << img << " pair (" << x << ", " << y << ") " << what << ": got "
                                      << std::hexfloat << have << ", libvmaf " << want;
                }
        };
        for (const cpu::Kernels* k : kernels) {
            cpu::ImagePipeline pipeline(plan, order, k);
            reference::EstParams per_pair(plan.dim, order);  // on the same decimated images
            ImageStats stats;
            for (size_t img = 0; img < images.size(); img++) {
                pipeline.run(images[img], stats);
                compare(img, pipeline.est().covariance_sums(), std::string("all pairs ") + k->name);
                if (k != kernels.front()) continue;  // per pair uses no kernel
                per_pair.run(pipeline.decimated().data(), plan.dim.operating_w, stats);
                compare(img, per_pair.covariance_sums(), "per pair");
            }
        }
    }
    std::printf("[cov-sums] %lld files, %lld libvmaf sums, %lld comparisons (per-pair and all-pairs paths, %zu kernel "
                "variants), %lld identical\n",
                files_done, lines, compared, kernels.size(), identical);
    EXPECT_EQ(files_done, 108);
    EXPECT_EQ(compared, identical);
}

}  // namespace
}  // namespace speedqa::testing
