// Every CUDA call is checked; a failure becomes a speedqa::Error naming the call.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace speedqa::cuda {

inline void check(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess)
        throw Error(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(e) + " (" + file + ":" +
                    std::to_string(line) + ")");
}

}  // namespace speedqa::cuda

#define SPEEDQA_CUDA_CHECK(expr) ::speedqa::cuda::check((expr), #expr, __FILE__, __LINE__)
