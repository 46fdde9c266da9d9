// A fixed set of worker threads that run one indexed loop at a time.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace speedqa {

class ThreadPool {
public:
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return threads_; }
    // Runs fn(worker, i) for i in [0, n) across the workers (the caller is
    // worker 0) and returns when all are done. The first exception thrown is
    // rethrown here.
    void parallel_for(int n, const std::function<void(int worker, int index)>& fn);

private:
    void worker_loop(int worker);
    void run_items(int worker);

    int threads_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int, int)>* job_ = nullptr;
    int job_size_ = 0, next_ = 0, busy_ = 0;
    long long generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace speedqa
