#include "support/model_golden.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "support/json.hpp"

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace speedqa::testing {

Dispatch ModelGolden::dispatch_value() const {
    if (dispatch == "scalar") return Dispatch::scalar;
    if (dispatch == "avx2") return Dispatch::avx2;
    if (dispatch == "avx512") return Dispatch::avx512;
    throw std::runtime_error(path + ": unknown dispatch " + dispatch);
}

std::string ModelGolden::feature_arg() const {
    for (size_t i = 0; i + 1 < args.size(); i++)
        if (args[i] == "--feature") return args[i + 1];
    return "";
}

int ModelGolden::key_index(const std::string& key) const {
    for (size_t i = 0; i < keys.size(); i++)
        if (keys[i] == key) return static_cast<int>(i);
    return -1;
}

std::vector<ModelGolden> load_model_golden(const std::string& testdata_root, const std::string& prefix) {
    std::vector<ModelGolden> out;
    const fs::path dir = fs::path(testdata_root) / "models" / "golden";
    if (testdata_root.empty() || !fs::is_directory(dir)) return out;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" && name.compare(0, prefix.size(), prefix) == 0) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
        std::ifstream in(p);
        if (!in) throw std::runtime_error("cannot read " + p.string());
        const ojson g = parse_ordered_json(in);
        ModelGolden m;
        m.path = p.string();
        m.clip = g.at("clip");
        m.run = g.at("run");
        m.dispatch = g.at("dispatch");
        m.cpumask = g.at("cpumask");
        m.args = g.at("args").get<std::vector<std::string>>();
        m.exit_status = g.at("exit_status");
        if (g.contains("reference_defect")) m.reference_defect = g["reference_defect"];
        // (runs where libvmaf failed have no frames)
        for (const ojson& fr : g.contains("frames") ? g["frames"] : ojson::array()) {
            if (m.keys.empty())
                for (auto it = fr.begin(); it != fr.end(); ++it)
                    if (it.key() != "frameNum") m.keys.push_back(it.key());
            std::vector<double> row;
            // libvmaf prints a non-finite value as null
            for (const std::string& k : m.keys)
                row.push_back(fr.at(k).is_null() ? std::numeric_limits<double>::quiet_NaN() : fr.at(k).get<double>());
            m.frames.push_back(std::move(row));
        }
        if (g.contains("pooled_metrics"))
            for (auto it = g["pooled_metrics"].begin(); it != g["pooled_metrics"].end(); ++it) {
                std::vector<std::pair<std::string, double>> stats;
                for (auto s = it.value().begin(); s != it.value().end(); ++s)
                    stats.emplace_back(s.key(), s.value().is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                                     : s.value().get<double>());
                m.pooled.emplace_back(it.key(), std::move(stats));
            }
        out.push_back(std::move(m));
    }
    return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> model_feature_options(const std::string& model_path,
                                                                                      const std::string& marker) {
    std::ifstream in(model_path);
    if (!in) throw std::runtime_error("cannot read " + model_path);
    const nlohmann::json m = parse_json(in).at("model_dict");  // (keys in sorted order)
    const auto& names = m.at("feature_names");
    for (size_t i = 0; i < names.size(); i++) {
        if (names[i].get<std::string>().find(marker) == std::string::npos) continue;
        std::vector<std::pair<std::string, std::string>> out;
        if (m.contains("feature_opts_dicts"))
            for (auto it = m["feature_opts_dicts"][i].begin(); it != m["feature_opts_dicts"][i].end(); ++it)
                out.emplace_back(it.key(), it.value().is_string() ? it.value().get<std::string>() : dump_json(it.value()));
        return out;
    }
    return std::nullopt;
}

std::string model_feature_arg(const std::string& model_path, const std::string& marker, const std::string& feature) {
    const auto opts = model_feature_options(model_path, marker);
    if (!opts) return "";
    std::string arg = feature;
    for (size_t i = 0; i < opts->size(); i++) arg += (i == 0 ? "=" : ":") + (*opts)[i].first + "=" + (*opts)[i].second;
    return arg;
}

std::vector<Picture> clip_pictures(const ClipInfo& clip, const std::string& xz) {
    const std::vector<uint8_t>& bytes = load_xz(xz);
    std::vector<Picture> out;
    const size_t frame = clip.format.frame_bytes();
    for (int i = 0; i < clip.frames; i++) out.push_back(picture_in_frame(clip.format, bytes.data() + i * frame));
    return out;
}

}  // namespace speedqa::testing
