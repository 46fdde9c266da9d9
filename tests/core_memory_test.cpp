// core's memory helpers: ZeroedArray (zeroed scratch, large arrays on a 2 MiB
// boundary for huge pages) and the truncation guard of mapped input files.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/truncation_guard.hpp"
#include "core/zeroed_array.hpp"

namespace speedqa::testing {
namespace {

template <class T>
bool all_zero(const ZeroedArray<T>& a) {
    for (size_t i = 0; i < a.size(); i++)
        if (a.data()[i] != T{}) return false;
    return true;
}

// Small arrays from calloc, large ones (2 MiB and more) from a mapping of
// their own at a 2 MiB boundary where huge pages are asked for (the default):
// both zeroed, both writable to their last element, and a moved array keeps
// its memory.
TEST(ZeroedArray, SmallAndLargeArraysAreZeroedAndWholeAndLargeOnesStartAtAHugePage) {
    ZeroedArray<int32_t> small(1000);
    ASSERT_EQ(small.size(), 1000u);
    EXPECT_TRUE(all_zero(small));
    small.data()[999] = 5;

    const size_t n = (size_t{3} << 20) / sizeof(uint16_t) + 17;  // 3 MiB and a little: two huge pages
    ZeroedArray<uint16_t> large(n);
    ASSERT_EQ(large.size(), n);
    EXPECT_TRUE(all_zero(large));
    large.data()[0] = 1;
    large.data()[n - 1] = 2;
    ASSERT_TRUE(zeroed_huge_pages()) << "SPEEDQA_HUGE_PAGES is set in the test's environment";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % (size_t{2} << 20), 0u);

    const uint16_t* where = large.data();
    ZeroedArray<uint16_t> moved = std::move(large);
    EXPECT_EQ(moved.data(), where);
    EXPECT_EQ(moved.data()[n - 1], 2);

    ZeroedArray<uint8_t> empty(0);  // one element: a valid pointer
    ASSERT_NE(empty.data(), nullptr);
    EXPECT_EQ(empty.data()[0], 0);
}

struct TempFile {
    std::string path;
    explicit TempFile(size_t bytes) {
        path = (std::filesystem::temp_directory_path() / ("speedqa_guard_" + std::to_string(::getpid()))).string();
        const std::vector<uint8_t> data(bytes, 9);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        EXPECT_GE(fd, 0);
        EXPECT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
        ::close(fd);
    }
    ~TempFile() { std::filesystem::remove(path); }
};

// A guarded mapping of a file that gets shorter faults into the one line
// (status 1); once unguarded, the same fault is SIGBUS again. (The CPU
// engine's input probe maps a file by itself and guards it so.)
TEST(TruncationGuard, AGuardedMappingCutShortIsOneLineAndAnUnguardedOneSigbus) {
    const size_t bytes = 64 * 1024;
    const TempFile file(bytes);
    const int fd = ::open(file.path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    void* m = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    ASSERT_NE(m, MAP_FAILED);
    guard_mapping(m, bytes);
    if (!guarding_truncation()) {
        unguard_mapping(m);
        ::munmap(m, bytes);
        GTEST_SKIP() << "SIGBUS has a handler of its own in this process (AddressSanitizer's): the guard is not installed";
    }
    ASSERT_EQ(::truncate(file.path.c_str(), 4096), 0);
    const auto* past_the_end = static_cast<const uint8_t*>(m) + 8192;
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *past_the_end; std::exit(0); }, ::testing::ExitedWithCode(1),
                "^speedqa: error: an input file got shorter while it was read \\(cut or rewritten by another program\\); "
                "no scores were written\n$");
    unguard_mapping(m);
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *past_the_end; std::exit(0); }, ::testing::KilledBySignal(SIGBUS), "");
    ::munmap(m, bytes);
}

}  // namespace
}  // namespace speedqa::testing
