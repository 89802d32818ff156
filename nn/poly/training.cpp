#include "nn/poly/training.h"

#include "nn/poly/training_plan.h"

#include <cmath>
#include <stdexcept>

namespace pz::nn {

namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

float* data(Tensor& t) { return t.data_ptr<float>(); }
const float* data(const Tensor& t) { return t.data_ptr<float>(); }
int batch_of(const Tensor& t) { return static_cast<int>(t.size(0)); }
Tensor empty(std::initializer_list<std::int64_t> sizes) { return torch::empty(sizes, torch::kFloat32); }
Tensor empty_floats(std::size_t n) { return torch::empty({static_cast<std::int64_t>(std::max<std::size_t>(n, 1))}, torch::kFloat32); }

// An absent optional input (a convolution's bias, a batch norm's residual): autograd's
// custom functions need every tensor argument defined, so absent is empty.
Tensor absent() { return torch::empty({0}, torch::kFloat32); }
bool present(const Tensor& t) { return t.numel() > 0; }

// Non-tensor arguments travel through saved_data as integers.
template <class T>
void keep(AutogradContext* ctx, const char* key, const T* p) {
  ctx->saved_data[key] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(p));
}
template <class T>
const T* kept(AutogradContext* ctx, const char* key) {
  return reinterpret_cast<const T*>(static_cast<std::intptr_t>(ctx->saved_data[key].toInt()));
}

// A convolution's shape through saved_data.
std::vector<std::int64_t> conv_shape_data(const ConvShape& s) {
  return {s.in_channels, s.out_channels, s.height, s.width, s.kernel, s.bias, s.padded_gradient};
}
ConvShape conv_shape_of(const std::vector<std::int64_t>& v) {
  auto i = [&v](std::size_t k) { return static_cast<int>(v.at(k)); };
  return {i(0), i(1), i(2), i(3), i(4), v.at(5) != 0, v.at(6) != 0};
}

// ---- the kernel calls of a convolution and a batch norm --------------------------------
// Shared by their own Functions and by the fused pair's, which chains them.

struct ConvForward {
  Tensor y, xp;  // the output; the input as the gradient kernels read it (padded for a 3×3)
};
ConvForward conv_forward(const ConvKernels& k, const ConvShape& s, const Tensor& x, const Tensor& w, const Tensor& bias) {
  const int n = batch_of(x);
  Tensor y = empty({n, s.height * s.width, s.out_channels});
  Tensor wt = empty_floats(conv_weight_floats(s));
  Tensor xp = s.pad() > 0 ? empty_floats(conv_padded_floats(s, n)) : x;
  k.forward(n, data(x), data(w), present(bias) ? data(bias) : nullptr, data(wt), s.pad() > 0 ? data(xp) : nullptr, data(y));
  return {y, xp};
}

struct ConvGradients {
  Tensor dx, dw, dbias;  // dx undefined unless asked for, dbias unless the shape has a bias
};
// `dy` is the output gradient, with the zero border when s.padded_gradient (no padded copy
// is then made).
ConvGradients conv_backward(const ConvKernels& k, const ConvShape& s, int n, const Tensor& xp, const Tensor& w,
                            const float* dy, bool input_gradient) {
  ConvGradients out;
  out.dw = torch::empty_like(w);
  if (input_gradient) {
    out.dx = empty({n, s.height * s.width, s.in_channels});
    Tensor wd = empty_floats(conv_weight_floats(s));
    Tensor dyp = s.padded_gradient ? Tensor() : empty_floats(conv_padded_floats(s, n));
    k.input_gradient(n, dy, data(w), data(wd), s.padded_gradient ? nullptr : data(dyp), data(out.dx));
  }
  if (s.bias) out.dbias = empty({s.out_channels});
  Tensor dwt = empty_floats(conv_weight_floats(s));
  k.weight_gradient(n, data(xp), dy, data(dwt), data(out.dw), s.bias ? data(out.dbias) : nullptr);
  return out;
}

struct BatchNormForward {
  Tensor y, mean, invstd;
};
// running_mean and running_var move in place (buffers, not differentiated).
BatchNormForward batch_norm_forward(const BatchNormKernels& k, const Tensor& x, const Tensor& residual, const Tensor& gamma,
                                    const Tensor& beta, Tensor& running_mean, Tensor& running_var) {
  const int c = static_cast<int>(x.size(2));
  Tensor y = torch::empty_like(x), mean = empty({c}), var = empty({c}), invstd = empty({c});
  k.forward(batch_of(x), data(x), present(residual) ? data(residual) : nullptr, data(gamma), data(beta), data(running_mean),
            data(running_var), data(mean), data(var), data(invstd), data(y));
  return {y, mean, invstd};
}

struct BatchNormGradients {
  Tensor g, dgamma, dbeta;  // g: the gradient after the ReLU's mask (the residual's)
};
// Writes the input's gradient to `dx` (its layout is the kernels': padded or not).
BatchNormGradients batch_norm_backward(const BatchNormKernels& k, const Tensor& dy, const Tensor& x, const Tensor& y,
                                       const Tensor& mean, const Tensor& invstd, const Tensor& gamma, float* dx) {
  BatchNormGradients out{torch::empty_like(x), torch::empty_like(gamma), torch::empty_like(gamma)};
  k.backward(batch_of(x), data(dy), data(y), data(x), data(mean), data(invstd), data(gamma), data(out.g), dx,
             data(out.dgamma), data(out.dbeta));
  return out;
}

// ---- the autograd Functions, one per layer kind -------------------------------------------

struct ConvFunction : torch::autograd::Function<ConvFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvKernels* k,
                        ConvShape s) {
    ConvForward f = conv_forward(*k, s, x, w, bias);
    ctx->save_for_backward({f.xp, w});
    keep(ctx, "kernels", k);
    ctx->saved_data["shape"] = conv_shape_data(s);
    return f.y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const ConvShape s = conv_shape_of(ctx->saved_data["shape"].toIntVector());
    const Tensor dy = grads[0].contiguous();
    ConvGradients d = conv_backward(*kept<ConvKernels>(ctx, "kernels"), s, batch_of(dy), saved[0], saved[1], data(dy),
                                    ctx->needs_input_grad(0));
    return {d.dx, d.dw, d.dbias, Tensor(), Tensor()};
  }
};

struct BatchNormFunction : torch::autograd::Function<BatchNormFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& residual, const Tensor& gamma,
                        const Tensor& beta, Tensor running_mean, Tensor running_var, const BatchNormKernels* k) {
    BatchNormForward f = batch_norm_forward(*k, x, residual, gamma, beta, running_mean, running_var);
    ctx->save_for_backward({x, f.y, f.mean, f.invstd, gamma});
    ctx->saved_data["residual"] = present(residual);
    keep(ctx, "kernels", k);
    return f.y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const Tensor dy = grads[0].contiguous();
    Tensor dx = torch::empty_like(s[0]);
    BatchNormGradients d = batch_norm_backward(*kept<BatchNormKernels>(ctx, "kernels"), dy, s[0], s[1], s[2], s[3], s[4], data(dx));
    return {dx, ctx->saved_data["residual"].toBool() ? d.g : Tensor(), d.dgamma, d.dbeta, Tensor(), Tensor(), Tensor()};
  }
};

// A 3×3 convolution without bias and its batch norm, one Function so that the batch norm's
// backward writes dz, the convolution's output gradient, with the zero border the
// convolution's gradient kernels read (ConvShape::padded_gradient): no padded copy.
struct ConvBatchNormFunction : torch::autograd::Function<ConvBatchNormFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const Tensor& residual, const Tensor& gamma,
                        const Tensor& beta, Tensor running_mean, Tensor running_var, const ConvKernels* conv,
                        const BatchNormKernels* norm, std::vector<std::int64_t> conv_shape) {
    ConvForward z = conv_forward(*conv, conv_shape_of(conv_shape), x, w, absent());
    BatchNormForward f = batch_norm_forward(*norm, z.y, residual, gamma, beta, running_mean, running_var);
    ctx->save_for_backward({z.xp, w, z.y, f.y, f.mean, f.invstd, gamma});
    ctx->saved_data["residual"] = present(residual);
    ctx->saved_data["shape"] = conv_shape;
    keep(ctx, "conv", conv);
    keep(ctx, "norm", norm);
    return f.y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto v = ctx->get_saved_variables();
    const ConvShape s = conv_shape_of(ctx->saved_data["shape"].toIntVector());
    const Tensor dy = grads[0].contiguous();
    const int n = batch_of(dy);
    Tensor dzp = empty_floats(conv_padded_floats(s, n));
    BatchNormGradients b = batch_norm_backward(*kept<BatchNormKernels>(ctx, "norm"), dy, v[2], v[3], v[4], v[5], v[6], data(dzp));
    ConvGradients c = conv_backward(*kept<ConvKernels>(ctx, "conv"), s, n, v[0], v[1], data(dzp), ctx->needs_input_grad(0));
    return {c.dx, c.dw, ctx->saved_data["residual"].toBool() ? b.g : Tensor(), b.dgamma, b.dbeta, Tensor(), Tensor(), Tensor(),
            Tensor(), Tensor()};
  }
};

struct LinearFunction : torch::autograd::Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const Tensor& bias, const LinearKernels* k) {
    const int n = batch_of(x);
    Tensor y = empty({n, w.size(0)}), wt = torch::empty_like(w);
    k->forward(n, data(x), data(w), data(bias), data(wt), data(y));
    ctx->save_for_backward({x, w, y});
    keep(ctx, "kernels", k);
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const Tensor &x = s[0], &w = s[1], &y = s[2];
    const Tensor dy = grads[0].contiguous();
    Tensor g = torch::empty_like(y), dx = torch::empty_like(x), dw = torch::empty_like(w), dbias = empty({w.size(0)});
    kept<LinearKernels>(ctx, "kernels")
        ->backward(batch_of(x), data(dy), data(y), data(x), data(w), data(g), data(dx), data(dw), data(dbias));
    return {dx, dw, dbias, Tensor()};
  }
};

struct PoolFunction : torch::autograd::Function<PoolFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const PoolKernels* k) {
    const int n = batch_of(x);
    Tensor y = empty({n, 3 * x.size(2)});
    k->forward(n, data(x), data(y));
    ctx->save_for_backward({x, y});
    keep(ctx, "kernels", k);
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const Tensor &x = s[0], &y = s[1];
    const Tensor dy = grads[0].contiguous();
    Tensor ties = empty({x.size(0), x.size(2)}), dx = torch::empty_like(x);
    kept<PoolKernels>(ctx, "kernels")->backward(batch_of(x), data(x), data(y), data(dy), data(ties), data(dx));
    return {dx, Tensor()};
  }
};

struct PlanesFunction : torch::autograd::Function<PlanesFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& planes, const PlaneKernels* k) {
    Tensor y = torch::empty_like(x);
    k->forward(batch_of(x), data(x), data(planes), data(y));
    ctx->save_for_backward({y});
    keep(ctx, "kernels", k);
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor y = ctx->get_saved_variables()[0];
    const Tensor dy = grads[0].contiguous();
    Tensor dx = torch::empty_like(y), dp = empty({y.size(0), y.size(2)});
    kept<PlaneKernels>(ctx, "kernels")->backward(batch_of(y), data(dy), data(y), data(dx), data(dp));
    return {dx, dp, Tensor()};
  }
};

// Transpose and tanh: x → y of `out_sizes`, the backward from dy and y.
struct MatrixFunction : torch::autograd::Function<MatrixFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const MatrixKernels* k, std::vector<std::int64_t> out_sizes,
                        MatrixShape s) {
    const int n = batch_of(x);
    Tensor y = torch::empty(out_sizes, torch::kFloat32), work = empty({n, s.rows, 2});
    k->forward(n, data(x), data(work), data(y));
    ctx->save_for_backward({y});
    ctx->saved_data["in_sizes"] = x.sizes().vec();
    ctx->saved_data["rows"] = static_cast<std::int64_t>(s.rows);
    keep(ctx, "kernels", k);
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor y = ctx->get_saved_variables()[0];
    const Tensor dy = grads[0].contiguous();
    Tensor dx = torch::empty(ctx->saved_data["in_sizes"].toIntVector(), torch::kFloat32);
    Tensor work = empty({y.size(0), ctx->saved_data["rows"].toInt(), 2});
    kept<MatrixKernels>(ctx, "kernels")->backward(batch_of(y), data(dy), data(y), data(work), data(dx));
    return {dx, Tensor(), Tensor(), Tensor()};
  }
};

// Cross-entropy of x's log-softmax rows against t, rows weighted by w, the sum scaled.
struct CrossEntropyFunction : torch::autograd::Function<CrossEntropyFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& scale,
                        const CrossEntropyKernels* k, MatrixShape s) {
    const int n = batch_of(x);
    Tensor work = empty({n, s.rows, 2}), loss = torch::empty({}, torch::kFloat32);
    k->forward(n, data(x), data(t), data(w), data(scale), data(work), data(loss));
    ctx->save_for_backward({x, t, w, scale, work});
    ctx->saved_data["rows"] = static_cast<std::int64_t>(s.rows);
    keep(ctx, "kernels", k);
    return loss;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto v = ctx->get_saved_variables();
    const Tensor &x = v[0], &t = v[1], &w = v[2], &scale = v[3], &work = v[4];
    const Tensor dloss = grads[0].contiguous();
    Tensor tsum = empty({x.size(0), ctx->saved_data["rows"].toInt()}), dx = torch::empty_like(x);
    kept<CrossEntropyKernels>(ctx, "kernels")
        ->backward(batch_of(x), data(x), data(t), data(w), data(scale), data(work), data(dloss), data(tsum), data(dx));
    return {dx, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

struct SquaredErrorFunction : torch::autograd::Function<SquaredErrorFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& v, const Tensor& z, const Tensor& scale,
                        const SquaredErrorKernels* k) {
    Tensor loss = torch::empty({}, torch::kFloat32);
    k->forward(batch_of(v), data(v), data(z), data(scale), data(loss));
    ctx->save_for_backward({v, z, scale});
    keep(ctx, "kernels", k);
    return loss;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const Tensor &v = s[0], &z = s[1], &scale = s[2];
    const Tensor dloss = grads[0].contiguous();
    Tensor dv = torch::empty_like(v);
    kept<SquaredErrorKernels>(ctx, "kernels")->backward(batch_of(v), data(v), data(z), data(scale), data(dloss), data(dv));
    return {dv, Tensor(), Tensor(), Tensor()};
  }
};

// ---- the network's layers on the generated kernels ---------------------------------------

// An activation: channels-last [N, H·W, C] on a board, or [N, C] (height = width = 0).
struct Act : ActShape {
  Tensor t;
  Act() = default;
  Act(Tensor tensor, int channels, int height = 0, int width = 0) : ActShape{channels, height, width}, t(std::move(tensor)) {}
};

class Runner final : public TrainingLayerOps<Act> {
 public:
  Runner(PolicyValueNetImpl& net, const PolyLayerKernels& kernels, const LayerShapes& planned)
      : params_(net.named_parameters(true)), buffers_(net.named_buffers(true)), k_(kernels), planned_(planned) {}

  Act conv(const std::string& module, const Act& x, int out_channels, int kernel, bool bias) override {
    const ConvShape s{x.channels, out_channels, x.height, x.width, kernel, bias};
    const Tensor b = bias ? params_[module + ".bias"] : absent();
    return {ConvFunction::apply(x.t, params_[module + ".weight"], b, &k_.conv(s), s), out_channels, x.height, x.width};
  }
  Act conv_batch_norm(const std::string& conv_module, const std::string& norm_module, const Act& x, int out_channels, int kernel,
                      const Act* residual, bool relu) override {
    const ConvShape c{x.channels, out_channels, x.height, x.width, kernel, false, true};
    const BatchNormShape* n = planned_conv_batch_norm(planned_, c, {out_channels, x.plane(), residual != nullptr, relu});
    if (!n) return TrainingLayerOps<Act>::conv_batch_norm(conv_module, norm_module, x, out_channels, kernel, residual, relu);
    Tensor y = ConvBatchNormFunction::apply(x.t, params_[conv_module + ".weight"], residual ? residual->t : absent(),
                                            params_[norm_module + ".weight"], params_[norm_module + ".bias"],
                                            buffers_[norm_module + ".running_mean"], buffers_[norm_module + ".running_var"],
                                            &k_.conv(c), &k_.batch_norm(*n), conv_shape_data(c));
    count_batch(norm_module);
    return {y, out_channels, x.height, x.width};
  }
  Act batch_norm(const std::string& module, const Act& x, const Act* residual, bool relu) override {
    const BatchNormKernels* k = &k_.batch_norm(planned_batch_norm(planned_, {x.channels, x.plane(), residual != nullptr, relu}));
    Tensor y = BatchNormFunction::apply(x.t, residual ? residual->t : absent(), params_[module + ".weight"],
                                        params_[module + ".bias"], buffers_[module + ".running_mean"],
                                        buffers_[module + ".running_var"], k);
    count_batch(module);
    return {y, x.channels, x.height, x.width};
  }
  Act planes(const Act& x, const Act& p, bool relu) override {
    return {PlanesFunction::apply(x.t, p.t, &k_.planes({x.channels, x.height, x.width, relu})), x.channels, x.height, x.width};
  }
  Act pool(const Act& x) override {
    return {PoolFunction::apply(x.t, &k_.pool({x.channels, x.height, x.width, false})), 3 * x.channels};
  }
  Act flatten(const Act& x) override {
    const MatrixShape s{x.plane(), x.channels};
    const std::int64_t n = x.t.size(0);
    Tensor y = MatrixFunction::apply(x.t, &k_.transpose(s), std::vector<std::int64_t>{n, s.cols, s.rows}, s);
    return {y.view({n, s.cols * s.rows}), x.channels * x.plane()};
  }
  Act linear(const std::string& module, const Act& x, int outputs, bool relu) override {
    const LinearKernels* k = &k_.linear({x.channels, outputs, relu});
    return {LinearFunction::apply(x.t, params_[module + ".weight"], params_[module + ".bias"], k), outputs};
  }
  Act tanh(const Act& x) override {
    const MatrixShape s{1, x.channels};
    return {MatrixFunction::apply(x.t, &k_.tanh(s), x.t.sizes().vec(), s), x.channels};
  }

 private:
  void count_batch(const std::string& norm_module) {
    torch::NoGradGuard no_grad;
    buffers_[norm_module + ".num_batches_tracked"].add_(1);
  }
  torch::OrderedDict<std::string, Tensor> params_, buffers_;
  const PolyLayerKernels& k_;
  const LayerShapes& planned_;
};

}  // namespace

PolyTrainingNet::PolyTrainingNet(const NetConfig& config, const NetShape& shape, int batch, const std::string& cache_dir)
    : config_(config), shape_(shape) {
  TrainingKernels compiled = training_kernels(config, shape, batch, cache_dir);
  shapes_ = std::move(compiled.shapes);
  kernels_ = std::move(compiled.kernels);
}

NetOutput PolyTrainingNet::heads(PolicyValueNetImpl& net, const Tensor& observations) const {
  const games::Shape& in = shape_.input;
  if (observations.dim() != 4 || observations.size(1) != in.channels || observations.size(2) != in.height ||
      observations.size(3) != in.width) {
    throw std::invalid_argument("poly learner: observations must be [N, " + std::to_string(in.channels) + ", " +
                                std::to_string(in.height) + ", " + std::to_string(in.width) + "]");
  }
  const std::int64_t n = observations.size(0);
  const MatrixShape s{in.channels, in.plane_size()};
  const Tensor x = observations.to(torch::kFloat32).contiguous().view({n, s.rows, s.cols});
  Runner runner(net, *kernels_, shapes_);
  const Act input{MatrixFunction::apply(x, &kernels_->transpose(s), std::vector<std::int64_t>{n, s.cols, s.rows}, s),
                  in.channels, in.height, in.width};
  const TrainingHeads<Act> heads = walk_training_network<Act>(runner, config_, shape_, input);
  NetOutput out;
  out.policy = heads.policy.t;
  if (config_.ownership) out.ownership = heads.ownership.t;
  if (config_.score) out.score = heads.score.t;
  if (config_.wdl()) {
    out.value_logits = heads.value_logits.t.view({n, shape_.value_outputs, 3});
    const Tensor probs = torch::softmax(out.value_logits.detach(), 2);
    out.value = probs.select(2, 0) - probs.select(2, 2);
  } else {
    out.value = heads.value.t;
  }
  return out;
}

Tensor PolyTrainingNet::policy_loss(const Tensor& logits, const Tensor& targets, const Tensor& mask) const {
  const MatrixShape s{1, static_cast<int>(logits.size(1))};
  const Tensor w = mask.to(torch::kFloat32).contiguous();
  const Tensor scale = (1.0 / w.sum().clamp_min(1.0)).reshape({1});
  return CrossEntropyFunction::apply(logits.contiguous(), targets.to(torch::kFloat32).contiguous(), w, scale,
                                     &kernels_->cross_entropy(s), s);
}

Tensor PolyTrainingNet::value_loss(const NetOutput& out, const Tensor& z) const {
  const std::int64_t n = z.size(0), v = shape_.value_outputs;
  const Tensor scale = torch::full({1}, 1.0 / static_cast<double>(n * v), torch::kFloat32);
  if (config_.wdl()) {
    const MatrixShape s{static_cast<int>(v), 3};
    return CrossEntropyFunction::apply(out.value_logits.contiguous(), wdl_targets(z).contiguous(), torch::ones({n}), scale,
                                       &kernels_->cross_entropy(s), s);
  }
  const MatrixShape s{1, static_cast<int>(v)};
  return SquaredErrorFunction::apply(out.value.contiguous(), z.to(torch::kFloat32).contiguous(), scale,
                                     &kernels_->squared_error(s));
}

}  // namespace pz::nn
