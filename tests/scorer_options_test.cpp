// The public Scorer refuses options out of range before it takes any
// resource: a thread count outside 0..max_threads (a caller's 100000 would
// otherwise start 100000 threads) is one clear error.
#include <gtest/gtest.h>

#include <dirent.h>

#include "speedqa/speedqa.hpp"

namespace speedqa::testing {
namespace {

int threads_of_this_process() {
    int n = 0;
    if (DIR* d = opendir("/proc/self/task")) {
        while (const dirent* e = readdir(d))
            if (e->d_name[0] != '.') n++;
        closedir(d);
    }
    return n;
}

TEST(ScorerOptions, ThreadCountsOutOfRangeAreRefused) {
    const VideoFormat format{160, 160, PixelFormat::yuv420, 8};
    const int before = threads_of_this_process();
    for (const int threads : {-1, max_threads + 1, 100000}) {
        ScorerOptions o;
        o.threads = threads;
        try {
            Scorer s(format, {"speed_chroma"}, o);
            ADD_FAILURE() << "threads " << threads << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), "threads " + std::to_string(threads) + ": must be from 0 to " +
                                                 std::to_string(max_threads));
        }
    }
    EXPECT_EQ(threads_of_this_process(), before);
    ScorerOptions o;
    o.threads = max_threads;
    EXPECT_NO_THROW(Scorer(format, {"speed_chroma"}, o));
}

}  // namespace
}  // namespace speedqa::testing
