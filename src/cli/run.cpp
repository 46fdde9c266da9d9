#include "cli/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <set>

#include "api/engine_factory.hpp"
#include "core/error.hpp"
#include "speedqa/speedqa.hpp"

namespace speedqa::cli {
namespace {

std::vector<FeatureSpec> parse_features(const std::vector<std::string>& texts) {
    std::vector<FeatureSpec> out;
    std::set<std::string> names;
    for (const std::string& t : texts) {
        out.push_back(parse_feature(t));
        for (const std::string& n : out.back().metric_names())
            if (!names.insert(n).second)
                throw Error("--feature " + t + ": gives metric " + n + " a second time (same feature, same options)");
    }
    return out;
}

void check_compatible(const io::VideoReader& a, const io::VideoReader& b) {
    const VideoFormat& fa = a.format();
    const VideoFormat& fb = b.format();
    if (fa.width != fb.width || fa.height != fb.height)
        throw Error("reference and distorted differ in size: " + std::to_string(fa.width) + "x" + std::to_string(fa.height) +
                    " (" + a.path() + ") vs " + std::to_string(fb.width) + "x" + std::to_string(fb.height) + " (" +
                    b.path() + ")");
    if (fa.pix != fb.pix)
        throw Error(std::string("reference and distorted differ in pixel format: ") + pixel_format_name(fa.pix) + " vs " +
                    pixel_format_name(fb.pix));
    if (fa.bitdepth != fb.bitdepth)
        throw Error("reference and distorted differ in bit depth: " + std::to_string(fa.bitdepth) + " vs " +
                    std::to_string(fb.bitdepth));
}

class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
    void update(long long frames) {
        if (!enabled_) return;
        std::fprintf(stderr, "\r%lld frame%s %.2f FPS\033[K", frames, frames == 1 ? " " : "s", fps(frames));
    }
    void finish() {
        if (enabled_) std::fprintf(stderr, "\n");
    }
    double fps(long long frames) const {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        return s > 0 ? frames / s : 0;
    }

private:
    bool enabled_;
    std::chrono::steady_clock::time_point start_;
};

// --parity: every value of both engines compared bit for bit.
int report_parity(const std::vector<std::string>& names, const std::vector<double>& cpu, const std::vector<double>& gpu,
                  long long frames, bool quiet) {
    const size_t metrics = names.size();
    long long identical = 0, shown = 0;
    for (size_t i = 0; i < cpu.size(); i++) {
        if (std::memcmp(&cpu[i], &gpu[i], sizeof(double)) == 0 || (cpu[i] != cpu[i] && gpu[i] != gpu[i])) {
            identical++;
        } else if (shown++ < 10) {
            std::fprintf(stderr, "parity: frame %zu %s: cpu %.17g cuda %.17g\n", i / metrics, names[i % metrics].c_str(),
                         cpu[i], gpu[i]);
        }
    }
    const long long values = static_cast<long long>(cpu.size());
    std::printf("parity: %lld frames x %zu metrics = %lld values compared, %lld identical, %lld differ\n", frames, metrics,
                values, identical, values - identical);
    (void)quiet;
    return identical == values ? 0 : 3;
}

}  // namespace

// SPEEDQA_TIMING=1: where the wall time of a run goes, on stderr.
class PhaseTimer {
public:
    PhaseTimer() : on_(std::getenv("SPEEDQA_TIMING") != nullptr), last_(std::chrono::steady_clock::now()) {}
    void mark(const char* phase) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "[timing] %-24s %9.1f ms\n", phase, std::chrono::duration<double, std::milli>(now - last_).count());
        last_ = now;
    }

private:
    bool on_;
    std::chrono::steady_clock::time_point last_;
};

int run(const Settings& s) {
    PhaseTimer timer;
    const std::vector<FeatureSpec> features = parse_features(s.features);
    if (s.reference == "-" && s.distorted == "-")
        throw Error("reference and distorted cannot both be standard input");
    auto ref = io::VideoReader::open(s.reference, s.raw);
    auto dis = io::VideoReader::open(s.distorted, s.raw);
    check_compatible(*ref, *dis);
    const VideoFormat format = ref->format();
    timer.mark("open inputs");

    EngineChoice choice;
    choice.backend = s.backend;
    choice.threads = s.threads;
    choice.cpumask = s.cpumask;
    choice.cov_order = s.cov_order;
    choice.batch = s.batch;
    std::string note;
    std::unique_ptr<Engine> engine, twin;  // twin: the CUDA engine under --parity
    if (s.parity) {
        choice.backend = "cpu";
        engine = make_engine(format, features, choice);
        choice.backend = "cuda";
        twin = make_engine(format, features, choice);
        if (!s.quiet) std::fprintf(stderr, "parity: %s vs %s\n", engine->describe().c_str(), twin->describe().c_str());
    } else {
        engine = make_engine(format, features, choice, &note);
        if (!note.empty() && !s.quiet) std::fprintf(stderr, "%s\n", note.c_str());
    }

    timer.mark("create engine");
    for (unsigned i = 0; i < s.frame_skip_ref; i++)
        if (!ref->next()) break;
    for (unsigned i = 0; i < s.frame_skip_dist; i++)
        if (!dis->next()) break;

    // files (not pipes): their frame counts are known up front
    const bool lengths_known = ref->frame_count() >= 0 && dis->frame_count() >= 0;
    if (lengths_known) {
        long long n = std::min(ref->frame_count() - static_cast<long long>(s.frame_skip_ref),
                               dis->frame_count() - static_cast<long long>(s.frame_skip_dist));
        if (s.frame_cnt) n = std::min<long long>(n, s.frame_cnt);
        engine->expect_frames(std::max(0LL, n));
    }
    const int metrics = metric_count(features);
    // --batch sets the engine's batch; the command hands it several at once
    int batch_size = std::max(engine->preferred_batch(), twin ? twin->preferred_batch() : 0);
    // frames from a pipe are held in memory until scored: keep that bounded
    if (!lengths_known) batch_size = std::min(batch_size, 32);
    io::ScoreTable table;
    for (const FeatureSpec& f : features)
        for (const std::string& n : f.metric_names()) table.metric_names.push_back(n);
    table.width = format.width;
    table.height = format.height;
    table.version = std::string("speedqa ") + speedqa::version();
    table.subsample = s.subsample;

    Progress progress(!s.quiet && isatty(fileno(stderr)));
    io::FramePtr prev_ref, prev_dis;
    std::vector<io::FramePtr> batch_ref, batch_dis;
    std::vector<Picture> pics_ref, pics_dis;
    std::vector<double> scores, twin_scores;
    long long index = 0;
    bool ended = false;
    while (!ended) {
        // (auto: the batch grows to the device engine's once it has taken over)
        if (lengths_known) batch_size = std::max(batch_size, engine->preferred_batch());
        batch_ref.clear();
        batch_dis.clear();
        while (static_cast<int>(batch_ref.size()) < batch_size) {
            if (s.frame_cnt && index + static_cast<long long>(batch_ref.size()) >= s.frame_cnt) {
                ended = true;
                break;
            }
            io::FramePtr r = ref->next();
            io::FramePtr d = dis->next();
            if (!r || !d) {
                if (r || d)
                    std::fprintf(stderr, "warning: \"%s\" ended before \"%s\"; scoring the %lld frames they share\n",
                                 (r ? dis : ref)->path().c_str(), (r ? ref : dis)->path().c_str(),
                                 index + static_cast<long long>(batch_ref.size()));
                ended = true;
                break;
            }
            batch_ref.push_back(std::move(r));
            batch_dis.push_back(std::move(d));
        }
        if (batch_ref.empty()) break;
        pics_ref.clear();
        pics_dis.clear();
        for (size_t k = 0; k < batch_ref.size(); k++) {
            pics_ref.push_back(batch_ref[k]->pic);
            pics_dis.push_back(batch_dis[k]->pic);
        }
        FrameBatch b;
        b.ref = pics_ref.data();
        b.dis = pics_dis.data();
        b.count = static_cast<int>(pics_ref.size());
        b.first_index = static_cast<int>(index);
        if (prev_ref) {
            b.prev_ref = &prev_ref->pic;
            b.prev_dis = &prev_dis->pic;
        }
        const size_t at = scores.size();
        scores.resize(at + static_cast<size_t>(b.count) * metrics);
        engine->score(b, scores.data() + at);
        if (twin) {
            twin_scores.resize(scores.size());
            twin->score(b, twin_scores.data() + at);
        }
        prev_ref = batch_ref.back();
        prev_dis = batch_dis.back();
        index += b.count;
        progress.update(index);
    }
    progress.finish();
    timer.mark("score all frames");
    if (index == 0) throw Error("no frames to score: " + (ref->frame_count() == 0 ? ref->path() : dis->path()) + " is empty");

    table.fps = progress.fps(index);
    table.frames.resize(static_cast<size_t>(index));
    for (long long i = 0; i < index; i++)
        table.frames[static_cast<size_t>(i)].assign(scores.begin() + i * metrics, scores.begin() + (i + 1) * metrics);

    if (engine->unconverged_images() && !s.quiet)
        std::fprintf(stderr, "warning: %lld images stopped at 500 eigenvalue sweeps (libvmaf warns: possible "
                             "non-convergence); their scores are libvmaf's all the same\n",
                     engine->unconverged_images());

    if (twin) return report_parity(table.metric_names, scores, twin_scores, index, s.quiet);
    if (s.backend == "auto" && !s.quiet) std::fprintf(stderr, "%s\n", engine->describe().c_str());

    if (!s.output.empty()) {
        io::write_scores_file(s.output, s.format, table, s.precision);
        timer.mark("write output");
    } else {
        // No file: the pooled mean of each metric, as vmaf prints its model score.
        for (size_t m = 0; m < table.metric_names.size(); m++) {
            double sum = 0;
            long long n = 0;
            for (long long i = 0; i < index; i++) {
                if (s.subsample > 1 && i % s.subsample) continue;
                sum += table.frames[static_cast<size_t>(i)][m];
                n++;
            }
            std::printf("%s: %f\n", table.metric_names[m].c_str(), sum / n);
        }
    }
    // The output is written and closed. Releasing a GPU (context, pinned
    // staging) costs tens of milliseconds, and on a short clip with auto the
    // CUDA engine may still be starting, which would have to finish first:
    // the process leaves without either; the system reclaims it all.
    if (engine->holds_device() || engine->device_start_pending()) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(0);
    }
    return 0;
}

}  // namespace speedqa::cli
