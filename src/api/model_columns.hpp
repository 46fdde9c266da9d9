// VMAF models as columns of the score table: each --model argument loaded
// (src/model), the features it needs as requests, and its prediction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/frame_assembler.hpp"
#include "core/option_table.hpp"

namespace speedqa {

struct ModelInputRequest {
    FeatureRequest feature;  // the feature and the options the model gives it
    std::string provided;    // which of its outputs (libvmaf's provided-feature name)
};

struct ModelRequest {
    std::vector<ModelInputRequest> inputs;  // in the model's feature order
};

struct ModelColumns {
    std::vector<ModelRequest> requests;                 // per model
    std::vector<std::unique_ptr<ColumnModel>> columns;  // per model, same order
};

// Loads every model of `model_args` (vmaf's --model strings); `dirs` are
// searched for version=NAME before $SPEEDQA_MODEL_DIR and the installed
// models. Throws Error naming the model and the problem.
ModelColumns load_model_columns(const std::vector<std::string>& model_args, const std::vector<std::string>& dirs);

}  // namespace speedqa
