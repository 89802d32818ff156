// Linked into the test suites that run LibTorch: its backend and checkpoint form are
// registered before any test, as polyzero's main registers them (nn/libtorch.h).
#include <gtest/gtest.h>

#include "nn/libtorch.h"

namespace {

class LibTorchEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override { pz::nn::register_libtorch(); }
};

[[maybe_unused]] ::testing::Environment* const environment = ::testing::AddGlobalTestEnvironment(new LibTorchEnvironment);

}  // namespace
