// RecentFrames: the two pairs scored last, handed to the next batch as its
// history (the Scorer's PreviousFrames).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "io/video_reader.hpp"

namespace speedqa::io {
namespace {

std::vector<FramePtr> frames(int first, int n) {
    std::vector<FramePtr> v;
    for (int k = 0; k < n; k++) {
        auto f = std::make_shared<Frame>();
        f->index = first + k;
        v.push_back(std::move(f));
    }
    return v;
}

// The index of the frame a history picture belongs to, -1 for none.
int index_of(const Picture* p, const std::vector<FramePtr>& all) {
    for (const FramePtr& f : all)
        if (&f->pic == p) return f->index;
    return p ? -2 : -1;
}

TEST(RecentFrames, PreviousIsTheLastTwoPairsScoredNewestFirst) {
    RecentFrames recent;
    PreviousFrames h = recent.previous();
    for (int b = 0; b < 2; b++) {
        EXPECT_EQ(h.ref[b], nullptr);
        EXPECT_EQ(h.dis[b], nullptr);
    }
    std::vector<FramePtr> ref = frames(0, 3), dis = frames(100, 3), all;
    all.insert(all.end(), ref.begin(), ref.end());
    all.insert(all.end(), dis.begin(), dis.end());

    // a batch of one: its frame, nothing before it
    recent.advance({ref[0]}, {dis[0]});
    h = recent.previous();
    EXPECT_EQ(index_of(h.ref[0], all), 0);
    EXPECT_EQ(index_of(h.dis[0], all), 100);
    EXPECT_EQ(index_of(h.ref[1], all), -1);
    EXPECT_EQ(index_of(h.dis[1], all), -1);

    // another batch of one: the one before moves back
    recent.advance({ref[1]}, {dis[1]});
    h = recent.previous();
    EXPECT_EQ(index_of(h.ref[0], all), 1);
    EXPECT_EQ(index_of(h.ref[1], all), 0);
    EXPECT_EQ(index_of(h.dis[0], all), 101);
    EXPECT_EQ(index_of(h.dis[1], all), 100);

    // a batch whose dis list is shorter: only the scored pairs count
    std::vector<FramePtr> more_ref = frames(2, 3), more_dis = frames(102, 2);
    all.insert(all.end(), more_ref.begin(), more_ref.end());
    all.insert(all.end(), more_dis.begin(), more_dis.end());
    recent.advance(more_ref, more_dis);
    h = recent.previous();
    EXPECT_EQ(index_of(h.ref[0], all), 3);
    EXPECT_EQ(index_of(h.ref[1], all), 2);
    EXPECT_EQ(index_of(h.dis[0], all), 103);
    EXPECT_EQ(index_of(h.dis[1], all), 102);

    // an empty batch changes nothing
    recent.advance({}, {});
    h = recent.previous();
    EXPECT_EQ(index_of(h.ref[0], all), 3);
    EXPECT_EQ(index_of(h.dis[1], all), 102);
}

}  // namespace
}  // namespace speedqa::io
