#include "io/mapped_file.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace speedqa::io {
namespace {

// The address ranges of the live mappings, for the SIGBUS handler: a file
// cut short under its mapping faults with SIGBUS (BUS_ADRERR) on the pages
// past its new end. Slots are claimed and freed with atomics (the handler
// only reads them); a mapping that finds no free slot is not guarded.
struct Range {
    std::atomic<uintptr_t> begin{0}, end{0};
};
constexpr int kRanges = 256;
Range g_ranges[kRanges];
std::atomic<bool> g_guarding{false};
static_assert(std::atomic<uintptr_t>::is_always_lock_free);

bool in_a_mapping(uintptr_t a) {
    for (const Range& r : g_ranges) {
        const uintptr_t b = r.begin.load(std::memory_order_acquire);
        if (b && a >= b && a < r.end.load(std::memory_order_acquire)) return true;
    }
    return false;
}

extern "C" void on_sigbus(int, siginfo_t* info, void*) {
    if (info->si_code == BUS_ADRERR && in_a_mapping(reinterpret_cast<uintptr_t>(info->si_addr))) {
        // the scores are written when the frames are done: nothing was
        static const char msg[] =
            "speedqa: error: an input file got shorter while it was read (cut or rewritten by another program); "
            "no scores were written\n";
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
        ::_exit(1);
    }
    // not ours: the default action, when the access faults again
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGBUS, &dfl, nullptr);
}

void install_guard_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction old {};
        if (::sigaction(SIGBUS, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return;
        struct sigaction ours {};
        ours.sa_sigaction = on_sigbus;
        ours.sa_flags = SA_SIGINFO;
        sigemptyset(&ours.sa_mask);
        if (::sigaction(SIGBUS, &ours, nullptr) == 0) g_guarding.store(true);
    });
}

void guard(const uint8_t* data, size_t size) {
    if (!size) return;
    install_guard_once();
    for (Range& r : g_ranges) {
        uintptr_t free = 0;
        if (r.begin.load() == 0 && r.end.compare_exchange_strong(free, reinterpret_cast<uintptr_t>(data) + size)) {
            r.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
            return;
        }
    }
}

void unguard(const uint8_t* data) {
    if (!data) return;
    for (Range& r : g_ranges)
        if (r.begin.load() == reinterpret_cast<uintptr_t>(data)) {
            r.begin.store(0, std::memory_order_release);
            r.end.store(0, std::memory_order_release);
            return;
        }
}

}  // namespace

bool Mapping::guards_truncation() { return g_guarding.load(); }

std::shared_ptr<const Mapping> Mapping::map(int fd, size_t size) {
    void* p = nullptr;
    if (size) {
        p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) return nullptr;
    }
    try {
        auto m = std::shared_ptr<const Mapping>(new Mapping(static_cast<const uint8_t*>(p), size, fd));
        guard(m->data_, size);
        return m;
    } catch (...) {
        if (size) ::munmap(p, size);
        throw;
    }
}

Mapping::~Mapping() {
    if (size_) unguard(data_);
    if (size_) ::munmap(const_cast<uint8_t*>(data_), size_);
    ::close(fd_);
}

void Mapping::advise_random() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_RANDOM);
}

void Mapping::advise_sequential() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

void Mapping::release(size_t offset, size_t size) const {
    static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    if (offset >= size_ || size == 0) return;
    // whole pages: a page shared with a neighbouring frame is dropped too,
    // which costs that frame no more than reading the page again
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data_ + offset) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(data_ + offset + std::min(size, size_ - offset));
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace speedqa::io
