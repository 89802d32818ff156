// Gathers evaluate() calls from many threads into large batches for one backend.
//
// Self-play runs several actor threads, each advancing many trees in lockstep; a network
// is only efficient on large batches. Callers block in evaluate() while their requests wait
// in a queue; a batch is cut when it holds `max_batch` requests, when every expected client
// is waiting or running a batch of its own (nobody else could add to it) and the backend
// has a free concurrent call (Evaluator::concurrent_calls), or when the oldest waiting
// caller has waited `max_wait`. The caller that cuts a batch runs the backend itself on its
// own requests and others' (a combining queue: no extra thread, no hand-off latency), then
// wakes the callers whose requests it served. A backend with several concurrent calls gets
// batches of the callers' share of one call, which run side by side. Results go straight
// into each request's own buffers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>

#include "mcts/evaluator.h"

namespace pz::mcts {

class BatchingEvaluator final : public Evaluator {
 public:
  struct Stats {
    std::int64_t batches = 0, calls = 0, requests = 0;
    double mean_batch() const { return batches > 0 ? static_cast<double>(requests) / static_cast<double>(batches) : 0; }
  };

  // `expected_clients`: how many threads call evaluate (0: unknown, rely on size and time).
  BatchingEvaluator(Evaluator& backend, std::size_t max_batch, std::chrono::microseconds max_wait,
                    int expected_clients = 0);

  void evaluate(std::span<const EvalRequest> batch) override;
  Stats stats() const;

 private:
  enum class TicketState { kQueued, kRunning, kDone };
  struct Ticket {
    std::span<const EvalRequest> requests;
    TicketState state = TicketState::kQueued;
    std::exception_ptr error;  // the backend's exception, rethrown in every caller it served
  };
  bool batch_ready() const;
  // Runs `own` (queued) with others from the front of the queue.
  void run_batch(std::unique_lock<std::mutex>& lock, Ticket& own);

  Evaluator& backend_;
  const std::size_t max_batch_;
  const std::chrono::microseconds max_wait_;
  const int expected_clients_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::deque<Ticket*> queue_;
  std::size_t queued_requests_ = 0;
  int running_batches_ = 0, running_clients_ = 0;  // batches in the backend, their callers
  Stats stats_;
};

}  // namespace pz::mcts
