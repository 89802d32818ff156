// Linked into the test suites that run LibTorch: its backend, checkpoint form and learner
// are registered before any test, as polyzero's main registers them (nn/libtorch.h,
// nn/learner.h).
#include <gtest/gtest.h>

#include "nn/learner.h"
#include "nn/libtorch.h"

namespace {

class LibTorchEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override {
    pz::nn::register_libtorch();
    pz::nn::register_torch_learner();
  }
};

[[maybe_unused]] ::testing::Environment* const environment = ::testing::AddGlobalTestEnvironment(new LibTorchEnvironment);

}  // namespace
