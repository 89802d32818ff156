#include "polyhedral/stage_budget.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>

namespace pz::poly {

namespace {

constexpr auto kWatchInterval = std::chrono::milliseconds(20);

// The process's resident memory in bytes; nullopt where /proc is not available.
std::optional<long long> resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long size = 0, resident = 0;
  if (!(statm >> size >> resident)) return std::nullopt;
  return resident * sysconf(_SC_PAGESIZE);
}

std::string format_seconds(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

}  // namespace

StageBudget::StageBudget(IslContext& ctx, const BudgetOptions& options)
    : ctx_(ctx), options_(options), start_(std::chrono::steady_clock::now()) {
  if (options_.seconds > 0 || options_.memory_mib > 0) watchdog_ = std::thread([this] { watch(); });
}

StageBudget::~StageBudget() {
  if (watchdog_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    watchdog_.join();
  }
  isl_ctx_resume(ctx_.raw());
}

void StageBudget::watch() {
  const std::optional<long long> base = options_.memory_mib > 0 ? resident_bytes() : std::nullopt;
  const auto deadline = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(options_.seconds));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!done_) {
    wake_.wait_for(lock, kWatchInterval, [this] { return done_; });
    if (done_) return;
    if (options_.seconds > 0 && std::chrono::steady_clock::now() > deadline) {
      abort_reason_ = "the region's time budget (" + format_seconds(options_.seconds) + " s)";
    } else if (base) {
      const std::optional<long long> now = resident_bytes();
      if (now && *now - *base > options_.memory_mib * (1LL << 20))
        abort_reason_ = "the region's memory budget (" + std::to_string(options_.memory_mib) + " MiB)";
    }
    if (!abort_reason_.empty()) {
      isl_ctx_abort(ctx_.raw());
      return;
    }
  }
}

void StageBudget::check_time(const std::string& stage) const {
  if (options_.seconds <= 0) return;
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (spent <= options_.seconds) return;
  throw BudgetExceeded(stage, stage + " exceeded the region's time budget (" + format_seconds(options_.seconds) + " s)");
}

void StageBudget::check_after(const std::string& stage, const IslBudgetScope& scope) const {
  std::string aborted_for;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_for = abort_reason_;
  }
  if (!aborted_for.empty()) throw BudgetExceeded(stage, stage + " exceeded " + aborted_for);
  if (scope.exceeded()) throw over_operations(stage);
  check_time(stage);
}

BudgetExceeded StageBudget::over_operations(const std::string& stage) const {
  return BudgetExceeded(stage, stage + " exceeded its budget (" + std::to_string(options_.operations) + " isl operations)");
}

}  // namespace pz::poly
