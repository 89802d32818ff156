#include "mcts/batching_evaluator.h"

#include <algorithm>
#include <vector>

namespace pz::mcts {

BatchingEvaluator::BatchingEvaluator(Evaluator& backend, std::size_t max_batch, std::chrono::microseconds max_wait,
                                     int expected_clients)
    : backend_(backend), max_batch_(std::max<std::size_t>(max_batch, 1)), max_wait_(max_wait),
      expected_clients_(expected_clients) {}

bool BatchingEvaluator::batch_ready() const {
  return queued_requests_ >= max_batch_ ||
         (expected_clients_ > 0 && queue_.size() >= static_cast<std::size_t>(expected_clients_));
}

void BatchingEvaluator::evaluate(std::span<const EvalRequest> batch) {
  if (batch.empty()) return;
  Ticket ticket;
  ticket.requests = batch;
  std::unique_lock lock(mutex_);
  queue_.push_back(&ticket);
  queued_requests_ += batch.size();
  ++stats_.calls;
  const auto deadline = std::chrono::steady_clock::now() + max_wait_;
  while (ticket.state != TicketState::kDone) {
    if (ticket.state == TicketState::kQueued &&
        (batch_ready() || std::chrono::steady_clock::now() >= deadline)) {
      run_batch(lock);
    } else if (ticket.state == TicketState::kQueued) {
      done_.wait_until(lock, deadline);
    } else {
      done_.wait(lock);  // another thread is evaluating our requests
    }
  }
  if (ticket.error) std::rethrow_exception(ticket.error);
}

void BatchingEvaluator::run_batch(std::unique_lock<std::mutex>& lock) {
  // Whole tickets from the front, at least one, up to max_batch requests.
  std::vector<Ticket*> taken;
  std::vector<EvalRequest> merged;
  while (!queue_.empty() &&
         (taken.empty() || merged.size() + queue_.front()->requests.size() <= max_batch_)) {
    Ticket* t = queue_.front();
    queue_.pop_front();
    queued_requests_ -= t->requests.size();
    t->state = TicketState::kRunning;
    merged.insert(merged.end(), t->requests.begin(), t->requests.end());
    taken.push_back(t);
  }
  ++stats_.batches;
  stats_.requests += static_cast<std::int64_t>(merged.size());
  lock.unlock();
  std::exception_ptr error;
  try {
    backend_.evaluate(merged);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  for (Ticket* t : taken) {
    t->state = TicketState::kDone;
    t->error = error;
  }
  done_.notify_all();
}

BatchingEvaluator::Stats BatchingEvaluator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace pz::mcts
