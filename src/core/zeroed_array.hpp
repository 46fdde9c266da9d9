// A fixed array of zero-initialised trivial values, for large scratch: the
// system hands fresh pages out zeroed on first touch, so making one writes
// nothing, and only the pages a kernel touches are faulted in, by the thread
// that touches them (std::vector's value-initialisation writes every byte at
// once, on the thread that makes it).
//
// Arrays of 2 MiB or more get their own mapping from a 2 MiB boundary,
// marked for transparent huge pages (madvise): a 2 MiB page is one fault and
// one TLB entry instead of 512 (CAMBI's scratch at 4K is about 110 MB a
// worker). The tail under 2 MiB, and everything where the system gives no
// huge pages, is ordinary pages.
// SPEEDQA_HUGE_PAGES=off takes every array from calloc.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

namespace speedqa {

// Whether large arrays ask for huge pages (SPEEDQA_HUGE_PAGES: auto, the
// default, or off); throws Error on any other value.
bool zeroed_huge_pages();

// `bytes` (> 0) of zeroed memory, from calloc or (2 MiB and more) a mapping
// of its own; *mapped is the length to give zeroed_free (0 for calloc's).
// Throws std::bad_alloc.
void* zeroed_alloc(size_t bytes, size_t* mapped);
void zeroed_free(void* p, size_t mapped);

// Bytes of the arrays made now with mappings of their own (the heap's
// statistics do not hold them).
size_t zeroed_mapped_bytes();

template <class T>
class ZeroedArray {
    static_assert(std::is_trivial_v<T>, "ZeroedArray holds trivial values");

public:
    ZeroedArray() = default;
    explicit ZeroedArray(size_t n) : n_(n) {
        size_t mapped = 0;
        void* p = zeroed_alloc((n ? n : 1) * sizeof(T), &mapped);
        p_ = std::unique_ptr<T, Free>(static_cast<T*>(p), Free{mapped});
    }
    T* data() { return p_.get(); }
    const T* data() const { return p_.get(); }
    size_t size() const { return n_; }

private:
    struct Free {
        size_t mapped = 0;
        void operator()(T* p) const { zeroed_free(p, mapped); }
    };
    std::unique_ptr<T, Free> p_;
    size_t n_ = 0;
};

}  // namespace speedqa
