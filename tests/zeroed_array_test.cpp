// core's ZeroedArray: zeroed scratch, large arrays on a 2 MiB boundary for
// huge pages. (The truncation guard's test is with the input probe's, in
// cpu_read_input_test.cpp.)
#include <cstdint>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace speedqa::testing
