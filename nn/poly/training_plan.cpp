#include "nn/poly/training_plan.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "nn/poly/winograd.h"
#include "polyhedral/analysis/cache_info.h"

namespace pz::nn {

namespace {

std::size_t floats(const ActShape& a) {
  return static_cast<std::size_t>(a.channels) * static_cast<std::size_t>(a.spatial() ? a.plane() : 1);
}

using Use = LayerWorkspace::Use;

class Recorder final : public TrainingLayerOps<ActShape> {
 public:
  TrainingPlan plan;

  ActShape conv_batch_norm(const std::string& conv_module, const std::string& norm_module, const ActShape& x, int out_channels,
                           int kernel, const ActShape* residual, bool relu) override {
    ConvShape c{x.channels, out_channels, x.height, x.width, kernel, false};
    BatchNormShape n{out_channels, x.plane(), residual != nullptr, relu};
    n.one_sweep_backward = one_sweep_backward(n);
    if (!padded_gradient(c, n)) return batch_norm(norm_module, conv(conv_module, x, out_channels, kernel, false), residual, relu);
    c.padded_gradient = true, n.gradient_pad = c.pad(), n.width = x.width;
    plan.shapes.conv_batch_norms.emplace_back(c, n);
    const ActShape y = add_conv(conv_module, x, c);
    return add_batch_norm(norm_module, y, residual, n);
  }
  ActShape conv(const std::string& module, const ActShape& x, int out_channels, int kernel, bool bias) override {
    ConvShape s{x.channels, out_channels, x.height, x.width, kernel, bias};
    s.winograd = training_winograd_tile(s, winograd_);
    return add_conv(module, x, s);
  }
  ActShape add_conv(const std::string& module, const ActShape& x, const ConvShape& s) {
    const int kernel = s.kernel, out_channels = s.out_channels;
    plan.shapes.convs.push_back(s);
    const std::string n = kernel_name(s);
    if (s.winograd > 0) return add_winograd_conv(module, x, s);
    const std::size_t weights = conv_weight_floats(s), padded = conv_padded_floats(s, 1);
    std::vector<LayerWorkspace> work{{"packed weights", 0, weights, Use::kForward},
                                     {"packed weight gradient", 0, weights, Use::kBackward},
                                     {"rotated weights", 0, weights, Use::kBackward}};
    if (padded > 0) work.push_back({"padded input", padded, 0, Use::kKept});
    if (padded > 0 && !s.padded_gradient) work.push_back({"padded output gradient", padded, 0, Use::kBackward});
    return add({module, kernel == 3 ? "conv3x3" : "conv1x1", "", {n + "_forward", n + "_input_gradient", n + "_weight_gradient"},
                0, {x.layer}, padded == 0, false, std::move(work)},
               {out_channels, x.height, x.width});
  }
  // The Tape's calls (backprop.cpp): the filters transformed in the forward, which keeps their
  // transpose for the input gradient, the work array of one chunk of positions
  // (winograd_chunk) in each pass.
  ActShape add_winograd_conv(const std::string& module, const ActShape& x, const ConvShape& s) {
    const std::string n = kernel_name(s);
    const WinogradConvShape w = s.winograd_shape();
    const std::size_t weights = winograd_weight_floats(w);
    const int chunk = winograd_chunk(w, poly::CacheInfo::detect().l2 / 2, 1 << 20);
    std::vector<LayerWorkspace> work{{"transformed weights", 0, weights, Use::kForward},
                                     {"transposed transformed weights", 0, weights, Use::kKept},
                                     {"transformed weight gradient", 0, 2 * weights, Use::kBackward},
                                     {"Winograd stages", 0, winograd_work_floats(w, chunk), Use::kForward},
                                     {"Winograd stages", 0, winograd_work_floats(w, chunk), Use::kBackward}};
    return add({module, "conv3x3", "Winograd F(" + std::to_string(s.winograd) + "x" + std::to_string(s.winograd) + ",3x3)",
                {n + "_forward", n + "_input_gradient", n + "_weight_gradient"}, 0, {x.layer}, true, false, std::move(work)},
               {s.out_channels, x.height, x.width});
  }
  Recorder(int batch, int winograd) : batch_(batch), winograd_(winograd) {}

  ActShape batch_norm(const std::string& module, const ActShape& x, const ActShape* residual, bool relu) override {
    BatchNormShape s{x.channels, x.plane(), residual != nullptr, relu};
    s.one_sweep_backward = one_sweep_backward(s);
    return add_batch_norm(module, x, residual, s);
  }
  ActShape add_batch_norm(const std::string& module, const ActShape& x, const ActShape* residual, const BatchNormShape& s) {
    const bool relu = s.relu;
    plan.shapes.batch_norms.push_back(s);
    std::string fused = residual && relu ? "residual add, ReLU" : residual ? "residual add" : relu ? "ReLU" : "";
    auto also = [&fused](const std::string& what) { fused += (fused.empty() ? "" : "; ") + what; };
    if (s.one_sweep_backward) also("one backward sweep");
    if (s.gradient_pad > 0) also("dx padded for the conv");
    const auto c = static_cast<std::size_t>(x.channels);
    std::vector<int> inputs{x.layer};
    if (residual) inputs.push_back(residual->layer);
    // The backward's masked gradient g is the residual's gradient when there is one.
    std::vector<LayerWorkspace> work{{"mean, 1/std", 0, 2 * c, Use::kKept}, {"variance", 0, c, Use::kForward}};
    if (!residual) work.push_back({"masked gradient", floats(x), 0, Use::kBackward});
    return add({module, "batch-norm", fused, pair(kernel_name(s)), 0, inputs, true, true, std::move(work)}, x);
  }
  ActShape planes(const ActShape& x, const ActShape& p, bool relu) override {
    const PlaneShape s{x.channels, x.height, x.width, relu};
    plan.shapes.planes.push_back(s);
    return add({"", "planes", relu ? "ReLU" : "", pair(kernel_name("planes", s)), 0, {x.layer, p.layer}, false, true, {}}, x);
  }
  ActShape pool(const ActShape& x) override {
    const PlaneShape s{x.channels, x.height, x.width, false};
    plan.shapes.pools.push_back(s);
    return add({"", "pool", "", pair(kernel_name("pool", s)), 0, {x.layer}, true, true,
                {{"ties", static_cast<std::size_t>(x.channels), 0, Use::kBackward}}},
               {3 * x.channels});
  }
  ActShape flatten(const ActShape& x) override {
    const MatrixShape s{x.plane(), x.channels};
    plan.shapes.transposes.push_back(s);
    return add({"", "transpose", "", pair(kernel_name("transpose", s)), 0, {x.layer}, false, true, row_work(s)},
               {x.channels * x.plane()});
  }
  ActShape linear(const std::string& module, const ActShape& x, int outputs, bool relu) override {
    const LinearShape s{x.channels, outputs, relu};
    plan.shapes.linears.push_back(s);
    const auto weights = static_cast<std::size_t>(x.channels) * static_cast<std::size_t>(outputs);
    return add({module, "linear", relu ? "ReLU" : "", pair(kernel_name(s)), 0, {x.layer}, true, true,
                {{"packed weights", 0, weights, Use::kForward},
                 {"masked gradient", static_cast<std::size_t>(outputs), 0, Use::kBackward}}},
               {outputs});
  }
  ActShape tanh(const ActShape& x) override {
    const MatrixShape s{1, x.channels};
    plan.shapes.tanhs.push_back(s);
    return add({"", "tanh", "", pair(kernel_name("tanh", s)), 0, {x.layer}, false, true, row_work(s)}, x);
  }
  void cross_entropy(const MatrixShape& s, const ActShape& x) {
    plan.shapes.cross_entropies.push_back(s);
    const auto rows = static_cast<std::size_t>(s.rows);
    add({"", "loss", "log-softmax", pair(kernel_name("cross_entropy", s)), 0, {x.layer}, true, false,
         {{"row maxima, log-sums", 2 * rows, 0, Use::kKept}, {"target sums", rows, 0, Use::kBackward}}},
        {1});
  }
  void squared_error(const MatrixShape& s, const ActShape& x) {
    plan.shapes.squared_errors.push_back(s);
    add({"", "loss", "", pair(kernel_name("squared_error", s)), 0, {x.layer}, true, false, {}}, {1});
  }
  ActShape input_transpose(const MatrixShape& s, const ActShape& out) {
    plan.shapes.transposes.push_back(s);
    return add({"", "transpose", "", {kernel_name("transpose", s) + "_forward"}, 0, {-1}, false, false, row_work(s)}, out);
  }

 private:
  int batch_, winograd_;
  std::map<BatchNormShape, bool> one_sweep_;

  std::map<std::pair<ConvShape, BatchNormShape>, bool> padded_gradient_;

  bool padded_gradient(const ConvShape& c, const BatchNormShape& n) {
    if (batch_ <= 0 || c.pad() == 0) return false;
    auto [it, added] = padded_gradient_.try_emplace({c, n}, false);
    if (added) {
      plan.fusions.push_back(choose_conv_batch_norm_backward(c, n, batch_));
      it->second = plan.fusions.back().fused();
    }
    return it->second;
  }
  // With no batch to weigh, the one sweep: it reads dy, y and x once where the three sweeps
  // read the mask's output g three times, so it moves no more data at any batch.
  bool one_sweep_backward(const BatchNormShape& s) {
    if (batch_ <= 0) return true;
    auto [it, added] = one_sweep_.try_emplace(s, false);
    if (added) {
      plan.fusions.push_back(choose_batch_norm_backward(s, batch_));
      it->second = plan.fusions.back().fused();
    }
    return it->second;
  }
  static std::vector<std::string> pair(const std::string& name) { return {name + "_forward", name + "_backward"}; }
  // MatrixKernels' [N][rows][2] workspace, allocated by both passes.
  static std::vector<LayerWorkspace> row_work(const MatrixShape& s) {
    const auto work = 2 * static_cast<std::size_t>(s.rows);
    return {{"row workspace", work, 0, Use::kForward}, {"row workspace", work, 0, Use::kBackward}};
  }
  ActShape add(TrainingLayer layer, ActShape out) {
    layer.output_floats = floats(out);
    out.layer = static_cast<int>(plan.layers.size());
    plan.layers.push_back(std::move(layer));
    return out;
  }
};

}  // namespace

int training_winograd_mode() {
  const char* env = std::getenv("PZ_POLY_WINOGRAD");
  return parse_winograd_mode(env && *env ? env : "auto", "PZ_POLY_WINOGRAD");
}

int training_winograd_tile(const ConvShape& s, int mode) {
  if (mode == 0 || s.kernel != 3 || s.bias || s.padded_gradient) return 0;
  if (mode != kTrainingWinogradAuto) return mode;
  return choose_winograd_tile(s.height, s.width, s.in_channels, s.out_channels).m;
}

TrainingPlan plan_training_network(const NetConfig& config, const NetShape& shape, int batch, int winograd) {
  Recorder recorder(batch, winograd);
  const games::Shape& in = shape.input;
  const ActShape input =
      recorder.input_transpose({in.channels, in.plane_size()}, ActShape{in.channels, in.height, in.width});
  const TrainingHeads<ActShape> heads = walk_training_network<ActShape>(recorder, config, shape, input);
  recorder.cross_entropy({1, heads.policy.channels}, heads.policy);
  if (config.wdl()) recorder.cross_entropy({shape.value_outputs, 3}, heads.value_logits);
  else recorder.squared_error({1, shape.value_outputs}, heads.value);
  return recorder.plan;
}

BatchNormShape planned_batch_norm(const LayerShapes& planned, const BatchNormShape& s) {
  for (const BatchNormShape& p : planned.batch_norms)
    if (p.channels == s.channels && p.plane == s.plane && p.residual == s.residual && p.relu == s.relu && p.gradient_pad == 0)
      return p;
  return s;
}

ConvShape planned_conv(const LayerShapes& planned, ConvShape s) {
  for (const ConvShape& p : planned.convs) {
    s.winograd = p.winograd;
    if (!(p < s) && !(s < p)) return p;
  }
  s.winograd = 0;
  return s;
}

const BatchNormShape* planned_conv_batch_norm(const LayerShapes& planned, const ConvShape& c, const BatchNormShape& n) {
  for (const auto& [conv, norm] : planned.conv_batch_norms) {
    if (!(conv < c) && !(c < conv) && norm.channels == n.channels && norm.plane == n.plane && norm.residual == n.residual &&
        norm.relu == n.relu)
      return &norm;
  }
  return nullptr;
}

TrainingKernels training_kernels(const NetConfig& config, const NetShape& shape, int batch, const std::string& cache_dir,
                                 int winograd) {
  const games::Shape& in = shape.input;
  const std::string key = config.to_json().dump() + " batch " + std::to_string(batch) + " " + std::to_string(in.channels) +
                          "x" + std::to_string(in.height) + "x" + std::to_string(in.width) + " " +
                          std::to_string(shape.policy.size()) + " " + std::to_string(shape.value_outputs) +
                          (shape.spatial_policy ? " spatial" : "") + " " + cache_dir + " winograd " +
                          std::to_string(winograd);
  static std::mutex mutex;
  static std::map<std::string, TrainingKernels> compiled;
  std::lock_guard lock(mutex);
  TrainingKernels& slot = compiled[key];
  if (!slot.kernels) {
    LayerShapes shapes = plan_training_network(config, shape, batch, winograd).shapes;
    slot.kernels = std::make_shared<const PolyLayerKernels>(shapes, cache_dir);
    slot.shapes = std::move(shapes);
  }
  return slot;
}

}  // namespace pz::nn
