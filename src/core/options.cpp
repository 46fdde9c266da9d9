#include "core/options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace speedqa {
namespace {

enum class OptType { boolean, integer, real, text };

struct OptionInfo {
    const char* name;
    const char* alias;
    OptType type;
    double min, max;
    bool chroma, temporal;
};

// libvmaf's option tables for speed_chroma and speed_temporal.
constexpr OptionInfo kOptions[] = {
    {"speed_kernelscale", "ks", OptType::real, 0.1, 4.0, true, true},
    {"speed_prescale", "ps", OptType::real, 0.1, 4.0, true, true},
    {"speed_prescale_method", "psm", OptType::text, 0, 0, true, true},
    {"speed_sigma_nn", "snn", OptType::real, 0.1, 2.0, true, true},
    {"speed_nn_floor", "nnf", OptType::real, 0.0, 1.0, true, true},
    {"speed_max_val", "mxv", OptType::real, 0.0, 1000.0, true, true},
    {"speed_weight_var_mode", "wvm", OptType::integer, 0, 6, true, false},
    {"speed_use_ref_diff", "urd", OptType::boolean, 0, 0, false, true},
};

const OptionInfo* find_option(const std::string& key, FeatureKind kind) {
    for (const OptionInfo& o : kOptions) {
        if (key != o.name && key != o.alias) continue;
        if (kind == FeatureKind::chroma ? o.chroma : o.temporal) return &o;
    }
    return nullptr;
}

// libvmaf's dictionary normalises values that scan as a number: read with
// strtof, written back with %g (so "0.123456789" becomes "0.123457").
std::string normalise_value(const std::string& val) {
    float ignore;
    char c;
    if (std::sscanf(val.c_str(), "%f %c", &ignore, &c) != 1) return val;
    char* end = nullptr;
    const double d = std::strtof(val.c_str(), &end);
    if (d == 0 && end == val.c_str()) return val;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
}

std::string format_g(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

[[noreturn]] void bad_value(const std::string& feature, const OptionInfo& o, const std::string& val, const std::string& why) {
    throw Error(feature + ": invalid value \"" + val + "\" for " + o.name + " (" + why + ")");
}

std::string range_text(const OptionInfo& o) {
    return "expected a number in [" + format_g(o.min) + ", " + format_g(o.max) + "]";
}

void apply(FeatureOptions& opts, const std::string& feature, const OptionInfo& o, const std::string& val) {
    const std::string name = o.name;
    switch (o.type) {
    case OptType::boolean:
        if (val == "true") opts.use_ref_diff = true;
        else if (val == "false") opts.use_ref_diff = false;
        else bad_value(feature, o, val, "expected true or false");
        return;
    case OptType::integer: {
        // set_option_int: atoi, 0 only if spelled with a leading '0'
        const int n = std::atoi(val.c_str());
        if ((n == 0 && val[0] != '0') || n < o.min || n > o.max)
            bad_value(feature, o, val, "expected an integer in [" + format_g(o.min) + ", " + format_g(o.max) + "]");
        opts.weight_var_mode = n;
        return;
    }
    case OptType::real: {
        const double n = std::atof(val.c_str());
        if ((n == 0 && val[0] != '0') || n < o.min || n > o.max) bad_value(feature, o, val, range_text(o));
        if (name == "speed_kernelscale") opts.kernelscale = n;
        else if (name == "speed_prescale") opts.prescale = n;
        else if (name == "speed_sigma_nn") opts.sigma_nn = n;
        else if (name == "speed_nn_floor") opts.nn_floor = n;
        else opts.max_val = n;
        return;
    }
    case OptType::text:
        if (val != "nearest" && val != "bilinear" && val != "bicubic" && val != "lanczos4")
            bad_value(feature, o, val, "expected nearest, bilinear, bicubic or lanczos4");
        opts.prescale_method = val;
        return;
    }
}

// The value of an option as libvmaf prints it in a metric name, or "" when
// it equals the default (then it is left out of the name).
std::string non_default_text(const FeatureOptions& v, const OptionInfo& o) {
    const FeatureOptions d;
    const std::string name = o.name;
    if (name == "speed_kernelscale") return v.kernelscale == d.kernelscale ? "" : format_g(v.kernelscale);
    if (name == "speed_prescale") return v.prescale == d.prescale ? "" : format_g(v.prescale);
    if (name == "speed_prescale_method") return v.prescale_method == d.prescale_method ? "" : v.prescale_method;
    if (name == "speed_sigma_nn") return v.sigma_nn == d.sigma_nn ? "" : format_g(v.sigma_nn);
    if (name == "speed_nn_floor") return v.nn_floor == d.nn_floor ? "" : format_g(v.nn_floor);
    if (name == "speed_max_val") return v.max_val == d.max_val ? "" : format_g(v.max_val);
    if (name == "speed_weight_var_mode") return v.weight_var_mode == d.weight_var_mode ? "" : std::to_string(v.weight_var_mode);
    return v.use_ref_diff == d.use_ref_diff ? "" : "true";
}

}  // namespace

exact::PrescaleMethod FeatureOptions::method() const {
    if (prescale_method == "bilinear") return exact::PrescaleMethod::bilinear;
    if (prescale_method == "bicubic") return exact::PrescaleMethod::bicubic;
    if (prescale_method == "lanczos4") return exact::PrescaleMethod::lanczos4;
    return exact::PrescaleMethod::nearest;
}

std::vector<std::string> FeatureSpec::metric_names() const {
    std::vector<const OptionInfo*> applicable;
    for (const OptionInfo& o : kOptions)
        if (kind == FeatureKind::chroma ? o.chroma : o.temporal) applicable.push_back(&o);
    std::sort(applicable.begin(), applicable.end(),
              [](const OptionInfo* a, const OptionInfo* b) { return std::strcmp(a->name, b->name) < 0; });
    std::string suffix;
    for (const OptionInfo* o : applicable) {
        const std::string text = non_default_text(options, *o);
        if (text.empty()) continue;
        suffix += std::string("_") + o->alias;
        if (o->type != OptType::boolean) suffix += "_" + text;
    }
    if (kind == FeatureKind::temporal) return {"speed_temporal" + suffix};
    return {"speed_chroma_u" + suffix, "speed_chroma_v" + suffix, "speed_chroma_uv" + suffix};
}

FeatureSpec parse_feature(const std::string& text) {
    FeatureSpec spec;
    const size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    if (name == "speed_chroma") spec.kind = FeatureKind::chroma;
    else if (name == "speed_temporal") spec.kind = FeatureKind::temporal;
    else throw Error("unknown feature \"" + name + "\" (this tool computes speed_chroma and speed_temporal)");
    if (eq == std::string::npos) return spec;

    const std::string rest = text.substr(eq + 1);
    size_t pos = 0;
    while (pos <= rest.size() && !rest.empty()) {
        const size_t colon = rest.find(':', pos);
        const std::string item = rest.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        const size_t ieq = item.find('=');
        if (item.empty() || ieq == std::string::npos || ieq == 0 || ieq + 1 == item.size() ||
            item.find('=', ieq + 1) != std::string::npos)
            throw Error(name + ": bad option string \"" + item + "\" (expected key=value)");
        const std::string key = item.substr(0, ieq);
        const OptionInfo* o = find_option(key, spec.kind);
        if (!o) throw Error(name + ": unknown option \"" + key + "\"");
        const std::string val = normalise_value(item.substr(ieq + 1));
        apply(spec.options, name, *o, val);
        auto it = std::find_if(spec.given.begin(), spec.given.end(), [&](auto& kv) { return kv.first == o->name; });
        if (it != spec.given.end()) it->second = val;
        else spec.given.emplace_back(o->name, val);
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    return spec;
}

}  // namespace speedqa
