#include "model/model.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"
#include "core/option_table.hpp"
#include "model/extractors.hpp"
#include "model/json.hpp"

namespace speedqa::model {
namespace {

namespace fs = std::filesystem;

// Model files are tens of kilobytes; this only keeps a wrong path (a video)
// from being read whole.
constexpr std::uintmax_t kMaxModelFileBytes = 64u << 20;

// read_json_model.c's limit on knots.
constexpr size_t kMaxKnots = 10;

// libvmaf master's built-in versions (model.c), float ones included.
constexpr const char* kBuiltinVersions[] = {
    "vmaf_float_v0.6.1", "vmaf_float_b_v0.6.3", "vmaf_float_v0.6.1neg", "vmaf_float_4k_v0.6.1",
    "vmaf_v0.6.1", "vmaf_b_v0.6.3", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1neg",
    "vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160",
    "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_3d0h_2160", "vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr_1d5h_2160",
};

std::string join(const std::vector<std::string>& items, const char* sep) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : sep) + i;
    return s;
}

std::string read_file(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw Error("cannot read model file " + path + ": no such file");
    if (fs::is_directory(st)) throw Error("cannot read model file " + path + ": it is a directory");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot read model file " + path + ": " + std::strerror(errno));
    std::string data;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        data.append(buf, n);
        if (data.size() > kMaxModelFileBytes) {
            std::fclose(f);
            throw Error("model file " + path + ": larger than " + std::to_string(kMaxModelFileBytes >> 20) +
                        " MiB, not a model");
        }
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) throw Error("cannot read model file " + path + ": read error");
    return data;
}

}  // namespace

// Builds a Model from the JSON tree, checking everything libvmaf would
// trip on (or silently misread) as it goes.
class ModelReader {
public:
    ModelReader(const std::string& origin, const LoadOptions& options) : origin_(origin), options_(options) {}

    Model read(std::string_view text) {
        json::Value top;
        try {
            top = json::parse(text);
        } catch (const json::SyntaxError& e) {
            fail(std::string("not valid JSON: ") + e.what());
        }
        if (top.type != json::Type::object)
            fail(std::string("expected a JSON object with a model_dict, found ") + json::type_name(top.type));
        unique_keys(top, "the top level");
        const json::Value* dict = top.find("model_dict");
        if (!dict) {
            if (top.find("0"))
                fail("a model collection (bootstrap models \"0\", \"1\", ...); speedqa scores single models only");
            fail("no model_dict: not a VMAF model");
        }
        expect(*dict, json::Type::object, "model_dict");
        unique_keys(*dict, "model_dict");

        Model m;
        m.name_ = options_.name;
        m.origin_ = origin_;
        read_model_type(required(*dict, "model_type"));
        read_features(m, required(*dict, "feature_names"));
        read_normalisation(m, *dict);
        try {
            m.svr_ = Svr::parse(expect(required(*dict, "model"), json::Type::string, "model").text,
                                static_cast<int>(m.features_.size()));
        } catch (const Error& e) {
            fail(std::string("model_dict.model: ") + e.what());
        }
        if (const json::Value* t = dict->find("score_transform")) read_transform(m.transform_, *t);
        if (const json::Value* c = dict->find("score_clip")) read_clip(m.clip_, *c);
        if (const json::Value* c = dict->find("chroma_correction_parameter")) read_chroma_correction(m, *c);
        if (const json::Value* o = dict->find("feature_opts_dicts")) read_feature_options(m, *o);
        apply_overloads(m);
        return m;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error("model file " + origin_ + ": " + what); }

    static std::string at(const json::Value& v) {
        return " (line " + std::to_string(v.line) + ")";
    }

    const json::Value& expect(const json::Value& v, json::Type t, const std::string& what) const {
        if (v.type != t)
            fail(what + " must be " + json::type_name(t) + ", found " + json::type_name(v.type) + at(v));
        return v;
    }

    double number(const json::Value& v, const std::string& what) const {
        expect(v, json::Type::number, what);
        if (!std::isfinite(v.number)) fail(what + " = " + v.text + " is out of the range of a double" + at(v));
        return v.number;
    }

    const json::Value& required(const json::Value& obj, const char* key) const {
        const json::Value* v = obj.find(key);
        if (!v) fail(std::string("model_dict has no ") + key);
        return *v;
    }

    void unique_keys(const json::Value& obj, const std::string& what) const {
        for (size_t i = 0; i < obj.keys.size(); i++)
            for (size_t j = 0; j < i; j++)
                if (obj.keys[i] == obj.keys[j])
                    fail(what + " has the key \"" + obj.keys[i] + "\" twice" + at(obj.members[i]));
    }

    void read_model_type(const json::Value& v) const {
        const std::string& t = expect(v, json::Type::string, "model_type").text;
        if (t == "LIBSVMNUSVR") return;
        if (t == "BOOTSTRAP_LIBSVMNUSVR" || t == "RESIDUEBOOTSTRAP_LIBSVMNUSVR")
            fail("model_type " + t + " is a bootstrap model (of a model collection); speedqa scores single models only");
        fail("unknown model_type \"" + t + "\" (VMAF models are LIBSVMNUSVR)");
    }

    void read_features(Model& m, const json::Value& v) const {
        expect(v, json::Type::array, "feature_names");
        if (v.items.empty()) fail("feature_names is empty");
        if (v.items.size() > static_cast<size_t>(kMaxFeatures))
            fail("feature_names lists " + std::to_string(v.items.size()) + " features; libvmaf reads at most " +
                 std::to_string(kMaxFeatures));
        for (const json::Value& f : v.items) {
            const std::string& name = expect(f, json::Type::string, "each of feature_names").text;
            const char* extractor = extractor_of(name);
            if (!extractor) {
                if (const char* fl = float_extractor_of(name))
                    fail("feature " + name + " is computed by libvmaf's floating-point extractor " + fl +
                         ", which speedqa does not compute (its models use the integer features, "
                         "VMAF_integer_feature_*)");
                fail("feature " + name + " is not one speedqa computes (adm, vif, motion, cambi, speed_chroma, "
                     "speed_temporal)");
            }
            m.features_.push_back({name, extractor, {}});
        }
    }

    void read_normalisation(Model& m, const json::Value& dict) const {
        const std::string& norm = expect(required(dict, "norm_type"), json::Type::string, "norm_type").text;
        if (norm == "linear_rescale") m.rescale_ = true;
        else if (norm != "none") fail("unknown norm_type \"" + norm + "\" (expected linear_rescale or none)");
        // the score's value first, then one per feature
        const size_t want = m.features_.size() + 1;
        auto list = [&](const char* key, double& first, std::vector<double>& rest) {
            const json::Value* v = dict.find(key);
            if (!v) {
                if (m.rescale_) fail(std::string("model_dict has no ") + key + " (norm_type linear_rescale needs them)");
                return;
            }
            expect(*v, json::Type::array, key);
            for (size_t i = 0; i < v->items.size(); i++)
                number(v->items[i], std::string(key) + "[" + std::to_string(i) + "]");
            if (!m.rescale_) return;  // read, not used
            if (v->items.size() != want)
                fail(std::string(key) + " has " + std::to_string(v->items.size()) + " values; with " +
                     std::to_string(m.features_.size()) + " features it needs " + std::to_string(want) +
                     " (the score's, then one per feature)");
            first = v->items[0].number;
            for (size_t i = 1; i < want; i++) rest.push_back(v->items[i].number);
        };
        list("slopes", m.slope_, m.slopes_);
        list("intercepts", m.intercept_, m.intercepts_);
    }

    void read_transform(ScoreTransform& t, const json::Value& v) const {
        expect(v, json::Type::object, "score_transform");
        unique_keys(v, "score_transform");
        for (size_t i = 0; i < v.keys.size(); i++) {
            const std::string& key = v.keys[i];
            const json::Value& val = v.members[i];
            const std::string what = "score_transform." + key;
            if (key == "enabled") {
                t.enabled = expect(val, json::Type::boolean, what).boolean;
            } else if (key == "p0" || key == "p1" || key == "p2") {
                if (val.type == json::Type::null) continue;
                const double p = number(val, what);
                if (key == "p0") t.has_p0 = true, t.p0 = p;
                else if (key == "p1") t.has_p1 = true, t.p1 = p;
                else t.has_p2 = true, t.p2 = p;
            } else if (key == "knots") {
                if (val.type != json::Type::null) read_knots(t, val);
            } else if (key == "out_lte_in" || key == "out_gte_in") {
                // libvmaf takes the string "true"; the JSON boolean makes it fail
                const std::string& s = expect(val, json::Type::string, what).text;
                if (s != "true" && s != "false") fail(what + " must be \"true\" or \"false\", found \"" + s + "\"");
                (key == "out_lte_in" ? t.out_lte_in : t.out_gte_in) = s == "true";
            }
            // other keys: ignored, as libvmaf does
        }
        if (options_.enable_transform) t.enabled = true;
    }

    void read_knots(ScoreTransform& t, const json::Value& v) const {
        expect(v, json::Type::array, "score_transform.knots");
        if (v.items.size() < 2 || v.items.size() > kMaxKnots)
            fail("score_transform.knots has " + std::to_string(v.items.size()) + " knots (expected 2 to " +
                 std::to_string(kMaxKnots) + ")" + at(v));
        for (size_t i = 0; i < v.items.size(); i++) {
            const std::string what = "score_transform.knots[" + std::to_string(i) + "]";
            const json::Value& k = expect(v.items[i], json::Type::array, what);
            if (k.items.size() != 2) fail(what + " must be [x, y]" + at(k));
            t.knots.push_back({number(k.items[0], what), number(k.items[1], what)});
        }
        // what predict.c refuses (silently, leaving a partial score)
        for (size_t i = 0; i + 1 < t.knots.size(); i++)
            if (!(t.knots[i].x < t.knots[i + 1].x && t.knots[i].y <= t.knots[i + 1].y))
                fail("score_transform.knots must have x strictly ascending and y not descending (knots " +
                     std::to_string(i) + " and " + std::to_string(i + 1) + ")" + at(v));
    }

    void read_clip(ScoreClip& c, const json::Value& v) const {
        expect(v, json::Type::array, "score_clip");
        if (v.items.size() != 2) fail("score_clip must be [min, max]" + at(v));
        const double lo = number(v.items[0], "score_clip[0]");
        const double hi = number(v.items[1], "score_clip[1]");
        if (options_.disable_clip) return;
        c.enabled = true;
        c.min = lo;
        c.max = hi;
    }

    // predict.c finds the two features by substring; with none or several of
    // either it fails or reads uninitialised memory, and a parameter of 0
    // makes it return without a score.
    void read_chroma_correction(Model& m, const json::Value& v) const {
        const double p = number(v, "chroma_correction_parameter");
        if (p == 0) fail("chroma_correction_parameter is 0 (libvmaf then computes no score)");
        auto only = [&](const char* part) {
            std::vector<size_t> hits;
            for (size_t i = 0; i < m.features_.size(); i++)
                if (m.features_[i].provided.find(part) != std::string::npos) hits.push_back(i);
            if (hits.size() != 1)
                fail(std::string("chroma_correction_parameter needs exactly one feature whose name contains \"") +
                     part + "\", found " + std::to_string(hits.size()));
            return hits[0];
        };
        m.chroma_correction_ = true;
        m.chroma_parameter_ = p;
        m.guiding_ = only("adm3");
        m.guided_ = only("speed_chroma");
    }

    void read_feature_options(Model& m, const json::Value& v) const {
        expect(v, json::Type::array, "feature_opts_dicts");
        if (v.items.size() > m.features_.size())
            fail("feature_opts_dicts has " + std::to_string(v.items.size()) + " entries for " +
                 std::to_string(m.features_.size()) + " features");
        for (size_t i = 0; i < v.items.size(); i++) {
            const std::string where = "feature_opts_dicts[" + std::to_string(i) + "]";
            const json::Value& d = expect(v.items[i], json::Type::object, where);
            unique_keys(d, where);
            auto& opts = m.features_[i].options;
            for (size_t k = 0; k < d.keys.size(); k++) {
                const json::Value& val = d.members[k];
                std::string text;
                switch (val.type) {
                case json::Type::number: text = normalise_option_text(val.text); break;
                case json::Type::boolean: text = val.boolean ? "true" : "false"; break;
                case json::Type::string: text = val.text; break;
                default:
                    fail(where + "." + d.keys[k] + " must be a number, a boolean or a string, found " +
                         json::type_name(val.type) + at(val));
                }
                opts.emplace_back(d.keys[k], text);
            }
        }
    }

    // vmaf_model_feature_overload: the overload's value replaces the model's
    // or is appended, for every feature of that extractor. libvmaf ignores an
    // overload that matches no feature; here it is an error (a typo would
    // otherwise score with the model's options unnoticed).
    void apply_overloads(Model& m) const {
        for (const FeatureOverload& o : options_.overloads) {
            bool used = false;
            for (ModelFeature& f : m.features_) {
                if (f.extractor != o.extractor) continue;
                used = true;
                auto it = std::find_if(f.options.begin(), f.options.end(),
                                       [&](const auto& kv) { return kv.first == o.option; });
                if (it != f.options.end()) it->second = o.value;
                else f.options.emplace_back(o.option, o.value);
            }
            if (!used) {
                std::vector<std::string> names;
                for (const ModelFeature& f : m.features_)
                    if (std::find(names.begin(), names.end(), f.extractor) == names.end()) names.push_back(f.extractor);
                fail("the overload " + o.extractor + "." + o.option + " names no extractor of this model (it uses " +
                     join(names, ", ") + ")");
            }
        }
    }

    const std::string& origin_;
    const LoadOptions& options_;
};

Model Model::from_json(std::string_view text, const std::string& origin, const LoadOptions& options) {
    if (options.name.empty()) throw Error("model " + origin + ": the model's name is empty");
    return ModelReader(origin, options).read(text);
}

Model Model::load_file(const std::string& path, const LoadOptions& options) {
    if (fs::path(path).extension() == ".pkl")
        throw Error("model file " + path + ": .pkl models are not supported (libvmaf removed them too); use the .json "
                    "model");
    return from_json(read_file(path), path, options);
}

Model Model::load_version(const std::string& version, const std::vector<std::string>& dirs,
                          const LoadOptions& options) {
    if (version.empty() || version.find('/') != std::string::npos || version == "." || version == "..")
        throw Error("model version \"" + version + "\" is not a version name (use path= for a file)");
    if (version.size() > 5 && version.compare(version.size() - 5, 5, ".json") == 0)
        throw Error("model version \"" + version + "\": give the name without .json (or use path= for a file)");
    // "vmaf_v1.0.16" names the family: its standard member is the 1080p,
    // 3-picture-heights model (libvmaf itself knows only the full names)
    const std::string file = (version == kV1016Family ? std::string(kV1016Default) : version) + ".json";
    for (const std::string& dir : dirs) {
        const fs::path p = fs::path(dir) / file;
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) return load_file(p.string(), options);
    }
    std::vector<std::string> found;
    for (const std::string& dir : dirs) {
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".json") found.push_back(it->path().stem().string());
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    const std::string where = dirs.empty() ? "no model folder was given" : "not in " + join(dirs, ", ");
    const std::string builtin = is_libvmaf_builtin_version(version) ? " (one of libvmaf's built-in models)" : "";
    throw Error("model version " + version + builtin + ": " + file + " is " + where +
                (found.empty() ? std::string() : "; versions there: " + join(found, ", ")));
}

double Model::predict(const double* v) const {
    const size_t n = features_.size();
    double x[kMaxFeatures];
    for (size_t i = 0; i < n; i++) x[i] = rescale_ ? slopes_[i] * v[i] + intercepts_[i] : v[i];
    if (chroma_correction_) correct_chroma(x);
    double y = svr_.decision(x);
    if (rescale_) y = (y - intercept_) / slope_;
    return clip_.apply(transform_.apply(y));
}

// predict.c's post-processing of the normalised values: the guided value is
// de-normalised and compared with 0; only then is the guiding one
// de-normalised and the correction normalised back.
void Model::correct_chroma(double* x) const {
    auto raw = [&](size_t i) { return rescale_ ? (x[i] - intercepts_[i]) / slopes_[i] : x[i]; };
    if (raw(guided_) != 0.0) return;
    const double corrected = -chroma_parameter_ * raw(guiding_) + chroma_parameter_;
    x[guided_] = rescale_ ? slopes_[guided_] * corrected + intercepts_[guided_] : corrected;
}

std::vector<std::string> model_search_dirs(const std::string& option_dir, const std::string& installed_dir) {
    std::vector<std::string> dirs;
    if (!option_dir.empty()) dirs.push_back(option_dir);
    if (const char* env = std::getenv("SPEEDQA_MODEL_DIR")) {
        const std::string s = env;
        size_t pos = 0;
        for (;;) {
            const size_t colon = s.find(':', pos);
            const std::string d = s.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
            if (!d.empty()) dirs.push_back(d);
            if (colon == std::string::npos) break;
            pos = colon + 1;
        }
    }
    if (!installed_dir.empty()) dirs.push_back(installed_dir);
    return dirs;
}

bool is_libvmaf_builtin_version(std::string_view version) {
    for (const char* v : kBuiltinVersions)
        if (version == v) return true;
    return false;
}

}  // namespace speedqa::model
