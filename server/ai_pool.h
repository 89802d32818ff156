// The play server's AI searches: a fixed number of threads taking jobs from a bounded
// queue, so a flood of requests waits its turn (or is refused when the queue is full)
// instead of starting searches without limit on a busy machine.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pz::server {

class AiPool {
 public:
  AiPool(int threads, int queue_limit);
  ~AiPool();  // finishes the running jobs, drops the queued ones
  AiPool(const AiPool&) = delete;
  AiPool& operator=(const AiPool&) = delete;

  // Queues `job`; false when the queue is full or the pool is stopping.
  bool submit(std::function<void()> job);
  // Waits until every queued job has run, then stops.
  void drain();
  void stop();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable ready_, idle_;
  int running_ = 0;
  std::deque<std::function<void()>> queue_;
  std::size_t queue_limit_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pz::server
