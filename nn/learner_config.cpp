#include "nn/learner_config.h"

#include <cmath>
#include <cstdio>

namespace pz::nn {

namespace {

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

}  // namespace

bool step_is_finite(const StepStats& stats) { return std::isfinite(stats.loss) && std::isfinite(stats.grad_norm); }

std::string divergence_reason(const StepStats& stats) {
  const std::string where = " at step " + std::to_string(stats.step) + ", lr " + format_number(stats.lr);
  if (!std::isfinite(stats.loss)) {
    return "loss is " + format_number(stats.loss) + " (policy " + format_number(stats.policy_loss) + ", value " +
           format_number(stats.value_loss) + ")" + where;
  }
  return "gradient norm is " + format_number(stats.grad_norm) + " (loss " + format_number(stats.loss) + ")" + where;
}

std::string weights_divergence_reason(const StepStats& stats) {
  return "weights became non-finite at step " + std::to_string(stats.step) + " (lr " + format_number(stats.lr) +
         ", gradient norm " + format_number(stats.grad_norm) + ")";
}

}  // namespace pz::nn
