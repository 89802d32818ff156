// The optimiser's JSON config, parsed and checked without LibTorch (optim/optimizer.h turns it
// into a torch::optim optimiser):
//
//   {"type": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": true, "weight_decay": 1e-4,
//    "clip_grad_norm": 1.0,
//    "param_groups": [{"max_ndim": 1, "weight_decay": 0}]}
//
//   type            "sgd" | "adam" | "adamw"
//   sgd             lr (required), momentum 0, dampening 0, weight_decay 0, nesterov false
//                   (Nesterov needs momentum > 0 and dampening 0, as in PyTorch)
//   adam, adamw     lr 1e-3, betas [0.9, 0.999], eps 1e-8, weight_decay 0 (adamw: 1e-2), amsgrad false
//   clip_grad_norm  clip the total gradient norm of all parameters to this before each step
//                   (torch.nn.utils.clip_grad_norm_); clip_norm_type 2 (any p > 0)
//   param_groups    rules that put parameters in their own group with other options. A rule
//                   selects by "match" (glob patterns on the parameter's dotted name, "*" and
//                   "?"; any pattern may match) and/or "max_ndim" (at most this many
//                   dimensions: 1 selects biases and normalisation scales); with both, a
//                   parameter must satisfy both. A rule may override any option of the type
//                   above. Each parameter goes to the first rule it satisfies.
//
// Group order (what per-group scheduler lists index): the parameters no rule selects come
// first, as group 0 (left out if there are none), then one group per rule, in order. A rule
// that selects nothing is an error: it is almost always a typo.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pz::optim {

struct OptimizerOptions {
  double lr = 1e-3;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  bool amsgrad = false;
};

struct ParamGroupRule {
  std::vector<std::string> match;
  std::optional<std::int64_t> max_ndim;
  OptimizerOptions options;  // the optimiser's options with this rule's overrides
  nlohmann::json overrides;  // just the overrides, as given
};

struct OptimizerConfig {
  std::string type = "sgd";
  OptimizerOptions options;
  std::optional<double> clip_grad_norm;
  double clip_norm_type = 2.0;
  std::vector<ParamGroupRule> param_groups;

  // The complete config (defaults filled in); parse_optimizer_config(to_json()) is identical.
  nlohmann::json to_json() const;
};

OptimizerConfig parse_optimizer_config(const nlohmann::json& config, const std::string& path = "optimizer");

// A parameter as the group rules see it.
struct ParamInfo {
  std::string name;
  std::int64_t ndim;
};

// Param groups for these parameters: the parameter indices of each group (in the group order
// described above) and the rule behind it (-1 for the unmatched group 0).
struct GroupAssignment {
  std::vector<std::vector<std::size_t>> members;
  std::vector<int> rule;
};
GroupAssignment assign_param_groups(const OptimizerConfig& config, const std::vector<ParamInfo>& params);

// Shell-style glob: '*' any run of characters (dots included), '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace pz::optim
