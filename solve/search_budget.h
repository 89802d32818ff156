// The budget of one solve() (solver.h): counts nodes, looks at the clock and the stop flag
// every few thousand, and once a limit is passed (or the flag set) stays exhausted, so a
// search unwinds without storing anything it did not finish.
#pragma once

#include <chrono>
#include <cstdint>

#include "solve/solver.h"

namespace pz::solve {

class SearchBudget {
 public:
  void start(const SolveOptions& options) {
    options_ = options;
    start_ = Clock::now();
    nodes_ = 0;
    exhausted_ = false;
  }
  // Counts a node; true once the budget is spent.
  bool spend() {
    if (++nodes_ % kNodesPerClockCheck == 0 &&
        ((options_.seconds > 0 && seconds() > options_.seconds) || (options_.nodes && nodes_ > options_.nodes) ||
         (options_.stop && options_.stop->load(std::memory_order_relaxed))))
      exhausted_ = true;
    return exhausted_;
  }
  bool exhausted() const { return exhausted_; }
  // Fills in what every solution reports; an unfinished one keeps no values.
  void finish(Solution& s) const {
    s.complete = !exhausted_;
    if (!s.complete) s.moves.clear();
    s.nodes = nodes_;
    s.seconds = seconds();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kNodesPerClockCheck = 1 << 12;
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  SolveOptions options_;
  Clock::time_point start_;
  std::uint64_t nodes_ = 0;
  bool exhausted_ = false;
};

}  // namespace pz::solve
