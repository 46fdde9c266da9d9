#include "core/zeroed_array.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "core/env.hpp"

namespace speedqa {
namespace {

constexpr size_t kHuge = size_t{2} << 20;
std::atomic<size_t> g_mapped{0};

}  // namespace

bool zeroed_huge_pages() {
    static const bool on = env_choice("SPEEDQA_HUGE_PAGES", {"auto", "off"}, 0) == 0;
    return on;
}

void* zeroed_alloc(size_t bytes, size_t* mapped) {
    *mapped = 0;
    if (bytes >= kHuge && bytes <= std::numeric_limits<size_t>::max() / 2 && zeroed_huge_pages()) {
        // Whole pages from a 2 MiB boundary: the system backs each 2
        // MiB of the mapping with a huge page and the tail under 2 MiB with
        // ordinary ones, so the array never holds more than its pages.
        const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        const size_t len = (bytes + page - 1) / page * page;
        void* m = ::mmap(nullptr, len + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        const auto a = reinterpret_cast<uintptr_t>(m);
        const uintptr_t start = (a + kHuge - 1) & ~(kHuge - 1);
        if (start > a) ::munmap(m, start - a);
        const uintptr_t end = a + len + kHuge;
        if (end > start + len) ::munmap(reinterpret_cast<void*>(start + len), end - (start + len));
        ::madvise(reinterpret_cast<void*>(start), len, MADV_HUGEPAGE);  // (no huge pages: ordinary ones)
        *mapped = len;
        g_mapped.fetch_add(len, std::memory_order_relaxed);
        return reinterpret_cast<void*>(start);
    }
    void* p = std::calloc(bytes, 1);
    if (!p) throw std::bad_alloc();
    return p;
}

size_t zeroed_mapped_bytes() { return g_mapped.load(std::memory_order_relaxed); }

void zeroed_free(void* p, size_t mapped) {
    if (!p) return;
    if (mapped) {
        ::munmap(p, mapped);
        g_mapped.fetch_sub(mapped, std::memory_order_relaxed);
    } else {
        std::free(p);
    }
}

}  // namespace speedqa
