#include "io/frame_pool.hpp"

#include <cstdlib>
#include <new>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace speedqa::io {

struct FramePool::Slot {
    Frame frame;
    uint8_t* data = nullptr;
    ~Slot() { std::free(data); }
};

void FramePool::SlotDeleter::operator()(Slot* s) const noexcept { delete s; }

std::shared_ptr<FramePool> FramePool::create(size_t bytes, std::string input) {
    return std::shared_ptr<FramePool>(new FramePool(bytes, std::move(input)));
}

FramePool::FramePool(size_t bytes, std::string input) : bytes_(bytes), input_(std::move(input)) {}

FramePool::~FramePool() {
    for (Slot* s : idle_) delete s;
}

uint8_t* FramePool::data(Slot& s) { return s.data; }

FramePool::SlotPtr FramePool::take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
        Slot* s = idle_.back();
        idle_.pop_back();
        return SlotPtr(s);
    }
    // Only the reader takes; frames come back from any thread, under mu_.
    constexpr size_t kAlign = 64;
    const size_t rounded = (bytes_ + kAlign - 1) / kAlign * kAlign;
    // A declared frame size the memory cannot hold fails here, in one line,
    // before the buffer's pages are touched.
    const AvailableMemory memory = available_memory();
    if (rounded > memory.bytes)
        throw Error(input_ + ": a frame takes " + format_bytes(rounded) + ", and " + format_bytes(memory.bytes) +
                    " is available (" + memory.bound + ")");
    try {
        idle_.reserve(allocated_ + 1);  // room for every buffer: give_back() never allocates
        SlotPtr s(new Slot);
        s->data = static_cast<uint8_t*>(std::aligned_alloc(kAlign, rounded));
        if (!s->data) throw std::bad_alloc();
        allocated_++;
        return s;
    } catch (const std::bad_alloc&) {
        throw Error(input_ + ": out of memory for a frame buffer of " + std::to_string(bytes_) + " bytes");
    }
}

FramePtr FramePool::publish(SlotPtr slot, const VideoFormat& f, int index) {
    slot->frame.pic = picture_in_frame(f, slot->data);
    slot->frame.index = index;
    Slot* raw = slot.release();
    // The deleter holds the pool, so buffers outlive the reader if need be
    // (and it runs at once, giving the buffer back, should this throw).
    std::shared_ptr<Slot> owner(raw, [pool = shared_from_this()](Slot* s) { pool->give_back(s); });
    return FramePtr(owner, &raw->frame);
}

void FramePool::give_back(Slot* s) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(s);
}

size_t FramePool::idle() const {
    std::lock_guard<std::mutex> lock(mu_);
    return idle_.size();
}

size_t FramePool::allocated() const {
    std::lock_guard<std::mutex> lock(mu_);
    return allocated_;
}

}  // namespace speedqa::io
