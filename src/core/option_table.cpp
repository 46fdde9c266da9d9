#include "core/option_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/error.hpp"

namespace speedqa {
namespace {

std::string format_g(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string range_text(const OptionDef& d) {
    if (d.type == OptionType::integer)
        return "an integer in [" + std::to_string(static_cast<long long>(d.min)) + ", " +
               std::to_string(static_cast<long long>(d.max)) + "]";
    return "a number in [" + format_g(d.min) + ", " + format_g(d.max) + "]";
}

std::string choices_text(const OptionDef& d) {
    std::string s;
    for (const char* const* c = d.choices; *c; c++) s += (s.empty() ? "" : ", ") + std::string(*c);
    return s;
}

// Reads the whole of `text` as a number (after libvmaf's normalisation);
// false where anything else is there.
bool read_number(const std::string& text, double& out) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    out = std::strtod(text.c_str(), &end);
    return end && *end == '\0' && end != text.c_str();
}

}  // namespace

std::string normalise_option_text(const std::string& text) {
    // dict.c: isnumeric() is sscanf("%f %c") == 1; then strtof and %g
    float ignore;
    char c;
    if (std::sscanf(text.c_str(), "%f %c", &ignore, &c) != 1) return text;
    char* end = nullptr;
    const double d = std::strtof(text.c_str(), &end);
    if (d == 0 && end == text.c_str()) return text;
    return format_g(d);
}

OptionValues::OptionValues(std::string feature, std::span<const OptionDef> defs)
    : feature_(std::move(feature)), defs_(defs), values_(defs.size()) {
    for (size_t i = 0; i < defs_.size(); i++) {
        values_[i].num = defs_[i].def;
        values_[i].text = defs_[i].def_text ? defs_[i].def_text : "";
    }
}

size_t OptionValues::index_of(std::string_view name) const {
    for (size_t i = 0; i < defs_.size(); i++)
        if (name == defs_[i].name) return i;
    throw std::logic_error(feature_ + ": no option named " + std::string(name) + " in its table");
}

void OptionValues::set(const std::string& key, const std::string& raw_text) {
    size_t i = defs_.size();
    for (size_t j = 0; j < defs_.size(); j++)
        if (key == defs_[j].name) i = j;
    if (i == defs_.size()) {
        for (const OptionDef& d : defs_)
            if (d.alias && key == d.alias)
                throw Error(feature_ + ": \"" + key + "\" is libvmaf's short name of option " + d.name +
                            " in metric names; libvmaf ignores it as an option (and scores with the default), so "
                            "speedqa refuses it: write " + d.name + "=" + raw_text);
        std::string known;
        for (const OptionDef& d : defs_) known += (known.empty() ? "" : ", ") + std::string(d.name);
        throw Error(feature_ + ": unknown option \"" + key + "\" (options: " + (known.empty() ? "none" : known) + ")");
    }
    const OptionDef& d = defs_[i];
    const std::string text = normalise_option_text(raw_text);
    auto bad = [&](const std::string& expected) -> Error {
        return Error(feature_ + ": invalid value \"" + raw_text + "\" for " + d.name + " (expected " + expected + ")");
    };
    switch (d.type) {
    case OptionType::boolean:
        if (text == "true") values_[i].num = 1;
        else if (text == "false") values_[i].num = 0;
        else throw bad("true or false");
        return;
    case OptionType::integer: {
        double n = 0;
        if (!read_number(text, n) || !std::isfinite(n) || n != std::floor(n) || n < d.min || n > d.max)
            throw bad(range_text(d));
        values_[i].num = n;
        return;
    }
    case OptionType::real: {
        double n = 0;
        // libvmaf reads the normalised text with atof; NaN passes its range
        // checks there, and reaches float-to-int conversions: refused here
        if (!read_number(text, n) || std::isnan(n) || n < d.min || n > d.max) throw bad(range_text(d));
        values_[i].num = std::atof(text.c_str());
        return;
    }
    case OptionType::text:
        if (d.choices) {
            bool ok = false;
            for (const char* const* c = d.choices; *c; c++) ok = ok || text == *c;
            if (!ok) throw bad("one of " + choices_text(d));
        }
        values_[i].text = text;
        return;
    }
}

bool OptionValues::flag(std::string_view name) const { return values_[index_of(name)].num != 0; }
int OptionValues::integer(std::string_view name) const { return static_cast<int>(values_[index_of(name)].num); }
double OptionValues::real(std::string_view name) const { return values_[index_of(name)].num; }
const std::string& OptionValues::text(std::string_view name) const { return values_[index_of(name)].text; }

bool OptionValues::is_default(std::string_view name) const {
    const size_t i = index_of(name);
    const OptionDef& d = defs_[i];
    if (d.type == OptionType::text) return values_[i].text == (d.def_text ? d.def_text : "");
    return values_[i].num == d.def;
}

std::string OptionValues::value_text(size_t i) const {
    const OptionDef& d = defs_[i];
    switch (d.type) {
    case OptionType::boolean: return values_[i].num != 0 ? "true" : "false";
    case OptionType::integer: return std::to_string(static_cast<int>(values_[i].num));
    case OptionType::real: return format_g(values_[i].num);
    default: return values_[i].text;
    }
}

std::string OptionValues::suffix() const {
    std::vector<size_t> order;
    for (size_t i = 0; i < defs_.size(); i++)
        if (defs_[i].feature_param && !is_default(defs_[i].name)) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::strcmp(defs_[a].name, defs_[b].name) < 0; });
    std::string s;
    for (size_t i : order) {
        const OptionDef& d = defs_[i];
        s += std::string("_") + (d.alias ? d.alias : d.name);
        if (d.type != OptionType::boolean) s += "_" + value_text(i);
    }
    return s;
}

std::string OptionValues::canonical() const {
    std::vector<size_t> order;
    for (size_t i = 0; i < defs_.size(); i++)
        if (!is_default(defs_[i].name)) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::strcmp(defs_[a].name, defs_[b].name) < 0; });
    std::string s = feature_;
    for (size_t k = 0; k < order.size(); k++)
        s += (k == 0 ? "=" : ":") + std::string(defs_[order[k]].name) + "=" + value_text(order[k]);
    return s;
}

FeatureRequest parse_feature_request(const std::string& text) {
    FeatureRequest r;
    const size_t eq = text.find('=');
    r.name = text.substr(0, eq);
    if (r.name.empty()) throw Error("feature \"" + text + "\": no feature name");
    if (eq == std::string::npos) return r;
    const std::string rest = text.substr(eq + 1);
    size_t pos = 0;
    for (;;) {
        const size_t colon = rest.find(':', pos);
        const std::string item = rest.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        const size_t ieq = item.find('=');
        if (item.empty() || ieq == std::string::npos || ieq == 0 || ieq + 1 == item.size() ||
            item.find('=', ieq + 1) != std::string::npos)
            throw Error(r.name + ": bad option string \"" + item + "\" (expected key=value)");
        r.options.emplace_back(item.substr(0, ieq), item.substr(ieq + 1));
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    return r;
}

std::string vmaf_feature_alias(const std::string& provided_name) {
    // feature/alias.c of libvmaf master
    static const std::pair<const char*, const char*> kAliases[] = {
        {"VMAF_feature_adm2_score", "adm2"},
        {"VMAF_feature_aim_score", "aim"},
        {"VMAF_feature_adm3_score", "adm3"},
        {"VMAF_feature_adm_scale0_score", "adm_scale0"},
        {"VMAF_feature_adm_scale1_score", "adm_scale1"},
        {"VMAF_feature_adm_scale2_score", "adm_scale2"},
        {"VMAF_feature_adm_scale3_score", "adm_scale3"},
        {"VMAF_feature_motion_score", "motion"},
        {"VMAF_feature_motion2_score", "motion2"},
        {"VMAF_feature_motion3_score", "motion3"},
        {"VMAF_feature_vif_scale0_score", "vif_scale0"},
        {"VMAF_feature_vif_scale1_score", "vif_scale1"},
        {"VMAF_feature_vif_scale2_score", "vif_scale2"},
        {"VMAF_feature_vif_scale3_score", "vif_scale3"},
        {"VMAF_integer_feature_adm2_score", "integer_adm2"},
        {"VMAF_integer_feature_aim_score", "integer_aim"},
        {"VMAF_integer_feature_adm3_score", "integer_adm3"},
        {"VMAF_integer_feature_motion_score", "integer_motion"},
        {"VMAF_integer_feature_motion2_score", "integer_motion2"},
        {"VMAF_integer_feature_motion3_score", "integer_motion3"},
        {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
        {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
        {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
        {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
        {"Cambi_feature_cambi_score", "cambi"},
        {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
        {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
        {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
        {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
    };
    for (const auto& [name, alias] : kAliases)
        if (provided_name == name) return alias;
    return provided_name;
}

std::string vmaf_metric_name(const std::string& provided_name, const OptionValues& options) {
    return vmaf_feature_alias(provided_name) + options.suffix();
}

}  // namespace speedqa
