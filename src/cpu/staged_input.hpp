// The CPU engine's reading of frames that lie in a file (Picture::fd): each
// worker reads the planes its features take with pread into a few buffers of
// its own, reused frame after frame, rather than reading the pictures' memory
// (a file mapping, whose pages cost a fault each on their first touch: on a
// nested virtual machine ten times what the copy costs; under KVM on a Xeon
// less than the copy, so the engine times both first: probe_input). A
// worker scores a run of consecutive frames of the batch, so that each frame
// it reads serves as the previous frame of the next one (motion,
// speed_temporal): only the first of its run reads its history again. A
// worker that has finished its run takes frames from the end of another's
// (reading their history too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/engine.hpp"

namespace speedqa::cpu {

// Which planes of which pictures the features read (bit p: plane p), over
// all the features of an engine.
struct PlaneNeeds {
    unsigned ref = 0, dis = 0;            // the frame scored
    unsigned prev_ref = 0, prev_dis = 0;  // the frames before it (history)
    int history = 0;                      // how many frames before it

    PlaneNeeds(const VideoFormat& format, const std::vector<const Feature*>& features);
};

// How the engine takes pictures that lie in a file: read with pread into
// the workers' buffers, or through the pictures' memory (the file's
// mapping, as for pictures that are not in a file). `automatic` times both
// on the first such picture (probe_input) and takes the cheaper.
enum class InputMode { automatic, read, map };

// SPEEDQA_INPUT: auto (the default), read or map. Throws Error on another
// value.
InputMode input_mode_from_env();

// The cost of a file's pages, timed on up to `bytes` of it from `offset`
// (whole pages inside that range; the range is read once before, so that
// neither way pays for the disk): through a fresh mapping, each page faulted
// in on its first touch, and read with pread into a buffer whose pages are
// already there, each then read once in both. Best of a few tries.
struct InputProbe {
    long long pages = 0;            // timed; 0: nothing could be timed
    double map_ns_per_page = 0, read_ns_per_page = 0;
    // read where a mapped page costs more than three times a read one (or
    // nothing could be timed). Measured whole runs (1080p and 4K, 2
    // threads): a Xeon under KVM, 110-180 ns mapped and 160-200 read, ran
    // 1.1-1.4x faster mapped; a Xeon microVM, 310-490 ns mapped and 215-305
    // read (up to 1.7 times), 1.1x faster mapped; a Zen 5 in a nested VM,
    // 2,100 ns mapped and 150-300 read, 1.1-1.4x faster reading. Three times
    // lies between those with a margin for the probe's noise on each side.
    static constexpr double kReadAbove = 3.0;
    bool read() const { return pages == 0 || map_ns_per_page > kReadAbove * read_ns_per_page; }
};
InputProbe probe_input(int fd, long long offset, size_t bytes);

// Whether `pic` can be read from its file: its planes in `needs` lie there,
// laid out as in a raw file (stride = row bytes).
bool readable(const VideoFormat& format, const Picture& pic, unsigned needs);

// One worker's buffers: history + 1 slots, the slot of frame i being
// i % slots, each holding the planes of frame i that the frames after it
// read as their history; beside them one set of the other planes the frame
// scored needs, which only the latest frame loaded holds.
class WorkerFrames {
public:
    WorkerFrames(const VideoFormat& format, const PlaneNeeds& needs);
    ~WorkerFrames();
    WorkerFrames(const WorkerFrames&) = delete;
    WorkerFrames& operator=(const WorkerFrames&) = delete;

    // Bytes one worker's buffers take.
    static size_t bytes(const VideoFormat& format, const PlaneNeeds& needs);

    // Frame `index`'s pictures in its slot: the planes the frame scored
    // needs (scored) or only those its successors read as history (not
    // scored), read from their file where readable, else pointing at the
    // pictures' memory; the planes it does not hold are null. Null ref (a
    // frame before the clip's first): the slot holds nothing. Throws Error
    // when a read fails or the file ends early.
    void load(long long index, const Picture* ref, const Picture* dis, bool scored);
    // Frame `index`'s pictures, nullptr where the slot does not hold it.
    const Picture* ref(long long index) const;
    const Picture* dis(long long index) const;

private:
    struct Slot {
        long long index = -1;
        Picture pic[2];                  // ref, dis
        uint8_t* buffer[2][3] = {};      // [side][plane]: the slot's own and the shared ones
    };
    const Slot* holding(long long index) const;
    void load_side(const Picture& src, unsigned planes, uint8_t* const* buffers, Picture& dst, long long index) const;

    VideoFormat format_;
    PlaneNeeds needs_;
    std::vector<Slot> slots_;
    uint8_t* bytes_ = nullptr;
    size_t size_ = 0;
};

// Scores frame k of the batch on one worker: loads it into `frames` (with
// the frames before it that `frames` does not hold and the features read),
// then runs every feature on it.
struct StagedRun {
    const FrameBatch& batch;
    const PlaneNeeds& needs;
    const std::vector<const Feature*>& features;
    const std::vector<std::unique_ptr<CpuKernel>>& kernels;
    const std::vector<std::unique_ptr<KernelScratch>>& scratch;  // the worker's, per feature
    const RawLayout& layout;
    void frame(WorkerFrames& frames, int k, double* out) const;
};

}  // namespace speedqa::cpu
