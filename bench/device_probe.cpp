// speedqa_device_probe: the costs that decide how the CUDA engine starts and
// feeds the device, measured one by one on the machine at hand: driver and
// context start-up, pinning host memory (cudaMallocHost against huge pages
// registered with cudaHostRegister), un-pinning, host-to-device bandwidth
// from freshly written staging and for the row runs the features read, and
// the host copy rate into staging. Prints one line per measurement.
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace {

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void parallel(int threads, const std::function<void(int)>& fn) {
    std::vector<std::thread> t;
    for (int i = 0; i < threads; i++) t.emplace_back(fn, i);
    for (auto& x : t) x.join();
}

void* huge_alloc(size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

void touch(void* p, size_t bytes, int threads) {
    parallel(threads, [&](int t) {
        const size_t chunk = (bytes + threads - 1) / threads;
        const size_t a = chunk * t, b = std::min(bytes, a + chunk);
        if (a < b) std::memset(static_cast<char*>(p) + a, 0, b - a);
    });
}

void stream_copy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__SSE2__)
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; k++)
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16 * k),
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16 * k)));
    for (; i < n; i++) dst[i] = src[i];
#else
    std::memcpy(dst, src, n);
#endif
}

float h2d_ms(void* d, const void* h, size_t bytes, cudaStream_t st) {
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    cudaEventRecord(a, st);
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a), cudaEventDestroy(b);
    return ms;
}

}  // namespace

int main() {
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    double t = now_ms();
    int n = 0;
    cudaGetDeviceCount(&n);
    std::printf("probe: cudaGetDeviceCount (driver init)        %8.1f ms (%d devices)\n", now_ms() - t, n);
    if (n == 0) return 1;
    t = now_ms();
    cudaFree(nullptr);
    std::printf("probe: cudaFree(0) (context)                   %8.1f ms\n", now_ms() - t);

    const size_t mb192 = size_t{192} << 20;
    for (size_t bytes : {size_t{48} << 20, mb192}) {
        void* h = nullptr;
        t = now_ms();
        cudaMallocHost(&h, bytes);
        const double alloc = now_ms() - t;
        t = now_ms();
        cudaFreeHost(h);
        std::printf("probe: cudaMallocHost %4zu MB %8.1f ms, cudaFreeHost %8.1f ms\n", bytes >> 20, alloc, now_ms() - t);
    }
    for (size_t bytes : {size_t{48} << 20, mb192}) {
        t = now_ms();
        void* h = huge_alloc(bytes);
        touch(h, bytes, threads);
        const double a = now_ms() - t;
        t = now_ms();
        const cudaError_t e = cudaHostRegister(h, bytes, cudaHostRegisterDefault);
        const double r = now_ms() - t;
        t = now_ms();
        cudaHostUnregister(h);
        const double u = now_ms() - t;
        std::printf("probe: huge pages %4zu MB: map+touch(%d threads) %7.1f ms, cudaHostRegister %7.1f ms (%s), unregister %6.1f ms\n",
                    bytes >> 20, threads, a, r, cudaGetErrorString(e), u);
        t = now_ms();
        munmap(h, bytes);
        std::printf("probe:   munmap %6.1f ms\n", now_ms() - t);
    }
    // register without touching first (pages faulted in by the driver)
    {
        t = now_ms();
        void* h = huge_alloc(mb192);
        const cudaError_t e = cudaHostRegister(h, mb192, cudaHostRegisterDefault);
        std::printf("probe: huge pages 192 MB untouched, cudaHostRegister %7.1f ms (%s)\n", now_ms() - t, cudaGetErrorString(e));
        cudaHostUnregister(h);
        munmap(h, mb192);
    }
    // host-to-device: memset once vs rewritten by the host just before
    void *pinned = nullptr, *dev = nullptr;
    cudaMallocHost(&pinned, mb192);
    cudaMalloc(&dev, mb192);
    std::vector<uint8_t> src(mb192, 7);
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    std::memset(pinned, 1, mb192);
    h2d_ms(dev, pinned, mb192, st);
    float best = 1e9f;
    for (int i = 0; i < 4; i++) best = std::min(best, h2d_ms(dev, pinned, mb192, st));
    std::printf("probe: h2d 192 MB cudaMallocHost, idle data    %6.1f GB/s\n", mb192 / (best * 1e-3) / 1e9);
    for (int nt = 0; nt < 2; nt++) {
        float worst = 0, sum = 0;
        double copy = 0;
        for (int i = 0; i < 4; i++) {
            t = now_ms();
            parallel(threads, [&](int k) {
                const size_t chunk = mb192 / threads, a = chunk * k;
                if (nt) stream_copy(static_cast<uint8_t*>(pinned) + a, src.data() + a, chunk);
                else std::memcpy(static_cast<uint8_t*>(pinned) + a, src.data() + a, chunk);
            });
            copy += now_ms() - t;
            const float ms = h2d_ms(dev, pinned, mb192, st);
            worst = std::max(worst, ms), sum += ms;
        }
        std::printf("probe: host copy into staging (%s, %d threads) %6.1f GB/s; h2d right after: mean %6.1f GB/s, worst %6.1f\n",
                    nt ? "stream stores" : "memcpy", threads, 4 * mb192 / (copy * 1e-3) / 1e9, 4 * mb192 / (sum * 1e-3) / 1e9,
                    mb192 / (worst * 1e-3) / 1e9);
    }
    // single thread copy rate
    t = now_ms();
    std::memcpy(pinned, src.data(), mb192);
    std::printf("probe: host memcpy one thread                   %6.1f GB/s\n", mb192 / ((now_ms() - t) * 1e-3) / 1e9);
    // row runs: 9 rows of 3840 B every 16 rows, as 2D copies, one per plane
    {
        const size_t w = 3840, runs = 135, run_rows = 9;
        const int planes = static_cast<int>(mb192 / (w * 16 * runs));
        cudaEvent_t a, b;
        cudaEventCreate(&a), cudaEventCreate(&b);
        float bestms = 1e9f;
        for (int rep = 0; rep < 4; rep++) {
            cudaEventRecord(a, st);
            for (int p = 0; p < planes; p++)
                cudaMemcpy2DAsync(static_cast<uint8_t*>(dev) + p * w * run_rows * runs, w * run_rows,
                                  static_cast<uint8_t*>(pinned) + p * w * 16 * runs, w * 16, w * run_rows, runs,
                                  cudaMemcpyHostToDevice, st);
            cudaEventRecord(b, st);
            cudaEventSynchronize(b);
            float ms = 0;
            cudaEventElapsedTime(&ms, a, b);
            bestms = std::min(bestms, ms);
        }
        const double bytes = static_cast<double>(planes) * w * run_rows * runs;
        std::printf("probe: h2d 2D copies of 9-row runs (%d planes of 4K luma): %6.1f GB/s of needed bytes\n", planes,
                    bytes / (bestms * 1e-3) / 1e9);
        t = now_ms();
        for (int p = 0; p < planes; p++)
            cudaMemcpy2DAsync(static_cast<uint8_t*>(dev) + p * w * run_rows * runs, w * run_rows,
                              static_cast<uint8_t*>(pinned) + p * w * 16 * runs, w * 16, w * run_rows, runs,
                              cudaMemcpyHostToDevice, st);
        const double issue = now_ms() - t;
        cudaStreamSynchronize(st);
        std::printf("probe:   issuing %d 2D copies took %.3f ms on the host\n", planes, issue);
    }
    cudaFreeHost(pinned);
    cudaFree(dev);
    return 0;
}
