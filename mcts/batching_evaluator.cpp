#include "mcts/batching_evaluator.h"

#include <algorithm>
#include <vector>

namespace pz::mcts {

BatchingEvaluator::BatchingEvaluator(Evaluator& backend, std::size_t max_batch, std::chrono::microseconds max_wait,
                                     int expected_clients)
    : backend_(backend), max_batch_(std::max<std::size_t>(max_batch, 1)), max_wait_(max_wait),
      expected_clients_(expected_clients) {}

bool BatchingEvaluator::batch_ready() const {
  if (queued_requests_ >= max_batch_) return true;
  if (expected_clients_ <= 0) return false;
  // Callers whose batch is running cannot add to this one; waiting for them only pays
  // when the backend could not run this batch beside theirs anyway.
  const bool backend_free = running_batches_ < backend_.concurrent_calls();
  const std::size_t unable = queue_.size() + (backend_free ? static_cast<std::size_t>(running_clients_) : 0);
  return unable >= static_cast<std::size_t>(expected_clients_);
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
      run_batch(lock, ticket);
    } else if (ticket.state == TicketState::kQueued) {
      done_.wait_until(lock, deadline);
    } else {
      done_.wait(lock);  // another thread is evaluating our requests
    }
  }
  if (ticket.error) std::rethrow_exception(ticket.error);
}

void BatchingEvaluator::run_batch(std::unique_lock<std::mutex>& lock, Ticket& own) {
  // Whole tickets from the front, at least one, up to max_batch requests; with a backend
  // that runs several calls at once, up to the clients' share of one call, so that the
  // others' batches run beside this one rather than inside it.
  const int concurrency = std::max(1, backend_.concurrent_calls());
  const std::size_t max_tickets = expected_clients_ > 0 && concurrency > 1
                                      ? static_cast<std::size_t>((expected_clients_ + concurrency - 1) / concurrency)
                                      : queue_.size();
  // The caller's own ticket first: it is the one sure to be waiting on this thread.
  std::vector<Ticket*> taken;
  std::vector<EvalRequest> merged;
  const auto take = [&](Ticket* t) {
    queued_requests_ -= t->requests.size();
    t->state = TicketState::kRunning;
    merged.insert(merged.end(), t->requests.begin(), t->requests.end());
    taken.push_back(t);
  };
  queue_.erase(std::find(queue_.begin(), queue_.end(), &own));
  take(&own);
  while (!queue_.empty() && taken.size() < max_tickets &&
         merged.size() + queue_.front()->requests.size() <= max_batch_) {
    take(queue_.front());
    queue_.pop_front();
  }
  ++stats_.batches;
  stats_.requests += static_cast<std::int64_t>(merged.size());
  ++running_batches_;
  running_clients_ += static_cast<int>(taken.size());
  if (!queue_.empty()) done_.notify_all();  // the callers left may now cut a batch of their own
  lock.unlock();
  std::exception_ptr error;
  try {
    backend_.evaluate(merged);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  --running_batches_;
  running_clients_ -= static_cast<int>(taken.size());
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
