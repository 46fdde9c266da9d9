#include "core/truncation_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace speedqa {
namespace {

// Slots are claimed and freed with atomics (the handler only reads them).
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

void install_once() {
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

}  // namespace

void guard_mapping(const void* data, size_t size) {
    if (!data || !size) return;
    install_once();
    const auto b = reinterpret_cast<uintptr_t>(data);
    for (Range& r : g_ranges) {
        uintptr_t free = 0;
        if (r.begin.load() == 0 && r.end.compare_exchange_strong(free, b + size)) {
            r.begin.store(b, std::memory_order_release);
            return;
        }
    }
}

void unguard_mapping(const void* data) {
    if (!data) return;
    const auto b = reinterpret_cast<uintptr_t>(data);
    for (Range& r : g_ranges)
        if (r.begin.load() == b) {
            r.begin.store(0, std::memory_order_release);
            r.end.store(0, std::memory_order_release);
            return;
        }
}

bool guarding_truncation() { return g_guarding.load(); }

}  // namespace speedqa
