#include "nn/poly/backprop.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>
#include <utility>

#include "polyhedral/analysis/cache_info.h"
#include "util/rng.h"

namespace pz::nn {

namespace {

using Floats = std::vector<float>;

// ---- the network's slots, from a walk over shapes alone --------------------------------

class SlotCollector final : public TrainingLayerOps<ActShape> {
 public:
  std::vector<WeightSlot> slots;

  ActShape conv(const std::string& module, const ActShape& x, int out_channels, int kernel, bool bias) override {
    add(module + ".weight", {out_channels, x.channels, kernel, kernel});
    if (bias) add(module + ".bias", {out_channels});
    return {out_channels, x.height, x.width};
  }
  ActShape batch_norm(const std::string& module, const ActShape& x, const ActShape*, bool) override {
    add(module + ".weight", {x.channels});
    add(module + ".bias", {x.channels});
    add(module + ".running_mean", {x.channels}, false);
    add(module + ".running_var", {x.channels}, false);
    return x;
  }
  ActShape planes(const ActShape& x, const ActShape&, bool) override { return x; }
  ActShape pool(const ActShape& x) override { return {3 * x.channels}; }
  ActShape flatten(const ActShape& x) override { return {x.channels * x.plane()}; }
  ActShape linear(const std::string& module, const ActShape& x, int outputs, bool) override {
    add(module + ".weight", {outputs, x.channels});
    add(module + ".bias", {outputs});
    return {outputs};
  }
  ActShape tanh(const ActShape& x) override { return x; }

 private:
  void add(const std::string& name, std::vector<std::int64_t> shape, bool trainable = true) {
    slots.push_back({name, std::move(shape), trainable});
  }
};

// ---- the tape ----------------------------------------------------------------------------

// An activation on the tape: its shape and its index in the tape's tables.
struct TapeAct : ActShape {
  int id = -1;
};

// Runs each layer's forward kernel at once and keeps a closure that runs its gradient
// kernels; backward() calls them in reverse order. A gradient is summed where an activation
// feeds several layers (a residual block's input).
class Tape final : public TrainingLayerOps<TapeAct> {
 public:
  Tape(const PolyLayerKernels& kernels, const LayerShapes& planned, NetWeights& weights, NetWeights& gradients, int n,
       BufferPool& pool)
      : k_(kernels), planned_(planned), weights_(weights), gradients_(gradients), n_(n), pool_(pool) {}
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;
  // The activations and their gradients go back to the pool for the next step.
  ~Tape() {
    for (Floats& v : values_) pool_.give(v);
    for (Floats& g : gradients_of_) pool_.give(g);
  }

  TapeAct input(const Floats& values, int channels, int height = 0, int width = 0) {
    Floats copy = take(values.size());
    std::copy(values.begin(), values.end(), copy.begin());
    TapeAct a = make(std::move(copy), channels, height, width);
    needs_gradient_[static_cast<std::size_t>(a.id)] = false;
    return a;
  }
  const Floats& value(const TapeAct& a) const { return values_[static_cast<std::size_t>(a.id)]; }
  // Adds `g` (the activation's size) to the activation's gradient.
  void accumulate(const TapeAct& a, Floats g) { accumulate(a.id, std::move(g)); }

  void backward() {
    for (auto it = backward_.rbegin(); it != backward_.rend(); ++it) (*it)();
  }

  TapeAct conv(const std::string& module, const TapeAct& x, int out_channels, int kernel, bool bias) override {
    const ConvShape s = planned_conv(planned_, {x.channels, out_channels, x.height, x.width, kernel, bias});
    const ConvKernels& k = k_.conv(s);
    if (s.winograd > 0) return winograd_conv(module, x, s.winograd_shape(), k.winograd);
    const float* w = param(module + ".weight");
    const float* b = bias ? param(module + ".bias") : nullptr;
    Floats y = take(floats(x.plane() * out_channels)), wt = take(conv_weight_floats(s)),
           xp = take(s.pad() > 0 ? conv_padded_floats(s, n_) : 0);
    k.forward(n_, in(x), w, b, wt.data(), s.pad() > 0 ? xp.data() : nullptr, y.data());
    give(wt);
    give(xp);  // padded again for the weight gradient: one padded copy alive at a time, not one per layer
    const TapeAct out = make(std::move(y), out_channels, x.height, x.width);
    backward_.push_back([this, &k, s, x, out, w, module] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) return;
      if (needs(x)) {
        Floats dx = take(floats(x.plane() * x.channels)), wd = take(conv_weight_floats(s)),
               dyp = take(std::max<std::size_t>(conv_padded_floats(s, n_), 1));
        k.input_gradient(n_, dy, w, wd.data(), dyp.data(), dx.data());
        give(wd);
        give(dyp);
        accumulate(x, std::move(dx));
      }
      weight_gradient(k, s, x, dy, grad_of(module + ".weight"), s.bias ? grad_of(module + ".bias") : nullptr);
    });
    return out;
  }

  TapeAct batch_norm(const std::string& module, const TapeAct& x, const TapeAct* residual, bool relu) override {
    const BatchNormShape s = planned_batch_norm(planned_, {x.channels, x.plane(), residual != nullptr, relu});
    const BatchNormKernels& k = k_.batch_norm(s);
    const float* gamma = param(module + ".weight");
    auto stats = std::make_shared<Floats>(3 * static_cast<std::size_t>(x.channels));  // mean, var, invstd
    float* mean = stats->data();
    float* var = mean + x.channels;
    float* invstd = var + x.channels;
    Floats y = take(value(x).size());
    k.forward(n_, in(x), residual ? in(*residual) : nullptr, gamma, param(module + ".bias"), buffer(module + ".running_mean"),
              buffer(module + ".running_var"), mean, var, invstd, y.data());
    const TapeAct out = make(std::move(y), x.channels, x.height, x.width);
    const TapeAct res = residual ? *residual : TapeAct{};
    backward_.push_back([this, &k, x, out, res, stats, gamma, module] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) return;
      Floats g = take(value(x).size()), dx = take(value(x).size());
      const float* mean = stats->data();
      k.backward(n_, dy, in(out), in(x), mean, mean + 2 * x.channels, gamma, g.data(), dx.data(), grad_of(module + ".weight"),
                 grad_of(module + ".bias"));
      accumulate(x, std::move(dx));
      if (res.id >= 0) {
        accumulate(res, std::move(g));
      } else {
        give(g);
      }
    });
    return out;
  }

  TapeAct planes(const TapeAct& x, const TapeAct& p, bool relu) override {
    const PlaneKernels& k = k_.planes({x.channels, x.height, x.width, relu});
    Floats y = take(value(x).size());
    k.forward(n_, in(x), in(p), y.data());
    const TapeAct out = make(std::move(y), x.channels, x.height, x.width);
    backward_.push_back([this, &k, x, p, out] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) return;
      Floats dx = take(value(x).size()), dp = take(value(p).size());
      k.backward(n_, dy, in(out), dx.data(), dp.data());
      accumulate(x, std::move(dx));
      accumulate(p, std::move(dp));
    });
    return out;
  }

  TapeAct pool(const TapeAct& x) override {
    const PoolKernels& k = k_.pool({x.channels, x.height, x.width, false});
    Floats y = take(floats(3 * x.channels));
    k.forward(n_, in(x), y.data());
    const TapeAct out = make(std::move(y), 3 * x.channels);
    backward_.push_back([this, &k, x, out] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) return;
      Floats ties = take(floats(x.channels)), dx = take(value(x).size());
      k.backward(n_, in(x), in(out), dy, ties.data(), dx.data());
      give(ties);
      accumulate(x, std::move(dx));
    });
    return out;
  }

  TapeAct flatten(const TapeAct& x) override {
    const MatrixShape s{x.plane(), x.channels};
    return matrix(k_.transpose(s), s, x, x.channels * x.plane(), 0, 0);
  }

  TapeAct linear(const std::string& module, const TapeAct& x, int outputs, bool relu) override {
    const LinearKernels& k = k_.linear({x.channels, outputs, relu});
    const float* w = param(module + ".weight");
    Floats y = take(floats(outputs)), wt = take(static_cast<std::size_t>(x.channels) * static_cast<std::size_t>(outputs));
    k.forward(n_, in(x), w, param(module + ".bias"), wt.data(), y.data());
    give(wt);
    const TapeAct out = make(std::move(y), outputs);
    backward_.push_back([this, &k, x, out, w, module] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) return;
      Floats g = take(value(out).size()), dx = take(value(x).size());
      k.backward(n_, dy, in(out), in(x), w, g.data(), dx.data(), grad_of(module + ".weight"), grad_of(module + ".bias"));
      give(g);
      accumulate(x, std::move(dx));
    });
    return out;
  }

  TapeAct tanh(const TapeAct& x) override {
    const MatrixShape s{1, x.channels};
    return matrix(k_.tanh(s), s, x, x.channels, x.height, x.width);
  }

  // A transpose or tanh (MatrixKernels) from x to an activation of the given shape.
  TapeAct matrix(const MatrixKernels& k, const MatrixShape& s, const TapeAct& x, int channels, int height, int width) {
    Floats y = take(value(x).size()), work = take(floats(2 * s.rows));
    k.forward(n_, in(x), work.data(), y.data());
    give(work);
    const TapeAct out = make(std::move(y), channels, height, width);
    needs_gradient_[static_cast<std::size_t>(out.id)] = needs(x);  // no parameters of its own
    backward_.push_back([this, &k, s, x, out] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy || !needs(x)) return;
      Floats dx = take(value(x).size()), work = take(floats(2 * s.rows));
      k.backward(n_, dy, in(out), work.data(), dx.data());
      give(work);
      accumulate(x, std::move(dx));
    });
    return out;
  }

 private:
  // Gives an activation's value and gradient back to the pool when its layer's backward ends:
  // every layer that reads them ran its backward before (the tape runs in reverse), so they
  // are dead, and the gradients of the layers below reuse their memory (as autograd frees a
  // saved tensor once its node has run).
  class Released {
   public:
    Released(Tape& tape, const TapeAct& out) : tape_(tape), out_(out.id) {}
    Released(const Released&) = delete;
    Released& operator=(const Released&) = delete;
    ~Released() {
      tape_.give(tape_.values_[static_cast<std::size_t>(out_)]);
      tape_.give(tape_.gradients_of_[static_cast<std::size_t>(out_)]);
    }

   private:
    Tape& tape_;
    int out_;
  };

  // A 3×3 convolution as Winograd F(m×m, 3×3) (winograd_kernels.h): each of its kernels runs
  // on chunks of positions whose stages fit in half of L2; the filters are transformed once,
  // in the forward, which keeps the transpose ut for the input gradient.
  TapeAct winograd_conv(const std::string& module, const TapeAct& x, const WinogradConvShape& s, const WinogradConvKernels& k) {
    const float* w = param(module + ".weight");
    const std::size_t in_row = static_cast<std::size_t>(x.plane() * s.in_channels),
                      out_row = static_cast<std::size_t>(x.plane() * s.out_channels);
    const int chunk = winograd_chunk(s, l2() / 2, n_);
    Floats y = take(floats(x.plane() * s.out_channels)), u = take(winograd_weight_floats(s)),
           work = take(winograd_work_floats(s, chunk));
    auto ut = std::make_shared<Floats>(take(winograd_weight_floats(s)));
    k.transform_weights(1, w, k.g.data(), work.data(), u.data(), ut->data());
    for (int first = 0; first < n_; first += chunk)
      k.forward(std::min(chunk, n_ - first), in(x) + first * in_row, u.data(), work.data(),
                y.data() + first * out_row);
    for (Floats* f : {&u, &work}) give(*f);
    const TapeAct out = make(std::move(y), s.out_channels, x.height, x.width);
    backward_.push_back([this, &k, s, x, out, ut, module, chunk, in_row, out_row] {
      const Released released(*this, out);
      const float* dy = gradient(out);
      if (!dy) {
        give(*ut);
        return;
      }
      const std::size_t weights = winograd_weight_floats(s);
      Floats work = take(winograd_work_floats(s, chunk)), sums[2] = {take(weights), take(weights)};
      if (needs(x)) {
        Floats dx = take(floats(x.plane() * x.channels));
        for (int first = 0; first < n_; first += chunk)
          k.input_gradient(std::min(chunk, n_ - first), dy + first * out_row, ut->data(), work.data(),
                           dx.data() + first * in_row);
        accumulate(x, std::move(dx));
      }
      // The chunks' sums alternate between two arrays, each call adding to the other's.
      std::fill(sums[0].begin(), sums[0].end(), 0.0f);
      int last = 0;
      for (int first = 0; first < n_; first += chunk, last = 1 - last)
        k.weight_gradient(std::min(chunk, n_ - first), in(x) + first * in_row, dy + first * out_row,
                          work.data(), sums[last].data(), sums[1 - last].data());
      k.finish_weight_gradient(1, sums[last].data(), k.g.data(), work.data(), grad_of(module + ".weight"));
      for (Floats* f : {ut.get(), &work, &sums[0], &sums[1]}) give(*f);
    });
    return out;
  }

  static long l2() {
    static const long bytes = poly::CacheInfo::detect().l2;
    return bytes;
  }

  // A convolution's weight gradient, a sum over the batch, in chunks of positions whose input
  // (padded) and output gradient fit in half of L2: the kernel sweeps its operands once per
  // register block of the weights, from L2 instead of from memory. The first chunk writes
  // dw and dbias, each later one its own sums, added to them.
  void weight_gradient(const ConvKernels& k, const ConvShape& s, const TapeAct& x, const float* dy, float* dw, float* dbias) {
    const std::size_t in_row = static_cast<std::size_t>(x.plane() * x.channels),
                      out_row = static_cast<std::size_t>(x.plane() * s.out_channels),
                      padded_row = conv_padded_floats(s, 1);
    const int rows = weight_gradient_chunk(padded_row > 0 ? padded_row : in_row, out_row);
    const std::size_t weights = conv_weight_floats(s), biases = s.bias ? static_cast<std::size_t>(s.out_channels) : 0;
    Floats dwt = take(weights), xp = take(padded_row * static_cast<std::size_t>(std::min(rows, n_))),
           part_w = take(rows < n_ ? weights : 0), part_b = take(rows < n_ ? biases : 0);
    for (int first = 0; first < n_; first += rows) {
      const int m = std::min(rows, n_ - first);
      const float* x_rows = in(x) + static_cast<std::size_t>(first) * in_row;
      if (padded_row > 0) k.pad(m, x_rows, xp.data());
      float* w_sum = first == 0 ? dw : part_w.data();
      float* b_sum = first == 0 ? dbias : (dbias ? part_b.data() : nullptr);
      k.weight_gradient(m, padded_row > 0 ? xp.data() : x_rows, dy + static_cast<std::size_t>(first) * out_row, dwt.data(),
                        w_sum, b_sum);
      if (first == 0) continue;
      for (std::size_t i = 0; i < weights; ++i) dw[i] += part_w[i];
      for (std::size_t i = 0; i < biases; ++i) dbias[i] += part_b[i];
    }
    for (Floats* f : {&dwt, &xp, &part_w, &part_b}) give(*f);
  }

  // Positions per weight-gradient chunk: rows of `in_row` + `out_row` floats in half of L2.
  int weight_gradient_chunk(std::size_t in_row, std::size_t out_row) const {
    const std::size_t bytes = (in_row + out_row) * sizeof(float);
    return static_cast<int>(std::clamp<std::size_t>(static_cast<std::size_t>(l2()) / 2 / bytes, 1, static_cast<std::size_t>(n_)));
  }

  // Floats for `per_position` values of each of the batch's positions.
  std::size_t floats(int per_position) const { return static_cast<std::size_t>(n_) * static_cast<std::size_t>(per_position); }
  const float* in(const TapeAct& a) const { return value(a).data(); }
  Floats take(std::size_t n) { return pool_.take(n); }
  void give(Floats& buffer) { pool_.give(buffer); }
  bool needs(const TapeAct& a) const { return needs_gradient_[static_cast<std::size_t>(a.id)]; }
  // The activation's gradient, or null where no layer after it passed one back.
  const float* gradient(const TapeAct& a) const {
    const Floats& g = gradients_of_[static_cast<std::size_t>(a.id)];
    return g.empty() ? nullptr : g.data();
  }

  TapeAct make(Floats values, int channels, int height = 0, int width = 0) {
    TapeAct a;
    a.channels = channels;
    a.height = height;
    a.width = width;
    a.id = static_cast<int>(values_.size());
    values_.push_back(std::move(values));
    gradients_of_.emplace_back();
    needs_gradient_.push_back(true);
    return a;
  }
  void accumulate(int id, Floats g) {
    Floats& sum = gradients_of_[static_cast<std::size_t>(id)];
    if (!needs_gradient_[static_cast<std::size_t>(id)]) {
      give(g);
    } else if (sum.empty()) {
      sum = std::move(g);
    } else {
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += g[i];
      give(g);
    }
  }

  const float* param(const std::string& name) const { return weights_.at(name).values.data(); }
  float* buffer(const std::string& name) { return weights_.at(name).values.data(); }
  float* grad_of(const std::string& name) { return gradients_.at(name).values.data(); }

  const PolyLayerKernels& k_;
  const LayerShapes& planned_;
  NetWeights& weights_;
  NetWeights& gradients_;
  const int n_;
  BufferPool& pool_;
  std::vector<Floats> values_, gradients_of_;
  std::vector<bool> needs_gradient_;
  std::vector<std::function<void()>> backward_;
};

// ---- the loss terms ------------------------------------------------------------------------

// The cross-entropy kernels (nn/poly/layer_kernels.h) over rows of `cols` logits: the loss and,
// into `dx`, its gradient times `dloss`.
double cross_entropy(const CrossEntropyKernels& k, int n, int rows, const Floats& x, const Floats& t, const Floats& w,
                     float scale, float dloss, Floats& dx) {
  Floats work(static_cast<std::size_t>(n) * static_cast<std::size_t>(rows) * 2), tsum(work.size() / 2);
  float loss = 0;
  k.forward(n, x.data(), t.data(), w.data(), &scale, work.data(), &loss);
  dx.assign(x.size(), 0.0f);
  k.backward(n, x.data(), t.data(), w.data(), &scale, work.data(), &dloss, tsum.data(), dx.data());
  return loss;
}

// Σ mask, at least 1: the denominator of a mean over the rows that have their target.
float mask_count(const std::vector<float>& mask) {
  double sum = 0;
  for (float m : mask) sum += m;
  return static_cast<float>(std::max(sum, 1.0));
}

// KataGo's ownership loss (learner.h): per cell the binary cross-entropy between
// sigmoid(2·logit) and (1 + target)/2, averaged over the cells, then over the rows whose
// mask is 1. Returns the loss; `dx` gets its gradient times `weight`.
double ownership_loss(const Floats& logits, const Batch& batch, int cells, double weight, Floats& dx) {
  const float count = mask_count(batch.auxiliary_mask);
  dx.assign(logits.size(), 0.0f);
  double total = 0;
  for (int r = 0; r < batch.size; ++r) {
    const float m = batch.auxiliary_mask[static_cast<std::size_t>(r)];
    double row = 0;
    for (int c = 0; c < cells; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * static_cast<std::size_t>(cells) + static_cast<std::size_t>(c);
      const double x = 2.0 * logits[i], t = (1.0 + batch.ownership[i]) / 2;
      row += std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::fabs(x)));
      const double sigmoid = 1 / (1 + std::exp(-x));
      dx[i] = static_cast<float>(weight * 2.0 * (sigmoid - t) * m / (cells * static_cast<double>(count)));
    }
    total += row / cells * m;
  }
  return total / count;
}

// The score's squared error, averaged over the rows whose mask is 1; `dx` gets its gradient
// times `weight`.
double score_loss(const Floats& score, const Batch& batch, double weight, Floats& dx) {
  const float count = mask_count(batch.auxiliary_mask);
  dx.assign(score.size(), 0.0f);
  double total = 0;
  for (std::size_t r = 0; r < score.size(); ++r) {
    const double d = score[r] - batch.score[r], m = batch.auxiliary_mask[r];
    total += d * d * m;
    dx[r] = static_cast<float>(weight * 2.0 * d * m / count);
  }
  return total / count;
}

// network.h's wdl_targets: z ≥ 0 → (z, 1 − z, 0), z < 0 → (0, 1 + z, −z).
Floats wdl_targets(const std::vector<float>& z) {
  Floats t(3 * z.size());
  for (std::size_t i = 0; i < z.size(); ++i) {
    t[3 * i] = std::max(z[i], 0.0f);
    t[3 * i + 1] = 1 - std::fabs(z[i]);
    t[3 * i + 2] = std::max(-z[i], 0.0f);
  }
  return t;
}

void check_batch(const Batch& batch, const NetShape& shape, const NetConfig& config) {
  const auto n = static_cast<std::size_t>(batch.size);
  const bool fits = batch.size > 0 && batch.observations.size() == n * static_cast<std::size_t>(shape.input.size()) &&
                    batch.policies.size() == n * static_cast<std::size_t>(shape.policy.size()) &&
                    batch.policy_mask.size() == n &&
                    batch.values.size() == n * static_cast<std::size_t>(shape.value_outputs);
  if (!fits) throw std::invalid_argument("poly backprop: the batch does not fit the network's input and heads");
  if (config.auxiliary() && (batch.auxiliary_mask.size() != n || (config.score && batch.score.size() != n) ||
                             (config.ownership && batch.ownership.size() != n * static_cast<std::size_t>(shape.input.plane_size())))) {
    throw std::invalid_argument("poly backprop: the network has auxiliary heads, the batch has no auxiliary targets");
  }
}

// "tower.0.bn1" of "tower.0.bn1.weight".
std::string module_of(const std::string& name) { return name.substr(0, name.rfind('.')); }

}  // namespace

std::size_t WeightSlot::size() const {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

PolyBackprop::PolyBackprop(const NetConfig& config, const NetShape& shape, const std::string& cache_dir)
    : config_(config), shape_(shape), kernels_(training_kernels(config, shape, 0, cache_dir, training_winograd_mode())),
      slots_(network_slots(config, shape)) {}

std::vector<WeightSlot> network_slots(const NetConfig& config, const NetShape& shape) {
  SlotCollector collector;
  const games::Shape& in = shape.input;
  walk_training_network<ActShape>(collector, config, shape, ActShape{in.channels, in.height, in.width});
  return std::move(collector.slots);
}

NetWeights PolyBackprop::initial_weights(std::uint64_t seed) const {
  util::Rng rng(seed);
  std::set<std::string> norms;  // the batch-norm modules
  for (const WeightSlot& slot : slots_)
    if (!slot.trainable) norms.insert(module_of(slot.name));
  NetWeights out;
  double bound = 0;  // the current module's 1/√fan_in: its weight comes before its bias
  for (const WeightSlot& slot : slots_) {
    WeightTensor t{slot.shape, std::vector<float>(slot.size(), 0.0f)};
    const std::string field = slot.name.substr(slot.name.rfind('.') + 1);
    if (norms.count(module_of(slot.name))) {
      if (field == "weight" || field == "running_var") std::fill(t.values.begin(), t.values.end(), 1.0f);
    } else {
      if (field == "weight") bound = 1.0 / std::sqrt(static_cast<double>(slot.size() / static_cast<std::size_t>(slot.shape[0])));
      for (float& v : t.values) v = static_cast<float>((2 * rng.uniform() - 1) * bound);
    }
    out.emplace(slot.name, std::move(t));
  }
  return out;
}

LossValues PolyBackprop::run(NetWeights& weights, const Batch& batch, const LossWeights& loss_weights,
                             NetWeights& gradients) const {
  check_batch(batch, shape_, config_);
  for (const WeightSlot& slot : slots_) {
    const auto found = weights.find(slot.name);
    if (found == weights.end() || found->second.values.size() != slot.size()) {
      throw std::invalid_argument("poly backprop: the weights have no '" + slot.name + "' of " + std::to_string(slot.size()) +
                                  " values");
    }
    if (!slot.trainable) continue;
    WeightTensor& g = gradients[slot.name];
    g.shape = slot.shape;
    g.values.assign(slot.size(), 0.0f);  // kept storage where the map had the slot
  }
  const int n = batch.size;
  const games::Shape& in = shape_.input;
  const PolyLayerKernels& k = *kernels_.kernels;
  pool_->start_step();
  Tape tape(k, kernels_.shapes, weights, gradients, n, *pool_);
  // NCHW observations → channels-last [N][H·W][C].
  const TapeAct observations = tape.input(batch.observations, in.channels * in.plane_size());
  const MatrixShape to_channels_last{in.channels, in.plane_size()};
  const TapeAct x = tape.matrix(k.transpose(to_channels_last), to_channels_last, observations, in.channels, in.height, in.width);
  const TrainingHeads<TapeAct> heads = walk_training_network<TapeAct>(tape, config_, shape_, x);

  LossValues loss;
  Floats d;
  const int actions = shape_.policy.size(), v = shape_.value_outputs;
  loss.policy = cross_entropy(k.cross_entropy({1, actions}), n, 1, tape.value(heads.policy), batch.policies, batch.policy_mask,
                              1.0f / mask_count(batch.policy_mask), 1.0f, d);
  tape.accumulate(heads.policy, std::move(d));
  const auto value_scale = static_cast<float>(1.0 / (static_cast<double>(n) * v));
  const auto value_weight = static_cast<float>(loss_weights.value);
  if (config_.wdl()) {
    loss.value = cross_entropy(k.cross_entropy({v, 3}), n, v, tape.value(heads.value_logits), wdl_targets(batch.values),
                               Floats(static_cast<std::size_t>(n), 1.0f), value_scale, value_weight, d);
    tape.accumulate(heads.value_logits, std::move(d));
  } else {
    const SquaredErrorKernels& se = k.squared_error({1, v});
    const Floats& values = tape.value(heads.value);
    float l = 0;
    se.forward(n, values.data(), batch.values.data(), &value_scale, &l);
    d.assign(values.size(), 0.0f);
    se.backward(n, values.data(), batch.values.data(), &value_scale, &value_weight, d.data());
    loss.value = l;
    tape.accumulate(heads.value, std::move(d));
  }
  if (config_.ownership) {
    loss.ownership = ownership_loss(tape.value(heads.ownership), batch, in.plane_size(), loss_weights.ownership, d);
    tape.accumulate(heads.ownership, std::move(d));
  }
  if (config_.score) {
    loss.score = score_loss(tape.value(heads.score), batch, loss_weights.score, d);
    tape.accumulate(heads.score, std::move(d));
  }
  loss.total = loss.policy + loss_weights.value * loss.value + loss_weights.ownership * loss.ownership +
               loss_weights.score * loss.score;
  tape.backward();
  return loss;
}

}  // namespace pz::nn
