// A caller and a team of helper threads that run one short job after another together.
//
// Search::run spreads each search over its threads, and a player or a benchmark starts one
// search right after the other. Creating and joining a thread per search cost about 120 µs on
// the 2-core development VM (a run() of 8 simulations: 5.8 µs on one thread, 128 µs on two),
// which is 3% of a 10000-simulation search on two threads and a third of a 1000-simulation
// one. The team keeps its helpers between jobs: a helper that has finished spins for a while
// on the next job's generation (so back-to-back jobs start within a microsecond), then
// sleeps on a condition variable (so an idle team costs nothing).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pz::util {

class ThreadTeam {
 public:
  ThreadTeam() = default;
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;
  // Stops and joins the helpers (no job may be running).
  ~ThreadTeam();

  // Calls job(0) on the calling thread and job(1) … job(members - 1) on helpers (started the
  // first time they are needed), and returns when every call has returned. `job` must not
  // throw: catch inside it and hand the error back. Not reentrant; one caller at a time.
  void run(int members, const std::function<void(int)>& job);

  // Helpers started so far.
  int helpers() const { return static_cast<int>(threads_.size()); }

 private:
  void helper_loop(int member, std::uint64_t seen);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int job_members_ = 0;
  bool stop_ = false;
  // A new job is a new generation; helpers of index < job_members_ take part in it.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> running_{0};  // helpers still in the current job
};

}  // namespace pz::util
