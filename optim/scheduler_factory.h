// Schedulers from JSON, their saved state back into schedulers, and lr(t) tables.
//
// A config is an object with "type" and the scheduler's options under PyTorch's names;
// "warmup" may be added to any of them, and "sequential"/"chained" nest configs:
//
//   {"type": "poly", "total_iters": 10000, "power": 0.9, "eta_min": 1e-5,
//    "warmup": {"type": "linear", "steps": 500, "start_factor": 0.01}}
//   {"type": "sequential", "milestones": [5],
//    "schedulers": [{"type": "constant", "factor": 0.1, "total_iters": 5},
//                   {"type": "exponential", "gamma": 0.9}]}
//
// Types (PyTorch class names are accepted too, e.g. "PolynomialLR"): poly, inverse_poly,
// linear, constant, step, multistep, exponential, cosine, cosine_warm_restarts, lambda,
// one_cycle, reduce_on_plateau, sequential, chained. "chainable": true selects PyTorch's
// recursive form (lr_scheduler.h) and is inherited by nested configs. Every field is checked;
// errors name the field by its path and say what is accepted (config_fields.h). The full
// list of fields per type, with defaults, is in optim/README.md.
#pragma once

#include <functional>
#include <map>

#include "optim/lr_scheduler.h"
#include "optim/schedulers.h"

namespace pz::optim {

struct SchedulerContext {
  // Functions a "lambda" config may name in "lr_lambda".
  std::map<std::string, LrLambda> lambdas;
};

class ConfigFields;

// What a type's builder reads: the config's fields (whose unread keys are reported as
// unknown afterwards), the optimiser's groups, the closed or chainable form, and a way to
// build nested configs (path, chainable, inside "chained").
struct SchedulerBuild {
  ConfigFields& fields;
  std::shared_ptr<ParamGroups> groups;
  bool chainable;
  const SchedulerContext& context;
  std::function<std::unique_ptr<LRScheduler>(const nlohmann::json&, const std::string&, bool, bool)> nested;
};

// One scheduler type: its name, PyTorch's class name (accepted as an alias), its fields
// with their defaults (what `polyzero lr --list` prints), and its builder.
struct SchedulerEntry {
  const char* name;
  const char* pytorch;
  const char* fields;
  std::unique_ptr<LRScheduler> (*build)(SchedulerBuild&);
};

// Every type build_scheduler accepts; adding a scheduler is adding a row here.
const std::vector<SchedulerEntry>& scheduler_registry();

// `path` names the config in error messages.
std::unique_ptr<LRScheduler> build_scheduler(const nlohmann::json& config, std::shared_ptr<ParamGroups> groups,
                                             const SchedulerContext& context = {},
                                             const std::string& path = "scheduler");

// Rebuilds a scheduler from its state_dict() (config included) and loads the state: what a
// resumed run does. Writes the saved lrs into the groups.
std::unique_ptr<LRScheduler> restore_scheduler(const nlohmann::json& state, std::shared_ptr<ParamGroups> groups,
                                               const SchedulerContext& context = {});

// The scheduler type names build_scheduler accepts (canonical names, no aliases).
const std::vector<std::string>& scheduler_types();

// lr of every group at t = 0..steps-1 ([t][group]) for a schedule over groups whose lrs
// start at `base_lrs`. A metric-driven schedule needs `metrics`: metrics[t] is passed to
// the step that produces lr(t+1), so steps-1 of them. A value that is not finite (gamma
// 1e308 overflows at t = 2) is a UsageError: no optimiser can use it, and JSON cannot hold it.
std::vector<std::vector<double>> lr_table(const nlohmann::json& config, const std::vector<double>& base_lrs,
                                          std::int64_t steps, const std::vector<double>& metrics = {},
                                          const SchedulerContext& context = {});

}  // namespace pz::optim
