// Frame buffers for streamed input, recycled through a free list: a frame
// handed out returns its buffer to the pool when its last FramePtr goes. The
// pool holds as many buffers as were ever in use at once (the consumer's
// window of frames in flight), so a steady stream allocates none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/video_reader.hpp"

namespace speedqa::io {

class FramePool : public std::enable_shared_from_this<FramePool> {
public:
    // Buffers of `bytes` bytes (64-byte aligned) for the input errors name
    // `input`.
    static std::shared_ptr<FramePool> create(size_t bytes, std::string input);
    ~FramePool();
    FramePool(const FramePool&) = delete;
    FramePool& operator=(const FramePool&) = delete;

    struct Slot;  // a buffer and the Frame describing it
    struct SlotDeleter {
        void operator()(Slot* s) const noexcept;
    };
    using SlotPtr = std::unique_ptr<Slot, SlotDeleter>;

    // An idle buffer, or a new one. Throws Error when memory runs out or
    // would (a buffer larger than the memory available).
    SlotPtr take();
    static uint8_t* data(Slot& s);
    // Publishes the slot's contents as frame `index` of format `f`; the
    // buffer comes back here when the last FramePtr to it is released.
    FramePtr publish(SlotPtr slot, const VideoFormat& f, int index);

    size_t idle() const;       // idle buffers now (for tests)
    size_t allocated() const;  // buffers allocated so far (for tests)

private:
    FramePool(size_t bytes, std::string input);
    void give_back(Slot* s) noexcept;

    size_t bytes_;
    std::string input_;
    mutable std::mutex mu_;
    std::vector<Slot*> idle_;
    size_t allocated_ = 0;
};

}  // namespace speedqa::io
