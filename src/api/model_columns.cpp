#include "api/model_columns.hpp"

#include "model/model.hpp"
#include "model/model_arg.hpp"

namespace speedqa {
namespace {

class ModelColumn final : public ColumnModel {
public:
    explicit ModelColumn(model::Model m) : model_(std::move(m)) {}
    const std::string& name() const override { return model_.name(); }
    double predict(const double* inputs) const override { return model_.predict(inputs); }

private:
    model::Model model_;
};

// Where version=NAME looks: the caller's folders, $SPEEDQA_MODEL_DIR, the
// installed model folder, then the models/ folder of the source tree (a
// build that was never installed).
std::vector<std::string> search_dirs(const std::vector<std::string>& dirs) {
    std::vector<std::string> out = dirs;
    for (const std::string& d : model::model_search_dirs("", SPEEDQA_INSTALLED_MODEL_DIR)) out.push_back(d);
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
