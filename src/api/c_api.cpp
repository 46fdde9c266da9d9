#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>

#include "speedqa/speedqa.h"
#include "speedqa/speedqa.hpp"

struct speedqa_scorer {
    std::unique_ptr<speedqa::Scorer> scorer;
    std::deque<speedqa::FrameScores> queued;
    std::string last_error;
};

namespace {

void set_error(char* err, size_t size, const char* msg) {
    if (err && size) std::snprintf(err, size, "%s", msg);
}

std::vector<std::string> strings(const char* const* v, int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; i++) out.emplace_back(v && v[i] ? v[i] : "");
    return out;
}

template <class Fn>
int guarded(speedqa_scorer* s, Fn&& fn) {
    if (!s) return -1;
    try {
        fn();
        return 0;
    } catch (const std::exception& e) {
        s->last_error = e.what();
        return -1;
    }
}

}  // namespace

extern "C" int speedqa_scorer_create(speedqa_scorer** out, const speedqa_config* c, char* err, size_t err_size) {
    if (!out) return -1;
    *out = nullptr;
    try {
        if (!c) throw speedqa::Error("no configuration given");
        speedqa::VideoFormat f;
        f.width = c->width;
        f.height = c->height;
        f.bitdepth = c->bitdepth;
        switch (c->pixel_format) {
        case 400: f.pix = speedqa::PixelFormat::yuv400; break;
        case 420: f.pix = speedqa::PixelFormat::yuv420; break;
        case 422: f.pix = speedqa::PixelFormat::yuv422; break;
        case 444: f.pix = speedqa::PixelFormat::yuv444; break;
        default: throw speedqa::Error("pixel format must be 400, 420, 422 or 444");
        }
        speedqa::ScorerOptions o;
        o.backend = c->backend ? c->backend : "cpu";
        o.threads = c->threads;
        o.cpumask = c->cpumask;
        o.models = strings(c->models, c->model_count);
        auto s = std::make_unique<speedqa_scorer>();
        s->scorer = std::make_unique<speedqa::Scorer>(f, strings(c->features, c->feature_count), o);
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
                            const uint8_t* const dis_planes[3], const ptrdiff_t dis_strides[3]) {
    return guarded(s, [&] {
        speedqa::Picture r, d;
        for (int i = 0; i < 3; i++) {
            r.plane[i] = ref_planes[i];
            r.stride[i] = ref_strides[i];
            d.plane[i] = dis_planes[i];
            d.stride[i] = dis_strides[i];
        }
        for (speedqa::FrameScores& f : s->scorer->push(r, d)) s->queued.push_back(std::move(f));
    });
}

extern "C" int speedqa_flush(speedqa_scorer* s) {
    return guarded(s, [&] {
        for (speedqa::FrameScores& f : s->scorer->flush()) s->queued.push_back(std::move(f));
    });
}

extern "C" int speedqa_next_frame(speedqa_scorer* s, long long* index, double* scores) {
    if (!s || s->queued.empty()) return 0;
    const speedqa::FrameScores& f = s->queued.front();
    if (index) *index = f.index;
    if (scores) std::memcpy(scores, f.values.data(), f.values.size() * sizeof(double));
    s->queued.pop_front();
    return 1;
}

extern "C" const char* speedqa_last_error(const speedqa_scorer* s) { return s ? s->last_error.c_str() : ""; }

extern "C" void speedqa_scorer_destroy(speedqa_scorer* s) { delete s; }

extern "C" const char* speedqa_version(void) { return speedqa::version(); }
