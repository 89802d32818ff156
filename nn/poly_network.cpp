#include "nn/poly_network.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "polyhedral/builder.h"
#include "polyhedral/cache_info.h"
#include "polyhedral/isl_context.h"
#include "polyhedral/polyc.h"

namespace pz::nn {

namespace {

constexpr float kBatchNormEpsilon = 1e-5f;  // torch::nn::BatchNorm2d's default

std::string str(long long v) { return std::to_string(v); }

// The per-position subscripts of element (h, w, c) of `t` ("[h + 1][w + 1][c]").
std::string at(const PolyNetwork::Tensor& t, const std::string& h, const std::string& w, const std::string& c) {
  if (!t.spatial) return "[" + c + "]";
  if (t.external == "input" || t.external == "policy") return "[" + c + "][" + h + "][" + w + "]";
  if (t.bordered) return "[" + h + " + 1][" + w + " + 1][" + c + "]";
  return "[" + h + "][" + w + "][" + c + "]";
}

}  // namespace

std::size_t PolyNetwork::Tensor::floats_per_position() const {
  if (!spatial) return static_cast<std::size_t>(channels);
  const int border = bordered ? 2 : 0;
  return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height + border) * static_cast<std::size_t>(width + border);
}

std::size_t PolyNetwork::Tensor::values_per_position() const {
  return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
}

std::string PolyNetwork::Tensor::c_dims() const {
  if (!spatial) return "[" + str(channels) + "]";
  if (external == "input" || external == "policy") return "[" + str(channels) + "][" + str(height) + "][" + str(width) + "]";
  const int border = bordered ? 2 : 0;
  return "[" + str(height + border) + "][" + str(width + border) + "][" + str(channels) + "]";
}

int PolyNetwork::add_tensor(Tensor t) {
  t.first_use = t.last_use = static_cast<int>(layers_.size());
  tensors_.push_back(t);
  return static_cast<int>(tensors_.size()) - 1;
}

void PolyNetwork::add_layer(Layer layer) {
  const int index = static_cast<int>(layers_.size());
  for (int t : {layer.input, layer.residual, layer.bias_planes})
    if (t >= 0) tensors_[static_cast<std::size_t>(t)].last_use = index;
  tensors_[static_cast<std::size_t>(layer.output)].first_use = index;
  tensors_[static_cast<std::size_t>(layer.output)].last_use = std::max(tensors_[static_cast<std::size_t>(layer.output)].last_use, index);
  layers_.push_back(std::move(layer));
}

int PolyNetwork::conv(const std::string& name, int input, int out_channels, int kernel, const std::string& batch_norm,
                      bool relu, int residual, const std::string& conv_name, int bias_planes) {
  const Tensor& in = tensors_[static_cast<std::size_t>(input)];
  Tensor out;
  out.channels = out_channels;
  out.height = in.height;
  out.width = in.width;
  out.spatial = true;
  out.bordered = kernel == 3 || residual >= 0;  // 3×3 outputs feed 3×3 convolutions and skips
  const int t = add_tensor(out);
  Layer l{Layer::Kind::kConv, name};
  l.input = input;
  l.output = t;
  l.residual = residual;
  l.bias_planes = bias_planes;
  l.kernel = kernel;
  l.relu = relu;
  l.weight = (conv_name.empty() ? name : conv_name) + ".weight";
  l.batch_norm = batch_norm;
  add_layer(l);
  return t;
}

int PolyNetwork::linear(const std::string& name, int input, int outputs, bool relu, const std::string& batch_norm) {
  const int t = add_tensor(Tensor{outputs});
  Layer l{Layer::Kind::kLinear, name, input, t};
  l.weight = name + ".weight";
  l.bias = name + ".bias";
  l.relu = relu;
  l.batch_norm = batch_norm;
  add_layer(l);
  return t;
}

int PolyNetwork::global_pool(const std::string& name, int input) {
  const int t = add_tensor(Tensor{3 * tensors_[static_cast<std::size_t>(input)].channels});
  add_layer(Layer{Layer::Kind::kPool, name, input, t});
  return t;
}

PolyNetwork::PolyNetwork(const NetConfig& config, const NetShape& shape, int micro_batch)
    : config_(config), shape_(shape), micro_batch_(micro_batch) {
  const games::Shape& s = shape.input;
  const int c = config.channels;
  const bool pooled = config.pooled();
  Tensor input{s.channels, s.height, s.width, false, true, "input"};
  const int observation = add_tensor(input);
  Tensor packed{s.channels, s.height, s.width, true, true};
  const int planes = add_tensor(packed);
  add_layer(Layer{Layer::Kind::kPack, "input", observation, planes});
  int h = conv("stem", planes, c, 3, "stem_bn", true, -1, "stem_conv");
  for (int b = 0; b < config.blocks; ++b) {
    const std::string block = "tower." + str(b);
    int bias = -1;
    if (pooled && b % 2 == 1) {
      // relu(bn1(conv1(x)) + global_fc(pool(relu(global_bn(global_conv(x))))))
      const int g = conv(block + ".global_conv", h, config.global_channels, 3, block + ".global_bn", true);
      bias = linear(block + ".global_fc", global_pool(block + ".pool", g), c, false);
    }
    const int y = conv(block + ".conv1", h, c, 3, block + ".bn1", true, -1, "", bias);
    h = conv(block + ".conv2", y, c, 3, block + ".bn2", true, h);
  }
  const int pc = config.policy_channels;
  int policy_pool = -1;
  if (pooled) policy_pool = global_pool("policy_pool", conv("policy_global_conv", h, pc, 1, "policy_global_bn", true));
  if (shape.spatial_policy) {
    // pooled: relu(policy_bn(policy_conv(h) + policy_global_fc(g))): the BN's scale goes into both terms
    const int bias = pooled ? linear("policy_global_fc", policy_pool, pc, false, "policy_bn") : -1;
    const int p = conv("policy_conv", h, pc, 1, "policy_bn", true, -1, "", bias);
    Tensor logits{shape.policy.channels, s.height, s.width, false, true, "policy"};
    const int out = add_tensor(logits);
    Layer l{Layer::Kind::kConv, "policy_out", p, out};
    l.weight = "policy_out.weight";
    l.bias = "policy_out.bias";
    add_layer(l);
  } else {
    const int p = pooled ? policy_pool : conv("policy_conv", h, pc, 1, "policy_bn", true);
    Tensor logits{shape.policy.size(), 1, 1, false, false, "policy"};
    const int out = add_tensor(logits);
    Layer l{Layer::Kind::kLinear, "policy_fc", p, out};
    l.weight = "policy_fc.weight";
    l.bias = "policy_fc.bias";
    add_layer(l);
  }
  int v = conv("value_conv", h, config.value_channels, 1, "value_bn", true);
  if (pooled) v = global_pool("value_pool", v);
  const int hidden = linear("value_fc1", v, config.value_hidden, true);
  const int logits = linear("value_fc2", hidden, config.wdl() ? 3 * shape.value_outputs : shape.value_outputs, false);
  Tensor values{shape.value_outputs};
  values.external = "value";
  add_layer(Layer{Layer::Kind::kValue, "value", logits, add_tensor(values)});
  // Weight offsets, each tensor 16-float (64-byte) aligned.
  auto take = [&](std::size_t n) {
    const std::size_t at = weight_floats_;
    weight_floats_ += (n + 15) / 16 * 16;
    return at;
  };
  for (Layer& l : layers_) {
    const Tensor& in = tensors_[static_cast<std::size_t>(l.input)];
    const Tensor& out = tensors_[static_cast<std::size_t>(l.output)];
    if (l.kind == Layer::Kind::kConv) {
      l.weight_offset = take(static_cast<std::size_t>(l.kernel * l.kernel) * in.channels * out.channels);
      l.bias_offset = take(static_cast<std::size_t>(out.channels));
    } else if (l.kind == Layer::Kind::kLinear) {
      l.weight_offset = take(in.values_per_position() * out.values_per_position());
      l.bias_offset = take(out.values_per_position());
    }
  }
  if (micro_batch_ <= 0) micro_batch_ = fitting_micro_batch();
  plan_arena();
}

int PolyNetwork::fitting_micro_batch() const {
  std::size_t largest = 1;
  for (const Tensor& t : tensors_)
    if (t.external.empty()) largest = std::max(largest, t.floats_per_position() * sizeof(float));
  const std::size_t budget = static_cast<std::size_t>(poly::CacheInfo::detect().l2) * 3 / 4;
  return static_cast<int>(std::clamp<std::size_t>(budget / (2 * largest), 1, 16));
}

void PolyNetwork::plan_arena() {
  struct Region {
    std::size_t offset, floats;
    std::string layout;
    int free_after;
  };
  std::vector<Region> regions;
  for (Tensor& t : tensors_) {
    if (!t.external.empty()) continue;
    const std::size_t floats = (t.floats_per_position() * static_cast<std::size_t>(micro_batch_) + 15) / 16 * 16;
    const std::string layout = t.c_dims() + (t.bordered ? "b" : "");
    Region* reuse = nullptr;
    for (Region& r : regions)
      if (r.layout == layout && r.free_after < t.first_use) reuse = &r;
    if (!reuse) {
      regions.push_back(Region{arena_floats_, floats, layout, -1});
      arena_floats_ += floats;
      reuse = &regions.back();
    }
    t.offset = reuse->offset;
    reuse->free_after = t.last_use;
  }
}

std::size_t PolyNetwork::unplanned_arena_floats() const {
  std::size_t total = 0;
  for (const Tensor& t : tensors_)
    if (t.external.empty()) total += (t.floats_per_position() * static_cast<std::size_t>(micro_batch_) + 15) / 16 * 16;
  return total;
}

double PolyNetwork::layer_flops(const Layer& l) const {
  const Tensor& in = tensors_[static_cast<std::size_t>(l.input)];
  const Tensor& out = tensors_[static_cast<std::size_t>(l.output)];
  if (l.kind == Layer::Kind::kConv) return 2.0 * in.height * in.width * in.channels * out.channels * l.kernel * l.kernel;
  if (l.kind == Layer::Kind::kLinear)
    return 2.0 * static_cast<double>(in.values_per_position()) * static_cast<double>(out.values_per_position());
  return 0;
}

double PolyNetwork::flops_per_position() const {
  double total = 0;
  for (const Layer& l : layers_) total += layer_flops(l);
  return total;
}

namespace {

using Tensor = PolyNetwork::Tensor;
using Layer = PolyNetwork::Layer;

// One layer being described: its loop nest in the builder and the C declarations of the
// arrays it names (views of the arena, the weights and the pointer arguments).
struct LayerProgram {
  poly::ScopBuilder& b;
  std::string decls;

  void view(const std::string& name, const Tensor& t, bool write) {
    const std::string base = t.external.empty() ? "arena + " + str(static_cast<long long>(t.offset)) : t.external;
    const std::string type = write ? "float" : "const float";
    decls += "    " + type + " (*restrict " + name + ")" + t.c_dims() + " = (" + type + " (*)" + t.c_dims() + ")(" + base + ");\n";
  }
  void weights(const std::string& name, const std::string& dims, std::size_t offset) {
    const std::string at = "weights + " + str(static_cast<long long>(offset));
    if (dims.empty()) decls += "    const float* restrict " + name + " = " + at + ";\n";
    else decls += "    const float (*restrict " + name + ")" + dims + " = (const float (*)" + dims + ")(" + at + ");\n";
  }
};

void describe_pack(LayerProgram& p, const Tensor& in, const Tensor& out) {
  p.view("X", in, false);
  p.view("Y", out, true);
  p.b.for_("c", "0", str(in.channels)).for_("h", "0", str(in.height)).for_("w", "0", str(in.width));
  p.b.stmt("Y[n]" + at(out, "h", "w", "c") + " = X[n]" + at(in, "h", "w", "c")).end().end().end();
}

// init with the bias; += input × weight over the taps and input channels; the final
// statement adds the skip and the pooled bias and applies ReLU.
void describe_conv(LayerProgram& p, const Layer& l, const Tensor& in, const Tensor& out, const Tensor* residual,
                   const Tensor* bias_planes) {
  const int k = l.kernel;
  p.view("X", in, false);
  p.view("Y", out, true);
  p.weights("K", "[" + str(k) + "][" + str(in.channels) + "][" + str(out.channels) + "]", l.weight_offset);
  p.weights("B", "", l.bias_offset);
  if (residual) p.view("R", *residual, false);
  if (bias_planes) p.view("G", *bias_planes, false);
  // The output channel innermost in the source for planar outputs too: the pass picks the
  // vector dimension from the output's subscripts, not from the loop order.
  const std::string y = "Y[n]" + at(out, "h", "w", "o");
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).for_("o", "0", str(out.channels));
  p.b.stmt(y + " = B[o]");
  const std::string hp = k == 3 ? "h + p - 1" : "h", wq = k == 3 ? "w + q - 1" : "w";
  p.b.for_("p", "0", str(k)).for_("q", "0", str(k)).for_("i", "0", str(in.channels));
  p.b.stmt(y + " += X[n]" + at(in, hp, wq, "i") + " * K[p][q][i][o]").end().end().end();
  std::string value = y;
  if (residual) value += " + R[n]" + at(*residual, "h", "w", "o");
  if (bias_planes) value += " + G[n][o]";
  if (l.relu) p.b.stmt(y + " = " + value + " > 0.0f ? " + value + " : 0.0f");
  p.b.end().end().end();
}

void describe_linear(LayerProgram& p, const Layer& l, const Tensor& in, const Tensor& out) {
  p.view("X", in, false);
  p.view("Y", out, true);
  const std::string m = str(out.channels);
  p.b.for_("o", "0", m).stmt("Y[n][o] = B[o]");
  if (in.spatial) {
    p.weights("K", "[" + str(in.width) + "][" + str(in.channels) + "][" + m + "]", l.weight_offset);
    p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).for_("i", "0", str(in.channels));
    p.b.stmt("Y[n][o] += X[n]" + at(in, "h", "w", "i") + " * K[h][w][i][o]").end().end().end();
  } else {
    p.weights("K", "[" + m + "]", l.weight_offset);
    p.b.for_("i", "0", str(in.channels)).stmt("Y[n][o] += X[n][i] * K[i][o]").end();
  }
  p.weights("B", "", l.bias_offset);
  if (l.relu) p.b.stmt("Y[n][o] = Y[n][o] > 0.0f ? Y[n][o] : 0.0f");
  p.b.end();
}

// network.cpp global_pool: per channel the mean, the mean × (√(H·W) − 14)/10, the max.
void describe_pool(LayerProgram& p, const Tensor& in, const Tensor& out) {
  p.view("X", in, false);
  p.view("Y", out, true);
  const int area = in.height * in.width;
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.9gf",
                static_cast<double>(static_cast<float>((std::sqrt(static_cast<double>(area)) - 14.0) / 10.0)));
  const std::string c = str(in.channels), mean = "Y[n][o]", scaled = "Y[n][" + c + " + o]", top = "Y[n][2 * " + c + " + o]";
  p.b.for_("o", "0", c).stmt(mean + " = 0.0f");
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).stmt(mean + " += X[n]" + at(in, "h", "w", "o")).end().end();
  p.b.stmt(mean + " = " + mean + " / " + str(area) + ".0f");
  p.b.stmt(scaled + " = " + mean + " * " + scale);
  p.b.stmt(top + " = X[n]" + at(in, "0", "0", "o"));
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width));
  p.b.stmt(top + " = fmaxf(" + top + ", X[n]" + at(in, "h", "w", "o") + ")").end().end();
  p.b.end();
}

// tanh of the logit, or P(win) − P(loss) of the softmax over (win, draw, loss), shifted by
// the maximum.
void describe_value(LayerProgram& p, const Tensor& in, const Tensor& out, bool wdl) {
  p.view("X", in, false);
  p.view("Y", out, true);
  p.b.for_("o", "0", str(out.channels));
  if (wdl) {
    const std::string w = "X[n][3 * o]", d = "X[n][3 * o + 1]", l = "X[n][3 * o + 2]";
    const std::string top = "fmaxf(fmaxf(" + w + ", " + d + "), " + l + ")";
    auto e = [&](const std::string& x) { return "expf(" + x + " - " + top + ")"; };
    p.b.stmt("Y[n][o] = (" + e(w) + " - " + e(l) + ") / (" + e(w) + " + " + e(d) + " + " + e(l) + ")");
  } else {
    p.b.stmt("Y[n][o] = tanhf(X[n][o])");
  }
  p.b.end();
}

}  // namespace

std::string PolyNetwork::layer_code(const Layer& l, bool analyse, PolyLayerReport& report) {
  auto tensor = [&](int t) { return t >= 0 ? &tensors_[static_cast<std::size_t>(t)] : nullptr; };
  const Tensor& in = *tensor(l.input);
  const Tensor& out = *tensor(l.output);
  report.name = l.name;
  report.flops = layer_flops(l);
  poly::IslContext ctx;
  poly::ScopBuilder b(ctx.ctx());
  if (analyse) b.param("N", micro_batch_);
  else b.param("N");
  b.array("Y", "float").array("X", "float").array("K", "float").array("B", "float").array("R", "float").array("G", "float");
  LayerProgram program{b, ""};
  b.for_("n", "0", "N");
  switch (l.kind) {
    case Layer::Kind::kPack:
      report.kind = "pack";
      describe_pack(program, in, out);
      break;
    case Layer::Kind::kConv:
      report.kind = l.kernel == 3 ? "conv3x3" : "conv1x1";
      describe_conv(program, l, in, out, tensor(l.residual), tensor(l.bias_planes));
      break;
    case Layer::Kind::kLinear:
      report.kind = "linear";
      describe_linear(program, l, in, out);
      break;
    case Layer::Kind::kPool:
      report.kind = "pool";
      describe_pool(program, in, out);
      break;
    case Layer::Kind::kValue:
      report.kind = "value";
      describe_value(program, in, out, config_.wdl());
      break;
  }
  b.end();
  poly::Scop scop = b.build();
  poly::PolycOptions options;
  options.register_block.enabled = true;
  options.vectorize = true;
  options.data_movement = analyse;
  if (analyse) options.tile.cache = poly::CacheInfo::detect();
  poly::ScopReport scop_report;
  const std::string body = poly::optimize_scop(ctx, scop, options, scop_report, "    ");
  report.schedule = scop_report.schedule_origin;
  report.passes = scop_report.passes;
  report.scop = std::move(scop_report);
  return "  /* " + l.name + " (" + report.kind + ") */\n  {\n" + program.decls + body + "  }\n";
}

std::string PolyNetwork::source(bool analyse) {
  reports_.clear();
  std::string code =
      "/* Generated by polyzero's poly backend: the forward pass of one network, each layer optimised by polyc. */\n"
      "#include <math.h>\n\n"
      "void pz_forward(int N, const float* restrict input, float* restrict policy, float* restrict value,\n"
      "                float* restrict arena, const float* restrict weights) {\n";
  for (const Layer& l : layers_) {
    PolyLayerReport report;
    code += layer_code(l, analyse, report);
    reports_.push_back(std::move(report));
  }
  code += "}\n";
  return code;
}

namespace {

// Inference-mode batch-norm y = scale·x + shift per channel: scale = γ/√(var + ε),
// shift = β − mean·scale. No prefix: the identity.
struct ChannelAffine {
  std::vector<float> scale, shift;
};

ChannelAffine batch_norm_affine(const NetWeights& named, const std::string& prefix, std::size_t channels) {
  ChannelAffine a{std::vector<float>(channels, 1.0f), std::vector<float>(channels, 0.0f)};
  if (prefix.empty()) return a;
  const auto& gamma = weight(named, prefix + ".weight", channels).values;
  const auto& beta = weight(named, prefix + ".bias", channels).values;
  const auto& mean = weight(named, prefix + ".running_mean", channels).values;
  const auto& var = weight(named, prefix + ".running_var", channels).values;
  for (std::size_t c = 0; c < channels; ++c) {
    a.scale[c] = gamma[c] / std::sqrt(var[c] + kBatchNormEpsilon);
    a.shift[c] = beta[c] - mean[c] * a.scale[c];
  }
  return a;
}

// torch [out][in][kh][kw] → [kh][kw][in][out], the batch-norm and the conv's bias folded in.
void pack_conv(const NetWeights& named, const Layer& l, std::size_t ci, std::size_t co, float* out) {
  const std::size_t kk = static_cast<std::size_t>(l.kernel * l.kernel);
  const WeightTensor& w = weight(named, l.weight, co * ci * kk);
  ChannelAffine bn = batch_norm_affine(named, l.batch_norm, co);
  if (!l.bias.empty()) {
    const auto& bias = weight(named, l.bias, co).values;
    for (std::size_t c = 0; c < co; ++c) bn.shift[c] += bias[c] * bn.scale[c];
  }
  for (std::size_t oc = 0; oc < co; ++oc)
    for (std::size_t ic = 0; ic < ci; ++ic)
      for (std::size_t t = 0; t < kk; ++t)
        out[l.weight_offset + (t * ci + ic) * co + oc] = w.values[(oc * ci + ic) * kk + t] * bn.scale[oc];
  for (std::size_t c = 0; c < co; ++c) out[l.bias_offset + c] = bn.shift[c];
}

// torch [out][in], `in` flattened as [c][h][w] for spatial inputs → [h][w][c][out] / [in][out].
// A batch-norm named here follows the sum this layer feeds: only its scale applies.
void pack_linear(const NetWeights& named, const Layer& l, const Tensor& in, std::size_t m, float* out) {
  const std::size_t k = in.values_per_position(), ci = static_cast<std::size_t>(in.channels);
  const WeightTensor& w = weight(named, l.weight, m * k);
  const auto& bias = weight(named, l.bias, m).values;
  const std::vector<float> scale = batch_norm_affine(named, l.batch_norm, m).scale;
  const std::size_t hw = static_cast<std::size_t>(in.height * in.width);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t row = in.spatial ? i % hw * ci + i / hw : i;
      out[l.weight_offset + row * m + j] = w.values[j * k + i] * scale[j];
    }
    out[l.bias_offset + j] = bias[j] * scale[j];
  }
}

}  // namespace

std::vector<float> PolyNetwork::pack(const NetWeights& named) const {
  std::vector<float> out(weight_floats_, 0.0f);
  for (const Layer& l : layers_) {
    const Tensor& in = tensors_[static_cast<std::size_t>(l.input)];
    const Tensor& o = tensors_[static_cast<std::size_t>(l.output)];
    if (l.kind == Layer::Kind::kConv)
      pack_conv(named, l, static_cast<std::size_t>(in.channels), static_cast<std::size_t>(o.channels), out.data());
    else if (l.kind == Layer::Kind::kLinear)
      pack_linear(named, l, in, o.values_per_position(), out.data());
  }
  return out;
}

}  // namespace pz::nn
