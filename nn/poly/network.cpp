#include "nn/poly/network.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "nn/poly/winograd.h"
#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"

namespace pz::nn {

namespace {

constexpr float kBatchNormEpsilon = 1e-5f;  // torch::nn::BatchNorm2d's default

std::string str(long long v) { return std::to_string(v); }

// The logical subscripts of element (c, h, w) of `t` after its batch index: "[c][h][w]".
std::string at(const PolyNetwork::Tensor& t, const std::string& h, const std::string& w, const std::string& c) {
  return t.spatial ? "[" + c + "][" + h + "][" + w + "]" : "[" + c + "]";
}

}  // namespace

std::size_t PolyNetwork::Tensor::values_per_position() const {
  if (!dims.empty()) {
    std::size_t n = 1;
    for (int d : dims) n *= static_cast<std::size_t>(d);
    return n;
  }
  return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
}

int PolyNetwork::add_tensor(Tensor t) {
  t.array = "t" + str(static_cast<long long>(tensors_.size()));
  tensors_.push_back(t);
  return static_cast<int>(tensors_.size()) - 1;
}

void PolyNetwork::add_layer(Layer layer) {
  const int index = static_cast<int>(layers_.size());
  layer.weight_array = "w" + str(index);
  layer.bias_array = "b" + str(index);
  layers_.push_back(std::move(layer));
}

int PolyNetwork::conv(const std::string& name, int input, int out_channels, int kernel, const std::string& batch_norm,
                      bool relu, int residual, const std::string& conv_name, int bias_planes) {
  const Tensor in = tensors_[static_cast<std::size_t>(input)];  // a copy: add_tensor() grows tensors_
  Tensor out;
  out.channels = out_channels;
  out.height = in.height;
  out.width = in.width;
  out.spatial = true;
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
  if (kernel != 3) {
    add_layer(l);
    return t;
  }
  WinogradChoice choice{0, 1, "direct: Winograd turned off"};
  if (winograd_ == kWinogradAuto) choice = choose_winograd_tile(in.height, in.width, in.channels, out_channels);
  else if (winograd_) choice = {winograd_, 1, "F(" + str(winograd_) + "x" + str(winograd_) + ",3x3): asked for"};
  l.note = "winograd: " + choice.reason;
  if (!choice.m) {
    add_layer(l);
    return t;
  }
  // Y = Aᵀ [U ⊙ V] A in five loop nests (describe_winograd): V = Bᵀ d B by rows then
  // columns, the product per transformed point, and Aᵀ · A by rows then columns.
  const int m = choice.m, a = m + 2, h = in.height, w = in.width, th = (h + m - 1) / m, tw = (w + m - 1) / m;
  const int c = in.channels;
  auto temporary = [&](std::vector<int> dims) {
    Tensor x;
    x.dims = std::move(dims);
    return add_tensor(x);
  };
  const int rows = temporary({a, th, tw * m + 2, c});         // Bᵀ d: [a][tile row][column][c]
  const int transformed = temporary({a, a, th * tw, c});      // V: [a][b][tile][c]
  const int product = temporary({a, a, th * tw, out_channels});  // M: [a][b][tile][k]
  const int out_rows = temporary({h, tw, a, out_channels});   // Aᵀ M: [row][tile column][b][k]
  const int stage_input[] = {input, rows, transformed, product, out_rows};
  const int stage_output[] = {rows, transformed, product, out_rows, t};
  const char* stage_name[] = {".winograd_input_rows", ".winograd_input", ".winograd_product", ".winograd_output_rows", ""};
  for (int s = 0; s < 5; ++s) {
    Layer stage = l;
    stage.kind = Layer::Kind::kWinograd;
    stage.name = name + stage_name[s];
    stage.input = stage_input[s];
    stage.output = stage_output[s];
    stage.stage = s;
    stage.tile = m;
    stage.board_height = h;
    stage.board_width = w;
    if (s != 4) stage.residual = stage.bias_planes = -1, stage.relu = false;
    if (s == 2) stage.direct_flops = 2.0 * h * w * c * out_channels * 9;
    add_layer(stage);
  }
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

PolyNetwork::PolyNetwork(const NetConfig& config, const NetShape& shape, int micro_batch, int winograd)
    : config_(config), shape_(shape), micro_batch_(micro_batch), winograd_(winograd) {
  const games::Shape& s = shape.input;
  const int c = config.channels;
  const bool pooled = config.pooled();
  Tensor input{s.channels, s.height, s.width, true, "input"};
  const int observation = add_tensor(input);
  Tensor packed{s.channels, s.height, s.width, true};
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
    Tensor logits{shape.policy.channels, s.height, s.width, true, "policy"};
    const int out = add_tensor(logits);
    Layer l{Layer::Kind::kConv, "policy_out", p, out};
    l.weight = "policy_out.weight";
    l.bias = "policy_out.bias";
    add_layer(l);
  } else {
    const int p = pooled ? policy_pool : conv("policy_conv", h, pc, 1, "policy_bn", true);
    Tensor logits{shape.policy.size(), 1, 1, false, "policy"};
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
  plan();
}

void PolyNetwork::plan() {
  poly::IslContext ctx;
  std::vector<LayerScop> programs;
  programs.reserve(layers_.size());
  for (const Layer& l : layers_) programs.push_back(describe_layer(l, ctx.ctx(), std::nullopt));
  std::vector<const poly::Scop*> scops;
  for (const LayerScop& p : programs) scops.push_back(&p.scop);
  layouts_ = poly::choose_layouts(scops, logical_shapes());
  // Weight offsets, each array 16-float (64-byte) aligned.
  for (Layer& l : layers_) {
    if (l.kind != Layer::Kind::kConv && l.kind != Layer::Kind::kLinear && l.kind != Layer::Kind::kWinograd) continue;
    for (auto [array, offset] : {std::pair{&l.weight_array, &l.weight_offset}, std::pair{&l.bias_array, &l.bias_offset}}) {
      if (l.kind == Layer::Kind::kWinograd && array == &l.bias_array && l.stage != 4) continue;
      *offset = weight_floats_;
      weight_floats_ += (layout(*array).elements() + 15) / 16 * 16;
    }
  }
  if (micro_batch_ <= 0) micro_batch_ = fitting_micro_batch();
  std::set<std::string> temporaries;
  for (const Tensor& t : tensors_)
    if (t.external.empty()) temporaries.insert(t.array);
  storage_ = poly::plan_storage(scops, layouts_, temporaries, {.parameter_rows = micro_batch_, .alignment = 16});
  for (Tensor& t : tensors_)
    if (t.external.empty()) t.offset = storage_.at(t.array).offset;
  arena_floats_ = storage_.elements;
}

const poly::ArrayLayout& PolyNetwork::layout(const std::string& array) const {
  auto it = layouts_.find(array);
  if (it == layouts_.end()) throw std::logic_error("poly network: no layout for " + array);
  return it->second;
}

std::size_t PolyNetwork::floats_per_position(const Tensor& t) const { return layout(t.array).row_elements(); }

int PolyNetwork::fitting_micro_batch() const {
  std::size_t largest = 1;
  for (const Tensor& t : tensors_)
    if (t.external.empty()) largest = std::max(largest, floats_per_position(t) * sizeof(float));
  const std::size_t budget = static_cast<std::size_t>(poly::CacheInfo::detect().l2) * 3 / 4;
  return static_cast<int>(std::clamp<std::size_t>(budget / (2 * largest), 1, 16));
}

double PolyNetwork::layer_flops(const Layer& l) const {
  if (l.kind == Layer::Kind::kWinograd) return l.direct_flops;  // counted as the direct convolution's
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
using Layouts = std::map<std::string, poly::ArrayLayout>;

// One layer being described: its loop nest in the builder and, once layouts are chosen, the
// C declarations of the arrays it names (views of the arena, the weights and the pointer
// arguments, in their storage layouts).
struct LayerProgram {
  poly::ScopBuilder& b;
  const Layouts* layouts;  // null while the layouts are being chosen
  std::string decls;
  std::set<std::string> declared;

  void declare(const std::string& name, const std::string& base, bool write) {
    b.array(name, "float");
    if (!layouts || !declared.insert(name).second) return;
    const std::string rows = layouts->at(name).c_row_dims(), type = write ? "float" : "const float";
    if (rows.empty()) decls += "    " + type + "* restrict " + name + " = " + base + ";\n";
    else decls += "    " + type + " (*restrict " + name + ")" + rows + " = (" + type + " (*)" + rows + ")(" + base + ");\n";
  }
  const std::string& view(const Tensor& t, bool write) {
    declare(t.array, t.external.empty() ? "arena + " + str(static_cast<long long>(t.offset)) : t.external, write);
    return t.array;
  }
  std::string weights(const std::string& name, std::size_t offset) {
    declare(name, "weights + " + str(static_cast<long long>(offset)), false);
    return name;
  }
};

void describe_pack(LayerProgram& p, const Tensor& in, const Tensor& out) {
  const std::string x = p.view(in, false), y = p.view(out, true);
  p.b.for_("c", "0", str(in.channels)).for_("h", "0", str(in.height)).for_("w", "0", str(in.width));
  p.b.stmt(y + "[n]" + at(out, "h", "w", "c") + " = " + x + "[n]" + at(in, "h", "w", "c")).end().end().end();
}

// init with the bias; += input × weight over the taps and input channels (a 3×3 tap reads
// the zero border at −1 and H); the final statement adds the skip and the pooled bias and
// applies ReLU.
void describe_conv(LayerProgram& p, const Layer& l, const Tensor& in, const Tensor& out, const Tensor* residual,
                   const Tensor* bias_planes) {
  const std::string x = p.view(in, false), y = p.view(out, true);
  const std::string k = p.weights(l.weight_array, l.weight_offset), bias = p.weights(l.bias_array, l.bias_offset);
  const std::string element = y + "[n]" + at(out, "h", "w", "o");
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).for_("o", "0", str(out.channels));
  p.b.stmt(element + " = " + bias + "[o]");
  const std::string hp = l.kernel == 3 ? "h + p - 1" : "h", wq = l.kernel == 3 ? "w + q - 1" : "w";
  p.b.for_("p", "0", str(l.kernel)).for_("q", "0", str(l.kernel)).for_("i", "0", str(in.channels));
  p.b.stmt(element + " += " + x + "[n]" + at(in, hp, wq, "i") + " * " + k + "[o][i][p][q]").end().end().end();
  std::string value = element;
  if (residual) value += " + " + p.view(*residual, false) + "[n]" + at(*residual, "h", "w", "o");
  if (bias_planes) value += " + " + p.view(*bias_planes, false) + "[n][o]";
  if (l.relu) p.b.stmt(element + " = " + value + " > 0.0f ? " + value + " : 0.0f");
  p.b.end().end().end();
}

void describe_linear(LayerProgram& p, const Layer& l, const Tensor& in, const Tensor& out) {
  const std::string x = p.view(in, false), y = p.view(out, true);
  const std::string k = p.weights(l.weight_array, l.weight_offset), bias = p.weights(l.bias_array, l.bias_offset);
  p.b.for_("o", "0", str(out.channels)).stmt(y + "[n][o] = " + bias + "[o]");
  if (in.spatial) {
    p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).for_("i", "0", str(in.channels));
    p.b.stmt(y + "[n][o] += " + x + "[n]" + at(in, "h", "w", "i") + " * " + k + "[o][i][h][w]").end().end().end();
  } else {
    p.b.for_("i", "0", str(in.channels)).stmt(y + "[n][o] += " + x + "[n][i] * " + k + "[o][i]").end();
  }
  if (l.relu) p.b.stmt(y + "[n][o] = " + y + "[n][o] > 0.0f ? " + y + "[n][o] : 0.0f");
  p.b.end();
}

// network.cpp global_pool: per channel the mean, the mean × (√(H·W) − 14)/10, the max.
void describe_pool(LayerProgram& p, const Tensor& in, const Tensor& out) {
  const std::string x = p.view(in, false), y = p.view(out, true);
  const int area = in.height * in.width;
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.9gf",
                static_cast<double>(static_cast<float>((std::sqrt(static_cast<double>(area)) - 14.0) / 10.0)));
  const std::string c = str(in.channels), mean = y + "[n][o]", scaled = y + "[n][" + c + " + o]", top = y + "[n][2 * " + c + " + o]";
  p.b.for_("o", "0", c).stmt(mean + " = 0.0f");
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width)).stmt(mean + " += " + x + "[n]" + at(in, "h", "w", "o")).end().end();
  p.b.stmt(mean + " = " + mean + " / " + str(area) + ".0f");
  p.b.stmt(scaled + " = " + mean + " * " + scale);
  p.b.stmt(top + " = " + x + "[n]" + at(in, "0", "0", "o"));
  p.b.for_("h", "0", str(in.height)).for_("w", "0", str(in.width));
  // A comparison rather than fmaxf: GCC calls libm's fmaxf (NaN rules) for every element.
  const std::string element = x + "[n]" + at(in, "h", "w", "o");
  p.b.stmt(top + " = " + element + " > " + top + " ? " + element + " : " + top).end().end();
  p.b.end();
}

// One stage of a 3×3 convolution as F(m×m, 3×3) (nn/poly/winograd.h; Lavin & Gray 2016), a
// reduction chain like the direct convolution, with the transform matrices as constant
// arrays in the weights (`k`). Tiles are m×m outputs over ceil(H/m) × ceil(W/m); input tile
// (th, tw) reads rows th·m − 1 … th·m + m and columns likewise, past the board into the zero
// border (the layout pass pads to whatever the tiles read). Writes stay on the board.
//   0  R[n][a][th][x][c]  = Σ_i Bᵀ[a][i] · X[n][c][th·m + i − 1][x − 1]         (x < tw·m + 2)
//   1  V[n][a][b][t][c]   = Σ_j Bᵀ[b][j] · R[n][a][t / TW][(t % TW)·m + j][c]   (tile t = th·TW + tw)
//   2  M[n][a][b][t][o]   = Σ_c U[a][b][o][c] · V[n][a][b][t][c]                 (U = G g Gᵀ, packed)
//   3  P[n][h][tw][b][o]  = Σ_a Aᵀ[h % m][a] · M[n][a][b][(h / m)·TW + tw][o]   (h < H)
//   4  Y[n][o][h][w]      = bias[o] + Σ_b Aᵀ[w % m][b] · P[n][h][w / m][b][o], then the skip,
//                           the pooled bias and ReLU as in describe_conv
void describe_winograd(LayerProgram& p, const Layer& l, const Tensor& in, const Tensor& out, const Tensor* residual,
                       const Tensor* bias_planes) {
  const int m = l.tile, alpha = m + 2, tiles_across = (l.board_width + m - 1) / m;
  const std::string x = p.view(in, false), y = p.view(out, true), k = p.weights(l.weight_array, l.weight_offset);
  const std::string a = str(alpha), ms = str(m), tw = str(tiles_across);
  // Row r of Bᵀ (alpha rows) or Aᵀ (m rows; `rows`) is zero in column 0 unless r is the first
  // row (the point 0) and in column alpha − 1 unless r is the last (the point ∞): its sum
  // runs over columns [ceil(r / (rows − 1)), alpha − 1 + floor(r / (rows − 1))), those zeros
  // left out.
  auto chain = [&](const std::string& element, const std::string& init, const std::string& over, const std::string& row,
                   int rows, const std::string& term) {
    const std::string last = str(rows - 1);
    p.b.stmt(element + " = " + init).for_(over, "ceild(" + row + ", " + last + ")", a + " - 1 + floord(" + row + ", " + last + ")");
    p.b.stmt(element + " += " + term).end();
  };
  switch (l.stage) {
    case 0: {
      const std::vector<int>& d = out.dims;
      p.b.for_("a", "0", a).for_("th", "0", str(d[1])).for_("x", "0", str(d[2])).for_("c", "0", str(d[3]));
      chain(y + "[n][a][th][x][c]", "0.0f", "i", "a", alpha, k + "[a][i] * " + x + "[n]" + at(in, "th * " + ms + " + i - 1", "x - 1", "c"));
      p.b.end().end().end().end();
      break;
    }
    case 1: {
      const std::vector<int>& d = out.dims;
      p.b.for_("a", "0", a).for_("b", "0", a).for_("t", "0", str(d[2])).for_("c", "0", str(d[3]));
      chain(y + "[n][a][b][t][c]", "0.0f", "j", "b", alpha, k + "[b][j] * " + x + "[n][a][t / " + tw + "][(t % " + tw + ") * " + ms + " + j][c]");
      p.b.end().end().end().end();
      break;
    }
    case 2: {
      const std::vector<int>& d = out.dims;
      const std::string element = y + "[n][a][b][t][o]";
      p.b.for_("a", "0", a).for_("b", "0", a).for_("t", "0", str(d[2])).for_("o", "0", str(d[3]));
      p.b.stmt(element + " = 0.0f").for_("c", "0", str(in.dims[3]));
      p.b.stmt(element + " += " + x + "[n][a][b][t][c] * " + k + "[a][b][o][c]").end();
      p.b.end().end().end().end();
      break;
    }
    case 3: {
      const std::vector<int>& d = out.dims;
      p.b.for_("h", "0", str(d[0])).for_("tw", "0", str(d[1])).for_("b", "0", a).for_("o", "0", str(d[3]));
      chain(y + "[n][h][tw][b][o]", "0.0f", "a", "h % " + ms, m,
            k + "[h % " + ms + "][a] * " + x + "[n][a][b][(h / " + ms + ") * " + tw + " + tw][o]");
      p.b.end().end().end().end();
      break;
    }
    case 4: {
      const std::string bias = p.weights(l.bias_array, l.bias_offset), element = y + "[n]" + at(out, "h", "w", "o");
      p.b.for_("h", "0", str(out.height)).for_("w", "0", str(out.width)).for_("o", "0", str(out.channels));
      chain(element, bias + "[o]", "b", "w % " + ms, m, k + "[w % " + ms + "][b] * " + x + "[n][h][w / " + ms + "][b][o]");
      std::string value = element;
      if (residual) value += " + " + p.view(*residual, false) + "[n]" + at(*residual, "h", "w", "o");
      if (bias_planes) value += " + " + p.view(*bias_planes, false) + "[n][o]";
      if (l.relu) p.b.stmt(element + " = " + value + " > 0.0f ? " + value + " : 0.0f");
      p.b.end().end().end();
      break;
    }
  }
}

// tanh of the logit, or P(win) − P(loss) of the softmax over (win, draw, loss), shifted by
// the maximum.
void describe_value(LayerProgram& p, const Tensor& in, const Tensor& out, bool wdl) {
  const std::string x = p.view(in, false), y = p.view(out, true);
  p.b.for_("o", "0", str(out.channels));
  if (wdl) {
    const std::string w = x + "[n][3 * o]", d = x + "[n][3 * o + 1]", l = x + "[n][3 * o + 2]";
    const std::string top = "fmaxf(fmaxf(" + w + ", " + d + "), " + l + ")";
    auto e = [&](const std::string& v) { return "expf(" + v + " - " + top + ")"; };
    p.b.stmt(y + "[n][o] = (" + e(w) + " - " + e(l) + ") / (" + e(w) + " + " + e(d) + " + " + e(l) + ")");
  } else {
    p.b.stmt(y + "[n][o] = tanhf(" + x + "[n][o])");
  }
  p.b.end();
}

const char* kind_name(const Layer& l) {
  switch (l.kind) {
    case Layer::Kind::kPack: return "pack";
    case Layer::Kind::kConv: return l.kernel == 3 ? "conv3x3" : "conv1x1";
    case Layer::Kind::kLinear: return "linear";
    case Layer::Kind::kPool: return "pool";
    case Layer::Kind::kValue: return "value";
    case Layer::Kind::kWinograd: {
      static const char* stages[] = {"wino-in-rows", "wino-in", "wino-product", "wino-out-rows", "wino-out"};
      return stages[l.stage];
    }
  }
  return "?";
}

}  // namespace

PolyNetwork::LayerScop PolyNetwork::describe_layer(const Layer& l, isl::ctx ctx, std::optional<long long> batch) const {
  auto tensor = [&](int t) { return t >= 0 ? &tensors_[static_cast<std::size_t>(t)] : nullptr; };
  const Tensor& in = *tensor(l.input);
  const Tensor& out = *tensor(l.output);
  poly::ScopBuilder b(ctx);
  b.param("N", batch);
  LayerProgram program{b, layouts_.empty() ? nullptr : &layouts_, ""};
  b.for_("n", "0", "N");
  switch (l.kind) {
    case Layer::Kind::kPack: describe_pack(program, in, out); break;
    case Layer::Kind::kConv: describe_conv(program, l, in, out, tensor(l.residual), tensor(l.bias_planes)); break;
    case Layer::Kind::kLinear: describe_linear(program, l, in, out); break;
    case Layer::Kind::kPool: describe_pool(program, in, out); break;
    case Layer::Kind::kValue: describe_value(program, in, out, config_.wdl()); break;
    case Layer::Kind::kWinograd: describe_winograd(program, l, in, out, tensor(l.residual), tensor(l.bias_planes)); break;
  }
  b.end();
  return LayerScop{b.build(), program.decls};
}

std::map<std::string, poly::ArrayShape> PolyNetwork::logical_shapes() const {
  std::map<std::string, poly::ArrayShape> shapes;
  for (const Tensor& t : tensors_) {
    poly::ArrayShape& s = shapes[t.array];
    s.fixed = !t.external.empty();
    if (!t.dims.empty()) {
      s.extent = {-1};
      s.dims = {"n"};
      for (std::size_t d = 0; d < t.dims.size(); ++d) s.extent.push_back(t.dims[d]), s.dims.push_back("d" + str(static_cast<long long>(d)));
    } else if (t.spatial) s.extent = {-1, t.channels, t.height, t.width}, s.dims = {"n", "c", "h", "w"};
    else s.extent = {-1, t.channels}, s.dims = {"n", "c"};
  }
  for (const Layer& l : layers_) {
    const Tensor& in = tensors_[static_cast<std::size_t>(l.input)];
    const long long outputs = tensors_[static_cast<std::size_t>(l.output)].channels;
    if (l.kind == Layer::Kind::kWinograd) {
      const long long alpha = l.tile + 2;
      const Tensor& out = tensors_[static_cast<std::size_t>(l.output)];
      if (l.stage <= 1) shapes[l.weight_array] = {{alpha, alpha}, {"point", "tap"}};                // Bᵀ
      if (l.stage == 2)
        shapes[l.weight_array] = {{alpha, alpha, out.dims[3], in.dims[3]}, {"a", "b", "out", "in"}};  // U
      if (l.stage >= 3) shapes[l.weight_array] = {{l.tile, alpha}, {"output", "point"}};            // Aᵀ
      if (l.stage == 4) shapes[l.bias_array] = {{outputs}, {"out"}};
      continue;
    }
    if (l.kind == Layer::Kind::kConv)
      shapes[l.weight_array] = {{outputs, in.channels, l.kernel, l.kernel}, {"out", "in", "kh", "kw"}};
    else if (l.kind == Layer::Kind::kLinear && in.spatial)
      shapes[l.weight_array] = {{outputs, in.channels, in.height, in.width}, {"out", "c", "h", "w"}};
    else if (l.kind == Layer::Kind::kLinear)
      shapes[l.weight_array] = {{outputs, in.channels}, {"out", "in"}};
    else
      continue;
    shapes[l.bias_array] = {{outputs}, {"out"}};
  }
  return shapes;
}

std::vector<PolyArrayReport> PolyNetwork::arrays() const {
  std::vector<PolyArrayReport> out;
  for (std::size_t t = 0; t < tensors_.size(); ++t) {
    const Tensor& tensor = tensors_[t];
    const std::string caller = "caller's " + tensor.external;
    std::string writer, readers;
    for (const Layer& l : layers_) {
      if (static_cast<std::size_t>(l.output) == t) writer = l.name;
      for (int r : {l.input, l.residual, l.bias_planes})
        if (r >= 0 && static_cast<std::size_t>(r) == t) readers += (readers.empty() ? "" : ", ") + l.name;
    }
    const poly::ArrayLayout& a = layout(tensor.array);
    out.push_back({tensor.array, (writer.empty() ? caller : writer) + " -> " + (readers.empty() ? caller : readers),
                   a.describe(), a.reason});
  }
  for (const Layer& l : layers_)
    for (const auto& [array, what] : {std::pair{l.weight_array, " weights"}, std::pair{l.bias_array, " bias"}})
      if (auto it = layouts_.find(array); it != layouts_.end())
        out.push_back({array, l.name + what, it->second.describe(), it->second.reason});
  return out;
}

std::string PolyNetwork::layer_code(const Layer& l, bool analyse, PolyLayerReport& report) {
  report.name = l.name;
  report.kind = kind_name(l);
  report.flops = layer_flops(l);
  if (!l.note.empty()) report.passes.push_back(l.note);
  poly::IslContext ctx;
  LayerScop program = describe_layer(l, ctx.ctx(), analyse ? std::optional<long long>(micro_batch_) : std::nullopt);
  poly::apply_layouts(program.scop, layouts_);
  poly::PolycOptions options;
  options.register_block.enabled = true;
  options.vectorize = true;
  options.data_movement = analyse;
  if (analyse) options.tile.cache = poly::CacheInfo::detect();
  poly::ScopReport scop_report;
  const std::string body = poly::optimize_scop(ctx, program.scop, options, scop_report, "    ");
  report.schedule = scop_report.schedule_origin;
  report.passes.insert(report.passes.end(), scop_report.passes.begin(), scop_report.passes.end());
  report.scop = std::move(scop_report);
  return "  /* " + l.name + " (" + report.kind + ") */\n  {\n" + program.decls + body + "  }\n";
}

bool PolyNetwork::has_winograd() const {
  return std::any_of(layers_.begin(), layers_.end(), [](const Layer& l) { return l.kind == Layer::Kind::kWinograd; });
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

// The batch-norm after a convolution with the conv's own bias folded into its shift.
ChannelAffine conv_affine(const NetWeights& named, const Layer& l, std::size_t co) {
  ChannelAffine bn = batch_norm_affine(named, l.batch_norm, co);
  if (!l.bias.empty()) {
    const auto& bias = weight(named, l.bias, co).values;
    for (std::size_t c = 0; c < co; ++c) bn.shift[c] += bias[c] * bn.scale[c];
  }
  return bn;
}

// A Winograd stage's constant data (nn/poly/winograd.h): Bᵀ, U = G g Gᵀ per (out, in) pair
// with the batch-norm's scale folded into g, Aᵀ, and the folded bias, in polyc's layouts.
void pack_winograd(const NetWeights& named, const Layer& l, std::size_t ci, std::size_t co, const poly::ArrayLayout& weights,
                   const poly::ArrayLayout* biases, float* out) {
  const WinogradMatrices wm = winograd_matrices(l.tile);
  const long long alpha = wm.alpha, m = wm.m;
  float* w = out + l.weight_offset;
  if (l.stage <= 1)
    for (long long i = 0; i < alpha; ++i)
      for (long long j = 0; j < alpha; ++j) w[weights.offset({i, j})] = static_cast<float>(wm.bt[static_cast<std::size_t>(i * alpha + j)]);
  if (l.stage >= 3)
    for (long long i = 0; i < m; ++i)
      for (long long j = 0; j < alpha; ++j) w[weights.offset({i, j})] = static_cast<float>(wm.at[static_cast<std::size_t>(i * alpha + j)]);
  if (l.stage != 2 && l.stage != 4) return;
  const ChannelAffine bn = conv_affine(named, l, co);
  if (l.stage == 4)
    for (long long c = 0; c < static_cast<long long>(co); ++c)
      out[l.bias_offset + biases->offset({c})] = bn.shift[static_cast<std::size_t>(c)];
  if (l.stage != 2) return;
  const WeightTensor& g = weight(named, l.weight, co * ci * 9);
  for (std::size_t o = 0; o < co; ++o)
    for (std::size_t i = 0; i < ci; ++i) {
      const float* f = g.values.data() + (o * ci + i) * 9;
      double gg[6][3];  // G g, alpha × 3
      for (long long a = 0; a < alpha; ++a)
        for (int q = 0; q < 3; ++q) {
          double sum = 0;
          for (int p = 0; p < 3; ++p) sum += wm.g[static_cast<std::size_t>(a * 3 + p)] * f[p * 3 + q];
          gg[a][q] = sum;
        }
      for (long long a = 0; a < alpha; ++a)
        for (long long b = 0; b < alpha; ++b) {
          double sum = 0;
          for (int q = 0; q < 3; ++q) sum += gg[a][q] * wm.g[static_cast<std::size_t>(b * 3 + q)];
          w[weights.offset({a, b, static_cast<long long>(o), static_cast<long long>(i)})] = static_cast<float>(sum * bn.scale[o]);
        }
    }
}

// torch's [out][in][kh][kw], the batch-norm and the conv's bias folded in, written in the
// layouts polyc chose.
void pack_conv(const NetWeights& named, const Layer& l, std::size_t ci, std::size_t co, const poly::ArrayLayout& weights,
               const poly::ArrayLayout& biases, float* out) {
  const long long k = l.kernel;
  const WeightTensor& w = weight(named, l.weight, co * ci * static_cast<std::size_t>(k * k));
  const ChannelAffine bn = conv_affine(named, l, co);
  std::size_t at = 0;
  for (long long o = 0; o < static_cast<long long>(co); ++o)
    for (long long i = 0; i < static_cast<long long>(ci); ++i)
      for (long long p = 0; p < k; ++p)
        for (long long q = 0; q < k; ++q) out[l.weight_offset + weights.offset({o, i, p, q})] = w.values[at++] * bn.scale[static_cast<std::size_t>(o)];
  for (long long c = 0; c < static_cast<long long>(co); ++c) out[l.bias_offset + biases.offset({c})] = bn.shift[static_cast<std::size_t>(c)];
}

// torch's [out][in], `in` flattened as [c][h][w] for spatial inputs (the logical weight
// [out][c][h][w]), written in the layouts polyc chose. A batch-norm named here follows the
// sum this layer feeds: only its scale applies.
void pack_linear(const NetWeights& named, const Layer& l, const Tensor& in, std::size_t m, const poly::ArrayLayout& weights,
                 const poly::ArrayLayout& biases, float* out) {
  const std::size_t k = in.values_per_position();
  const WeightTensor& w = weight(named, l.weight, m * k);
  const auto& bias = weight(named, l.bias, m).values;
  const std::vector<float> scale = batch_norm_affine(named, l.batch_norm, m).scale;
  const long long hw = static_cast<long long>(in.height) * in.width;
  for (std::size_t j = 0; j < m; ++j) {
    const long long o = static_cast<long long>(j);
    for (std::size_t i = 0; i < k; ++i) {
      const long long x = static_cast<long long>(i);
      const std::size_t to = in.spatial ? weights.offset({o, x / hw, x % hw / in.width, x % in.width}) : weights.offset({o, x});
      out[l.weight_offset + to] = w.values[j * k + i] * scale[j];
    }
    out[l.bias_offset + biases.offset({o})] = bias[j] * scale[j];
  }
}

}  // namespace

std::vector<float> PolyNetwork::pack(const NetWeights& named) const {
  std::vector<float> out(weight_floats_, 0.0f);
  for (const Layer& l : layers_) {
    const Tensor& in = tensors_[static_cast<std::size_t>(l.input)];
    const Tensor& o = tensors_[static_cast<std::size_t>(l.output)];
    if (l.kind == Layer::Kind::kConv)
      pack_conv(named, l, static_cast<std::size_t>(in.channels), static_cast<std::size_t>(o.channels), layout(l.weight_array),
                layout(l.bias_array), out.data());
    else if (l.kind == Layer::Kind::kWinograd) {
      const std::size_t ci = static_cast<std::size_t>(in.dims.empty() ? in.channels : in.dims.back());
      const std::size_t co = static_cast<std::size_t>(o.dims.empty() ? o.channels : o.dims.back());
      pack_winograd(named, l, ci, co, layout(l.weight_array), l.stage == 4 ? &layout(l.bias_array) : nullptr, out.data());
    } else if (l.kind == Layer::Kind::kLinear)
      pack_linear(named, l, in, o.values_per_position(), layout(l.weight_array), layout(l.bias_array), out.data());
  }
  return out;
}

}  // namespace pz::nn
