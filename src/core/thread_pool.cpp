#include "core/thread_pool.hpp"

namespace speedqa {

ThreadPool::ThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {
    for (int w = 1; w < threads_; w++) workers_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_items(int worker) {
    for (;;) {
        int i;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (next_ >= job_size_) return;
            i = next_++;
        }
        try {
            (*job_)(worker, i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            next_ = job_size_;
        }
    }
}

void ThreadPool::worker_loop(int worker) {
    long long seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            busy_++;
        }
        run_items(worker);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            busy_--;
        }
        done_.notify_all();
    }
}

void ThreadPool::parallel_for(int n, const std::function<void(int, int)>& fn) {
    if (threads_ == 1 || n <= 1) {
        for (int i = 0; i < n; i++) fn(0, i);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &fn;
        job_size_ = n;
        next_ = 0;
        error_ = nullptr;
        generation_++;
    }
    wake_.notify_all();
    run_items(0);
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return next_ >= job_size_ && busy_ == 0; });
        job_ = nullptr;
        error = error_;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace speedqa
