#include "optim/schedulers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "util/error.h"

namespace pz::optim {

using nlohmann::json;

namespace {

// Constructors check what the JSON layer checks too, so that the C++ API cannot build a
// scheduler that divides by zero later. Messages name the option the way the config does.
void require(bool ok, const std::string& scheduler, const std::string& message) {
  if (!ok) throw util::UsageError(scheduler + ": " + message);
}

// Python's `a % b` for b > 0: never negative.
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  const std::int64_t r = a % b;
  return r < 0 ? r + b : r;
}

constexpr double kPi = std::numbers::pi;  // == Python's math.pi

}  // namespace

// ---- PolynomialLR ----------------------------------------------------------------------

PolynomialLR::PolynomialLR(std::shared_ptr<ParamGroups> groups, PolynomialLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.total_iters >= 1, "poly", "total_iters must be >= 1");
  require(options_.power >= 0, "poly", "power must be >= 0");
  initial_step();
}

json PolynomialLR::config() const {
  json c = config_header();
  c["total_iters"] = options_.total_iters;
  c["power"] = options_.power;
  c["eta_min"] = options_.eta_min;
  return c;
}

double PolynomialLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  const auto T = options_.total_iters;
  const double x = 1.0 - static_cast<double>(std::min(T, t)) / static_cast<double>(T);
  return options_.eta_min + (base_lrs_[g] - options_.eta_min) * std::pow(x, options_.power);
}

double PolynomialLR::chainable_lr(std::size_t, double current, std::int64_t t, bool initial) const {
  const auto T = static_cast<double>(options_.total_iters);
  if (initial || t > options_.total_iters) return current;
  const double decay = std::pow((1.0 - static_cast<double>(t) / T) / (1.0 - static_cast<double>(t - 1) / T), options_.power);
  return options_.eta_min + (current - options_.eta_min) * decay;
}

// ---- InversePolyLR ---------------------------------------------------------------------

InversePolyLR::InversePolyLR(std::shared_ptr<ParamGroups> groups, InversePolyLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.decay_steps > 0, "inverse_poly", "decay_steps must be > 0");
  require(options_.power >= 0, "inverse_poly", "power must be >= 0");
  initial_step();
}

json InversePolyLR::config() const {
  json c = config_header();
  c["decay_steps"] = options_.decay_steps;
  c["power"] = options_.power;
  return c;
}

double InversePolyLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  return base_lrs_[g] * std::pow(1.0 + static_cast<double>(t) / options_.decay_steps, -options_.power);
}

double InversePolyLR::chainable_lr(std::size_t, double current, std::int64_t t, bool initial) const {
  if (initial || t == 0) return current;
  const double T = options_.decay_steps;
  return current * std::pow((1.0 + static_cast<double>(t) / T) / (1.0 + static_cast<double>(t - 1) / T), -options_.power);
}

// ---- LinearLR --------------------------------------------------------------------------

LinearLR::LinearLR(std::shared_ptr<ParamGroups> groups, LinearLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.start_factor > 0 && options_.start_factor <= 1, "linear", "start_factor must be in (0, 1]");
  require(options_.end_factor >= 0 && options_.end_factor <= 1, "linear", "end_factor must be in [0, 1]");
  require(options_.total_iters >= 1, "linear", "total_iters must be >= 1");
  initial_step();
}

json LinearLR::config() const {
  json c = config_header();
  c["start_factor"] = options_.start_factor;
  c["end_factor"] = options_.end_factor;
  c["total_iters"] = options_.total_iters;
  return c;
}

double LinearLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  const auto& o = options_;
  return base_lrs_[g] * (o.start_factor + (o.end_factor - o.start_factor) * static_cast<double>(std::min(o.total_iters, t)) /
                                              static_cast<double>(o.total_iters));
}

double LinearLR::chainable_lr(std::size_t, double current, std::int64_t t, bool initial) const {
  const auto& o = options_;
  if (t == 0) return current * o.start_factor;
  if (initial || t > o.total_iters) return current;
  return current * (1.0 + (o.end_factor - o.start_factor) /
                              (static_cast<double>(o.total_iters) * o.start_factor +
                               static_cast<double>(t - 1) * (o.end_factor - o.start_factor)));
}

// ---- ConstantLR ------------------------------------------------------------------------

ConstantLR::ConstantLR(std::shared_ptr<ParamGroups> groups, ConstantLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  // PyTorch accepts factor 0 and then divides by it at total_iters (pytorch#195853); the
  // closed form has no such problem, so only the chainable form refuses it.
  require(options_.factor >= 0 && options_.factor <= 1, "constant", "factor must be in [0, 1]");
  require(!chainable || options_.factor > 0, "constant",
          "factor 0 is not allowed with \"chainable\": true (the recursive form divides by the factor at total_iters)");
  require(options_.total_iters >= 1, "constant", "total_iters must be >= 1");
  initial_step();
}

json ConstantLR::config() const {
  json c = config_header();
  c["factor"] = options_.factor;
  c["total_iters"] = options_.total_iters;
  return c;
}

double ConstantLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  const double reached = t >= options_.total_iters ? 1.0 : 0.0;
  return base_lrs_[g] * (options_.factor + reached * (1 - options_.factor));
}

double ConstantLR::chainable_lr(std::size_t, double current, std::int64_t t, bool) const {
  if (t == 0) return current * options_.factor;
  if (t != options_.total_iters) return current;
  return current * (1.0 / options_.factor);
}

// ---- StepLR ----------------------------------------------------------------------------

StepLR::StepLR(std::shared_ptr<ParamGroups> groups, StepLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.step_size >= 1, "step", "step_size must be >= 1");
  initial_step();
}

json StepLR::config() const {
  json c = config_header();
  c["step_size"] = options_.step_size;
  c["gamma"] = options_.gamma;
  return c;
}

double StepLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  return base_lrs_[g] * std::pow(options_.gamma, static_cast<double>(t / options_.step_size));
}

double StepLR::chainable_lr(std::size_t, double current, std::int64_t t, bool) const {
  if (t == 0 || t % options_.step_size != 0) return current;
  return current * options_.gamma;
}

// ---- MultiStepLR -----------------------------------------------------------------------

MultiStepLR::MultiStepLR(std::shared_ptr<ParamGroups> groups, MultiStepLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(std::move(options)) {
  for (std::size_t i = 0; i < options_.milestones.size(); ++i) {
    require(options_.milestones[i] >= 0, "multistep", "milestones must be >= 0");
    require(i == 0 || options_.milestones[i] > options_.milestones[i - 1], "multistep",
            "milestones must be strictly increasing (sorted, no repeats)");
  }
  initial_step();
}

json MultiStepLR::config() const {
  json c = config_header();
  c["milestones"] = options_.milestones;
  c["gamma"] = options_.gamma;
  return c;
}

double MultiStepLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  const auto& m = options_.milestones;
  const auto passed = std::upper_bound(m.begin(), m.end(), t) - m.begin();  // bisect_right
  return base_lrs_[g] * std::pow(options_.gamma, static_cast<double>(passed));
}

double MultiStepLR::chainable_lr(std::size_t, double current, std::int64_t t, bool) const {
  const auto& m = options_.milestones;
  if (!std::binary_search(m.begin(), m.end(), t)) return current;
  return current * std::pow(options_.gamma, 1.0);
}

// ---- ExponentialLR ---------------------------------------------------------------------

ExponentialLR::ExponentialLR(std::shared_ptr<ParamGroups> groups, ExponentialLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  initial_step();
}

json ExponentialLR::config() const {
  json c = config_header();
  c["gamma"] = options_.gamma;
  return c;
}

double ExponentialLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  return base_lrs_[g] * std::pow(options_.gamma, static_cast<double>(t));
}

double ExponentialLR::chainable_lr(std::size_t, double current, std::int64_t t, bool initial) const {
  if (initial || t == 0) return current;
  return current * options_.gamma;
}

// ---- CosineAnnealingLR -----------------------------------------------------------------

CosineAnnealingLR::CosineAnnealingLR(std::shared_ptr<ParamGroups> groups, CosineAnnealingLROptions options,
                                     bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.T_max >= 1, "cosine", "T_max must be >= 1");
  initial_step();
}

json CosineAnnealingLR::config() const {
  json c = config_header();
  c["T_max"] = options_.T_max;
  c["eta_min"] = options_.eta_min;
  return c;
}

double CosineAnnealingLR::closed_form_lr(std::size_t g, std::int64_t t) const {
  const double eta_min = options_.eta_min;
  return eta_min + (base_lrs_[g] - eta_min) *
                       (1 + std::cos(kPi * static_cast<double>(t) / static_cast<double>(options_.T_max))) / 2;
}

double CosineAnnealingLR::chainable_lr(std::size_t g, double current, std::int64_t t, bool initial) const {
  const double eta_min = options_.eta_min;
  const auto T = options_.T_max;
  if (initial || t == 0) return current;
  // At t = T_max + 1 (and every 2·T_max after) the ratio below would be 0/0.
  if (floor_mod(t - 1 - T, 2 * T) == 0)
    return current + (base_lrs_[g] - eta_min) * (1 - std::cos(kPi / static_cast<double>(T))) / 2;
  return (1 + std::cos(kPi * static_cast<double>(t) / static_cast<double>(T))) /
             (1 + std::cos(kPi * static_cast<double>(t - 1) / static_cast<double>(T))) * (current - eta_min) +
         eta_min;
}

// ---- CosineAnnealingWarmRestarts -------------------------------------------------------

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(std::shared_ptr<ParamGroups> groups,
                                                         CosineAnnealingWarmRestartsOptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(options) {
  require(options_.T_0 >= 1, "cosine_warm_restarts", "T_0 must be >= 1");
  require(options_.T_mult >= 1, "cosine_warm_restarts", "T_mult must be >= 1");
  initial_step();
}

json CosineAnnealingWarmRestarts::config() const {
  json c = config_header();
  c["T_0"] = options_.T_0;
  c["T_mult"] = options_.T_mult;
  c["eta_min"] = options_.eta_min;
  return c;
}

std::pair<std::int64_t, std::int64_t> CosineAnnealingWarmRestarts::cycle_position(std::int64_t t) const {
  // PyTorch steps T_cur += 1 and wraps when T_cur reaches T_i; walking the periods gives the
  // same integers without replaying every step.
  if (options_.T_mult == 1) return {t % options_.T_0, options_.T_0};
  constexpr std::int64_t kLongest = std::numeric_limits<std::int64_t>::max();
  std::int64_t t_cur = t, t_i = options_.T_0;
  while (t_cur >= t_i) {
    t_cur -= t_i;
    // A period past 2^63 - 1 steps would wrap to a negative one; it never ends anyway.
    t_i = t_i > kLongest / options_.T_mult ? kLongest : t_i * options_.T_mult;
  }
  return {t_cur, t_i};
}

double CosineAnnealingWarmRestarts::closed_form_lr(std::size_t g, std::int64_t t) const {
  const auto [t_cur, t_i] = cycle_position(t);
  const double eta_min = options_.eta_min;
  return eta_min + (base_lrs_[g] - eta_min) *
                       (1 + std::cos(kPi * static_cast<double>(t_cur) / static_cast<double>(t_i))) / 2;
}

// ---- LambdaLR --------------------------------------------------------------------------

LambdaLR::LambdaLR(std::shared_ptr<ParamGroups> groups, std::vector<LrLambda> lambdas, std::vector<std::string> names,
                   bool chainable)
    : LRScheduler(std::move(groups), chainable), lambdas_(std::move(lambdas)), names_(std::move(names)) {
  const std::size_t n = num_groups();
  require(lambdas_.size() == 1 || lambdas_.size() == n, "lambda",
          "expected 1 or " + std::to_string(n) + " lr_lambda functions, got " + std::to_string(lambdas_.size()));
  require(names_.empty() || names_.size() == lambdas_.size(), "lambda", "one name per lr_lambda");
  for (const auto& f : lambdas_) require(static_cast<bool>(f), "lambda", "lr_lambda is empty");
  if (lambdas_.size() == 1 && n > 1) {
    lambdas_.assign(n, lambdas_[0]);
    if (!names_.empty()) names_.assign(n, names_[0]);
  }
  initial_step();
}

json LambdaLR::config() const {
  json c = config_header();
  if (names_.empty()) {
    c["lr_lambda"] = nullptr;  // an unnamed function: not rebuildable from JSON, as in PyTorch
  } else if (std::all_of(names_.begin(), names_.end(), [&](const auto& s) { return s == names_[0]; })) {
    c["lr_lambda"] = names_[0];
  } else {
    c["lr_lambda"] = names_;
  }
  return c;
}

double LambdaLR::closed_form_lr(std::size_t g, std::int64_t t) const { return base_lrs_[g] * lambdas_[g](t); }

}  // namespace pz::optim
