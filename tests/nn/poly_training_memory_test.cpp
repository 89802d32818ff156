// The poly learner step's buffers (nn/poly/training_memory.h): live ranges from the step's
// order and from what each layer's autograd function keeps, and the storage planner's
// placement, on a plan small enough to work out by hand; then on real networks.
#include <gtest/gtest.h>

#include <map>

#include "games/registry.h"
#include "nn/poly/training_memory.h"

namespace pz::nn {
namespace {

using Use = LayerWorkspace::Use;

// transpose (no backward) -> conv (keeps a padded copy) -> loss (keeps its input). With 3
// layers the forward passes are steps 0-2, the backward passes of the loss and the conv
// steps 3 and 4.
TrainingPlan three_layers() {
  TrainingPlan plan;
  plan.layers.push_back({"", "transpose", "", {"t_forward"}, 10, {-1}, false, false, {}});
  plan.layers.push_back({"conv", "conv3x3", "", {"c_forward", "c_input_gradient"}, 6, {0}, false, false,
                         {{"padded input", 12, 0, Use::kKept}, {"rotated weights", 0, 4, Use::kBackward}}});
  plan.layers.push_back({"", "loss", "", {"l_forward", "l_backward"}, 1, {1}, true, false, {{"work", 2, 0, Use::kKept}}});
  return plan;
}

TEST(PolyTrainingMemory, LiveRangesFollowTheStepAndWhatAutogradKeeps) {
  const TrainingStepMemory m = training_step_memory(three_layers(), 2);
  std::map<std::string, poly::BufferLifetime> by_name;
  for (const poly::BufferLifetime& b : m.buffers) by_name[b.name] = b;
  ASSERT_EQ(by_name.size(), 7u);
  auto range = [&](const std::string& name) {
    const poly::BufferLifetime& b = by_name.at(name);
    return std::tuple{b.elements, b.first, b.last};
  };
  EXPECT_EQ(range("output 0 transpose"), std::tuple(std::size_t{20}, 0, 1)) << "read by the conv's forward only";
  EXPECT_EQ(range("output 1 conv"), std::tuple(std::size_t{12}, 1, 3)) << "the loss keeps its input for its backward";
  EXPECT_EQ(range("output 2 loss"), std::tuple(std::size_t{2}, 2, 2));
  EXPECT_EQ(range("padded input 1 conv"), std::tuple(std::size_t{24}, 1, 4));
  EXPECT_EQ(range("rotated weights 1 conv"), std::tuple(std::size_t{4}, 4, 4));
  EXPECT_EQ(range("work 2 loss"), std::tuple(std::size_t{4}, 2, 3));
  EXPECT_EQ(range("gradient 2 loss -> 1 conv"), std::tuple(std::size_t{12}, 3, 4));
  EXPECT_EQ(by_name.count("gradient 1 conv -> 0 transpose"), 0u) << "the input needs no gradient";

  // Alive per step: 20, 20+12+24, 12+2+24+4, 12+24+4+12, 24+4+12 floats.
  EXPECT_EQ(m.live_peak_bytes, 56u * 4);
  EXPECT_EQ(m.kept_for_backward_bytes, (12u + 24u + 4u) * 4);
  // Regions of 16-float multiples: each alone 16+32+16+16+32+16+16 floats; placed, the loss's
  // output takes the transpose's dead region, the gradient the same region after it, and the
  // rotated weights the loss's workspace's: 32+16+32+16.
  EXPECT_EQ(m.unshared_bytes, 144u * 4);
  EXPECT_EQ(m.planned_bytes, 96u * 4);
}

TEST(PolyTrainingMemory, ThePlannerSharesOnRealNetworks) {
  const auto game = games::make_game("connect4");
  for (const char* type : {"resnet", "pooled"}) {
    NetConfig config;
    config.type = type;
    config.blocks = 2;
    config.channels = 16;
    const TrainingPlan plan = plan_training_network(config, net_shape(game->info()), 0);
    const TrainingStepMemory m = training_step_memory(plan, 64);
    EXPECT_GE(m.planned_bytes, m.live_peak_bytes) << type;
    EXPECT_LT(m.planned_bytes, m.unshared_bytes) << type;
    EXPECT_GT(m.kept_for_backward_bytes, 0u) << type;
    for (const poly::BufferLifetime& b : m.buffers) {
      EXPECT_LE(b.first, b.last) << type << " " << b.name;
      EXPECT_LT(b.last, 2 * static_cast<int>(plan.layers.size())) << type << " " << b.name;
    }
  }
}

}  // namespace
}  // namespace pz::nn
