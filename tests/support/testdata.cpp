#include "support/testdata.hpp"

#include <lzma.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include "support/json.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace speedqa::testing {
namespace {

json read_json(const fs::path& p) {
    std::ifstream in(p);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return parse_json(in);
}

PixelFormat pix_from(const std::string& s) {
    if (s == "420") return PixelFormat::yuv420;
    if (s == "422") return PixelFormat::yuv422;
    if (s == "444") return PixelFormat::yuv444;
    return PixelFormat::yuv400;
}

}  // namespace

bool in_ci() {
    const char* ci = std::getenv("CI");
    return ci && std::string_view(ci) == "true";
}

std::string shared_testdata_dir() {
    if (const char* env = std::getenv("SPEEDQA_SHARED_TESTDATA")) return fs::exists(env) ? env : "";
    const fs::path p = fs::path(SPEEDQA_SOURCE_DIR) / ".." / "shared" / "testdata";
    return fs::exists(p / "clips.json") ? fs::weakly_canonical(p).string() : "";
}

std::string repo_testdata_dir() {
    // Binaries built elsewhere (the GPU machine gets prebuilt ones) find the
    // subset through SPEEDQA_REPO_TESTDATA or the working directory.
    if (const char* env = std::getenv("SPEEDQA_REPO_TESTDATA")) return env;
    const fs::path built = fs::path(SPEEDQA_SOURCE_DIR) / "testdata";
    if (fs::exists(built / "clips.json")) return built.string();
    return (fs::current_path() / "testdata").string();
}

std::optional<TestData> TestData::open(const std::string& root) {
    if (root.empty() || !fs::exists(fs::path(root) / "clips.json")) return std::nullopt;
    TestData t;
    t.root_ = root;
    const json clips = read_json(fs::path(root) / "clips.json");
    for (const json& c : clips["clips"]) {
        ClipInfo ci;
        ci.name = c["name"];
        ci.format.width = c["width"];
        ci.format.height = c["height"];
        ci.format.pix = pix_from(c["vmaf_pixel_format"]);
        ci.format.bitdepth = c["bitdepth"];
        ci.frames = c["frames"];
        ci.ref_xz = (fs::path(root) / c["ref_xz"].get<std::string>()).string();
        ci.dis_xz = (fs::path(root) / c["dis_xz"].get<std::string>()).string();
        t.clips_.push_back(ci);
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(root) / "golden"))
        if (e.path().extension() == ".json" && e.path().filename().string().find("__") != std::string::npos)
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
        const json g = read_json(p);
        GoldenFile gf;
        gf.path = p.string();
        gf.clip = g["clip"];
        gf.optionset = g["optionset"];
        gf.feature = g["feature"];
        gf.options = g["options"];
        gf.dispatch = g["dispatch"];
        gf.cpumask = g["cpumask"];
        gf.exit_status = g["exit_status"];
        if (gf.feature == "speed_chroma") gf.metrics = {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};
        else gf.metrics = {"speed_temporal"};
        for (const std::string& m : gf.metrics) gf.metric_keys.push_back(g["metric_keys"][m]);
        for (const json& fr : g["frames"]) {
            std::vector<double> v;
            for (const std::string& m : gf.metrics) v.push_back(fr[m].get<double>());
            gf.frames.push_back(v);
        }
        t.golden_.push_back(gf);
    }
    return t;
}

const ClipInfo* TestData::clip(const std::string& name) const {
    for (const ClipInfo& c : clips_)
        if (c.name == name) return &c;
    return nullptr;
}

const std::vector<uint8_t>& load_xz(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<std::vector<uint8_t>>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(path);
    if (it != cache.end()) return *it->second;

    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    const std::vector<uint8_t> packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto out = std::make_unique<std::vector<uint8_t>>();
    lzma_stream strm = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        throw std::runtime_error("lzma init failed");
    strm.next_in = packed.data();
    strm.avail_in = packed.size();
    std::vector<uint8_t> buf(1 << 20);
    for (;;) {
        strm.next_out = buf.data();
        strm.avail_out = buf.size();
        const lzma_ret r = lzma_code(&strm, LZMA_FINISH);
        out->insert(out->end(), buf.data(), buf.data() + (buf.size() - strm.avail_out));
        if (r == LZMA_STREAM_END) break;
        if (r != LZMA_OK) {
            lzma_end(&strm);
            throw std::runtime_error("xz decode failed: " + path);
        }
    }
    lzma_end(&strm);
    auto& ref = *out;
    cache.emplace(path, std::move(out));
    return ref;
}

}  // namespace speedqa::testing
