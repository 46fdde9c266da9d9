#include "cli/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

#include "core/env.hpp"
#include "core/memory.hpp"
#include "io/pooling.hpp"
#include "speedqa/speedqa.hpp"

namespace speedqa::cli {
namespace {

// An input as messages name it: its path, or stdin.
std::string input_name(const io::VideoReader& r) { return r.path() == "-" ? "stdin" : r.path(); }

// "\"a\" ended before \"b\"; scoring the N frames they share", unless they
// share none (the run then fails naming the input that ran out).
void warn_ended(const std::string& label, const io::VideoReader& ended, const io::VideoReader& other, long long shared) {
    if (shared == 0) return;
    std::fprintf(stderr, "%swarning: \"%s\" ended before \"%s\"; scoring the %lld frame%s they share\n", label.c_str(),
                 input_name(ended).c_str(), input_name(other).c_str(), shared, shared == 1 ? "" : "s");
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
        const double s = seconds();
        return s > 0 ? frames / s : 0;
    }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

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

// The reader of an input. Encoded video in a build without libavformat
// gets the ffmpeg command that pipes it in.
std::unique_ptr<io::VideoReader> open_input(const std::string& path, const std::optional<io::RawParams>& raw,
                                            const char* flag) {
    try {
        return io::VideoReader::open(path, raw);
    } catch (const io::NoDecoderError& e) {
        throw Error(std::string(e.what()) + "; decode it with ffmpeg into a pipe instead: ffmpeg -i " + path +
                    " -strict -1 -f yuv4mpegpipe - | speedqa " + flag + " - ...");
    }
}

// --frame_skip_ref / --frame_skip_dist.
void skip_frames(io::VideoReader& r, unsigned n, const char* flag) {
    for (unsigned i = 0; i < n; i++)
        if (!r.next())
            throw Error(std::string(flag) + " " + std::to_string(n) + ": " + input_name(r) + " has only " + std::to_string(i) +
                        " frame" + (i == 1 ? "" : "s"));
}

// One distorted video scored against the reference.
struct Job {
    std::unique_ptr<io::VideoReader> dis;
    std::string output;   // "" = none
    std::string label;    // starts its messages when there are several
    std::unique_ptr<Scorer> scorer, twin;  // twin: the CUDA engine under --parity
    std::vector<FrameScores> scores, twin_scores;
    io::RecentFrames recent;  // the last frames pushed
    long long frames = 0;  // pairs pushed
    bool ended = false;
    bool clip_end = false;  // --frame_range: the run reached the clip's end
};

void create_scorers(Job& j, const VideoFormat& format, const Settings& s) {
    ScorerOptions o;
    o.backend = s.backend;
    o.threads = s.threads;
    o.cpumask = s.cpumask;
    o.dispatch = s.dispatch;
    o.batch = s.batch;
    o.device = s.device;
    o.models = s.models;
    o.model_dirs = s.model_dirs;
    if (s.gpumask && o.backend == "auto") {  // vmaf's mask forbids the GPU
        o.backend = "cpu";
        if (!s.quiet) std::fprintf(stderr, "%sbackend auto: using the CPU engine (--gpumask %u)\n", j.label.c_str(), s.gpumask);
    }
    if (s.parity) {
        o.backend = "cpu";
        j.scorer = std::make_unique<Scorer>(format, s.features, o);
        o.backend = "cuda";
        j.twin = std::make_unique<Scorer>(format, s.features, o);
        if (!s.quiet)
            std::fprintf(stderr, "parity: %s vs %s\n", j.scorer->backend_description().c_str(),
                         j.twin->backend_description().c_str());
        return;
    }
    j.scorer = std::make_unique<Scorer>(format, s.features, o);
    if (s.quiet) return;
    if (!j.scorer->backend_choice().empty())
        std::fprintf(stderr, "%s%s\n", j.label.c_str(), j.scorer->backend_choice().c_str());
    else if (o.backend == "cuda")
        std::fprintf(stderr, "%s%s\n", j.label.c_str(), j.scorer->backend_description().c_str());
}

// Scores the job's next frames against `ref` (the reference's next frames).
void push(Job& j, const std::vector<io::FramePtr>& ref, const io::VideoReader& reference) {
    std::vector<io::FramePtr> dis;
    for (size_t k = 0; k < ref.size(); k++) {
        io::FramePtr d = j.dis->next();
        if (!d) {
            warn_ended(j.label, *j.dis, reference, j.frames + static_cast<long long>(k));
            j.ended = true;
            break;
        }
        dis.push_back(std::move(d));
    }
    const int count = static_cast<int>(dis.size());
    if (count == 0) return;
    std::vector<Picture> pics_ref, pics_dis;
    for (int k = 0; k < count; k++) {
        pics_ref.push_back(ref[static_cast<size_t>(k)]->pic);
        pics_dis.push_back(dis[static_cast<size_t>(k)]->pic);
    }
    // the frames before these, which this command still holds
    const PreviousFrames previous = j.recent.previous();
    j.scorer->push_batch(pics_ref.data(), pics_dis.data(), count, j.scores, &previous);
    if (j.twin) j.twin->push_batch(pics_ref.data(), pics_dis.data(), count, j.twin_scores, &previous);
    j.recent.advance(ref, dis);
    j.frames += count;
}

void flush(Job& j) {
    for (auto [scorer, scores] : {std::pair{j.scorer.get(), &j.scores}, std::pair{j.twin.get(), &j.twin_scores}}) {
        if (!scorer) continue;
        std::vector<FrameScores> rest = scorer->flush();
        scores->insert(scores->end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
    }
}

// The scores as the output file holds them, or their pooled means on
// standard output when there is no file.
// first: the clip's index of the run's first frame (the warm-up of
// --frame_range); seconds: the scoring time, for a shard.
void write_scores(Job& j, const Settings& s, const VideoFormat& format, double fps, long long first, double seconds) {
    io::ScoreTable table;
    table.metric_names = j.scorer->metric_names();
    table.width = format.width;
    table.height = format.height;
    table.version = std::string("speedqa ") + speedqa::version();
    table.subsample = s.subsample;
    table.fps = fps;
    table.frames.reserve(j.scores.size());
    if (s.ranged) {
        // the range's frames of those scored, as a shard
        for (FrameScores& f : j.scores) {
            const long long index = first + f.index;
            if (index >= s.range_first && (s.range_end < 0 || index < s.range_end)) table.frames.push_back(std::move(f.values));
        }
        io::ShardInfo info;
        info.first = s.range_first;
        info.clip_end = j.clip_end && (s.range_end < 0 || first + j.frames <= s.range_end);
        info.seconds = seconds;
        if (s.capture) {
            *s.capture = std::move(table);
            return;
        }
        return io::write_file(j.output, io::format_shard(table, info));
    }
    for (FrameScores& f : j.scores) table.frames.push_back(std::move(f.values));
    if (!j.output.empty()) return io::write_scores_file(j.output, s.format, table, s.precision);
    // (vmaf prints its models' pooled means on a terminal)
    for (size_t m = 0; m < table.metric_names.size(); m++)
        std::printf("%s%s: %f\n", j.label.c_str(), table.metric_names[m].c_str(), io::pool_metric(table, m).mean);
}

}  // namespace

void flush_stdout() {
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return;
    // a write that failed while the buffer filled (output over its size)
    // left no errno behind: one more byte, written at once, says why
    if (errno == 0) {
        std::setvbuf(stdout, nullptr, _IONBF, 0);
        std::fputc('\n', stdout);
    }
    throw Error(std::string("stdout: cannot write") + (errno ? std::string(": ") + std::strerror(errno) : ""));
}

namespace {

// --gpus: the clip's frames in contiguous ranges, one a GPU (ranges over
// fewer GPUs take them in turn), each scored in a thread of its own by a
// run of its range (the warm-up and look-ahead of --frame_range), the
// ranges' scores joined in frame order and written as one run writes them.
int run_split(const Settings& s) {
    const auto t0 = std::chrono::steady_clock::now();
    long long frames = 0;
    {
        auto ref = open_input(s.reference, s.raw, "-r");
        auto dis = open_input(s.distorted.front(), s.raw, "-d");
        if (ref->frame_count() < 0 || dis->frame_count() < 0)
            throw Error("--gpus splits files whose length is known (raw .yuv, y4m), not " +
                        input_name(ref->frame_count() < 0 ? *ref : *dis));
        frames = std::min(ref->frame_count() - static_cast<long long>(s.frame_skip_ref),
                          dis->frame_count() - static_cast<long long>(s.frame_skip_dist));
        if (s.frame_cnt) frames = std::min<long long>(frames, s.frame_cnt);
    }
    const bool on_gpus = s.backend == "cuda" || s.backend == "auto";
    const int present = on_gpus ? gpu_count() : 0;
    if (on_gpus && present == 0 && s.backend == "cuda") throw Error("--gpus: no CUDA GPU is usable here");
    int ranges = s.gpus > 0 ? s.gpus : std::max(1, present);
    ranges = static_cast<int>(std::max(1LL, std::min<long long>(ranges, frames)));
    std::vector<io::ScoreTable> tables(static_cast<size_t>(ranges));
    std::vector<std::string> errors(static_cast<size_t>(ranges));
    std::vector<std::thread> threads;
    for (int i = 0; i < ranges; i++)
        threads.emplace_back([&, i] {
            Settings r = s;
            r.gpus = 0;
            r.ranged = true;
            r.range_first = frames * i / ranges;
            r.range_end = i + 1 < ranges ? frames * (i + 1) / ranges : -1;
            r.device = present > 0 ? i % present : 0;
            r.capture = &tables[static_cast<size_t>(i)];
            r.exit_when_done = false;
            r.quiet = true;
            try {
                run(r);
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(i)] = e.what();
            }
        });
    for (std::thread& t : threads) t.join();
    for (const std::string& e : errors)
        if (!e.empty()) throw Error(e);
    io::ScoreTable table = std::move(tables.front());
    for (size_t i = 1; i < tables.size(); i++)
        for (auto& f : tables[i].frames) table.frames.push_back(std::move(f));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    table.subsample = s.subsample;
    table.fps = seconds > 0 ? static_cast<double>(table.frames.size()) / seconds : 0;
    if (!s.quiet)
        std::fprintf(stderr, "gpus: %d ranges of about %lld frames on %s\n", ranges, frames / ranges,
                     on_gpus && present > 0 ? (std::to_string(std::min(ranges, present)) + " GPU(s)").c_str()
                                            : ("the " + s.backend + " engine").c_str());
    if (!s.outputs.front().empty()) {
        io::write_scores_file(s.outputs.front(), s.format, table, s.precision);
        return 0;
    }
    for (size_t m = 0; m < table.metric_names.size(); m++)
        std::printf("%s: %f\n", table.metric_names[m].c_str(), io::pool_metric(table, m).mean);
    return 0;
}

}  // namespace

int run(const Settings& s) {
    if (s.gpus != 0) return run_split(s);
    PhaseTimer timer;
    // a run must not end on an output it cannot write
    for (const std::string& o : s.outputs)
        if (!o.empty()) io::check_output_writable(o);
    if (s.reference == "-" && std::count(s.distorted.begin(), s.distorted.end(), "-"))
        throw Error("reference and distorted cannot both be standard input");
    if (std::count(s.distorted.begin(), s.distorted.end(), "-") > 1)
        throw Error("only one distorted video can be standard input");
    auto ref = open_input(s.reference, s.raw, "-r");
    std::vector<Job> jobs(s.distorted.size());
    for (size_t i = 0; i < jobs.size(); i++) {
        jobs[i].dis = open_input(s.distorted[i], s.raw, "-d");
        jobs[i].output = s.outputs[i];
        if (jobs.size() > 1) jobs[i].label = s.distorted[i] + ": ";
        check_compatible(*ref, *jobs[i].dis);
    }
    const VideoFormat format = ref->format();
    timer.mark("open inputs");

    for (Job& j : jobs) create_scorers(j, format, s);
    timer.mark("create engine");
    skip_frames(*ref, s.frame_skip_ref, "--frame_skip_ref");
    for (Job& j : jobs) skip_frames(*j.dis, s.frame_skip_dist, "--frame_skip_dist");
    // --frame_range A:B: from the frames before A that the features' warm-up
    // reads (or the clip's start) to those after B - 1 they look ahead to;
    // `first` is the clip's index of the first frame scored, `limit` how
    // many frames are read from there (0: to the end)
    long long first = 0, limit = s.frame_cnt;
    if (s.ranged) {
        const Scorer::FrameContext ctx = jobs.front().scorer->frame_context();
        first = std::max(0LL, s.range_first - ctx.before);
        if (s.frame_cnt && first >= s.frame_cnt)
            throw Error("--frame_range " + std::to_string(s.range_first) + ": past the " + std::to_string(s.frame_cnt) +
                        " frames of --frame_cnt");
        const unsigned skip = static_cast<unsigned>(first);
        skip_frames(*ref, skip, "--frame_range");
        for (Job& j : jobs) skip_frames(*j.dis, skip, "--frame_range");
        limit = s.frame_cnt ? s.frame_cnt - first : 0;
        if (s.range_end >= 0) {
            const long long upto = s.range_end + ctx.after - first;
            limit = limit ? std::min(limit, upto) : upto;
        }
    }

    // files (not pipes, not encoded video): their frame counts are known up front
    bool lengths_known = ref->frame_count() >= 0;
    for (Job& j : jobs) {
        if (ref->frame_count() < 0 || j.dis->frame_count() < 0) {
            lengths_known = false;
            continue;
        }
        long long n = std::min(ref->frame_count() - static_cast<long long>(s.frame_skip_ref),
                               j.dis->frame_count() - static_cast<long long>(s.frame_skip_dist)) - first;
        if (limit) n = std::min<long long>(n, limit);
        j.scorer->expect_frames(std::max(0LL, n));
    }

    Progress progress(!s.quiet && isatty(fileno(stderr)));
    std::vector<io::FramePtr> batch;
    long long index = 0;  // reference frames read
    bool ref_ran_out = false;
    for (bool active = true; active;) {
        int batch_size = 1;  // (auto: grows to the device engine's once it has taken over)
        for (const Job& j : jobs)
            if (!j.ended) batch_size = std::max({batch_size, j.scorer->preferred_batch(), j.twin ? j.twin->preferred_batch() : 0});
        // frames from a pipe or a decoder are held in memory until scored:
        // keep that bounded, by count and to half the memory there is (a
        // reference frame and its distorted ones at least)
        if (!lengths_known) {
            const size_t set = (1 + jobs.size()) * format.frame_bytes();
            const size_t room = available_memory().bytes / 2 / set;
            batch_size = static_cast<int>(std::clamp<size_t>(room, 1, static_cast<size_t>(std::min(batch_size, 32))));
        }
        batch.clear();
        bool ref_ended = false;
        while (static_cast<int>(batch.size()) < batch_size) {
            if (limit && index + static_cast<long long>(batch.size()) >= limit) {
                ref_ended = true;
                break;
            }
            io::FramePtr r = ref->next();
            if (!r) {
                ref_ended = ref_ran_out = true;
                break;
            }
            batch.push_back(std::move(r));
        }
        active = false;
        for (Job& j : jobs) {
            if (j.ended) continue;
            if (!batch.empty()) push(j, batch, *ref);
            if (ref_ended && !j.ended) {
                if (ref_ran_out && j.dis->next()) warn_ended(j.label, *ref, *j.dis, j.frames);
                j.ended = true;
            }
            active = active || !j.ended;
        }
        index += static_cast<long long>(batch.size());
        progress.update(index);
    }
    for (Job& j : jobs) flush(j);
    progress.finish();
    timer.mark("score all frames");
    if (s.ranged) {
        // whether each shard reached the clip's end: an input ran out, or
        // --frame_cnt ended it, or nothing follows the frames read
        const bool cnt_end = s.frame_cnt && first + index >= static_cast<long long>(s.frame_cnt);
        const bool ref_end = ref_ran_out || cnt_end || !ref->next();
        for (Job& j : jobs) j.clip_end = ref_end || j.frames < index || !j.dis->next();
        for (const Job& j : jobs)
            if (first + j.frames <= s.range_first)
                throw Error("--frame_range " + std::to_string(s.range_first) + ":" +
                            (s.range_end >= 0 ? std::to_string(s.range_end) : std::string()) + ": the clip has only " +
                            std::to_string(first + j.frames) + " frames");
    }
    for (const Job& j : jobs) {
        if (j.frames > 0) continue;
        const bool ref_empty = index == 0;
        const io::VideoReader& empty = ref_empty ? *ref : *j.dis;
        const unsigned skipped = ref_empty ? s.frame_skip_ref : s.frame_skip_dist;
        throw Error("no frames to score: " + input_name(empty) +
                    (skipped ? " has no frame after the " + std::to_string(skipped) + " skipped by " +
                                   (ref_empty ? "--frame_skip_ref" : "--frame_skip_dist")
                             : std::string(" is empty")));
    }

    bool holds_device = false;
    for (Job& j : jobs) {
        if (!s.quiet)
            for (const std::string& n : j.scorer->notes()) std::fprintf(stderr, "%swarning: %s\n", j.label.c_str(), n.c_str());
        if (j.twin) return report_parity(j.scorer->metric_names(), j.scores, j.twin_scores);
        if (s.backend == "auto" && !s.gpumask && !s.quiet)
            std::fprintf(stderr, "%s%s\n", j.label.c_str(), j.scorer->backend_description().c_str());
        write_scores(j, s, format, progress.fps(index), first, progress.seconds());
        holds_device = holds_device || j.scorer->holds_device();
    }
    timer.mark("write output");
    // The output is written and closed. Releasing a GPU (context, pinned
    // staging) costs tens of milliseconds, and on a short clip with auto the
    // CUDA engine may still be starting, which would have to finish first:
    // the process leaves without either; the system reclaims it all.
    // (the timings asked for print as the engine goes: it must go then)
    if (holds_device && s.exit_when_done && !env_flag("SPEEDQA_CUDA_STAGES") && !env_flag("SPEEDQA_TIMING")) {
        flush_stdout();
        std::fflush(stderr);
        std::_Exit(0);
    }
    return 0;
}

}  // namespace speedqa::cli
