// The host side of CAMBI's device part, shared by the CUDA part (part.cu) and
// the host twin test: the device plan and the queue's arrays (stages.hpp),
// and the tail that turns a frame's records into its raw values with the
// CPU's own pooling decisions and score (pooling.hpp, picture_score.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "features/cambi/cuda/stages.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa::cambi::dev {

// Where the plan's tables are for the stages (the device's copies, or the
// plan's own vectors for the host twin).
struct Tables {
    const uint8_t* first_diff = nullptr;
    const int* weight = nullptr;
    const float* reciprocal = nullptr;
    const int* source_row[2] = {};     // per picture (dis, src), where resampled
    const int* source_column[2] = {};
};

// The banding stage's shared memory per block: at most this (the default
// every CUDA device gives a block). The host twin tests other budgets.
inline constexpr size_t kBandingShared = 48 * 1024;

// Throws std::logic_error where the budget cannot hold the banding stage's
// histogram.
DevPlan make_dev_plan(const Plan& plan, const Tables& tables, size_t banding_shared = kBandingShared);

// The bytes of a queue's arrays for `frames` frames, and those arrays in
// that many bytes from `base` (256-byte aligned).
size_t arena_bytes(const DevPlan& p, int frames);
DevBuffers carve(const DevPlan& p, int frames, void* base);
// The bytes of the records of `frames` frames (at DevBuffers::records).
size_t record_bytes(const DevPlan& p, int frames);

// How each scale's topk mean was found, for the tests.
struct TailPaths {
    long long none = 0;        // no nonzero value
    long long all = 0;         // at most k nonzero values: their sum, order-free
    long long top = 0;         // more than k: the selected k, order-free
    long long ordered = 0;     // libvmaf's order (the values copied back)
};

// Per host thread.
struct HostTail {
    std::vector<float> dense, compact, scratch;
    std::vector<uint64_t> bits;
    TailPaths paths;
    // tests: every scale's mean in libvmaf's order from the values copied
    // back (the same mean where the order cannot matter)
    bool always_ordered = false;
};

// Fetches the banding values of picture `image`, scale `scale` of the frame
// (n of them, row-major) into dst.
using FetchValues = std::function<void(int image, int scale, float* dst, size_t n)>;

// Frame `index`'s raw values from its records (records[image], the plan's
// images); throws Error where a picture has a sample above its range.
void frame_raw(const Plan& plan, const DevPlan& dp, const ImageRecord* records, long long index,
               const FetchValues& fetch, HostTail& scratch, double* raw);

}  // namespace speedqa::cambi::dev
