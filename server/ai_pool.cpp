#include "server/ai_pool.h"

#include <algorithm>

namespace pz::server {

AiPool::AiPool(int threads, int queue_limit) : queue_limit_(static_cast<std::size_t>(std::max(1, queue_limit))) {
  for (int t = 0; t < std::max(1, threads); ++t) threads_.emplace_back([this] { work(); });
}

AiPool::~AiPool() { stop(); }

bool AiPool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= queue_limit_) return false;
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

void AiPool::drain() {
  {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
  }
  stop();
}

void AiPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void AiPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    job();  // jobs catch their own errors
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    idle_.notify_all();
  }
}

}  // namespace pz::server
