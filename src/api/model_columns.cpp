#include "api/model_columns.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>

#include "model/model.hpp"
#include "model/model_arg.hpp"

namespace speedqa {
namespace {

namespace fs = std::filesystem;

class ModelColumn final : public ColumnModel {
public:
    explicit ModelColumn(model::Model m) : model_(std::move(m)) {}
    const std::string& name() const override { return model_.name(); }
    double predict(const double* inputs) const override { return model_.predict(inputs); }

private:
    model::Model model_;
};

// The folder of the file this code runs from: libspeedqa.so, or the program
// the static library is linked into ("" where neither can be told).
fs::path code_folder() {
    Dl_info info{};
    fs::path file;
    std::error_code ec;
    if (dladdr(reinterpret_cast<const void*>(&code_folder), &info) && info.dli_fname && info.dli_fname[0] == '/')
        file = info.dli_fname;
    else
        file = fs::read_symlink("/proc/self/exe", ec);
    if (file.empty()) return {};
    const fs::path real = fs::weakly_canonical(file, ec);
    return (ec ? file : real).parent_path();
}

// The installed model folder, found first from where the library or the
// program lies (so that an install made with `cmake --install --prefix`, or
// moved, finds its own models), then at the prefix the build was configured for.
std::vector<std::string> installed_dirs() {
    std::vector<std::string> out;
    const fs::path here = code_folder();
    if (!here.empty())
        for (const char* relative : {SPEEDQA_MODEL_DIR_FROM_LIBDIR, SPEEDQA_MODEL_DIR_FROM_BINDIR})
            out.push_back((here / relative).lexically_normal().string());
    out.push_back(SPEEDQA_INSTALLED_MODEL_DIR);
    return out;
}

// Where version=NAME looks: the caller's folders, $SPEEDQA_MODEL_DIR, the
// installed model folder, then the models/ folder of the source tree (a
// build that was never installed).
std::vector<std::string> search_dirs(const std::vector<std::string>& dirs) {
    std::vector<std::string> out = dirs;
    for (const std::string& d : model::model_search_dirs("", "")) out.push_back(d);
    for (const std::string& d : installed_dirs())
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    out.push_back(SPEEDQA_SOURCE_MODEL_DIR);
    return out;
}

}  // namespace

ModelColumns load_model_columns(const std::vector<std::string>& model_args, const std::vector<std::string>& dirs) {
    ModelColumns out;
    if (model_args.empty()) return out;
    const std::vector<std::string> where = search_dirs(dirs);
    for (const std::string& arg : model_args) {
        model::Model m = model::load_model(model::parse_model_arg(arg), where);
        ModelRequest req;
        for (const model::ModelFeature& f : m.features()) req.inputs.push_back({{f.extractor, f.options}, f.provided});
        out.requests.push_back(std::move(req));
        out.columns.push_back(std::make_unique<ModelColumn>(std::move(m)));
    }
    return out;
}

}  // namespace speedqa
