#include "nn/poly_training_plan.h"

namespace pz::nn {

namespace {

std::size_t floats(const ActShape& a) {
  return static_cast<std::size_t>(a.channels) * static_cast<std::size_t>(a.spatial() ? a.plane() : 1);
}

class Recorder final : public TrainingLayerOps<ActShape> {
 public:
  TrainingPlan plan;

  ActShape conv(const std::string& module, const ActShape& x, int out_channels, int kernel, bool bias) override {
    const ConvShape s{x.channels, out_channels, x.height, x.width, kernel, bias};
    plan.shapes.convs.push_back(s);
    const std::string n = kernel_name(s);
    return add(module, kernel == 3 ? "conv3x3" : "conv1x1", "",
               {n + "_forward", n + "_input_gradient", n + "_weight_gradient"}, {out_channels, x.height, x.width});
  }
  ActShape batch_norm(const std::string& module, const ActShape& x, const ActShape* residual, bool relu) override {
    const BatchNormShape s{x.channels, x.plane(), residual != nullptr, relu};
    plan.shapes.batch_norms.push_back(s);
    const std::string fused = residual && relu ? "residual add, ReLU" : residual ? "residual add" : relu ? "ReLU" : "";
    return add(module, "batch-norm", fused, pair(kernel_name(s)), x);
  }
  ActShape planes(const ActShape& x, const ActShape&, bool relu) override {
    const PlaneShape s{x.channels, x.height, x.width, relu};
    plan.shapes.planes.push_back(s);
    return add("", "planes", relu ? "ReLU" : "", pair(kernel_name("planes", s)), x);
  }
  ActShape pool(const ActShape& x) override {
    const PlaneShape s{x.channels, x.height, x.width, false};
    plan.shapes.pools.push_back(s);
    return add("", "pool", "", pair(kernel_name("pool", s)), {3 * x.channels});
  }
  ActShape flatten(const ActShape& x) override {
    const MatrixShape s{x.plane(), x.channels};
    plan.shapes.transposes.push_back(s);
    return add("", "transpose", "", pair(kernel_name("transpose", s)), {x.channels * x.plane()});
  }
  ActShape linear(const std::string& module, const ActShape& x, int outputs, bool relu) override {
    const LinearShape s{x.channels, outputs, relu};
    plan.shapes.linears.push_back(s);
    return add(module, "linear", relu ? "ReLU" : "", pair(kernel_name(s)), {outputs});
  }
  ActShape tanh(const ActShape& x) override {
    const MatrixShape s{1, x.channels};
    plan.shapes.tanhs.push_back(s);
    return add("", "tanh", "", pair(kernel_name("tanh", s)), x);
  }
  void cross_entropy(const MatrixShape& s) {
    plan.shapes.cross_entropies.push_back(s);
    add("", "loss", "log-softmax", pair(kernel_name("cross_entropy", s)), {1});
  }
  void squared_error(const MatrixShape& s) {
    plan.shapes.squared_errors.push_back(s);
    add("", "loss", "", pair(kernel_name("squared_error", s)), {1});
  }
  void input_transpose(const MatrixShape& s, const ActShape& out) {
    plan.shapes.transposes.push_back(s);
    add("", "transpose", "", {kernel_name("transpose", s) + "_forward"}, out);
  }

 private:
  static std::vector<std::string> pair(const std::string& name) { return {name + "_forward", name + "_backward"}; }
  ActShape add(const std::string& module, const std::string& kind, const std::string& fused, std::vector<std::string> functions,
               const ActShape& out) {
    plan.layers.push_back({module, kind, fused, std::move(functions), floats(out)});
    return out;
  }
};

}  // namespace

TrainingPlan plan_training_network(const NetConfig& config, const NetShape& shape) {
  Recorder recorder;
  const games::Shape& in = shape.input;
  const ActShape input{in.channels, in.height, in.width};
  recorder.input_transpose({in.channels, in.plane_size()}, input);
  const TrainingHeads<ActShape> heads = walk_training_network<ActShape>(recorder, config, shape, input);
  recorder.cross_entropy({1, heads.policy.channels});
  if (config.wdl()) recorder.cross_entropy({shape.value_outputs, 3});
  else recorder.squared_error({1, shape.value_outputs});
  return recorder.plan;
}

}  // namespace pz::nn
