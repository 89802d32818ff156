#include "nn/poly_backend.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "nn/poly_network.h"
#include "polyhedral/jit.h"

namespace pz::nn {

namespace {

using ForwardFn = void(int, const float*, float*, float*, float*, const float*);

// The generated code is plain C with `omp simd` marks; one thread per evaluator, so no
// OpenMP runtime. 512-bit vectors: GCC 12 prefers 256 on this generation unless told.
// -fno-gcse: GCC's RTL global CSE merges the weight loads of a register block's unrolled
// rows into one value that then does not fit beside the accumulators, and spills it to
// the stack on every step of the reduction (nn/README.md has the measurement).
constexpr const char* kFlags =
    "-O3 -march=native -mprefer-vector-width=512 -fno-gcse -fopenmp-simd -fno-math-errno -fPIC -shared";

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using AlignedFloats = std::unique_ptr<float[], AlignedFree>;

AlignedFloats aligned_zeros(std::size_t n) {
  const std::size_t bytes = std::max<std::size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  std::fill_n(p, bytes / sizeof(float), 0.0f);
  return AlignedFloats(p);
}

// A network's generated forward pass, compiled and loaded once per process (polyc takes
// a second or two per network; every engine builds two backends, and matches build engines
// per player).
struct CompiledNetwork {
  std::unique_ptr<PolyNetwork> network;
  std::shared_ptr<poly::JitModule> module;
  ForwardFn* forward = nullptr;
};

std::shared_ptr<const CompiledNetwork> compiled_network(const NetConfig& config, const NetShape& shape,
                                                        const std::string& cache_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CompiledNetwork>> compiled;
  const games::Shape &in = shape.input, &p = shape.policy;
  const std::string key = config.to_json().dump() + " " + std::to_string(in.channels) + "x" + std::to_string(in.height) + "x" +
                          std::to_string(in.width) + " " + std::to_string(p.channels) + "x" + std::to_string(p.height) +
                          "x" + std::to_string(p.width) + " " + std::to_string(shape.value_outputs) + " " + cache_dir;
  std::lock_guard lock(mutex);
  if (auto it = compiled.find(key); it != compiled.end()) return it->second;
  auto c = std::make_shared<CompiledNetwork>();
  c->network = std::make_unique<PolyNetwork>(config, shape);
  const std::string source = c->network->source();
  poly::JitCache cache(cache_dir.empty() ? default_kernel_cache() : cache_dir, "gcc", kFlags);
  try {
    c->module = cache.load(source);
  } catch (const std::exception& e) {
    throw std::runtime_error("poly backend: the forward pass of the " + config.type + " network (" +
                             std::to_string(config.blocks) + " blocks x " + std::to_string(config.channels) +
                             " channels) failed to compile: " + e.what());
  }
  c->forward = c->module->function<ForwardFn>("pz_forward");
  compiled.emplace(key, c);
  return c;
}

class PolyBackend final : public Backend {
 public:
  PolyBackend(const NetConfig& config, const NetShape& shape, const BackendOptions& options)
      : shape_(shape), compiled_(compiled_network(config, shape, options.cache_dir)), network_(*compiled_->network) {
    forward_ = compiled_->forward;
    arena_ = aligned_zeros(network_.arena_floats());
    weights_ = aligned_zeros(network_.weight_floats());
  }

  void forward(const float* input, int rows, float* policy, float* values) override {
    const int micro = network_.micro_batch();
    const std::size_t in = static_cast<std::size_t>(shape_.input.size()), out = static_cast<std::size_t>(shape_.policy.size());
    const std::size_t vo = static_cast<std::size_t>(shape_.value_outputs);
    for (int at = 0; at < rows; at += micro) {
      const int n = std::min(micro, rows - at);
      const std::size_t r = static_cast<std::size_t>(at);
      forward_(n, input + r * in, policy + r * out, values + r * vo, arena_.get(), weights_.get());
    }
  }

  void load(const NetWeights& weights) override {
    const std::vector<float> packed = network_.pack(weights);
    std::copy(packed.begin(), packed.end(), weights_.get());
  }

  std::string name() const override { return "poly"; }

 private:
  NetShape shape_;
  std::shared_ptr<const CompiledNetwork> compiled_;
  const PolyNetwork& network_;
  ForwardFn* forward_ = nullptr;
  AlignedFloats arena_, weights_;
};

}  // namespace

std::string default_kernel_cache() {
  if (const char* dir = std::getenv("PZ_KERNEL_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/polyzero/kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/polyzero/kernels";
  return "/tmp/polyzero-kernels";
}

std::unique_ptr<Backend> make_poly_backend(const NetConfig& config, const NetShape& shape, const BackendOptions& options) {
  return std::make_unique<PolyBackend>(config, shape, options);
}

}  // namespace pz::nn
