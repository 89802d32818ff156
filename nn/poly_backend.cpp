#include "nn/poly_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "nn/poly_network.h"
#include "polyhedral/jit.h"
#include "util/files.h"
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

// One plan of a network's forward pass, generated and compiled (or found in the JIT cache).
struct CompiledNetwork {
  std::unique_ptr<PolyNetwork> network;
  std::shared_ptr<poly::JitModule> module;
  ForwardFn* forward = nullptr;
  std::string key;  // the JIT cache's key of its source
};

std::shared_ptr<CompiledNetwork> compile_plan(const NetConfig& config, const NetShape& shape, const poly::JitCache& cache,
                                              int winograd) {
  auto c = std::make_shared<CompiledNetwork>();
  c->network = std::make_unique<PolyNetwork>(config, shape, 0, winograd);
  const std::string source = c->network->source();
  c->key = cache.key(source);
  try {
    c->module = cache.load(source);
  } catch (const std::exception& e) {
    throw std::runtime_error("poly backend: the forward pass of the " + config.type + " network (" +
                             std::to_string(config.blocks) + " blocks x " + std::to_string(config.channels) +
                             " channels) failed to compile: " + e.what());
  }
  c->forward = c->module->function<ForwardFn>("pz_forward");
  return c;
}

// Seconds per position of `plan`'s forward pass: each round() runs its micro-batch of
// zeros (inputs and weights do not change the work) for about `seconds`; best() is the
// fastest round so far (the caller interleaves the rounds of the plans it compares).
class PlanTimer {
 public:
  PlanTimer(const CompiledNetwork& plan, const NetShape& shape)
      : plan_(plan), micro_(plan.network->micro_batch()),
        input_(aligned_zeros(static_cast<std::size_t>(micro_) * static_cast<std::size_t>(shape.input.size()))),
        policy_(aligned_zeros(static_cast<std::size_t>(micro_) * static_cast<std::size_t>(shape.policy.size()))),
        values_(aligned_zeros(static_cast<std::size_t>(micro_) * static_cast<std::size_t>(shape.value_outputs))),
        arena_(aligned_zeros(plan.network->arena_floats())), weights_(aligned_zeros(plan.network->weight_floats())) {}

  void round(double seconds) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    int calls = 0;
    do {
      plan_.forward(micro_, input_.get(), policy_.get(), values_.get(), arena_.get(), weights_.get());
      ++calls;
    } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds);
    best_ = std::min(best_, std::chrono::duration<double>(Clock::now() - start).count() / (calls * micro_));
  }
  double best() const { return best_; }

 private:
  const CompiledNetwork& plan_;
  int micro_;
  AlignedFloats input_, policy_, values_, arena_, weights_;
  double best_ = 1e300;
};

// Whether the all-direct plan runs faster on this machine than the cost model's plan with
// Winograd layers (the model's transform weight is one number for every machine; how much
// the transforms cost against the products is not): five interleaved rounds of about 4 ms
// each, the best round of each plan. The model's plan stays unless the direct one is 3%
// faster, so that a tie does not flip between runs.
bool direct_measured_faster(const CompiledNetwork& model, const CompiledNetwork& direct, const NetShape& shape) {
  PlanTimer a(model, shape), b(direct, shape);
  a.round(0.001);  // first touches of the arenas
  b.round(0.001);
  for (int r = 0; r < 5; ++r) {
    a.round(0.004);
    b.round(0.004);
  }
  return b.best() < 0.97 * a.best();
}

// A network's forward pass, compiled and loaded once per process (polyc takes a second or
// two per network; every engine builds two backends, and matches build engines per
// player). With the model's Winograd layers ("auto"), the plan is the faster of that one and
// the all-direct one as measured once on this machine: the answer is kept beside the
// model's compiled plan in the JIT cache (`<key>.winograd`: "winograd" or "direct"), so a
// later process neither generates the other plan nor times them again.
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
  poly::JitCache cache(cache_dir.empty() ? poly::default_cache_dir() : cache_dir, "gcc", kFlags);
  std::shared_ptr<CompiledNetwork> plan = compile_plan(config, shape, cache, winograd);
  if (winograd == PolyNetwork::kWinogradAuto && plan->network->has_winograd()) {
    const std::string choice_path = cache.dir() + "/" + plan->key + ".winograd";
    std::string choice;
    try {
      choice = util::read_text_file(choice_path, 64);
    } catch (const std::exception&) {
      // Not measured yet on this machine (or unreadable): measured below.
    }
    if (choice == "direct\n") {
      plan = compile_plan(config, shape, cache, 0);
    } else if (choice != "winograd\n") {
      std::shared_ptr<CompiledNetwork> direct = compile_plan(config, shape, cache, 0);
      const bool faster = direct_measured_faster(*plan, *direct, shape);
      try {
        util::write_text_atomically(choice_path, faster ? "direct\n" : "winograd\n");
      } catch (const std::exception&) {
        // A cache the process cannot write to: measured again by the next process.
      }
      if (faster) plan = direct;
    }
  }
  compiled.emplace(key, plan);
  return plan;
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
