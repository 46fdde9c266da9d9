// A VMAF model: libvmaf's JSON model files (read_json_model.c), the features
// they read, and the per-frame score exactly as libvmaf's predict.c computes
// it (normalisation, nu-SVR with the RBF kernel, de-normalisation, score
// transform, clip). Features are known by libvmaf's provided-feature names
// only; the caller computes them with the listed extractors and options.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/svr.hpp"
#include "model/transform.hpp"

namespace speedqa::model {

// version=vmaf_v1.0.16 (the family) loads its standard member.
constexpr const char* kV1016Family = "vmaf_v1.0.16";
constexpr const char* kV1016Default = "vmaf_v1.0.16_3d0h";

// libvmaf's limit on a model's features (read_json_model.c).
constexpr int kMaxFeatures = 64;

// One feature a model reads.
struct ModelFeature {
    std::string provided;   // libvmaf's provided-feature name, e.g. "VMAF_integer_feature_adm3_score"
    std::string extractor;  // the extractor that computes it, as --feature names it: "adm"
    // The extractor's options, as libvmaf's dictionary holds them: the text
    // of feature_opts_dicts (JSON numbers normalised by strtof and %g, "1.0"
    // -> "1"; booleans "true"/"false"; strings as written), then the
    // --model overloads (an overload replaces a value in place or appends).
    std::vector<std::pair<std::string, std::string>> options;
};

// vmaf's `--model ...:vif.vif_enhn_gain_limit=1.0`: sets one option of every
// feature of the model that the extractor computes.
struct FeatureOverload {
    std::string extractor;  // "vif"
    std::string option;     // "vif_enhn_gain_limit"
    std::string value;      // as vmaf's dictionary holds it (numbers normalised: "1")
};

// How a model is loaded: what --model says besides path= or version=.
struct LoadOptions {
    std::string name = "vmaf";       // the score's name (name=)
    bool disable_clip = false;       // ignore score_clip (disable_clip)
    bool enable_transform = false;   // apply a score_transform the file leaves disabled (enable_transform)
    std::vector<FeatureOverload> overloads;
};

class Model {
public:
    // Reads a model file. Anything malformed or unsupported (not JSON, a
    // missing or mistyped key, an unknown model_type, a bootstrap model
    // collection, a feature speedqa does not compute, a number out of the
    // range of a double, a bad libsvm text, an overload of an extractor the
    // model does not use) throws speedqa::Error with one line naming the file.
    static Model load_file(const std::string& path, const LoadOptions& options = {});
    // Finds `version`.json in the first of `dirs` that has it (the caller
    // picks the folders, e.g. model_search_dirs()) and loads it.
    static Model load_version(const std::string& version, const std::vector<std::string>& dirs,
                              const LoadOptions& options = {});
    // The same from JSON text in memory; `origin` names it in messages.
    static Model from_json(std::string_view text, const std::string& origin, const LoadOptions& options = {});

    const std::string& name() const { return name_; }
    const std::string& origin() const { return origin_; }
    const std::vector<ModelFeature>& features() const { return features_; }

    // The score of one frame from its feature values, in features() order,
    // == libvmaf's. Thread-safe; allocates nothing.
    double predict(const double* feature_values) const;

private:
    friend class ModelReader;
    Model() = default;
    void correct_chroma(double* x) const;

    std::string name_, origin_;
    std::vector<ModelFeature> features_;
    bool rescale_ = false;  // norm_type linear_rescale (else none)
    double slope_ = 0, intercept_ = 0;            // of the score
    std::vector<double> slopes_, intercepts_;     // of each feature
    // chroma_correction_parameter (v1.0.16): where the speed_chroma feature
    // is 0, it is replaced by parameter * (1 - adm3) before the SVR.
    bool chroma_correction_ = false;
    double chroma_parameter_ = 0;
    size_t guiding_ = 0, guided_ = 0;  // indices of the adm3 and speed_chroma features
    Svr svr_;
    ScoreTransform transform_;
    ScoreClip clip_;
};

// The folders load_version searches, in order: `option_dir` (a command-line
// option; "" for none), each folder of the environment variable
// SPEEDQA_MODEL_DIR (':'-separated), then `installed_dir` ("" for none).
std::vector<std::string> model_search_dirs(const std::string& option_dir, const std::string& installed_dir);

// libvmaf's built-in model versions (model.c), for messages: a version
// that is one of them but is not in the folders is named as such.
bool is_libvmaf_builtin_version(std::string_view version);

}  // namespace speedqa::model
