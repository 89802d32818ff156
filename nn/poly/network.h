// A policy-value network (network.h) as polyhedral programs: each layer is its loop nest
// in plain mathematical form, described with polyhedral/'s ScopBuilder, and polyc's passes
// turn each into optimised C (convolutions and linear layers become register-blocked
// reduction chains, register_blocking.h). The layers together make one C function
//
//   void pz_forward(int N, const float* input, float* policy, float* value,
//                   float* arena, const float* weights)
//
// that evaluates N ≤ micro_batch positions, which the poly backend compiles through the JIT.
//
// Both network types of network.h are generated: "resnet", and "pooled" (global pooling
// blocks and pooled heads: per channel mean, mean × (√(H·W) − 14)/10 and max, then a linear
// layer whose output is added to a convolution's output before its ReLU).
//
// Decisions (nn/README.md has the reasons):
//  - Layout: every tensor is described in its logical shape ([n][c][h][w] activations,
//    torch's [out][in][kh][kw] weights), and polyc's layout pass (polyhedral/transform/layout.h) chooses
//    how each is stored from the layers' accesses: for these networks channel-last
//    activations with a zero border of one cell where a 3×3 convolution reads them, and
//    weights with the output channel innermost. The caller's input, policy and value
//    buffers keep their declared NCHW order. pack() writes the weights in the chosen layouts.
//  - 3×3 convolutions may run as Winograd F(m×m, 3×3) (nn/poly/winograd.h): five layers, each
//    a reduction chain like the direct convolution (input transform by rows, then by
//    columns; the product per transformed point, a contraction over input channels; output
//    transform by rows, then by columns with bias, skip and ReLU), m chosen per layer by
//    nn/poly/winograd.h's cost model, the transformed weights U = G g Gᵀ written by pack().
//  - Batch-norm is folded into the preceding convolution (W·γ/σ, β − μγ/σ); bias, the
//    residual add and ReLU are the final statement of the convolution's chain, applied while
//    the block is in registers.
//  - Depth-first micro-batches: the backend runs the whole network on micro_batch positions
//    at a time (16 for Connect Four, 1 for a 19×19 board with 128 channels), so a layer's
//    input and output stay in L2 whatever the batch size.
//  - The arena holds the activations of one micro-batch, placed by polyc's storage plan
//    (polyhedral/transform/storage_plan.h): a tensor is live from the layer that writes it to the
//    last layer that reads it, and regions are shared by tensors whose ranges do not
//    overlap (a bordered tensor only with its own layout: the border is zeroed once, when
//    the arena is allocated, and never written).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nn/net_config.h"
#include "nn/weights.h"
#include "polyhedral/report.h"
#include "polyhedral/transform/layout.h"
#include "polyhedral/transform/storage_plan.h"

namespace pz::nn {

struct PolyLayerReport {
  std::string name;      // "tower.0.conv1"
  std::string kind;      // "conv3x3", "conv1x1", "linear", "pack", "value", "wino-…" (nn/poly/winograd.h)
  double flops = 0;      // per position (multiply-add = 2)
  std::string schedule;  // what polyc chose ("register-blocked reduction chain: …")
  std::vector<std::string> passes;  // a 3×3 convolution's first entry: "winograd: " and why (nn/poly/winograd.h)
  poly::ScopReport scop;  // polyc's whole report (with data movement when analysed)
};

// One array of the generated code and the layout polyc chose for it.
struct PolyArrayReport {
  std::string array;   // "t3"
  std::string role;    // "tower.0.conv1 -> tower.0.conv2" or "tower.0.conv1 weights"
  std::string layout;  // ArrayLayout::describe()
  std::string reason;
};

class PolyNetwork {
 public:
  // micro_batch 0: the most positions (up to 16) whose largest activation, read and written
  // by one layer, fits in three quarters of this machine's L2. winograd (nn/poly/winograd.h):
  // kWinogradAuto: 3×3 convolutions as F(m×m, 3×3) where the cost model says it pays;
  // 0: all direct; 2, 3 or 4: every 3×3 convolution as F(m×m, 3×3) (for tests and benches).
  static constexpr int kWinogradAuto = -1;
  PolyNetwork(const NetConfig& config, const NetShape& shape, int micro_batch = 0, int winograd = kWinogradAuto);

  // The C translation unit; runs polyc on every layer (a second or two). With `analyse`,
  // the batch is fixed to one micro-batch and polyc also reports footprints and data
  // movement (layers()[k].scop.data_movement): for reports, not for compiling.
  std::string source(bool analyse = false);
  // The weights in the layouts the generated code reads, batch-norm folded in.
  std::vector<float> pack(const NetWeights& weights) const;

  int micro_batch() const { return micro_batch_; }
  std::size_t arena_floats() const { return arena_floats_; }
  std::size_t weight_floats() const { return weight_floats_; }
  std::size_t unplanned_arena_floats() const { return storage_.unshared_elements; }  // what sharing saves
  double flops_per_position() const;  // multiply-add = 2, without generating the code
  bool has_winograd() const;          // some 3×3 convolution runs as F(m×m, 3×3)
  const std::vector<PolyLayerReport>& layers() const { return reports_; }
  std::vector<PolyArrayReport> arrays() const;

  struct Tensor {
    int channels = 0, height = 1, width = 1;
    bool spatial = false;   // [n][c][h][w]; else [n][c]
    std::string external;   // "input", "policy", "value": a pointer argument, not the arena
    std::vector<int> dims;  // else, when not empty: [n][dims...] (a Winograd stage's tiles)
    std::string array;      // its name in the generated code ("t3")
    std::size_t offset = 0; // in the arena, floats
    std::size_t values_per_position() const;  // channels × height × width
  };
  struct Layer {
    // kWinograd: one of the five stages of a 3×3 convolution as F(m×m, 3×3), nn/poly/winograd.h
    enum class Kind { kPack, kConv, kLinear, kPool, kValue, kWinograd } kind;
    std::string name;
    int input = -1, output = -1, residual = -1;
    int bias_planes = -1;  // a [n][channel] tensor added before the ReLU (pooled networks)
    int kernel = 1;
    bool relu = false;
    // torch names: conv/linear weight, its bias, the BN prefix (folded into a convolution;
    // for a linear layer that feeds bias_planes, its scale only: the BN follows the sum)
    std::string weight, bias, batch_norm;
    std::string weight_array, bias_array;  // names in the generated code ("w5", "b5")
    std::size_t weight_offset = 0, bias_offset = 0;
    // kWinograd: the stage (0 input rows, 1 input columns, 2 product, 3 output rows,
    // 4 output columns with bias, skip and ReLU), the tile m, the board, and the direct
    // convolution's FLOPs (counted on the product stage); the cost model's reason.
    int stage = 0, tile = 0, board_height = 0, board_width = 0;
    double direct_flops = 0;
    std::string note;
  };

 private:
  int add_tensor(Tensor t);
  void add_layer(Layer layer);
  int conv(const std::string& name, int input, int out_channels, int kernel, const std::string& batch_norm,
           bool relu, int residual = -1, const std::string& conv_name = "", int bias_planes = -1);
  int linear(const std::string& name, int input, int outputs, bool relu, const std::string& batch_norm = "");
  int global_pool(const std::string& name, int input);
  std::map<std::string, poly::ArrayShape> logical_shapes() const;
  void plan();  // layouts, weight offsets, micro-batch, arena
  const poly::ArrayLayout& layout(const std::string& array) const;
  std::size_t floats_per_position(const Tensor& t) const;  // in memory, padding included
  int fitting_micro_batch() const;
  double layer_flops(const Layer& layer) const;
  // The layer's loop nest; with layouts chosen, also the C declarations of its arrays.
  struct LayerScop {
    poly::Scop scop;
    std::string decls;
  };
  LayerScop describe_layer(const Layer& layer, isl::ctx ctx, std::optional<long long> batch) const;
  std::string layer_code(const Layer& layer, bool analyse, PolyLayerReport& report);

  NetConfig config_;
  NetShape shape_;
  int micro_batch_;
  int winograd_;
  std::vector<Tensor> tensors_;
  std::vector<Layer> layers_;
  std::vector<PolyLayerReport> reports_;
  std::map<std::string, poly::ArrayLayout> layouts_;  // chosen by polyc's layout pass
  poly::StoragePlan storage_;                          // the arena of one micro-batch
  std::size_t arena_floats_ = 0, weight_floats_ = 0;
};

}  // namespace pz::nn
