#include "optim/scheduler_factory.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "optim/composite.h"
#include "optim/config_fields.h"
#include "optim/one_cycle.h"
#include "optim/reduce_on_plateau.h"
#include "optim/warmup.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::optim {

using nlohmann::json;

namespace {

// Keeps a scalar as one value (the scheduler spreads it over the groups) so that config()
// round-trips what the user wrote.
std::vector<double> as_given(ConfigFields& f, const std::string& key, const std::vector<double>& values) {
  const json* v = f.raw(key);
  if (v && v->is_array()) return values;
  return {values.empty() ? 0.0 : values[0]};
}

std::vector<double> one_or_per_group(ConfigFields& f, const std::string& key, double fallback, std::size_t n,
                                     const Bounds& bounds) {
  return as_given(f, key, f.per_group(key, fallback, n, bounds));
}

std::unique_ptr<LRScheduler> build_poly(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  PolynomialLROptions o;
  const bool iters = f.has("total_iters"), steps = f.has("total_steps");
  if (iters && steps) f.fail("total_steps", "give total_iters (PyTorch's name) or total_steps, not both");
  o.total_iters = f.integer(steps ? "total_steps" : "total_iters", 5, 1);
  o.power = f.number("power", 1.0, Bounds::at_least(0));
  o.eta_min = f.number("eta_min", 0.0, Bounds::at_least(0));
  return std::make_unique<PolynomialLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_inverse_poly(SchedulerBuild& b) {
  InversePolyLROptions o;
  o.decay_steps = b.fields.required_number("decay_steps", Bounds::above(0));
  o.power = b.fields.number("power", 1.0, Bounds::at_least(0));
  return std::make_unique<InversePolyLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_linear(SchedulerBuild& b) {
  LinearLROptions o;
  o.start_factor = b.fields.number("start_factor", 1.0 / 3, {0.0, 1.0, true, false});
  o.end_factor = b.fields.number("end_factor", 1.0, Bounds::closed(0, 1));
  o.total_iters = b.fields.integer("total_iters", 5, 1);
  return std::make_unique<LinearLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_constant(SchedulerBuild& b) {
  ConstantLROptions o;
  o.factor = b.fields.number("factor", 1.0 / 3, Bounds::closed(0, 1));
  if (b.chainable && o.factor == 0)
    b.fields.fail("factor", "0 is not allowed with \"chainable\": true (the recursive form divides by the factor at "
                            "total_iters, pytorch#195853); use the closed form or a factor > 0");
  o.total_iters = b.fields.integer("total_iters", 5, 1);
  return std::make_unique<ConstantLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_step(SchedulerBuild& b) {
  StepLROptions o;
  o.step_size = b.fields.required_integer("step_size", 1);
  o.gamma = b.fields.number("gamma", 0.1, Bounds::at_least(0));
  return std::make_unique<StepLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_multistep(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  MultiStepLROptions o;
  o.milestones = f.required_integer_list("milestones", 0);
  for (std::size_t i = 1; i < o.milestones.size(); ++i) {
    const auto field = "milestones[" + std::to_string(i) + "]";
    if (o.milestones[i] == o.milestones[i - 1])
      f.fail(field, "milestone " + std::to_string(o.milestones[i]) +
                        " is repeated; list each milestone once (PyTorch would apply gamma once per repeat: "
                        "write that as a smaller gamma or a sequential schedule)");
    if (o.milestones[i] < o.milestones[i - 1])
      f.fail(field, "milestones must be sorted in increasing order: " + std::to_string(o.milestones[i]) +
                        " comes after " + std::to_string(o.milestones[i - 1]));
  }
  o.gamma = f.number("gamma", 0.1, Bounds::at_least(0));
  return std::make_unique<MultiStepLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_exponential(SchedulerBuild& b) {
  ExponentialLROptions o;
  o.gamma = b.fields.required_number("gamma", Bounds::at_least(0));
  return std::make_unique<ExponentialLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_cosine(SchedulerBuild& b) {
  CosineAnnealingLROptions o;
  o.T_max = b.fields.required_integer("T_max", 1);
  o.eta_min = b.fields.number("eta_min", 0.0, Bounds::at_least(0));
  return std::make_unique<CosineAnnealingLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_cosine_warm_restarts(SchedulerBuild& b) {
  CosineAnnealingWarmRestartsOptions o;
  o.T_0 = b.fields.required_integer("T_0", 1);
  o.T_mult = b.fields.integer("T_mult", 1, 1);
  o.eta_min = b.fields.number("eta_min", 0.0, Bounds::at_least(0));
  return std::make_unique<CosineAnnealingWarmRestarts>(b.groups, o, b.chainable);
}

std::string registered_lambdas(const SchedulerContext& context) {
  std::vector<std::string> names;
  for (const auto& [name, fn] : context.lambdas) names.push_back(name);
  return util::join(names, ", ");
}

std::unique_ptr<LRScheduler> build_lambda(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  const json* spec = f.raw("lr_lambda");
  const std::string known = b.context.lambdas.empty()
                                ? "this program registers none (lambdas are C++ functions, given by name)"
                                : "registered: " + registered_lambdas(b.context);
  if (!spec) f.fail("lr_lambda", "is required: the name of a registered lr function; " + known);
  std::vector<std::string> names;
  if (spec->is_string()) {
    names.push_back(spec->get<std::string>());
  } else if (spec->is_array() && !spec->empty() &&
             std::all_of(spec->begin(), spec->end(), [](const json& v) { return v.is_string(); })) {
    names = spec->get<std::vector<std::string>>();
  } else {
    f.fail("lr_lambda", "must be a function name or a list of names (one per param group), got " + spec->dump());
  }
  if (names.size() != 1 && names.size() != b.groups->size())
    f.fail("lr_lambda", "has " + std::to_string(names.size()) + " names but the optimiser has " +
                            std::to_string(b.groups->size()) + " param group(s)");
  std::vector<LrLambda> fns;
  for (const auto& name : names) {
    auto it = b.context.lambdas.find(name);
    if (it == b.context.lambdas.end()) f.fail("lr_lambda", "unknown function \"" + name + "\"; " + known);
    fns.push_back(it->second);
  }
  return std::make_unique<LambdaLR>(b.groups, std::move(fns), std::move(names), b.chainable);
}

std::unique_ptr<LRScheduler> build_one_cycle(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  const std::size_t n = b.groups->size();
  OneCycleLROptions o;
  o.max_lr = f.required_per_group("max_lr", n, Bounds::above(0));
  const bool by_total = f.has("total_steps");
  const bool by_epochs = f.has("epochs") || f.has("steps_per_epoch");
  if (by_total && by_epochs) f.fail("total_steps", "give total_steps, or epochs and steps_per_epoch, not both");
  if (by_total || !by_epochs) {
    o.total_steps = f.required_integer("total_steps", 1);
  } else {
    o.epochs = f.required_integer("epochs", 1);
    o.steps_per_epoch = f.required_integer("steps_per_epoch", 1);
  }
  o.pct_start = f.number("pct_start", 0.3, Bounds::closed(0, 1));
  o.anneal_strategy = f.choice("anneal_strategy", "cos", {"cos", "linear"});
  o.cycle_momentum = f.boolean("cycle_momentum", true);
  o.base_momentum = one_or_per_group(f, "base_momentum", 0.85, n, Bounds::closed(0, 1));
  o.max_momentum = one_or_per_group(f, "max_momentum", 0.95, n, Bounds::closed(0, 1));
  o.div_factor = f.number("div_factor", 25.0, Bounds::above(0));
  o.final_div_factor = f.number("final_div_factor", 1e4, Bounds::above(0));
  o.three_phase = f.boolean("three_phase", false);
  o.max_lr = as_given(f, "max_lr", o.max_lr);
  return std::make_unique<OneCycleLR>(b.groups, o, b.chainable);
}

std::unique_ptr<LRScheduler> build_reduce_on_plateau(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  ReduceLROnPlateauOptions o;
  o.mode = f.choice("mode", "min", {"min", "max"});
  o.factor = f.number("factor", 0.1, {0.0, 1.0, false, true});
  o.patience = f.integer("patience", 10, 0);
  o.threshold = f.number("threshold", 1e-4, Bounds::at_least(0));
  o.threshold_mode = f.choice("threshold_mode", "rel", {"rel", "abs"});
  o.cooldown = f.integer("cooldown", 0, 0);
  o.min_lr = one_or_per_group(f, "min_lr", 0.0, b.groups->size(), Bounds::at_least(0));
  o.eps = f.number("eps", 1e-8, Bounds::at_least(0));
  return std::make_unique<ReduceLROnPlateau>(b.groups, o, b.chainable);
}

// The nested configs of "sequential" and "chained", each built by `b.nested`.
std::vector<std::unique_ptr<LRScheduler>> build_children(SchedulerBuild& b, bool inside_chained) {
  const json& list = b.fields.required_array("schedulers");
  if (list.empty()) b.fields.fail("schedulers", "needs at least one scheduler");
  std::vector<std::unique_ptr<LRScheduler>> children;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto where = b.fields.where("schedulers[" + std::to_string(i) + "]");
    auto child = b.nested(list[i], where, inside_chained || b.chainable, inside_chained);
    if (inside_chained && child->needs_metric())
      throw util::UsageError(where + ": '" + child->type() +
                             "' needs a metric each step, which \"chained\" cannot give it; use it alone or in \"sequential\"");
    children.push_back(std::move(child));
  }
  return children;
}

std::unique_ptr<LRScheduler> build_sequential(SchedulerBuild& b) {
  ConfigFields& f = b.fields;
  auto children = build_children(b, false);
  const auto milestones = f.required_integer_list("milestones", 1);
  if (milestones.size() + 1 != children.size())
    f.fail("milestones", "has " + std::to_string(milestones.size()) + " value(s) but " +
                             std::to_string(children.size()) + " schedulers need " +
                             std::to_string(children.size() - 1) + " (one where each scheduler after the first starts)");
  for (std::size_t i = 1; i < milestones.size(); ++i)
    if (milestones[i] <= milestones[i - 1])
      f.fail("milestones[" + std::to_string(i) + "]", "milestones must be strictly increasing: " +
                                                          std::to_string(milestones[i]) + " comes after " +
                                                          std::to_string(milestones[i - 1]));
  return std::make_unique<SequentialLR>(b.groups, std::move(children), milestones, b.chainable);
}

std::unique_ptr<LRScheduler> build_chained(SchedulerBuild& b) {
  return std::make_unique<ChainedScheduler>(b.groups, build_children(b, true));
}

}  // namespace

const std::vector<SchedulerEntry>& scheduler_registry() {
  static const std::vector<SchedulerEntry> entries = {
      {"poly", "PolynomialLR", "total_iters or total_steps (5), power (1), eta_min (0)", build_poly},
      {"inverse_poly", "InversePolyLR", "decay_steps (required, > 0), power (1): lr = base*(1 + t/decay_steps)^-power",
       build_inverse_poly},
      {"linear", "LinearLR", "start_factor (1/3, in (0, 1]), end_factor (1), total_iters (5)", build_linear},
      {"constant", "ConstantLR", "factor (1/3), total_iters (5)", build_constant},
      {"step", "StepLR", "step_size (required), gamma (0.1)", build_step},
      {"multistep", "MultiStepLR", "milestones (required, increasing), gamma (0.1)", build_multistep},
      {"exponential", "ExponentialLR", "gamma (required)", build_exponential},
      {"cosine", "CosineAnnealingLR", "T_max (required), eta_min (0)", build_cosine},
      {"cosine_warm_restarts", "CosineAnnealingWarmRestarts", "T_0 (required), T_mult (1), eta_min (0)",
       build_cosine_warm_restarts},
      {"lambda", "LambdaLR", "lr_lambda: a registered function name, or one per group", build_lambda},
      {"one_cycle", "OneCycleLR",
       "max_lr (required; number or per group), total_steps or epochs + steps_per_epoch, pct_start (0.3), "
       "anneal_strategy (cos|linear), cycle_momentum (true), base_momentum (0.85), max_momentum (0.95), "
       "div_factor (25), final_div_factor (1e4), three_phase (false)",
       build_one_cycle},
      {"reduce_on_plateau", "ReduceLROnPlateau",
       "mode (min|max), factor (0.1), patience (10), threshold (1e-4), threshold_mode (rel|abs), cooldown (0), "
       "min_lr (0; or per group), eps (1e-8)",
       build_reduce_on_plateau},
      {"sequential", "SequentialLR", "schedulers (list of configs), milestones (one fewer)", build_sequential},
      {"chained", "ChainedScheduler", "schedulers (list of configs, chainable, no metric-driven ones)", build_chained},
  };
  return entries;
}

namespace {

const SchedulerEntry& find_entry(ConfigFields& f) {
  const std::string given = f.required_string("type");
  for (const auto& e : scheduler_registry())
    if (given == e.name || given == e.pytorch) return e;
  f.fail("type", "unknown scheduler \"" + given + "\"; allowed: " + util::join(scheduler_types(), ", ") +
                     " (or the PyTorch class names, e.g. \"PolynomialLR\")");
}

class Builder {
 public:
  Builder(std::shared_ptr<ParamGroups> groups, const SchedulerContext& context)
      : groups_(std::move(groups)), context_(context) {}

  std::unique_ptr<LRScheduler> build(const json& config, const std::string& path, bool inherited_chainable,
                                     bool inside_chained) {
    ConfigFields f(config, path);
    const SchedulerEntry& entry = find_entry(f);
    const bool chainable = f.boolean("chainable", inherited_chainable || inside_chained);
    if (inside_chained && !chainable)
      f.fail("chainable", "must be true inside \"chained\": ChainedScheduler composes the recursive forms");
    const json* warmup = f.raw("warmup");
    SchedulerBuild b{f, groups_, chainable, context_,
                     [this](const json& c, const std::string& p, bool ch, bool in_chained) {
                       return build(c, p, ch, in_chained);
                     }};
    std::unique_ptr<LRScheduler> main = entry.build(b);
    f.finish("scheduler '" + std::string(entry.name) + "'");
    if (!warmup) return main;
    if (inside_chained)
      f.fail("warmup", "is not allowed inside \"chained\" (a warmup restarts the schedule; put it on the chained config)");
    return wrap_in_warmup(*warmup, f.where("warmup"), std::move(main), chainable);
  }

 private:
  std::unique_ptr<LRScheduler> wrap_in_warmup(const json& config, const std::string& path,
                                              std::unique_ptr<LRScheduler> main, bool chainable) {
    ConfigFields f(config, path);
    WarmupOptions o;
    o.type = f.choice("type", "", {"linear", "constant", "exponential"});
    if (o.type.empty()) f.fail("type", "is required: \"linear\", \"constant\" or \"exponential\"");
    o.steps = f.required_integer("steps", 1);
    if (o.type == "linear") o.start_factor = f.number("start_factor", 1.0 / 3, {0.0, 1.0, true, false});
    if (o.type == "exponential") o.start_factor = f.number("start_factor", 0.01, {0.0, 1.0, true, false});
    if (o.type == "constant") o.factor = f.number("factor", 1.0 / 3, Bounds::closed(0, 1));
    o.prefix = f.boolean("prefix", true);
    f.finish("warmup of type '" + o.type + "'");
    if (!o.prefix && main->depends_on_current_lr())
      f.fail("prefix", "false runs the main schedule underneath the warmup, so it must be in closed form; '" +
                           main->type() + "' here is chainable or metric-driven. Use \"prefix\": true");
    return std::make_unique<WarmupLR>(groups_, o, std::move(main), chainable);
  }

  std::shared_ptr<ParamGroups> groups_;
  const SchedulerContext& context_;
};

}  // namespace

const std::vector<std::string>& scheduler_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& e : scheduler_registry()) out.emplace_back(e.name);
    return out;
  }();
  return names;
}

std::unique_ptr<LRScheduler> build_scheduler(const json& config, std::shared_ptr<ParamGroups> groups,
                                             const SchedulerContext& context, const std::string& path) {
  if (!groups) throw std::invalid_argument("build_scheduler: no param groups");
  Builder builder(groups, context);
  return builder.build(config, path, false, false);
}

std::unique_ptr<LRScheduler> restore_scheduler(const json& state, std::shared_ptr<ParamGroups> groups,
                                               const SchedulerContext& context) {
  if (!state.is_object() || !state.contains("config"))
    throw util::UsageError("scheduler state: no 'config'; not something state_dict() wrote");
  auto scheduler = build_scheduler(state["config"], std::move(groups), context, "scheduler state.config");
  scheduler->load_state_dict(state);
  return scheduler;
}

std::vector<std::vector<double>> lr_table(const json& config, const std::vector<double>& base_lrs, std::int64_t steps,
                                          const std::vector<double>& metrics, const SchedulerContext& context) {
  if (base_lrs.empty()) throw util::UsageError("lr_table: no param groups");
  // A momentum field lets one_cycle's default momentum cycling run; it does not change lrs.
  auto groups = std::make_shared<VectorParamGroups>(base_lrs, MomentumKind::kMomentum,
                                                    std::vector<double>(base_lrs.size(), 0.9));
  auto scheduler = build_scheduler(config, groups, context);
  const bool metric = scheduler->needs_metric();
  if (metric && steps > 1 && static_cast<std::int64_t>(metrics.size()) < steps - 1)
    throw util::UsageError("'" + scheduler->type() + "' is driven by a metric: " + std::to_string(steps) +
                           " lr values need " + std::to_string(steps - 1) + " metric values (one per step), got " +
                           std::to_string(metrics.size()));
  std::vector<std::vector<double>> table;
  for (std::int64_t t = 0; t < steps; ++t) {
    if (t > 0) {
      if (metric) {
        scheduler->step(metrics[static_cast<std::size_t>(t - 1)]);
      } else {
        scheduler->step();
      }
    }
    table.push_back(groups->lrs());
    for (std::size_t g = 0; g < table.back().size(); ++g) {
      const double lr = table.back()[g];
      if (!std::isfinite(lr))
        throw util::UsageError("lr(" + std::to_string(t) + ")" + (base_lrs.size() > 1 ? " of group " + std::to_string(g) : "") +
                               " is " + util::format_double(lr) + ": the '" + scheduler->type() +
                               "' schedule leaves the range of a double; check its factors");
    }
  }
  return table;
}

}  // namespace pz::optim
