#include "optim/optimizer.h"

#include <torch/torch.h>

#include "util/error.h"

namespace pz::optim {

namespace {

std::unique_ptr<torch::optim::OptimizerOptions> torch_options(const std::string& type, const OptimizerOptions& o) {
  if (type == "sgd") {
    return std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(o.lr)
                                                          .momentum(o.momentum)
                                                          .dampening(o.dampening)
                                                          .weight_decay(o.weight_decay)
                                                          .nesterov(o.nesterov));
  }
  if (type == "adam") {
    return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(o.lr)
                                                           .betas(std::make_tuple(o.beta1, o.beta2))
                                                           .eps(o.eps)
                                                           .weight_decay(o.weight_decay)
                                                           .amsgrad(o.amsgrad));
  }
  return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(o.lr)
                                                          .betas(std::make_tuple(o.beta1, o.beta2))
                                                          .eps(o.eps)
                                                          .weight_decay(o.weight_decay)
                                                          .amsgrad(o.amsgrad));
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(
    const OptimizerConfig& config, const torch::OrderedDict<std::string, torch::Tensor>& named_parameters) {
  std::vector<ParamInfo> infos;
  std::vector<torch::Tensor> tensors;
  for (const auto& item : named_parameters) {
    if (!item.value().requires_grad()) continue;
    infos.push_back({item.key(), item.value().dim()});
    tensors.push_back(item.value());
  }
  if (tensors.empty()) throw util::UsageError("optimizer: the model has no trainable parameters");
  const GroupAssignment assignment = assign_param_groups(config, infos);

  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (std::size_t g = 0; g < assignment.members.size(); ++g) {
    std::vector<torch::Tensor> params;
    for (std::size_t i : assignment.members[g]) params.push_back(tensors[i]);
    const int rule = assignment.rule[g];
    const OptimizerOptions& options = rule < 0 ? config.options : config.param_groups[static_cast<std::size_t>(rule)].options;
    groups.emplace_back(std::move(params), torch_options(config.type, options));
  }
  // The defaults only matter for groups added later with add_param_group.
  if (config.type == "sgd") {
    auto defaults = *static_cast<torch::optim::SGDOptions*>(torch_options("sgd", config.options).get());
    return std::make_unique<torch::optim::SGD>(std::move(groups), defaults);
  }
  if (config.type == "adam") {
    auto defaults = *static_cast<torch::optim::AdamOptions*>(torch_options("adam", config.options).get());
    return std::make_unique<torch::optim::Adam>(std::move(groups), defaults);
  }
  auto defaults = *static_cast<torch::optim::AdamWOptions*>(torch_options("adamw", config.options).get());
  return std::make_unique<torch::optim::AdamW>(std::move(groups), defaults);
}

std::optional<double> clip_gradients(const OptimizerConfig& config, torch::optim::Optimizer& optimizer) {
  if (!config.clip_grad_norm) return std::nullopt;
  std::vector<torch::Tensor> params;
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, *config.clip_grad_norm, config.clip_norm_type);
}

}  // namespace pz::optim
