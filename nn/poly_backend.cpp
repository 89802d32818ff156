#include "nn/poly_backend.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "nn/poly_network.h"
#include "polyhedral/jit.h"
#include "util/thread_team.h"

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
                                                        const std::string& cache_dir, int winograd) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CompiledNetwork>> compiled;
  const games::Shape &in = shape.input, &p = shape.policy;
  const std::string key = config.to_json().dump() + " " + std::to_string(in.channels) + "x" + std::to_string(in.height) + "x" +
                          std::to_string(in.width) + " " + std::to_string(p.channels) + "x" + std::to_string(p.height) +
                          "x" + std::to_string(p.width) + " " + std::to_string(shape.value_outputs) + " " + cache_dir +
                          " winograd " + std::to_string(winograd);
  std::lock_guard lock(mutex);
  if (auto it = compiled.find(key); it != compiled.end()) return it->second;
  auto c = std::make_shared<CompiledNetwork>();
  c->network = std::make_unique<PolyNetwork>(config, shape, 0, winograd);
  const std::string source = c->network->source();
  poly::JitCache cache(cache_dir.empty() ? poly::default_cache_dir() : cache_dir, "gcc", kFlags);
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

// BackendOptions::winograd as PolyNetwork's argument; PZ_POLY_WINOGRAD, when set, stands in
// for the default "auto" (an explicit choice wins).
int winograd_mode(const BackendOptions& options) {
  const char* env = std::getenv("PZ_POLY_WINOGRAD");
  const std::string mode = options.winograd == "auto" && env && *env ? env : options.winograd;
  if (mode == "auto") return PolyNetwork::kWinogradAuto;
  if (mode == "off") return 0;
  if (mode == "2" || mode == "3" || mode == "4") return mode[0] - '0';
  throw std::invalid_argument("poly backend: winograd is \"" + mode + "\", expected auto, off, 2, 3 or 4");
}

class PolyBackend final : public Backend {
 public:
  PolyBackend(const NetConfig& config, const NetShape& shape, const BackendOptions& options)
      : shape_(shape), compiled_(compiled_network(config, shape, options.cache_dir, winograd_mode(options))),
        network_(*compiled_->network),
        threads_(std::max(1, options.threads)) {
    forward_ = compiled_->forward;
    for (int t = 0; t < threads_; ++t) arenas_.push_back(aligned_zeros(network_.arena_floats()));
    weights_ = aligned_zeros(network_.weight_floats());
  }

  // Micro-batches in order on one thread; with threads > 1, claimed one at a time by the
  // team (each member has its own arena), so a descheduled member delays only the
  // micro-batch it holds, never a barrier per layer.
  void forward(const float* input, int rows, float* policy, float* values) override {
    const int micro = network_.micro_batch();
    const int chunks = (rows + micro - 1) / micro;
    auto run = [&](int chunk, int member) {
      const int at = chunk * micro, n = std::min(micro, rows - at);
      const std::size_t r = static_cast<std::size_t>(at);
      forward_(n, input + r * static_cast<std::size_t>(shape_.input.size()),
               policy + r * static_cast<std::size_t>(shape_.policy.size()),
               values + r * static_cast<std::size_t>(shape_.value_outputs), arenas_[static_cast<std::size_t>(member)].get(),
               weights_.get());
    };
    if (threads_ == 1 || chunks == 1) {
      for (int c = 0; c < chunks; ++c) run(c, 0);
      return;
    }
    std::atomic<int> next{0};
    team_.run(std::min(threads_, chunks), [&](int member) {
      for (int c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) run(c, member);
    });
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
  int threads_;
  std::vector<AlignedFloats> arenas_;  // one per member of the team
  AlignedFloats weights_;
  util::ThreadTeam team_;
};

}  // namespace

std::unique_ptr<Backend> make_poly_backend(const NetConfig& config, const NetShape& shape, const BackendOptions& options) {
  return std::make_unique<PolyBackend>(config, shape, options);
}

}  // namespace pz::nn
