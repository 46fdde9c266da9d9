// libvmaf model files (JSON: the SVM, normalisation, score transform and
// feature options) through the model reader, and a prediction from feature
// values for every model it accepts. A malformed or unsupported model must
// be refused with speedqa::Error.
#include <cstring>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "fuzz_common.hpp"
#include "model/model.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    speedqa::fuzz::limit_memory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > (1 << 20)) return 0;
    using speedqa::model::Model;
    try {
        const Model m = Model::from_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
        // feature values from the input's bytes: a prediction of any values
        // must not fault (its value may be anything, NaN included)
        std::vector<double> x(m.features().size());
        for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<double>(data[i % size]) / 16.0;
        volatile double score = m.predict(x.data());
        (void)score;
    } catch (const speedqa::Error&) {
    }
    return 0;
}
