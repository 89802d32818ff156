#include "util/thread_team.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pz::util {
namespace {

// How long a thread waits actively before it sleeps: longer than the gap between the searches
// of a benchmark or an analysis loop (a report and a new root: a few microseconds), and short
// enough that a helper spinning after its player's move takes little from the opponent's
// search on the same cores.
constexpr auto kSpin = std::chrono::microseconds(50);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until `done()` or kSpin has passed; returns done().
template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return done();
  }
}

}  // namespace

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void ThreadTeam::run(int members, const std::function<void(int)>& job) {
  const int helpers = members - 1;
  if (helpers <= 0) {
    job(0);
    return;
  }
  while (static_cast<int>(threads_.size()) < helpers) {
    const int member = static_cast<int>(threads_.size()) + 1;
    const std::uint64_t current = generation_.load(std::memory_order_relaxed);
    threads_.emplace_back([this, member, current] { helper_loop(member, current); });
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    job_members_ = members;
    running_.store(helpers, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  job(0);
  const auto finished = [this] { return running_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }
}

void ThreadTeam::helper_loop(int member, std::uint64_t seen) {
  for (;;) {
    const auto new_generation = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    const std::function<void(int)>* job = nullptr;
    bool take_part = false;
    if (!spin_until(new_generation)) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, new_generation);
    }
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      job = job_;
      take_part = member < job_members_;
    }
    if (!take_part) continue;
    (*job)(member);
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Under the mutex: the caller tests running_ under it before it sleeps.
      std::lock_guard lock(mutex_);
      done_.notify_all();
    }
  }
}

}  // namespace pz::util
