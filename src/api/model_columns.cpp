#include "api/model_columns.hpp"

#include "core/error.hpp"

namespace speedqa {

ModelColumns load_model_columns(const std::vector<std::string>& model_args, const std::vector<std::string>& dirs) {
    (void)dirs;
    if (!model_args.empty()) throw Error("--model: this build of speedqa cannot load models yet");
    return {};
}

}  // namespace speedqa
