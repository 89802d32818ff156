#include "nn/poly/buffer_pool.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace pz::nn {

std::vector<float> BufferPool::take(std::size_t n) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = kept_.find(n);
    if (found != kept_.end() && !found->second.empty()) {
      std::vector<float> buffer = std::move(found->second.back().buffer);
      found->second.pop_back();
      return buffer;
    }
  }
  return std::vector<float>(n, 0.0f);
}

void BufferPool::give(std::vector<float>& buffer) {
  if (buffer.empty()) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_[buffer.size()].push_back({std::move(buffer), step_});
  buffer.clear();
}

void BufferPool::start_step() {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = kept_.begin(); it != kept_.end();) {
    auto& buffers = it->second;
    buffers.erase(std::remove_if(buffers.begin(), buffers.end(),
                                 [this](const Kept& k) { return k.given_in_step < step_; }),
                  buffers.end());
    it = buffers.empty() ? kept_.erase(it) : std::next(it);
  }
  ++step_;
}

std::size_t BufferPool::kept_floats() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::size_t total = 0;
  for (const auto& [size, buffers] : kept_) total += size * buffers.size();
  return total;
}

}  // namespace pz::nn
