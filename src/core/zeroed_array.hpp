// A fixed array of zero-initialised trivial values from calloc, for large
// scratch: the system hands fresh pages out zeroed on first touch, so making
// one writes nothing, and only the pages a kernel touches are faulted in, by
// the thread that touches them (std::vector's value-initialisation writes
// every byte at once, on the thread that makes it).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace speedqa {

template <class T>
class ZeroedArray {
    static_assert(std::is_trivial_v<T>, "ZeroedArray holds trivial values");

public:
    ZeroedArray() = default;
    explicit ZeroedArray(size_t n) : p_(static_cast<T*>(std::calloc(n ? n : 1, sizeof(T)))), n_(n) {
        if (!p_) throw std::bad_alloc();
    }
    T* data() { return p_.get(); }
    const T* data() const { return p_.get(); }
    size_t size() const { return n_; }

private:
    struct Free {
        void operator()(T* p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> p_;
    size_t n_ = 0;
};

}  // namespace speedqa
