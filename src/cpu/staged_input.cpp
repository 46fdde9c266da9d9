#include "cpu/staged_input.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "core/env.hpp"
#include "core/error.hpp"
#include "core/truncation_guard.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace speedqa::cpu {
namespace {

constexpr size_t kAlign = 64;

size_t row_bytes(const VideoFormat& f, int p) { return static_cast<size_t>(f.stored_w(p)) * f.bytes_per_sample(); }
size_t plane_room(const VideoFormat& f, int p) { return (f.plane_bytes(p) + kAlign - 1) / kAlign * kAlign; }

unsigned in_format(const VideoFormat& f, unsigned planes) { return planes & ((1u << f.plane_count()) - 1); }

// Per side (0 ref, 1 dis): the planes a slot keeps for the frames after its
// own (history), and those only the frame scored reads (one shared set).
unsigned kept_planes(const PlaneNeeds& n, int side) {
    return n.history ? (side == 0 ? n.prev_ref : n.prev_dis) : 0;
}
unsigned current_planes(const PlaneNeeds& n, int side) { return (side == 0 ? n.ref : n.dis) & ~kept_planes(n, side); }

size_t planes_bytes(const VideoFormat& f, unsigned planes) {
    size_t b = 0;
    for (int p = 0; p < f.plane_count(); p++)
        if (planes >> p & 1) b += plane_room(f, p);
    return b;
}

// Reads `size` bytes at `offset` of fd into dst, however the reads split:
// the bytes read (fewer where the file ends first), or -1 (errno says why).
ssize_t pread_fully(int fd, uint8_t* dst, size_t size, long long offset) {
    size_t done = 0;
    while (done < size) {
        const ssize_t r = ::pread(fd, dst + done, size - done, static_cast<off_t>(offset + static_cast<long long>(done)));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        done += static_cast<size_t>(r);
    }
    return static_cast<ssize_t>(done);
}

// The same for a frame's plane: Error where it cannot be read whole.
void read_fully(int fd, uint8_t* dst, size_t size, long long offset, long long frame) {
    const ssize_t r = pread_fully(fd, dst, size, offset);
    if (r < 0) throw Error("cannot read frame " + std::to_string(frame) + " from its file: " + std::strerror(errno));
    if (static_cast<size_t>(r) < size)
        throw Error("frame " + std::to_string(frame) +
                    ": its file ended before it (the file was cut short while it was scored)");
}

}  // namespace

PlaneNeeds::PlaneNeeds(const VideoFormat& format, const std::vector<const Feature*>& features) {
    for (const Feature* f : features) {
        const Feature::PlanesRead r = f->planes_read();
        ref |= r.ref;
        dis |= r.dis;
        if (f->history() > 0) {
            prev_ref |= r.prev_ref;
            prev_dis |= r.prev_dis;
            history = std::max(history, std::min(f->history(), 2));
        }
    }
    ref = in_format(format, ref);
    dis = in_format(format, dis);
    prev_ref = in_format(format, prev_ref);
    prev_dis = in_format(format, prev_dis);
}

InputMode input_mode_from_env() {
    static const int mode = env_choice("SPEEDQA_INPUT", {"auto", "read", "map"}, 0);
    return mode == 1 ? InputMode::read : mode == 2 ? InputMode::map : InputMode::automatic;
}

InputProbe probe_input(int fd, long long offset, size_t bytes) {
    InputProbe out;
    const long page = ::sysconf(_SC_PAGESIZE);
    if (fd < 0 || offset < 0 || page <= 0) return out;
    const long long first = (offset + page - 1) / page * page;
    const long long end = (offset + static_cast<long long>(bytes)) / page * page;
    if (end <= first) return out;
    const size_t size = static_cast<size_t>(end - first);
    void* buf = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) return out;
    auto* b = static_cast<uint8_t*>(buf);
    ::madvise(buf, size, MADV_POPULATE_WRITE);
    const auto read_all = [&](uint8_t* dst) { return pread_fully(fd, dst, size, first) == static_cast<ssize_t>(size); };
    // every cache line once, as a kernel would
    const auto touch = [&](const uint8_t* p) {
        for (size_t i = 0; i < size; i += 64) (void)*static_cast<const volatile uint8_t*>(p + i);
    };
    using Clock = std::chrono::steady_clock;
    const auto ns = [](Clock::duration d) { return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
    double best_map = 0, best_read = 0;
    bool ok = read_all(b);  // into the page cache
    for (int i = 0; ok && i < 3; i++) {
        const auto t0 = Clock::now();
        void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(first));
        if (m == MAP_FAILED) {
            ok = false;
            break;
        }
        // (guarded: a file cut short in between faults on these pages)
        guard_mapping(m, size);
        touch(static_cast<const uint8_t*>(m));
        unguard_mapping(m);
        ::munmap(m, size);
        const auto t1 = Clock::now();
        ok = read_all(b);
        touch(b);
        const auto t2 = Clock::now();
        best_map = i == 0 ? ns(t1 - t0) : std::min(best_map, ns(t1 - t0));
        best_read = i == 0 ? ns(t2 - t1) : std::min(best_read, ns(t2 - t1));
    }
    ::munmap(buf, size);
    if (!ok) return out;
    out.pages = static_cast<long long>(size / static_cast<size_t>(page));
    out.map_ns_per_page = best_map / static_cast<double>(out.pages);
    out.read_ns_per_page = best_read / static_cast<double>(out.pages);
    return out;
}

bool readable(const VideoFormat& format, const Picture& pic, unsigned needs) {
    if (pic.fd < 0) return false;
    for (int p = 0; p < format.plane_count(); p++)
        if ((needs >> p & 1) &&
            (pic.file_offset[p] < 0 || pic.stride[p] != static_cast<ptrdiff_t>(row_bytes(format, p))))
            return false;
    return true;
}

size_t WorkerFrames::bytes(const VideoFormat& format, const PlaneNeeds& needs) {
    size_t b = 0;
    for (int side = 0; side < 2; side++)
        b += static_cast<size_t>(needs.history + 1) * planes_bytes(format, kept_planes(needs, side)) +
             planes_bytes(format, current_planes(needs, side));
    return b;
}

WorkerFrames::WorkerFrames(const VideoFormat& format, const PlaneNeeds& needs)
    : format_(format), needs_(needs), slots_(static_cast<size_t>(needs.history + 1)), size_(bytes(format, needs)) {
    if (size_) {
        void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        bytes_ = static_cast<uint8_t*>(p);
        // the pages now, in one call: on a virtual machine that costs about
        // half of what faulting them in one by one does (the first reads
        // would); without it (Linux before 5.14) they fault in as before
        ::madvise(p, size_, MADV_POPULATE_WRITE);
    }
    uint8_t* b = bytes_;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < format.plane_count(); p++) {
            if (current_planes(needs, side) >> p & 1) {
                for (Slot& s : slots_) s.buffer[side][p] = b;
                b += plane_room(format, p);
            }
            if (kept_planes(needs, side) >> p & 1)
                for (Slot& s : slots_) {
                    s.buffer[side][p] = b;
                    b += plane_room(format, p);
                }
        }
}

WorkerFrames::~WorkerFrames() {
    if (bytes_) ::munmap(bytes_, size_);
}

const WorkerFrames::Slot* WorkerFrames::holding(long long index) const {
    if (index < 0) return nullptr;
    const Slot& s = slots_[static_cast<size_t>(index % static_cast<long long>(slots_.size()))];
    return s.index == index ? &s : nullptr;
}

const Picture* WorkerFrames::ref(long long index) const {
    const Slot* s = holding(index);
    return s ? &s->pic[0] : nullptr;
}

const Picture* WorkerFrames::dis(long long index) const {
    const Slot* s = holding(index);
    return s ? &s->pic[1] : nullptr;
}

void WorkerFrames::load_side(const Picture& src, unsigned planes, uint8_t* const* buffers, Picture& dst,
                             long long index) const {
    dst = Picture{};
    const bool from_file = readable(format_, src, planes);
    for (int p = 0; p < format_.plane_count(); p++) {
        if (!(planes >> p & 1)) continue;
        if (from_file && buffers[p]) {
            read_fully(src.fd, buffers[p], format_.plane_bytes(p), src.file_offset[p], index);
            dst.plane[p] = buffers[p];
            dst.stride[p] = static_cast<ptrdiff_t>(row_bytes(format_, p));
        } else {
            dst.plane[p] = src.plane[p];
            dst.stride[p] = src.stride[p];
        }
    }
}

void WorkerFrames::load(long long index, const Picture* ref, const Picture* dis, bool scored) {
    if (index < 0) return;
    Slot& s = slots_[static_cast<size_t>(index % static_cast<long long>(slots_.size()))];
    s.index = -1;
    if (!ref || !dis) return;
    for (int side = 0; side < 2; side++) {
        const unsigned kept = kept_planes(needs_, side), current = current_planes(needs_, side);
        if (scored)  // the shared planes are this frame's now: no other slot shows them
            for (Slot& o : slots_)
                for (int p = 0; p < 3; p++)
                    if (current >> p & 1) o.pic[side].plane[p] = nullptr;
        load_side(side == 0 ? *ref : *dis, kept | (scored ? current : 0), s.buffer[side], s.pic[side], index);
    }
    s.index = index;
}

void StagedRun::frame(WorkerFrames& frames, int k, double* out) const {
    const long long index = batch.first_index + k;
    // the frames before it that the features read, where FrameBatch::view finds them
    const FrameView wanted = batch.view(k, needs.history);
    for (int h = needs.history; h >= 1; h--)
        if (!frames.ref(index - h)) frames.load(index - h, wanted.prev_ref[h - 1], wanted.prev_dis[h - 1], false);
    frames.load(index, &batch.ref[k], &batch.dis[k], true);
    for (size_t f = 0; f < features.size(); f++) {
        FrameView v;
        v.index = index;
        v.ref = frames.ref(index);
        v.dis = frames.dis(index);
        for (int h = 0; h < features[f]->history() && h < 2; h++) {
            v.prev_ref[h] = frames.ref(index - 1 - h);
            v.prev_dis[h] = frames.dis(index - 1 - h);
        }
        kernels[f]->extract(*scratch[f], v, out + static_cast<size_t>(k) * layout.stride + layout.offset[f]);
    }
}

}  // namespace speedqa::cpu
