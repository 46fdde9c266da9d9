#include <cstring>

#include "api/engine_factory.hpp"
#include "core/error.hpp"
#include "speedqa/speedqa.hpp"
#include "version.hpp"

namespace speedqa {

struct Scorer::Impl {
    VideoFormat format;
    std::vector<FeatureSpec> features;
    std::vector<std::string> names;
    std::unique_ptr<Engine> engine;
    int metrics = 0;
    bool temporal = false;
    long long next_index = 0;
    // Luma of the last pair pushed, kept for speed_temporal.
    std::vector<uint8_t> prev_ref_luma, prev_dis_luma;
    Picture prev_ref, prev_dis;

    void keep_previous(const Picture& ref, const Picture& dis) {
        if (!temporal) return;
        const size_t row = static_cast<size_t>(format.stored_w(0)) * format.bytes_per_sample();
        auto copy = [&](const Picture& p, std::vector<uint8_t>& buf, Picture& out) {
            buf.resize(row * static_cast<size_t>(format.height));
            for (int y = 0; y < format.height; y++) std::memcpy(buf.data() + row * y, p.plane[0] + p.stride[0] * y, row);
            out = Picture{};
            out.plane[0] = buf.data();
            out.stride[0] = static_cast<ptrdiff_t>(row);
        };
        copy(ref, prev_ref_luma, prev_ref);
        copy(dis, prev_dis_luma, prev_dis);
    }
};

Scorer::Scorer(const VideoFormat& format, const std::vector<std::string>& features, const ScorerOptions& options)
    : impl_(std::make_unique<Impl>()) {
    if (features.empty()) throw Error("no feature requested (speed_chroma and/or speed_temporal)");
    if (format.width <= 0 || format.height <= 0) throw Error("video width and height must be positive");
    if (format.bitdepth != 8 && format.bitdepth != 10 && format.bitdepth != 12 && format.bitdepth != 16)
        throw Error("bit depth must be 8, 10, 12 or 16");
    impl_->format = format;
    for (const std::string& f : features) {
        impl_->features.push_back(parse_feature(f));
        for (const std::string& n : impl_->features.back().metric_names()) impl_->names.push_back(n);
        if (impl_->features.back().kind == FeatureKind::temporal) impl_->temporal = true;
    }
    EngineChoice c;
    c.backend = options.backend;
    c.threads = options.threads;
    c.cpumask = options.cpumask;
    c.cov_order = options.cov_order;
    c.batch = options.batch;
    impl_->engine = make_engine(format, impl_->features, c);
    impl_->metrics = metric_count(impl_->features);
}

Scorer::~Scorer() = default;
Scorer::Scorer(Scorer&&) noexcept = default;
Scorer& Scorer::operator=(Scorer&&) noexcept = default;

const std::vector<std::string>& Scorer::metric_names() const { return impl_->names; }
std::string Scorer::backend_description() const { return impl_->engine->describe(); }

void Scorer::push_batch(const Picture* ref, const Picture* dis, int count, double* out) {
    if (count <= 0) return;
    FrameBatch b;
    b.ref = ref;
    b.dis = dis;
    b.count = count;
    b.first_index = static_cast<int>(impl_->next_index);
    if (impl_->next_index > 0 && impl_->temporal) {
        b.prev_ref = &impl_->prev_ref;
        b.prev_dis = &impl_->prev_dis;
    }
    impl_->engine->score(b, out);
    impl_->next_index += count;
    impl_->keep_previous(ref[count - 1], dis[count - 1]);
}

std::vector<double> Scorer::push(const Picture& ref, const Picture& dis) {
    std::vector<double> out(static_cast<size_t>(impl_->metrics));
    push_batch(&ref, &dis, 1, out.data());
    return out;
}

const char* version() { return SPEEDQA_VERSION; }

}  // namespace speedqa
