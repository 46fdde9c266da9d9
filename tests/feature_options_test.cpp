// Every numeric option of every feature (the registry's tables, so features
// to come are covered as they are added) refuses NaN, infinities, values out
// of its range and text that is not a number, with one line naming the
// feature and the option: from --feature strings and from a model file's
// feature_opts_dicts alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/option_table.hpp"
#include "features/registry.hpp"
#include "speedqa/speedqa.hpp"

namespace speedqa {
namespace {

namespace fs = std::filesystem;

const VideoFormat kFormat{1920, 1080, PixelFormat::yuv420, 8};

bool numeric(const OptionDef& d) { return d.type == OptionType::integer || d.type == OptionType::real; }

std::string g17(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Values just out of the option's range, on each side that has one, as
// libvmaf's dictionary would hold them (%g of a float: a value 1e-7 past a
// bound could round back onto it, so these are well past).
std::vector<std::string> out_of_range(const OptionDef& d) {
    std::vector<std::string> out;
    for (const double v : {d.min - std::max(1.0, std::fabs(d.min)), d.max + std::max(1.0, std::fabs(d.max))}) {
        const double kept = std::atof(normalise_option_text(g17(v)).c_str());
        if (std::isfinite(v) && (kept < d.min || kept > d.max)) out.push_back(g17(v));
    }
    if (d.type == OptionType::integer) {
        out.push_back(g17(d.min - 1));
        out.push_back(g17(d.max + 1));
        if (d.min < d.max) out.push_back(g17(d.min + 0.5));  // not an integer
    }
    return out;
}

// What each numeric option must refuse.
std::vector<std::string> bad_values(const OptionDef& d) {
    std::vector<std::string> v = {"nan",  "-nan",  "NaN",    "nan(0x1)", "inf", "-inf", "infinity", "-Infinity",
                                  "1e999", "-1e999", "abc",  "1x",       "0x",  "--1",  " ",        "1 2"};
    for (std::string& s : out_of_range(d)) v.push_back(std::move(s));
    return v;
}

// The message names the feature and the option, on one line, and says the
// value is what is wrong (so that no other failure passes for this one).
void expect_refusal(const std::string& msg, const std::string& feature, const std::string& option,
                    const std::string& value) {
    SCOPED_TRACE(feature + " " + option + "=" + value);
    ASSERT_NE(msg, "") << "accepted";
    EXPECT_NE(msg.find(feature + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(option), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("invalid value") != std::string::npos || msg.find("bad option string") != std::string::npos)
        << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

std::string scorer_error(const std::vector<std::string>& features, const std::vector<std::string>& models = {}) {
    ScorerOptions o;
    o.models = models;
    try {
        Scorer s(kFormat, features, o);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// The option tables are not empty, and each numeric option takes a value in
// its range (the refusals below are of the value, not of the option).
TEST(FeatureOptions, EveryNumericOptionTakesAValueInItsRange) {
    int options = 0;
    for (const FeatureDef* def : all_features()) {
        for (const OptionDef& d : def->options) {
            if (!numeric(d)) continue;
            OptionValues v(def->name, def->options);
            EXPECT_NO_THROW(v.set(d.name, g17(d.min))) << def->name << " " << d.name;
            EXPECT_NO_THROW(v.set(d.name, g17(d.max))) << def->name << " " << d.name;
            options++;
        }
    }
    EXPECT_GE(options, 30);
    std::printf("[options] %zu features, %d numeric options\n", all_features().size(), options);
}

TEST(FeatureOptions, BadValuesAreRefusedForEveryNumericOptionOfEveryFeature) {
    int refused = 0;
    for (const FeatureDef* def : all_features())
        for (const OptionDef& d : def->options) {
            if (!numeric(d)) continue;
            for (const std::string& value : bad_values(d)) {
                expect_refusal(scorer_error({std::string(def->name) + "=" + d.name + "=" + value}), def->name, d.name,
                               value);
                refused++;
            }
            // an empty value is a malformed option string
            expect_refusal(scorer_error({std::string(def->name) + "=" + d.name + "="}), def->name, d.name, "");
            refused++;
        }
    std::printf("[options] %d bad --feature values refused with one line naming the feature and option\n", refused);
}

// A model that reads the feature's first output, with `opts` (a JSON object's
// members) as its feature_opts_dicts entry.
std::string model_json(const std::string& provided, const std::string& opts) {
    return R"({"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none", "feature_names": [")" + provided +
           R"("], "feature_opts_dicts": [{)" + opts + R"(}], "model": "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\n)"
           R"(nr_class 2\ntotal_sv 1\nrho -1\nSV\n1 1:0.5 \n"}})";
}

class ModelFile {
public:
    explicit ModelFile(const std::string& text)
        : path_(fs::temp_directory_path() / ("speedqa_options_" + std::to_string(::getpid()) + ".json")) {
        std::ofstream(path_) << text;
    }
    ~ModelFile() { fs::remove(path_); }
    std::string arg() const { return "path=" + path_.string(); }

private:
    fs::path path_;
};

TEST(FeatureOptions, BadValuesInAModelsFeatureOptionsAreRefused) {
    int refused = 0;
    for (const FeatureDef* def : all_features()) {
        const std::string provided = make_feature(*def, kFormat, {})->outputs().at(0).provided;
        // the model works with the option at a value in range
        {
            ModelFile m(model_json(provided, ""));
            ASSERT_EQ(scorer_error({}, {m.arg()}), "") << def->name;
        }
        for (const OptionDef& d : def->options) {
            if (!numeric(d)) continue;
            // as JSON strings, which the dictionary keeps as written, and as
            // JSON numbers, which it normalises (1e999 becomes inf)
            std::vector<std::string> values = {"\"nan\"", "\"-nan\"", "\"inf\"", "\"-inf\"", "\"abc\"", "\"\""};
            values.push_back("1e999");
            values.push_back("-1e999");
            for (const std::string& v : out_of_range(d)) values.push_back(v);
            for (const std::string& v : values) {
                ModelFile m(model_json(provided, std::string(1, '"').append(d.name).append("\": ").append(v)));
                const std::string msg = scorer_error({}, {m.arg()});
                expect_refusal(msg, def->name, d.name, v);
                EXPECT_EQ(msg.rfind("model vmaf: ", 0), 0u) << "names the model: " << msg;
                refused++;
            }
        }
    }
    std::printf("[options] %d bad feature_opts_dicts values refused with one line naming the model, feature and option\n",
                refused);
}

}  // namespace
}  // namespace speedqa
