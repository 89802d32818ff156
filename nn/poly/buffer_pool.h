// Float buffers kept from one training step for the next. A step of the poly learner takes
// the same buffers every time (the activations, their gradients and the kernels' scratch,
// all sized by the network and the batch), so after the first step none of them comes from
// the allocator again, and none costs the page faults and zero pages of fresh memory.
//
// At the start of each step the pool frees what the step before did not take back (a batch
// size that is gone), so that between steps it holds at most what one step used. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pz::nn {

class BufferPool {
 public:
  // A buffer of `n` floats: a kept one as it was left (its contents unspecified: the training
  // kernels write every output and workspace before reading it, nn/poly/layer_kernels.h),
  // else a new one of zeros.
  std::vector<float> take(std::size_t n);

  // Keeps `buffer` (if it has any floats) for a later take of its size; leaves it empty.
  void give(std::vector<float>& buffer);

  // Begins a step: frees the kept buffers that the previous step did not take.
  void start_step();

  // Floats kept now, for tests.
  std::size_t kept_floats() const;

 private:
  struct Kept {
    std::vector<float> buffer;
    std::uint64_t given_in_step = 0;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<Kept>> kept_;  // by size
  std::uint64_t step_ = 0;
};

}  // namespace pz::nn
