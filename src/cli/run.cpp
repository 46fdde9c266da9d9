#include "cli/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>

#include "core/env.hpp"
#include "core/memory.hpp"
#include "io/pooling.hpp"
#include "speedqa/speedqa.hpp"

namespace speedqa::cli {
namespace {

// An input as messages name it: its path, or stdin.
std::string input_name(const io::VideoReader& r) { return r.path() == "-" ? "stdin" : r.path(); }

// What --frame_skip_ref / --frame_skip_dist did to an input.
struct Skipped {
    std::string input, flag;
    unsigned asked = 0;
    long long frames = 0;  // frames skipped (fewer than asked where the input ran out)
    // Why the input gave no frame to score.
    std::string why_none() const {
        if (frames == 0) return input + " is empty";
        return flag + " " + std::to_string(asked) + " skips all " + std::to_string(frames) + " frame" +
               (frames == 1 ? "" : "s") + " of " + input;
    }
};

Skipped skip_frames(io::VideoReader& r, unsigned n, const char* flag) {
    Skipped s{input_name(r), flag, n, 0};
    while (s.frames < n && r.next()) s.frames++;
    return s;
}

void check_compatible(const io::VideoReader& a, const io::VideoReader& b) {
    const VideoFormat& fa = a.format();
    const VideoFormat& fb = b.format();
    if (fa.width != fb.width || fa.height != fb.height)
        throw Error("reference and distorted differ in size: " + std::to_string(fa.width) + "x" + std::to_string(fa.height) +
                    " (" + input_name(a) + ") vs " + std::to_string(fb.width) + "x" + std::to_string(fb.height) + " (" +
                    input_name(b) + ")");
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
int report_parity(const std::vector<std::string>& names, const std::vector<FrameScores>& cpu,
                  const std::vector<FrameScores>& gpu) {
    const size_t metrics = names.size();
    long long identical = 0, shown = 0, values = 0;
    for (size_t i = 0; i < cpu.size(); i++)
        for (size_t m = 0; m < metrics; m++) {
            const double a = cpu[i].values[m], b = gpu[i].values[m];
            values++;
            if (std::memcmp(&a, &b, sizeof(double)) == 0 || (a != a && b != b)) identical++;
            else if (shown++ < 10)
                std::fprintf(stderr, "parity: frame %zu %s: cpu %.17g cuda %.17g\n", i, names[m].c_str(), a, b);
        }
    std::printf("parity: %zu frames x %zu metrics = %lld values compared, %lld identical, %lld differ\n", cpu.size(),
                metrics, values, identical, values - identical);
    return identical == values ? 0 : 3;
}

}  // namespace

// SPEEDQA_TIMING=1: where the wall time of a run goes, on stderr.
class PhaseTimer {
public:
    PhaseTimer() : on_(env_flag("SPEEDQA_TIMING")), last_(std::chrono::steady_clock::now()) {}
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

void flush_stdout() {
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return;
    throw Error(std::string("stdout: cannot write") + (errno ? std::string(": ") + std::strerror(errno) : ""));
}

int run(const Settings& s) {
    PhaseTimer timer;
    if (s.reference == "-" && s.distorted == "-")
        throw Error("reference and distorted cannot both be standard input");
    auto ref = io::VideoReader::open(s.reference, s.raw);
    auto dis = io::VideoReader::open(s.distorted, s.raw);
    check_compatible(*ref, *dis);
    const VideoFormat format = ref->format();
    timer.mark("open inputs");

    ScorerOptions o;
    o.backend = s.backend;
    o.threads = s.threads;
    o.cpumask = s.cpumask;
    o.dispatch = s.dispatch;
    o.batch = s.batch;
    o.models = s.models;
    o.model_dirs = s.model_dirs;
    std::unique_ptr<Scorer> scorer, twin;  // twin: the CUDA engine under --parity
    if (s.parity) {
        o.backend = "cpu";
        scorer = std::make_unique<Scorer>(format, s.features, o);
        o.backend = "cuda";
        twin = std::make_unique<Scorer>(format, s.features, o);
        if (!s.quiet)
            std::fprintf(stderr, "parity: %s vs %s\n", scorer->backend_description().c_str(),
                         twin->backend_description().c_str());
    } else {
        scorer = std::make_unique<Scorer>(format, s.features, o);
        if (!s.quiet) {
            if (!scorer->backend_choice().empty()) std::fprintf(stderr, "%s\n", scorer->backend_choice().c_str());
            else if (s.backend == "cuda") std::fprintf(stderr, "%s\n", scorer->backend_description().c_str());
        }
    }
    timer.mark("create engine");
    const Skipped skipped_ref = skip_frames(*ref, s.frame_skip_ref, "--frame_skip_ref");
    const Skipped skipped_dis = skip_frames(*dis, s.frame_skip_dist, "--frame_skip_dist");

    // files (not pipes): their frame counts are known up front
    const bool lengths_known = ref->frame_count() >= 0 && dis->frame_count() >= 0;
    if (lengths_known) {
        long long n = std::min(ref->frame_count() - static_cast<long long>(s.frame_skip_ref),
                               dis->frame_count() - static_cast<long long>(s.frame_skip_dist));
        if (s.frame_cnt) n = std::min<long long>(n, s.frame_cnt);
        scorer->expect_frames(std::max(0LL, n));
    }
    int batch_size = std::max(scorer->preferred_batch(), twin ? twin->preferred_batch() : 0);
    // frames from a pipe are held in memory until scored: keep that bounded,
    // by count and to half the memory there is (a pair of frames at least)
    if (!lengths_known) {
        const size_t pair = 2 * format.frame_bytes();
        const size_t room = available_memory().bytes / 2 / pair;
        batch_size = static_cast<int>(std::clamp<size_t>(room, 1, static_cast<size_t>(std::min(batch_size, 32))));
    }

    Progress progress(!s.quiet && isatty(fileno(stderr)));
    std::vector<io::FramePtr> batch_ref, batch_dis, prev_ref, prev_dis;  // prev: newest first
    std::vector<Picture> pics_ref, pics_dis;
    std::vector<FrameScores> scores, twin_scores;
    long long index = 0;
    bool ended = false;
    while (!ended) {
        // (auto: the batch grows to the device engine's once it has taken over)
        if (lengths_known) batch_size = std::max(batch_size, scorer->preferred_batch());
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
                const long long shared = index + static_cast<long long>(batch_ref.size());
                // (the reference is named when both ran out)
                if (shared == 0) throw Error("no frames to score: " + (r ? skipped_dis : skipped_ref).why_none());
                if (r || d)
                    std::fprintf(stderr, "warning: \"%s\" ended before \"%s\"; scoring the %lld frame%s they share\n",
                                 input_name(r ? *dis : *ref).c_str(), input_name(r ? *ref : *dis).c_str(), shared,
                                 shared == 1 ? "" : "s");
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
        // the frames before this batch, which this command still holds
        PreviousFrames previous;
        for (size_t h = 0; h < prev_ref.size(); h++) {
            previous.ref[h] = &prev_ref[h]->pic;
            previous.dis[h] = &prev_dis[h]->pic;
        }
        const int count = static_cast<int>(pics_ref.size());
        scorer->push_batch(pics_ref.data(), pics_dis.data(), count, scores, &previous);
        if (twin) twin->push_batch(pics_ref.data(), pics_dis.data(), count, twin_scores, &previous);
        // newest first: frames index + count - 1, index + count - 2
        std::vector<io::FramePtr> next_ref, next_dis;
        for (int h = 0; h < 2; h++) {
            const int k = count - 1 - h;
            if (k >= 0) {
                next_ref.push_back(batch_ref[static_cast<size_t>(k)]);
                next_dis.push_back(batch_dis[static_cast<size_t>(k)]);
            } else if (!prev_ref.empty()) {
                next_ref.push_back(prev_ref[0]);
                next_dis.push_back(prev_dis[0]);
            }
        }
        prev_ref = std::move(next_ref);
        prev_dis = std::move(next_dis);
        index += count;
        progress.update(index);
    }
    {
        std::vector<FrameScores> rest = scorer->flush();
        scores.insert(scores.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
        if (twin) {
            rest = twin->flush();
            twin_scores.insert(twin_scores.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
        }
    }
    progress.finish();
    timer.mark("score all frames");

    if (!s.quiet)
        for (const std::string& n : scorer->notes()) std::fprintf(stderr, "warning: %s\n", n.c_str());
    if (twin) return report_parity(scorer->metric_names(), scores, twin_scores);
    if (s.backend == "auto" && !s.quiet) std::fprintf(stderr, "%s\n", scorer->backend_description().c_str());

    io::ScoreTable table;
    table.metric_names = scorer->metric_names();
    table.width = format.width;
    table.height = format.height;
    table.version = std::string("speedqa ") + speedqa::version();
    table.subsample = s.subsample;
    table.fps = progress.fps(index);
    table.frames.reserve(scores.size());
    for (FrameScores& f : scores) table.frames.push_back(std::move(f.values));

    if (!s.output.empty()) {
        io::write_scores_file(s.output, s.format, table, s.precision);
        timer.mark("write output");
    } else {
        // No file: the pooled mean of each metric (vmaf prints its models' on a terminal).
        for (size_t m = 0; m < table.metric_names.size(); m++) {
            const io::Pooled p = io::pool_metric(table, m);
            std::printf("%s: %f\n", table.metric_names[m].c_str(), p.mean);
        }
    }
    // The output is written and closed. Releasing a GPU (context, pinned
    // staging) costs tens of milliseconds, and on a short clip with auto the
    // CUDA engine may still be starting, which would have to finish first:
    // the process leaves without either; the system reclaims it all.
    if (scorer->holds_device()) {
        flush_stdout();
        std::fflush(stderr);
        std::_Exit(0);
    }
    return 0;
}

}  // namespace speedqa::cli
