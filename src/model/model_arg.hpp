// One --model argument, parsed as vmaf's cli_parse.c parses it:
//   path=FILE | version=NAME, name=NAME, disable_clip[=true|false],
//   enable_transform[=true|false], EXTRACTOR.OPTION=VALUE (feature overloads),
// ':'-separated, e.g. "version=vmaf_v0.6.1neg:name=neg:vif.vif_enhn_gain_limit=1.0".
#pragma once

#include <string>
#include <vector>

#include "model/model.hpp"

namespace speedqa::model {

// vmaf's model when none is given (and --no_prediction is not).
constexpr const char* kDefaultVersion = "vmaf_v0.6.1";

struct ModelArg {
    std::string path;     // path=
    std::string version;  // version=: NAME.json in the model folders
    LoadOptions options;  // name=, disable_clip, enable_transform, overloads in order
};

// Throws speedqa::Error (one line) where vmaf would stop with its usage, and
// also where vmaf would silently do something else than asked: both path=
// and version= (vmaf takes the version), neither, an empty value, a flag
// value other than true or false (vmaf ignores it), an overload key that is
// not EXTRACTOR.OPTION (vmaf keeps the part before a second '.'), a second
// '=' in an item (vmaf drops the rest).
ModelArg parse_model_arg(const std::string& text);

// Loads what the argument names: the file, or the version from `dirs`.
Model load_model(const ModelArg& arg, const std::vector<std::string>& dirs);

}  // namespace speedqa::model
