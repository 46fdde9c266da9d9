#include "model/model_arg.hpp"

#include "core/error.hpp"
#include "core/option_table.hpp"

namespace speedqa::model {
namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
    throw Error("model \"" + text + "\": " + why);
}

bool flag_value(const std::string& text, const std::string& key, const std::string* value) {
    if (!value || *value == "true") return true;
    if (*value == "false") return false;
    bad(text, key + "=" + *value + ": expected true or false");
}

}  // namespace

ModelArg parse_model_arg(const std::string& text) {
    ModelArg arg;
    bool has_path = false, has_version = false;
    size_t pos = 0;
    for (;;) {
        const size_t colon = text.find(':', pos);
        const std::string item = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        std::string value_text;
        const std::string* value = nullptr;
        if (eq != std::string::npos) {
            value_text = item.substr(eq + 1);
            value = &value_text;
            if (value_text.find('=') != std::string::npos) bad(text, "\"" + item + "\" has more than one '='");
        }
        if (key == "disable_clip") {
            arg.options.disable_clip = flag_value(text, key, value);
        } else if (key == "enable_transform") {
            arg.options.enable_transform = flag_value(text, key, value);
        } else {
            // every other item is key=value, as in vmaf
            if (!value) bad(text, "bad option string \"" + item + "\" (expected key=value)");
            if (value->empty()) bad(text, key + "= needs a value");
            if (key == "path") {
                arg.path = *value;
                has_path = true;
            } else if (key == "version") {
                arg.version = *value;
                has_version = true;
            } else if (key == "name") {
                arg.options.name = *value;
            } else {
                const size_t dot = key.find('.');
                if (dot == std::string::npos || dot == 0 || dot + 1 == key.size() ||
                    key.find('.', dot + 1) != std::string::npos)
                    bad(text, "unknown key \"" + key +
                                  "\" (expected path, version, name, disable_clip, enable_transform or "
                                  "EXTRACTOR.OPTION, e.g. vif.vif_enhn_gain_limit)");
                // vmaf_feature_dictionary_set: numbers normalised as libvmaf's dictionary does
                arg.options.overloads.push_back({key.substr(0, dot), key.substr(dot + 1), normalise_option_text(*value)});
            }
        }
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    if (has_path && has_version) bad(text, "give path= or version=, not both");
    if (!has_path && !has_version) bad(text, "no path= or version=");
    return arg;
}

Model load_model(const ModelArg& arg, const std::vector<std::string>& dirs) {
    if (!arg.version.empty()) return Model::load_version(arg.version, dirs, arg.options);
    return Model::load_file(arg.path, arg.options);
}

}  // namespace speedqa::model
