#include "nn/torch_backend.h"

#include <torch/torch.h>

#include <algorithm>

#include "nn/network.h"

namespace pz::nn {

namespace {

class TorchBackend final : public Backend {
 public:
  TorchBackend(const NetConfig& config, const NetShape& shape) : shape_(shape), net_(config, shape) { net_->eval(); }

  void forward(const float* input, int rows, float* policy, float* values) override {
    torch::InferenceMode guard;
    const games::Shape& s = shape_.input;
    // from_blob does not copy; inference mode never writes to its input.
    auto x = torch::from_blob(const_cast<float*>(input), {rows, s.channels, s.height, s.width});
    auto [logits, v] = net_->forward(x);
    logits = logits.contiguous();
    v = v.contiguous();
    std::copy_n(logits.data_ptr<float>(), logits.numel(), policy);
    std::copy_n(v.data_ptr<float>(), v.numel(), values);
  }

  void load(const NetWeights& weights) override { import_weights(weights, *net_); }
  std::string name() const override { return "torch"; }

 private:
  NetShape shape_;
  PolicyValueNet net_;
};

}  // namespace

std::unique_ptr<Backend> make_torch_backend(const NetConfig& config, const NetShape& shape, const BackendOptions& options) {
  // LibTorch's intra-op pool is one per process: raised to what this backend asks, never lowered.
  if (options.threads > torch::get_num_threads()) torch::set_num_threads(options.threads);
  return std::make_unique<TorchBackend>(config, shape);
}

}  // namespace pz::nn
