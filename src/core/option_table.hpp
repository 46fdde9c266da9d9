// Feature options the way libvmaf defines them: one table per feature (name,
// type, default, range, alias, whether it changes the metric names) drives
// parsing, range checks and the option suffix of the output names, so that
// every feature gets them the same way.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace speedqa {

enum class OptionType { boolean, integer, real, text };

struct OptionDef {
    const char* name = nullptr;
    OptionType type = OptionType::real;
    double def = 0;                        // default of boolean (0 or 1), integer and real options
    const char* def_text = "";             // default of text options
    double min = 0, max = 0;               // integer and real: libvmaf's inclusive range
    const char* alias = nullptr;           // libvmaf's alias: the option's key in metric names
    bool feature_param = true;             // VMAF_OPT_FLAG_FEATURE_PARAM: a non-default value shows in the names
    const char* const* choices = nullptr;  // text: the accepted values, nullptr-terminated (nullptr: any text)
    const char* help = "";
};

// The values of one feature's options, each at its default until set.
class OptionValues {
public:
    OptionValues() = default;
    OptionValues(std::string feature, std::span<const OptionDef> defs);

    const std::string& feature() const { return feature_; }
    std::span<const OptionDef> defs() const { return defs_; }

    // Sets an option from its text as libvmaf's --feature or a model's
    // feature_opts_dicts give it: the text is first normalised as libvmaf's
    // dictionary does (a number is read as a float and printed with %g), then
    // parsed as libvmaf's option setters do. Unlike libvmaf, which ignores
    // unknown keys and aliases silently (and so scores with the defaults),
    // an unknown key, an alias, NaN, a value out of range or a value that is
    // not of the option's type throws Error with one line naming the feature
    // and the full option name.
    void set(const std::string& key, const std::string& text);

    bool flag(std::string_view name) const;
    int integer(std::string_view name) const;
    double real(std::string_view name) const;
    const std::string& text(std::string_view name) const;
    // Whether the value equals the default (as libvmaf's option_is_default).
    bool is_default(std::string_view name) const;

    // libvmaf's metric-name suffix: the non-default feature parameters, in
    // alphabetical order of their names, as "_alias" (booleans) or
    // "_alias_value" (%d, %g or the text).
    std::string suffix() const;
    // "name" or "name=opt=val:opt=val" with every non-default option by its
    // full name, alphabetically: two requests with the same canonical text
    // compute the same values.
    std::string canonical() const;

private:
    struct Value {
        double num = 0;
        std::string text;
    };
    size_t index_of(std::string_view name) const;  // throws std::logic_error for a name the table lacks
    std::string value_text(size_t i) const;

    std::string feature_;
    std::span<const OptionDef> defs_;
    std::vector<Value> values_;
};

// A --feature argument split up: "adm=adm_csf_mode=1:adm_min_val=0.5" ->
// {"adm", {{"adm_csf_mode", "1"}, {"adm_min_val", "0.5"}}}. Throws Error on
// a malformed option string.
struct FeatureRequest {
    std::string name;
    std::vector<std::pair<std::string, std::string>> options;
};
FeatureRequest parse_feature_request(const std::string& text);

// libvmaf's dictionary normalisation of a value: text that scans as a number
// is read with strtof and printed with %g ("0.123456789" -> "0.123457").
std::string normalise_option_text(const std::string& text);

// libvmaf's short name of a provided feature (feature/alias.c):
// "VMAF_integer_feature_adm2_score" -> "integer_adm2"; others unchanged.
std::string vmaf_feature_alias(const std::string& provided_name);

// The name libvmaf prints for a provided feature computed with `options`:
// its alias followed by the options' suffix.
std::string vmaf_metric_name(const std::string& provided_name, const OptionValues& options);

}  // namespace speedqa
