#include <cstdio>
#include <cstring>
#include <exception>

#include "core/error.hpp"
#include "speedqa/speedqa.h"
#include "speedqa/speedqa.hpp"

struct speedqa_scorer {
    std::unique_ptr<speedqa::Scorer> scorer;
    std::string last_error;
};

namespace {

void set_error(char* err, size_t size, const char* msg) {
    if (err && size) std::snprintf(err, size, "%s", msg);
}

}  // namespace

extern "C" int speedqa_scorer_create(speedqa_scorer** out, int width, int height, int pixel_format, int bitdepth,
                                     const char* const* features, int feature_count, const char* backend, int threads,
                                     unsigned cpumask, char* err, size_t err_size) {
    if (!out) return -1;
    *out = nullptr;
    try {
        speedqa::VideoFormat f;
        f.width = width;
        f.height = height;
        f.bitdepth = bitdepth;
        switch (pixel_format) {
        case 400: f.pix = speedqa::PixelFormat::yuv400; break;
        case 420: f.pix = speedqa::PixelFormat::yuv420; break;
        case 422: f.pix = speedqa::PixelFormat::yuv422; break;
        case 444: f.pix = speedqa::PixelFormat::yuv444; break;
        default: throw speedqa::Error("pixel format must be 400, 420, 422 or 444");
        }
        std::vector<std::string> feats;
        for (int i = 0; i < feature_count; i++) feats.emplace_back(features[i] ? features[i] : "");
        speedqa::ScorerOptions o;
        o.backend = backend ? backend : "cpu";
        o.threads = threads;
        o.cpumask = cpumask;
        auto s = std::make_unique<speedqa_scorer>();
        s->scorer = std::make_unique<speedqa::Scorer>(f, feats, o);
        *out = s.release();
        return 0;
    } catch (const std::exception& e) {
        set_error(err, err_size, e.what());
        return -1;
    }
}

extern "C" int speedqa_metric_count(const speedqa_scorer* s) {
    return s ? static_cast<int>(s->scorer->metric_names().size()) : 0;
}

extern "C" const char* speedqa_metric_name(const speedqa_scorer* s, int index) {
    if (!s || index < 0 || index >= speedqa_metric_count(s)) return nullptr;
    return s->scorer->metric_names()[static_cast<size_t>(index)].c_str();
}

extern "C" int speedqa_push(speedqa_scorer* s, const uint8_t* const ref_planes[3], const ptrdiff_t ref_strides[3],
                            const uint8_t* const dis_planes[3], const ptrdiff_t dis_strides[3], double* scores) {
    if (!s) return -1;
    try {
        speedqa::Picture r, d;
        for (int i = 0; i < 3; i++) {
            r.plane[i] = ref_planes[i];
            r.stride[i] = ref_strides[i];
            d.plane[i] = dis_planes[i];
            d.stride[i] = dis_strides[i];
        }
        const std::vector<double> v = s->scorer->push(r, d);
        std::memcpy(scores, v.data(), v.size() * sizeof(double));
        return 0;
    } catch (const std::exception& e) {
        s->last_error = e.what();
        return -1;
    }
}

extern "C" const char* speedqa_last_error(const speedqa_scorer* s) { return s ? s->last_error.c_str() : ""; }

extern "C" void speedqa_scorer_destroy(speedqa_scorer* s) { delete s; }

extern "C" const char* speedqa_version(void) { return speedqa::version(); }
