// Budgets for the stages of one region's pipeline (polyc.cpp): dependence analysis,
// scheduling, time tiling, loop order, tiling, unroll-and-jam, parallel and simd marks, data
// movement and code generation.
//
// Each stage runs under an isl operation budget (IslBudgetScope; the budgets inside a stage,
// the scheduler's per attempt and the data-movement phases', nest in it and are capped by
// it). isl counts only simplex pivots, so the region also has a wall-clock and a memory
// budget: a watchdog thread aborts the region's isl computations (isl_ctx_abort) when the
// region's time is spent or the process has grown by more than its memory budget since the
// region began, and the time is checked again before and after every stage for what isl
// does not run. A stage over any budget throws BudgetExceeded naming it; polyc then keeps
// that region as written (its source order), which is always correct, and says so.
//
// Operations are deterministic (the same input always stops at the same place); seconds and
// bytes are not, so their defaults are far above what any real kernel needs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "polyhedral/ir/isl_context.h"
#include "util/error.h"

namespace pz::poly {

struct BudgetOptions {
  // isl operations per stage (0: unlimited). The costliest stage of PolyBench's kernels at
  // their large sizes needs under 10^6 outside the budgets nested in it (the scheduler's
  // 2x10^7 per attempt, a point count's 1.7x10^7); isl runs a few million a second.
  unsigned long operations = 20'000'000;
  // Wall-clock seconds per region's pipeline (0: unlimited).
  double seconds = 60;
  // Growth of the process's resident memory during one region's pipeline, in MiB (0:
  // unlimited; checked where /proc/self/statm exists). Off by default here: the process
  // may have other threads allocating; the polyc command turns it on.
  long memory_mib = 0;
  // A region with more statements, or loops nested deeper, is kept as written without
  // analysis (0: no limit): dependence analysis and scheduling grow quadratically in
  // statements and exponentially in depth (PolyBench's kernels have at most 4 loops).
  int max_statements = 500;
  int max_depth = 10;
};

class BudgetExceeded : public std::runtime_error {
 public:
  BudgetExceeded(std::string stage, const std::string& why)
      : std::runtime_error(why), stage_(std::move(stage)) {}
  const std::string& stage() const { return stage_; }

 private:
  std::string stage_;
};

class StageBudget {
 public:
  // The region's clock starts here, and its watchdog.
  StageBudget(IslContext& ctx, const BudgetOptions& options);
  ~StageBudget();
  StageBudget(const StageBudget&) = delete;
  StageBudget& operator=(const StageBudget&) = delete;

  // `f()` as stage `stage`; throws BudgetExceeded when the region's time is spent before or
  // after it, or when isl ran out of operations or was aborted by the watchdog inside it
  // (whether isl's failure surfaced as an exception or as a quietly degraded result).
  template <class F>
  decltype(auto) run(const std::string& stage, F&& f) {
    check_time(stage);
    IslBudgetScope scope(ctx_, options_.operations);
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        f();
        check_after(stage, scope);
      } else {
        auto result = f();
        check_after(stage, scope);
        return result;
      }
    } catch (const BudgetExceeded&) {
      throw;
    } catch (const util::UsageError&) {
      throw;
    } catch (const isl::exception_quota&) {
      throw over_operations(stage);
    } catch (const std::exception&) {
      check_after(stage, scope);
      throw;
    }
  }

  // Throws BudgetExceeded when the region's time is spent.
  void check_time(const std::string& stage) const;

 private:
  void watch();
  void check_after(const std::string& stage, const IslBudgetScope& scope) const;
  BudgetExceeded over_operations(const std::string& stage) const;

  IslContext& ctx_;
  BudgetOptions options_;
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string abort_reason_;  // set by the watchdog when it aborts isl
  std::thread watchdog_;
};

}  // namespace pz::poly
