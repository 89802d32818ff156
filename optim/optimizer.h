// The optimiser factory: a torch::optim optimiser (SGD, Adam, AdamW) from the JSON config of
// optimizer_config.h, with per-group options, and gradient clipping by norm.
//
//   auto config = pz::optim::parse_optimizer_config(json);
//   auto optimizer = pz::optim::make_optimizer(config, model->named_parameters());
//   auto scheduler = pz::optim::make_scheduler(schedule_json, *optimizer);
//   for (...) {
//     optimizer->zero_grad(); loss.backward();
//     pz::optim::clip_gradients(config, *optimizer);
//     optimizer->step(); scheduler->step();
//   }
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <optional>

#include "optim/optimizer_config.h"

namespace pz::optim {

// Parameters that do not require a gradient are left out, as model.parameters() filtered by
// requires_grad would be in PyTorch.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        const torch::OrderedDict<std::string, torch::Tensor>& named_parameters);

// Clips the gradients of every parameter the optimiser holds to the configured total norm
// (torch::nn::utils::clip_grad_norm_). Returns the total norm before clipping, or nullopt
// when the config has no clip_grad_norm.
std::optional<double> clip_gradients(const OptimizerConfig& config, torch::optim::Optimizer& optimizer);

}  // namespace pz::optim
