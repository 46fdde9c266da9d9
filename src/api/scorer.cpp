#include <algorithm>
#include <cstring>
#include <map>

#include "api/engine_factory.hpp"
#include "api/engines.hpp"
#include "api/frame_assembler.hpp"
#include "api/model_columns.hpp"
#include "core/error.hpp"
#include "features/registry.hpp"
#include "speedqa/speedqa.hpp"
#include "version.hpp"

namespace speedqa {
namespace {

// The feature a request names, with its options checked.
OptionValues request_options(const FeatureRequest& r) {
    const FeatureDef* def = find_feature(r.name);
    if (!def) {
        std::string known;
        for (const FeatureDef* d : all_features()) known += (known.empty() ? "" : ", ") + std::string(d->name);
        throw Error("unknown feature \"" + r.name + "\" (speedqa computes " + known + ")");
    }
    OptionValues v(def->name, def->options);
    for (const auto& [key, text] : r.options) v.set(key, text);
    return v;
}

// A copy of the pictures a feature may read as history (all planes).
struct PictureCopy {
    std::vector<uint8_t> bytes;
    Picture pic;
    void assign(const VideoFormat& f, const Picture& p) {
        bytes.resize(f.frame_bytes());
        uint8_t* dst = bytes.data();
        pic = Picture{};
        for (int i = 0; i < f.plane_count(); i++) {
            const size_t row = static_cast<size_t>(f.stored_w(i)) * f.bytes_per_sample();
            pic.plane[i] = dst;
            pic.stride[i] = static_cast<ptrdiff_t>(row);
            for (int y = 0; y < f.stored_h(i); y++) std::memcpy(dst + row * y, p.plane[i] + p.stride[i] * y, row);
            dst += row * f.stored_h(i);
        }
    }
};

}  // namespace

struct Scorer::Impl {
    VideoFormat format;
    std::vector<std::unique_ptr<Feature>> features;  // libvmaf's registration order: models' first
    std::vector<const Feature*> feature_ptrs;
    ModelColumns models;
    std::unique_ptr<FrameAssembler> assembler;
    std::unique_ptr<Engine> engine;
    std::string engine_note;  // why this engine (auto)
    std::vector<std::string> names;
    int history = 0;
    long long next_index = 0;
    std::vector<double> raw;
    // the last pictures pushed, when the caller does not keep them
    PictureCopy kept_ref[2], kept_dis[2];

    // The feature for (name, options), created once however often it is
    // requested: as libvmaf's feature_extractor_vector_append, requests whose
    // names agree (the feature and its options that change metric names)
    // share the first one.
    int feature_index(const OptionValues& v) {
        const std::string key = v.feature() + v.suffix();
        for (size_t i = 0; i < features.size(); i++)
            if (features[i]->name() + features[i]->options().suffix() == key) return static_cast<int>(i);
        features.push_back(find_feature(v.feature())->create(format, v));
        return static_cast<int>(features.size() - 1);
    }

    // Keeps copies of the last pictures pushed: frame next - 1 in [0], next - 2 in [1].
    void keep_history(const Picture* ref, const Picture* dis, int count) {
        if (history >= 2) {
            if (count >= 2) {
                kept_ref[1].assign(format, ref[count - 2]);
                kept_dis[1].assign(format, dis[count - 2]);
            } else {
                std::swap(kept_ref[0], kept_ref[1]);  // the newest becomes the one before
                std::swap(kept_dis[0], kept_dis[1]);
            }
        }
        kept_ref[0].assign(format, ref[count - 1]);
        kept_dis[0].assign(format, dis[count - 1]);
    }
};

Scorer::Scorer(const VideoFormat& format, const std::vector<std::string>& features, const ScorerOptions& options)
    : impl_(std::make_unique<Impl>()) {
    if (format.width <= 0 || format.height <= 0) throw Error("video width and height must be positive");
    if (format.bitdepth != 8 && format.bitdepth != 10 && format.bitdepth != 12 && format.bitdepth != 16)
        throw Error("bit depth must be 8, 10, 12 or 16");
    Impl& m = *impl_;
    m.format = format;
    // libvmaf registers the models' features first, then the --feature ones
    m.models = load_model_columns(options.models, options.model_dirs);
    std::vector<std::vector<std::pair<int, std::string>>> model_inputs;  // (feature, provided) per input
    for (size_t i = 0; i < m.models.requests.size(); i++) {
        model_inputs.emplace_back();
        try {
            for (const ModelInputRequest& in : m.models.requests[i].inputs)
                model_inputs.back().emplace_back(m.feature_index(request_options(in.feature)), in.provided);
        } catch (const Error& e) {  // a feature option of the model's
            throw Error("model " + m.models.columns[i]->name() + ": " + e.what());
        }
    }
    for (const std::string& f : features) m.feature_index(request_options(parse_feature_request(f)));
    if (m.features.empty()) throw Error("nothing to compute: no feature and no model requested");
    for (const auto& f : m.features) {
        m.feature_ptrs.push_back(f.get());
        m.history = std::max(m.history, f->history());
    }
    std::vector<const ColumnModel*> models;
    for (const auto& c : m.models.columns) models.push_back(c.get());
    m.assembler = std::make_unique<FrameAssembler>(m.feature_ptrs, models);
    // the columns each model reads
    for (size_t i = 0; i < m.models.columns.size(); i++) {
        ColumnModel& col = *m.models.columns[i];
        for (const auto& [fi, provided] : model_inputs[i]) {
            const auto& outs = m.features[static_cast<size_t>(fi)]->outputs();
            int o = -1;
            for (size_t j = 0; j < outs.size(); j++)
                if (outs[j].provided == provided) o = static_cast<int>(j);
            if (o < 0)
                throw Error("model " + col.name() + ": feature " + m.features[static_cast<size_t>(fi)]->name() +
                            " does not provide " + provided);
            col.input_columns.push_back(m.assembler->column_of(fi, o));
        }
    }
    m.names = m.assembler->columns();
    for (size_t i = 0; i < m.names.size(); i++)
        for (size_t j = 0; j < i; j++)
            if (m.names[i] == m.names[j])
                throw Error("two requests give the metric \"" + m.names[i] +
                            "\" (the same feature with options that do not change its name, or two models of one name: "
                            "rename a model with name=)");
    if (options.threads < 0 || options.threads > max_threads)
        throw Error("threads " + std::to_string(options.threads) + ": must be from 0 to " + std::to_string(max_threads));
    EngineChoice c;
    c.backend = options.backend;
    c.threads = options.threads;
    c.cpumask = options.cpumask;
    c.dispatch = options.dispatch;
    c.batch = options.batch;
    c.device = options.device;
    m.engine = make_engine(format, m.feature_ptrs, c, &m.engine_note);
}

Scorer::~Scorer() = default;
Scorer::Scorer(Scorer&&) noexcept = default;
Scorer& Scorer::operator=(Scorer&&) noexcept = default;

const std::vector<std::string>& Scorer::metric_names() const { return impl_->names; }
std::string Scorer::backend_description() const { return impl_->engine->describe(); }
const std::string& Scorer::backend_choice() const { return impl_->engine_note; }
int Scorer::preferred_batch() const { return impl_->engine->preferred_batch(); }
Scorer::FrameContext Scorer::frame_context() const {
    FrameContext c;
    for (const Feature* f : impl_->feature_ptrs) {
        const Feature::Context fc = f->context();
        c.before = std::max(c.before, fc.before);
        c.after = std::max(c.after, fc.after);
    }
    return c;
}
void Scorer::expect_frames(long long frames) { impl_->engine->expect_frames(frames); }
bool Scorer::holds_device() const { return impl_->engine->holds_device() || impl_->engine->device_start_pending(); }
std::vector<std::string> Scorer::notes() const { return impl_->engine->notes(); }

void Scorer::push_batch(const Picture* ref, const Picture* dis, int count, std::vector<FrameScores>& done,
                        const PreviousFrames* previous) {
    if (count <= 0) return;
    Impl& m = *impl_;
    FrameBatch b;
    b.ref = ref;
    b.dis = dis;
    b.count = count;
    b.first_index = m.next_index;
    for (int h = 0; h < 2 && h < m.history && h < m.next_index; h++) {
        if (previous) {
            b.prev_ref[h] = previous->ref[h];
            b.prev_dis[h] = previous->dis[h];
        } else {
            b.prev_ref[h] = &m.kept_ref[h].pic;
            b.prev_dis[h] = &m.kept_dis[h].pic;
        }
    }
    const RawLayout layout(m.feature_ptrs);
    m.raw.resize(static_cast<size_t>(count) * layout.stride);
    m.engine->score(b, m.raw.data());
    for (int k = 0; k < count; k++)
        m.assembler->push(m.next_index + k, m.raw.data() + static_cast<size_t>(k) * layout.stride, done);
    m.next_index += count;
    if (m.history > 0 && !previous) m.keep_history(ref, dis, count);
}

std::vector<FrameScores> Scorer::push(const Picture& ref, const Picture& dis) {
    std::vector<FrameScores> done;
    push_batch(&ref, &dis, 1, done);
    return done;
}

std::vector<FrameScores> Scorer::flush() {
    std::vector<FrameScores> done;
    impl_->assembler->finish(done);
    return done;
}

std::vector<std::string> feature_names() {
    std::vector<std::string> out;
    for (const FeatureDef* d : all_features()) out.emplace_back(d->name);
    return out;
}

int gpu_count() { return speedqa::cuda_devices(); }

std::vector<BackendInfo> backends() {
    std::vector<BackendInfo> out;
    for (const EngineDef& d : engine_defs()) out.push_back({d.name, d.summary});
    return out;
}

const char* version() { return SPEEDQA_VERSION; }

}  // namespace speedqa
